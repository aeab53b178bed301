// collective_op: a torch.distributed collective as a node of the lazy graph.
//
// The node is the op ltc_mlir::collective(Tensor input, Tensor? after,
// int kind, int group, int reduce_op, int root) -> Tensor, recorded as an
// AtenOpNode, so it lowers like any op: the emitter writes
// torch.ltc_mlir.collective, TorchToLinalg/Collectives.cpp turns it into the
// runtime's start/wait calls (collective_runner.h). Its CPU kernel runs it
// when the graph runs through the TorchScript fallback or as a partial
// graph, with the same result.
//
// Chain: each collective takes the previous one's result as `after`, so
// that every rank's graph runs them in the order the program issued them.
// The chain restarts at every graph execution (a chain through computed
// nodes would compute them again).
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/util/intrusive_ptr.h>

#include <cstdint>
#include <string>

namespace c10d {
class ProcessGroup;
class Work;
}  // namespace c10d

namespace ltc_mlir {
namespace backend {

// The numbers are those of runtime/collectives.h (CollectiveKind).
enum class Collective : int64_t { kAllReduce = 0, kBroadcast = 1, kAllGather = 2, kReduceScatter = 3 };
const char* CollectiveName(Collective kind);

// Records `kind` on `input`, an unwrapped (non-functional) lazy tensor, and
// returns its lazy result. `reduce_op` is a c10d::ReduceOp::RedOpType,
// `root` broadcast's source rank in the group. Raises for what the process
// group cannot do (dtype, shape not divisible by the group size, ...).
at::Tensor RecordCollective(Collective kind, const at::Tensor& input,
                            const c10::intrusive_ptr<c10d::ProcessGroup>& group,
                            int64_t reduce_op, int64_t root);

// Queues `kind` on CPU tensors through the group's CPU backend (gloo);
// `output` holds `input` already for all_reduce and broadcast (in place).
c10::intrusive_ptr<c10d::Work> StartOnCpu(Collective kind, c10d::ProcessGroup& group,
                                          int64_t reduce_op, int64_t root, at::Tensor& input,
                                          at::Tensor& output);

// Forgets the chain (backend_impl.cpp, at every graph execution).
void RestartCollectiveChain();

// Defines ltc_mlir::collective and its CPU kernel (InitBackend).
void RegisterCollectiveOp();

}  // namespace backend
}  // namespace ltc_mlir
