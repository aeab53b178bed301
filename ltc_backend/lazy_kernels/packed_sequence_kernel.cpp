// nn.utils.rnn.pack_padded_sequence on the lazy device: _pack_padded_sequence
// as differentiable lazy ops on the AutogradLazy key.
//
// Its CompositeExplicitAutograd kernel takes views of the input, so it ran
// under functionalization (functionalized_composites.cpp), which wrapped the
// CPU `lengths` too and failed reading them ("data is not allocated yet"):
// packed sequences could not reach an RNN at all. Here the lengths stay on
// the CPU (as eager requires); the packed data is the concatenation, for each
// run of time steps with one batch size, of input[t0:t1, :batch] flattened
// time-major, and autograd differentiates the slices and the cat (eager's
// _pack_padded_sequence_backward scatters the same rows back). batch_sizes is
// a CPU int64 tensor, as eager's. The RNN ops and pad_packed_sequence are
// composites of lazy ops from there.
#include <ATen/ATen.h>
#include <torch/library.h>

#include <tuple>
#include <vector>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

std::tuple<at::Tensor, at::Tensor> PackPaddedSequence(const at::Tensor& paddedInput,
                                                      const at::Tensor& lengthsArg,
                                                      bool batchFirst) {
  // Eager's checks and messages (aten/src/ATen/native/PackedSequence.cpp).
  TORCH_CHECK(lengthsArg.dim() == 1 && lengthsArg.device().is_cpu() &&
                  lengthsArg.scalar_type() == at::kLong,
              "'lengths' argument should be a 1D CPU int64 tensor, but got ", lengthsArg.dim(),
              "D ", lengthsArg.device().str(), " ", lengthsArg.scalar_type(), " tensor");
  at::Tensor input = batchFirst ? paddedInput.transpose(0, 1) : paddedInput;
  TORCH_CHECK(input.numel() > 0, "Cannot pack empty tensors.");
  at::Tensor lengthsTensor = lengthsArg.contiguous();
  const int64_t batch = input.size(1);
  TORCH_CHECK(lengthsTensor.size(0) == batch,
              "Expected `len(lengths)` to be equal to batch_size, but got ",
              lengthsTensor.size(0), " (batch_size=", batch, ")");
  const int64_t* lengths = lengthsTensor.data_ptr<int64_t>();
  TORCH_CHECK(lengths[batch - 1] > 0,
              "Length of all samples has to be greater than 0, but found an element in "
              "'lengths' that is <= 0");
  for (int64_t i = 0; i + 1 < batch; ++i)
    TORCH_CHECK(lengths[i] >= lengths[i + 1],
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.");
  // Eager slices past the end silently and returns batch sizes that do not
  // match the data; say it instead.
  TORCH_CHECK(lengths[0] <= input.size(0), "pack_padded_sequence: the longest length, ",
              lengths[0], ", is larger than the padded sequence length ", input.size(0),
              " (dimension ", batchFirst ? 1 : 0, " of the input)");

  std::vector<int64_t> rowShape = input.sizes().vec();
  rowShape.erase(rowShape.begin(), rowShape.begin() + 1);
  rowShape[0] = -1;  // (rows, *trailing)
  at::Tensor batchSizes = at::empty({lengths[0]}, lengthsTensor.options());
  int64_t* sizes = batchSizes.data_ptr<int64_t>();
  std::vector<at::Tensor> runs;
  int64_t start = 0;
  // Runs of time steps with one batch size: t in [start, lengths[b - 1]) has
  // the b longest sequences.
  for (int64_t b = batch; b > 0; --b) {
    int64_t end = lengths[b - 1];
    if (end <= start) continue;
    for (int64_t t = start; t < end; ++t) sizes[t] = b;
    runs.push_back(input.slice(0, start, end).slice(1, 0, b).reshape(rowShape));
    start = end;
  }
  return {at::cat(runs), batchSizes};
}

}  // namespace

void RegisterPackedSequenceKernel() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("_pack_padded_sequence", TORCH_FN(PackPaddedSequence));
}

}  // namespace backend
}  // namespace ltc_mlir
