// Collective entry points of compiled graphs: forwarded to the handler
// ltc_backend registers (runtime/collectives.h).
#include "ltc_mlir/runtime/collectives.h"

#include <atomic>
#include <cstring>

namespace ltc_mlir {
namespace runtime {
namespace {

std::atomic<int64_t (*)(const CollectiveCall &)> startFn{nullptr};
std::atomic<void (*)(int64_t)> waitFn{nullptr};
thread_local std::string firstError;

uint8_t *bytesOf(const MemRefDescriptor<uint8_t, 1> *m) {
  return m->aligned + m->offset;
}

} // namespace

void setCollectiveHandler(CollectiveHandler handler) {
  startFn.store(handler.start);
  waitFn.store(handler.wait);
}

void recordCollectiveError(const std::string &message) {
  if (firstError.empty())
    firstError = message.empty() ? "unknown collective error" : message;
}
std::string takeCollectiveError() {
  std::string e;
  e.swap(firstError);
  return e;
}
bool hasCollectiveError() { return !firstError.empty(); }

void *resolveCollectiveSymbol(const std::string &name) {
  if (name == "_mlir_ciface_ltc_mlir_rt_collective_start")
    return reinterpret_cast<void *>(&_mlir_ciface_ltc_mlir_rt_collective_start);
  if (name == "_mlir_ciface_ltc_mlir_rt_collective_wait")
    return reinterpret_cast<void *>(&_mlir_ciface_ltc_mlir_rt_collective_wait);
  return nullptr;
}

} // namespace runtime
} // namespace ltc_mlir

using namespace ltc_mlir::runtime;

extern "C" int64_t _mlir_ciface_ltc_mlir_rt_collective_start(
    int64_t kind, int64_t group, int64_t reduceOp, int64_t root, int64_t dtype,
    MemRefDescriptor<uint8_t, 1> *input, MemRefDescriptor<uint8_t, 1> *output) {
  // After a failure the ranks no longer agree on what runs next: start
  // nothing more in this run (each start would wait for its own timeout).
  if (hasCollectiveError())
    return -1;
  auto start = startFn.load();
  if (!start) {
    recordCollectiveError("this process has no torch.distributed process group "
                          "handler (the graph was compiled by ltc_mlir's backend "
                          "and runs outside it)");
    return -1;
  }
  CollectiveCall call{static_cast<CollectiveKind>(kind),
                      group,
                      reduceOp,
                      root,
                      dtype,
                      bytesOf(input),
                      input->sizes[0],
                      bytesOf(output),
                      output->sizes[0]};
  return start(call);
}

extern "C" void
_mlir_ciface_ltc_mlir_rt_collective_wait(int64_t ticket,
                                         MemRefDescriptor<uint8_t, 1> *) {
  // The input operand only keeps the buffer gloo reads alive until here.
  if (ticket < 0)
    return;
  if (auto wait = waitFn.load())
    wait(ticket);
}
