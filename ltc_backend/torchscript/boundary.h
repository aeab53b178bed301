// boundary: the one interface between ltc_backend and TorchScript.
//
// torch's LTC lowers every IR node into a TorchScript graph (TsNode::Lower
// into a TSLoweringContext), and its TorchScript backend supplies the
// generated Lazy kernels, IR builder and device-data services that our
// backend builds on. Only the sources in ltc_backend/torchscript/ include
// TorchScript headers; everything else reaches them through these
// declarations, which name no TorchScript type. Replacing TorchScript
// (lowering LTC nodes straight to our torch dialect, running fallbacks
// through the dispatcher) means reimplementing this header.
//
// One type still comes from the TS backend outside this directory: MlirData
// derives from its TSData (backend_data.h), because the TS backend's
// generated kernels and services create and cast to TSData.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/csrc/lazy/backend/backend_data.h>
#include <torch/csrc/lazy/backend/backend_interface.h>
#include <torch/csrc/lazy/backend/lowering_context.h>
#include <torch/csrc/lazy/core/ir.h>
#include <torch/csrc/lazy/core/shape.h>

#include <memory>
#include <string>
#include <vector>

#include "ltc_backend/emitted_module.h"

namespace ltc_mlir {
namespace backend {

class MlirComputation;

// One synced LTC graph in lowered form (today a TorchScript graph).
class TracedGraph {
 public:
  virtual ~TracedGraph() = default;
  // The graph's inputs (LTC's parameters), in order.
  virtual std::vector<std::string> InputNames() const = 0;
  virtual std::string ToString() const = 0;
  // Its ATen ops ("aten::mm"), in graph order, repeats included.
  virtual std::vector<std::string> AtenOps() const = 0;
  // The torch-dialect module; `input_shapes[i]` is graph input i's shape
  // and dtype when it is a tensor.
  virtual EmittedModule EmitTorchDialect(
      const std::vector<torch::lazy::Shape>& input_shapes) const = 0;
  // The fallback: runs the graph op by op with ATen's CPU kernels. `stack`
  // holds the inputs (host tensors or scalars) and then the outputs. An op's
  // error is raised again with its own type and message and the graph's
  // `name`.
  virtual void Interpret(torch::jit::Stack& stack, const std::string& name) const = 0;
};

// LTC's lowering context for this backend: its Build() returns an
// MlirComputation holding the TracedGraph.
std::unique_ptr<torch::lazy::LoweringContext> MakeLoweringContext(
    const std::string& name, torch::lazy::BackendDevice device);
std::unique_ptr<torch::lazy::LoweringContext> MakeLoweringContext(
    const std::string& name, torch::lazy::BackendDevice device,
    c10::ArrayRef<const torch::lazy::Node*> post_order,
    torch::lazy::Util::EmissionMap emit_status);

// How one schema argument of an AtenOpNode (lazy_kernels/aten_op_node.h)
// reaches the op.
struct AtenOpArg {
  // kOptionalOperandList: a `Tensor?[]` (index's indices); `present` says
  // which elements are tensors (operands, in order) and which None.
  enum class Kind { kOperand, kOperandList, kOptionalOperandList, kConstant };
  Kind kind = Kind::kConstant;
  size_t first_operand = 0;   // kOperand, kOperandList, kOptionalOperandList
  size_t num_operands = 0;    // kOperandList, kOptionalOperandList
  std::vector<bool> present;  // kOptionalOperandList
  c10::IValue constant;       // kConstant
};
// An IR node calling `op` with `args`; `shapes` are its results'.
torch::lazy::NodePtr MakeAtenOpNode(const c10::OperatorHandle& op, torch::lazy::OpList operands,
                                    std::vector<AtenOpArg> args,
                                    std::vector<torch::lazy::Shape> shapes);

// Partial graphs (partitioned_graph.cpp): a graph holding ops the compiler
// cannot lower runs as native segments (maximal runs of lowerable ops,
// compiled like whole graphs) with only the other ops run by ATen's CPU
// kernels. TryPartition splits comp's graph around the ops in `unsupported`
// (names as the emitter reports them, "aten::topk", or the compiler,
// "torch.aten.topk") and compiles the segments. On success it sets
// comp.partitioned, comp.native_op_counts, comp.fallback_ops (the ops run by
// ATen) and a fallback_reason (with `why`) saying how much is native, and
// returns true. It returns false (comp untouched) when nothing would run
// natively or a segment does not compile: the whole graph then falls back.
bool TryPartition(MlirComputation& comp, const std::vector<std::string>& unsupported,
                  const std::string& why);
std::vector<torch::lazy::BackendDataPtr> RunPartitioned(
    MlirComputation& comp, c10::ArrayRef<torch::lazy::BackendDataPtr> arguments,
    const torch::lazy::BackendDevice& device);

// The TorchScript backend's generated Lazy and AutogradLazy kernels, which
// our own kernels override or wrap. Not idempotent (call once).
void RegisterTorchScriptBackendKernels();
// The TorchScript backend's services our backend delegates to (IR builder,
// device data, devices).
torch::lazy::BackendImplInterface* TorchScriptBackendServices();

}  // namespace backend
}  // namespace ltc_mlir
