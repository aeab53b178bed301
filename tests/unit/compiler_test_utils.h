//===- compiler_test_utils.h - compiler unit test helpers -------*- C++ -*-===//
//
// Compiling torch-dialect text and running the result through the runtime,
// shared by the compiler_*_test.cpp files (one executable).
//
//===----------------------------------------------------------------------===//
#ifndef LTC_MLIR_TESTS_UNIT_COMPILER_TEST_UTILS_H
#define LTC_MLIR_TESTS_UNIT_COMPILER_TEST_UTILS_H

#include "ltc_mlir/Compiler/Compiler.h"
#include "ltc_mlir/runtime/executable.h"
#include "ltc_mlir/runtime/openmp.h"
#include "ltc_mlir/runtime/symbols.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ltc_mlir::test {

/// Options resolving the runtime's and OpenMP's symbols, as ltc_backend does.
inline CompileOptions defaultOptions() {
  CompileOptions options;
  options.symbolResolver = [](const std::string &name) {
    if (void *address = runtime::resolveRuntimeSymbol(name))
      return address;
    return runtime::resolveOpenMPSymbol(name);
  };
  return options;
}

/// Compiles `text`; fails the test (and returns null) on error.
inline std::shared_ptr<CompiledFunction> compile(const std::string &text) {
  CompileResult r = compileTorchModule(text, defaultOptions());
  EXPECT_NE(r.function, nullptr) << r.error;
  return r.function;
}

/// An executable calling `f` with the signature it was compiled with.
inline runtime::Executable load(const CompiledFunction &f) {
  auto specs = [](const std::vector<ValueDesc> &descs) {
    std::vector<runtime::ArgSpec> out;
    for (const ValueDesc &d : descs) {
      runtime::ArgSpec s;
      s.kind = d.kind == ValueKind::Tensor ? runtime::ArgKind::Tensor
               : d.kind == ValueKind::Int  ? runtime::ArgKind::Int
                                           : runtime::ArgKind::Float;
      s.shape = d.shape;
      out.push_back(s);
    }
    return out;
  };
  return runtime::Executable(f.entry, specs(f.inputs), specs(f.outputs),
                             f.owner, f.checkMessages);
}

/// The message of the std::runtime_error `run` throws (a failed runtime
/// check), or "<no exception>".
inline std::string runtimeErrorOf(const std::function<void()> &run) {
  try {
    run();
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "<no exception>";
}

} // namespace ltc_mlir::test

#endif // LTC_MLIR_TESTS_UNIT_COMPILER_TEST_UTILS_H
