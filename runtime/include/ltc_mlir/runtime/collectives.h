// runtime/collectives.h - torch.distributed collectives called from compiled
// graphs.
//
// The runtime has no torch: a collective recorded in a lazy graph
// (ltc_backend/collectives/) is lowered to two calls, start and wait
// (TorchToLinalg/Collectives.cpp), which reach the process group through a
// handler that ltc_backend registers. Start returns a ticket as soon as the
// operation is queued (gloo runs it on its own threads); the code waits for
// the ticket just before the result's first reader, so communication
// overlaps the computation in between. Both calls sit at the top level of
// the entry point, on the thread that runs the graph, never inside an
// OpenMP region.
#ifndef LTC_MLIR_RUNTIME_COLLECTIVES_H
#define LTC_MLIR_RUNTIME_COLLECTIVES_H

#include <cstdint>
#include <string>

#include "ltc_mlir/runtime/memref.h"

namespace ltc_mlir {
namespace runtime {

/// What a collective does; the numbers are part of compiled code.
enum class CollectiveKind : int64_t {
  kAllReduce = 0,     // output = reduce(input of every rank)
  kBroadcast = 1,     // output = input of rank `root`
  kAllGather = 2,     // output = inputs of ranks 0..N-1 concatenated
  kReduceScatter = 3, // output = slice `rank` of reduce(inputs)
};

/// One call from compiled code: contiguous byte buffers. For all_reduce and
/// broadcast the output already holds this rank's input (in place).
struct CollectiveCall {
  CollectiveKind kind;
  int64_t group;     // handle of the process group (ltc_backend's table)
  int64_t reduceOp;  // c10d::ReduceOp::RedOpType
  int64_t root;      // broadcast's source rank within the group
  int64_t dtype;     // c10::ScalarType
  void *input;
  int64_t inputBytes;
  void *output;
  int64_t outputBytes;
};

/// Registered once by ltc_backend. `start` queues the operation and returns
/// a ticket (negative: not started, the error is recorded); `wait` blocks
/// until the ticket's operation is done. Errors (a timeout, a dead peer) are
/// recorded with recordCollectiveError, never thrown through compiled code.
struct CollectiveHandler {
  int64_t (*start)(const CollectiveCall &call);
  void (*wait)(int64_t ticket);
};
void setCollectiveHandler(CollectiveHandler handler);

/// The first collective error of the calling thread since the last take
/// (empty: none). Compiled code does not stop at an error: later starts
/// return at once, and the runner raises the error after the run.
void recordCollectiveError(const std::string &message);
std::string takeCollectiveError();
bool hasCollectiveError();

/// The entry points by name (_mlir_ciface_ltc_mlir_rt_collective_start,
/// _wait), or null.
void *resolveCollectiveSymbol(const std::string &name);

} // namespace runtime
} // namespace ltc_mlir

extern "C" {
int64_t _mlir_ciface_ltc_mlir_rt_collective_start(
    int64_t kind, int64_t group, int64_t reduceOp, int64_t root, int64_t dtype,
    ltc_mlir::runtime::MemRefDescriptor<uint8_t, 1> *input,
    ltc_mlir::runtime::MemRefDescriptor<uint8_t, 1> *output);
void _mlir_ciface_ltc_mlir_rt_collective_wait(
    int64_t ticket, ltc_mlir::runtime::MemRefDescriptor<uint8_t, 1> *input);
}

#endif // LTC_MLIR_RUNTIME_COLLECTIVES_H
