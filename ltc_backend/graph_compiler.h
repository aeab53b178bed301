// graph_compiler: turns a synced LTC graph (MlirComputation) into native
// code, or marks it for the TorchScript fallback with the reason.
#pragma once

#include <memory>
#include <string>

#include "ltc_backend/computation.h"
#include "ltc_mlir/Compiler/Compiler.h"

namespace ltc_mlir {
namespace backend {

// Emits the torch-dialect module, compiles it through mlir_lowering and sets
// comp.executable. A graph with ops the compiler cannot lower runs as native
// segments around them (TryPartition, torchscript/boundary.h); on any other failure sets
// comp.fallback_ops / fallback_reason (and warns). Never throws for
// unsupported graphs.
void CompileComputation(MlirComputation& comp);

// A torch-dialect module compiled (or loaded from the persistent cache).
struct NativeCode {
  std::shared_ptr<runtime::Executable> executable;  // null on failure
  CompileResult result;                             // error, unsupported ops
  bool from_disk = false;
  // Reused from another live graph with the same module text (no compile).
  bool reused = false;
  // Not compiled: a new shape of a graph compiled in enough shapes already
  // (shape_variants.h); only when allow_defer.
  bool deferred = false;
  // Code for every batch size (batch_families.h), compiled or run anew.
  bool batch_generic = false;
};
// allow_batch_generic: the caller runs code with dynamic sizes (PrepareNative
// passes each buffer's sizes), so code for every batch size may serve it
// (batch_families.h); the partitioned graphs' segments do not.
NativeCode CompileEmitted(const std::string& module_text, const std::string& name,
                          double emit_ms, bool allow_defer = false,
                          bool allow_batch_generic = false);

// Compiles a graph whose compile was deferred (its shape recurred).
void CompileDeferred(MlirComputation& comp);

// "graph_<hash of the module text>".
std::string GraphName(const std::string& module_text);

}  // namespace backend
}  // namespace ltc_mlir
