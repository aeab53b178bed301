// lowering_context: reuses LTC's TorchScript lowering of every node, then
// annotates each TorchScript value with the static shape and dtype LTC knows,
// so that the emitter can write a fully typed torch-dialect module. Made by
// MakeLoweringContext (boundary.h).
#pragma once

#include <torch/csrc/lazy/ts_backend/ts_lowering_context.h>

#include <vector>

namespace ltc_mlir {
namespace backend {

class MlirLoweringContext : public torch::lazy::TSLoweringContext {
 public:
  MlirLoweringContext(const std::string& name, torch::lazy::BackendDevice device);
  MlirLoweringContext(const std::string& name, torch::lazy::BackendDevice device,
                      c10::ArrayRef<const torch::lazy::Node*> post_order,
                      torch::lazy::Util::EmissionMap emit_status);

  size_t AddResult(const torch::lazy::Output& output) override;
  torch::lazy::ComputationPtr Build() override;

 private:
  void Annotate(const torch::lazy::Output& output);

  std::vector<const torch::lazy::Node*> post_order_;
  bool has_post_order_ = false;
  std::vector<torch::lazy::Output> results_;
};

}  // namespace backend
}  // namespace ltc_mlir
