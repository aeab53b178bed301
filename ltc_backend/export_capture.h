// export_capture: the graph that would compute a set of lazy tensors,
// lowered to a torch-dialect module without running it (ltc_mlir.export).
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/lazy/backend/backend_data.h>

#include <string>
#include <vector>

namespace ltc_mlir {
namespace backend {

// One argument of the captured module's @forward.
struct CapturedArgument {
  // DataId() of the lazy tensors holding this value (0 for the seed).
  int64_t data_id = 0;
  // The `!torch.int {ltc.rng_seed}` of the graph's random ops.
  bool rng_seed = false;
  torch::lazy::BackendDataPtr data;
};

// Where the value of requested tensor i comes from.
struct CapturedOutput {
  bool is_result = true;  // result `index` of @forward
  int64_t index = 0;
  int64_t data_id = 0;    // else: an argument's data, unchanged
};

struct CapturedGraph {
  std::string torch_text;
  // Ops the emitter cannot express, with reasons: the graph cannot export.
  std::vector<std::string> unsupported_ops;
  std::vector<std::string> reasons;
  std::vector<CapturedArgument> arguments;  // in @forward's order
  std::vector<CapturedOutput> outputs;      // one per requested tensor
};

// Lowers the pending graph of `tensors` (lazy tensors; functional wrappers
// are synced first). Nothing runs and the tensors are left as they were.
CapturedGraph CaptureGraph(const std::vector<at::Tensor>& tensors);

// Identifies the device data a lazy tensor holds (the handle graph inputs
// are keyed by); 0 when it has none (a pending value, or not lazy).
int64_t DataId(const at::Tensor& tensor);

// The host value of a captured argument (a CPU tensor; a 0-dim one for
// scalars).
at::Tensor HostValue(const CapturedArgument& argument);

}  // namespace backend
}  // namespace ltc_mlir
