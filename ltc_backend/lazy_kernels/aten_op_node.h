// aten_op_node: any ATen op as an LTC IR node, without per-op code.
//
// torch's LTC only knows the ops it generated IR classes for (~170 in 2.14);
// every other op falls back to eager per call, cutting the graph. An
// AtenOpNode records the op's schema, its tensor arguments as operands and
// everything else as constants. Output shapes and dtypes come from running
// the op on meta tensors (MetaOutputShapes). The node itself is made by
// MakeAtenOpNode (torchscript/boundary.h), whose lowering emits it as an
// ordinary aten:: call.
//
//   RegisterAtenOpKernel("erf");          // erf now stays in the lazy graph
//
// From C++ (our own kernels): CallAtenOpLazily(op, stack). See
// docs/adding_an_op.md.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <torch/csrc/lazy/core/shape.h>

#include <functional>
#include <string>
#include <vector>

#include "ltc_backend/torchscript/boundary.h"

namespace ltc_mlir {
namespace backend {

// Output shapes and dtypes of `op` for the arguments on the stack (the op's
// last arguments; tensors on any device), from its Meta (or composite)
// kernel. The stack is left unchanged. Throws for results that are not
// tensors.
std::vector<torch::lazy::Shape> MetaOutputShapes(const c10::OperatorHandle& op,
                                                 const torch::jit::Stack& stack);

// Boxed kernel: replaces the op's arguments on the stack by its results, as
// new lazy tensors computed by one AtenOpNode. Tensor arguments must be lazy
// (or 0-dim CPU scalars, uploaded as graph inputs; the tensors of a
// `Tensor?[]` may be CPU tensors of any shape, as eager allows for index
// tensors, and are uploaded too); Scalars become graph
// inputs (their value does not change the graph's hash), other arguments
// constants. Only for functional ops (no mutated argument, no view result).
void CallAtenOpLazily(const c10::OperatorHandle& op, torch::jit::Stack* stack);
// The same with the output shapes and dtypes given (where torch's Meta
// kernel disagrees with eager's CPU kernel, or there is none).
void CallAtenOpLazilyWithShapes(const c10::OperatorHandle& op, torch::jit::Stack* stack,
                                std::vector<torch::lazy::Shape> shapes);

// Makes CallAtenOpLazily the Lazy kernel of `aten::<name>` ("erf",
// "where.self"), replacing LTC's if it has one. Throws when the op mutates
// its arguments or returns a view or non-tensors. `result_like` names the
// tensor argument whose shape and dtype the (single) result has, for ops
// without a Meta kernel (reflection_pad2d_backward: "self"); empty: the
// Meta kernel decides. A call with an explicit random generator runs
// eagerly (the eager fallback). Python:
// ltc_mlir._C._register_aten_op_kernel(name).
void RegisterAtenOpKernel(const std::string& name, const std::string& result_like = "");

// The same for ops without a Meta kernel whose result shapes take more than
// one argument's: `shapes` gets the op's arguments (the last ones of the
// stack; tensors on any device) and returns the result shapes and dtypes,
// raising like the eager kernel for invalid arguments.
using AtenOpShapeFn = std::function<std::vector<torch::lazy::Shape>(
    const c10::OperatorHandle& op, const torch::jit::Stack& stack)>;
void RegisterAtenOpKernel(const std::string& name, AtenOpShapeFn shapes);

}  // namespace backend
}  // namespace ltc_mlir
