// one_hot on the lazy device as one graph node.
//
// one_hot is CompositeImplicitAutograd: on the lazy device its
// decomposition scatters into zeros through the eager fallback (on torch
// 2.14 without eager's class-value checks; num_classes = -1 also syncs the
// graph for self.max()). With an explicit num_classes the result shape is
// self's + [num_classes], so our AutogradLazy kernel records an
// aten::one_hot AtenOpNode instead; the lowering checks the class values at
// run time (eager's messages). With num_classes = -1 the shape depends on
// the values: that case (and the argument errors: non-int64 self,
// num_classes < -1) keeps the decomposition, with a warning saying why.
#include <ATen/ATen.h>
#include <ATen/ops/one_hot_native.h>
#include <c10/util/Exception.h>
#include <torch/csrc/lazy/core/ir_builder.h>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/aten_op_node.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

at::Tensor OneHot(const at::Tensor& self, int64_t num_classes) {
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(self);
  if (!lazy || self.scalar_type() != at::kLong || num_classes < 0 || self.numel() == 0) {
    if (lazy && self.scalar_type() == at::kLong && num_classes == -1)
      TORCH_WARN_ONCE("ltc_mlir: one_hot with num_classes=-1 runs outside the lazy graph: "
                      "its result shape depends on the values (max + 1), so it syncs the "
                      "graph and runs on the CPU. Pass num_classes to keep it in the graph.");
    return at::native::one_hot(self, num_classes);
  }
  static const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::one_hot", "");
  std::vector<int64_t> sizes = self.sizes().vec();
  sizes.push_back(num_classes);
  std::vector<AtenOpArg> args(2);
  args[0].kind = AtenOpArg::Kind::kOperand;
  args[0].first_operand = 0;
  args[1].kind = AtenOpArg::Kind::kConstant;
  args[1].constant = num_classes;
  std::vector<torch::lazy::Shape> shapes{torch::lazy::Shape(at::kLong, sizes)};
  torch::lazy::NodePtr node = MakeAtenOpNode(op, torch::lazy::OpList{lazy->GetIrValue()},
                                             std::move(args), std::move(shapes));
  return torch::lazy::CreateAtenFromLtcTensor(
      torch::lazy::LazyTensor::Create(torch::lazy::Value(node, 0), lazy->GetDevice()));
}

}  // namespace

void RegisterOneHotKernel() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("one_hot", TORCH_FN(OneHot));
}

}  // namespace backend
}  // namespace ltc_mlir
