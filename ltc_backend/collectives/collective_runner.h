// collective_runner: runs the collectives of compiled graphs.
//
// The runtime's start/wait calls (runtime/collectives.h) reach the handler
// registered here: start wraps the graph's byte buffers as CPU tensors and
// queues the operation on the process group's CPU backend (gloo), wait
// waits for it. A failure (a peer's timeout or death, a bad argument) is
// kept, later collectives of the run are skipped, and the run raises it
// when the compiled code returns: never an exception through compiled
// code, never a hang beyond the process group's timeout.
#pragma once

#include <cstdint>
#include <string>

namespace ltc_mlir {
namespace backend {

class MlirComputation;

// What a graph's collectives are, read from its torch-dialect text: one
// line per collective (kind, group, reduce op, root; dtype; types), in
// program order; empty for graphs without collectives. `group` gets the
// first collective's group handle.
std::string CollectiveSequence(const std::string& torch_dialect, int64_t* group);

// Around one run of a graph with collectives, on the thread that runs it.
// With LTC_MLIR_DEBUG, the constructor all-gathers a hash of the graph's
// collective sequence over its first group and raises, naming the graph,
// when a rank's differs. Finish() raises the run's collective error.
class CollectiveRun {
 public:
  CollectiveRun(const std::string& graph_name, const std::string& sequence, int64_t group);
  ~CollectiveRun();
  void Finish();
};

// Registers the runtime handler (InitBackend).
void RegisterCollectiveHandler();

}  // namespace backend
}  // namespace ltc_mlir
