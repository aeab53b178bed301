#include "ltc_backend/collectives/collective_op.h"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include <mutex>
#include <optional>

#include "ltc_backend/collectives/process_groups.h"
#include "ltc_backend/lazy_kernels/aten_op_node.h"

namespace ltc_mlir {
namespace backend {
namespace {

constexpr const char* kSchema =
    "collective(Tensor input, Tensor? after, int kind, int group, int reduce_op, int root) "
    "-> Tensor";

std::mutex chain_mutex;
std::optional<torch::lazy::Value>& ChainEnd() {
  static auto* end = new std::optional<torch::lazy::Value>();
  return *end;
}

const c10::OperatorHandle& CollectiveOp() {
  static const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("ltc_mlir::collective", "");
  return op;
}

std::vector<int64_t> ResultSizes(Collective kind, c10::IntArrayRef in, int64_t world,
                                 const char* what) {
  std::vector<int64_t> sizes = in.vec();
  if (kind == Collective::kAllGather) {
    if (sizes.empty()) return {world};
    sizes[0] *= world;
  } else if (kind == Collective::kReduceScatter) {
    TORCH_CHECK(!sizes.empty() && sizes[0] % world == 0, "ltc_mlir: ", what,
                ": the input's first dimension (", sizes.empty() ? 0 : sizes[0],
                ") must be divisible by the group size ", world);
    sizes[0] /= world;
  }
  return sizes;
}

c10d::ReduceOp ReduceOpOf(int64_t op) {
  return c10d::ReduceOp(static_cast<c10d::ReduceOp::RedOpType>(op));
}

// The CPU kernel: the whole collective, waited for.
at::Tensor CollectiveCpu(const at::Tensor& input, const std::optional<at::Tensor>&, int64_t kind,
                         int64_t group, int64_t reduce_op, int64_t root) {
  auto pg = GroupOf(group);
  auto k = static_cast<Collective>(kind);
  at::Tensor in = input.contiguous();
  at::Tensor out;
  if (k == Collective::kAllReduce || k == Collective::kBroadcast) {
    out = in.clone();
    in = out;
  } else {
    out = at::empty(ResultSizes(k, in.sizes(), pg->getSize(), CollectiveName(k)), in.options());
  }
  StartOnCpu(k, *pg, reduce_op, root, in, out)->wait();
  return out;
}

}  // namespace

const char* CollectiveName(Collective kind) {
  switch (kind) {
    case Collective::kAllReduce: return "all_reduce";
    case Collective::kBroadcast: return "broadcast";
    case Collective::kAllGather: return "all_gather";
    case Collective::kReduceScatter: return "reduce_scatter";
  }
  return "collective";
}

c10::intrusive_ptr<c10d::Work> StartOnCpu(Collective kind, c10d::ProcessGroup& group,
                                          int64_t reduce_op, int64_t root, at::Tensor& input,
                                          at::Tensor& output) {
  auto backend = group.getBackend(c10::DeviceType::CPU);
  switch (kind) {
    case Collective::kAllReduce: {
      c10d::AllreduceOptions opts;
      opts.reduceOp = ReduceOpOf(reduce_op);
      std::vector<at::Tensor> tensors{output};
      return backend->allreduce(tensors, opts);
    }
    case Collective::kBroadcast: {
      c10d::BroadcastOptions opts;
      opts.rootRank = root;
      std::vector<at::Tensor> tensors{output};
      return backend->broadcast(tensors, opts);
    }
    case Collective::kAllGather:
      return backend->all_gather_single(output, input, c10d::AllgatherOptions());
    case Collective::kReduceScatter: {
      c10d::ReduceScatterOptions opts;
      opts.reduceOp = ReduceOpOf(reduce_op);
      return backend->reduce_scatter_single(output, input, opts);
    }
  }
  TORCH_CHECK(false, "ltc_mlir: unknown collective kind ", static_cast<int64_t>(kind));
}

at::Tensor RecordCollective(Collective kind, const at::Tensor& input,
                            const c10::intrusive_ptr<c10d::ProcessGroup>& group,
                            int64_t reduce_op, int64_t root) {
  const char* what = CollectiveName(kind);
  TORCH_CHECK_NOT_IMPLEMENTED(input.scalar_type() != at::kBool && !input.is_complex(),
                              "ltc_mlir: ", what, " of a ", input.scalar_type(),
                              " lazy tensor is not supported; convert it (e.g. to uint8 or "
                              "float) first");
  TORCH_CHECK_NOT_IMPLEMENTED(
      reduce_op != static_cast<int64_t>(c10d::ReduceOp::PREMUL_SUM) &&
          reduce_op != static_cast<int64_t>(c10d::ReduceOp::UNUSED),
      "ltc_mlir: ", what, " with ReduceOp.PREMUL_SUM is not supported on lazy tensors; "
      "multiply first, then reduce with SUM");
  const int64_t world = group->getSize();
  TORCH_CHECK(kind != Collective::kBroadcast || (root >= 0 && root < world), "ltc_mlir: ", what,
              ": source rank ", root, " is not in the group of size ", world);
  std::vector<int64_t> sizes = ResultSizes(kind, input.sizes(), world, what);
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(input);
  TORCH_CHECK(lazy, "ltc_mlir: ", what, " expects a lazy tensor");

  std::lock_guard<std::mutex> lock(chain_mutex);
  std::optional<torch::lazy::Value>& end = ChainEnd();
  c10::IValue after;
  if (end) {
    after = torch::lazy::CreateAtenFromLtcTensor(
        torch::lazy::LazyTensor::Create(*end, lazy->GetDevice()));
  }
  torch::jit::Stack stack{input, after, static_cast<int64_t>(kind), GroupHandle(group),
                          reduce_op, root};
  CallAtenOpLazilyWithShapes(CollectiveOp(), &stack,
                             {torch::lazy::Shape(input.scalar_type(), sizes)});
  at::Tensor result = stack.back().toTensor();
  end = torch::lazy::TryGetLtcTensor(result)->GetIrValue();
  return result;
}

void RestartCollectiveChain() {
  std::lock_guard<std::mutex> lock(chain_mutex);
  ChainEnd().reset();
}

void RegisterCollectiveOp() {
  static torch::Library* def =
      new torch::Library(torch::Library::DEF, "ltc_mlir", std::nullopt, __FILE__, __LINE__);
  def->def(kSchema);
  static torch::Library* cpu = new torch::Library(torch::Library::IMPL, "ltc_mlir",
                                                  c10::DispatchKey::CPU, __FILE__, __LINE__);
  cpu->impl("collective", TORCH_FN(CollectiveCpu));
}

}  // namespace backend
}  // namespace ltc_mlir
