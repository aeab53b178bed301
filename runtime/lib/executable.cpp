// Executable: wraps caller buffers in memref descriptors and calls the code.
#include "ltc_mlir/runtime/executable.h"
#include "ltc_mlir/runtime/openmp.h"
#include "ltc_mlir/runtime/symbols.h"

#include "ltc_mlir/runtime/gomp_teams.h"

#include <atomic>
#include <stdexcept>
#include <string>

namespace ltc_mlir {
namespace runtime {

namespace {

const char *kindName(ArgKind k) {
  switch (k) {
  case ArgKind::Tensor:
    return "tensor";
  case ArgKind::Int:
    return "int";
  case ArgKind::Float:
    return "float";
  }
  return "?";
}

// Layout of MLIR's StridedMemRefType<T, rank>: two pointers, the offset, then
// `rank` sizes and `rank` strides, all 64-bit. Built for contiguous buffers.
void buildDescriptor(const ArgSpec &spec, const Arg &arg,
                     std::vector<int64_t> &storage, size_t at) {
  size_t rank = spec.shape.size();
  auto ptr = reinterpret_cast<int64_t>(arg.data);
  storage[at + 0] = ptr; // allocated
  storage[at + 1] = ptr; // aligned
  storage[at + 2] = 0;   // offset
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    int64_t size = arg.sizes ? arg.sizes[i] : spec.shape[i];
    storage[at + 3 + i] = size;
    storage[at + 3 + rank + i] = stride;
    stride *= size;
  }
}

bool isDynamic(const ArgSpec &spec) {
  for (int64_t s : spec.shape)
    if (s == kDynamicSize)
      return true;
  return false;
}

std::string shapeText(const int64_t *sizes, size_t rank) {
  std::string text = "[";
  for (size_t d = 0; d < rank; ++d)
    text += (d ? ", " : "") +
            (sizes[d] == kDynamicSize ? std::string("?")
                                      : std::to_string(sizes[d]));
  return text + "]";
}

void checkArgs(const std::vector<ArgSpec> &specs, const std::vector<Arg> &args,
               const char *what) {
  if (specs.size() != args.size())
    throw std::invalid_argument(std::string("ltc_mlir runtime: expected ") +
                                std::to_string(specs.size()) + " " + what +
                                ", got " + std::to_string(args.size()));
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind != args[i].kind)
      throw std::invalid_argument(
          std::string("ltc_mlir runtime: ") + what + " #" + std::to_string(i) +
          " must be a " + kindName(specs[i].kind) + ", got a " +
          kindName(args[i].kind));
    if (args[i].kind != ArgKind::Tensor)
      continue;
    const std::vector<int64_t> &shape = specs[i].shape;
    if (isDynamic(specs[i]) && !args[i].sizes)
      throw std::invalid_argument(
          std::string("ltc_mlir runtime: ") + what + " #" + std::to_string(i) +
          " has dynamic sizes " + shapeText(shape.data(), shape.size()) +
          " and needs the buffer's sizes");
    if (args[i].sizes)
      for (size_t d = 0; d < shape.size(); ++d)
        if (args[i].sizes[d] < 0 ||
            (shape[d] != kDynamicSize && shape[d] != args[i].sizes[d]))
          throw std::invalid_argument(
              std::string("ltc_mlir runtime: ") + what + " #" +
              std::to_string(i) + " has shape " +
              shapeText(args[i].sizes, shape.size()) + ", the code takes " +
              shapeText(shape.data(), shape.size()));
    if (!args[i].data) {
      int64_t n = 1;
      for (size_t d = 0; d < shape.size(); ++d)
        n *= args[i].sizes ? args[i].sizes[d] : shape[d];
      if (n != 0)
        throw std::invalid_argument(std::string("ltc_mlir runtime: ") + what +
                                    " #" + std::to_string(i) +
                                    " has a null buffer");
    }
  }
}

} // namespace

Executable::Executable(PackedEntry entry, std::vector<ArgSpec> inputs,
                       std::vector<ArgSpec> outputs,
                       std::shared_ptr<void> owner,
                       std::vector<std::string> checkMessages)
    : entry_(entry), inputs_(std::move(inputs)), outputs_(std::move(outputs)),
      owner_(std::move(owner)), checkMessages_(std::move(checkMessages)) {
  if (!entry_)
    throw std::invalid_argument("ltc_mlir runtime: null entry point");
  for (const std::vector<ArgSpec> *specs : {&inputs_, &outputs_})
    for (const ArgSpec &spec : *specs)
      dynamic_ = dynamic_ || isDynamic(spec);
}

void Executable::run(const std::vector<Arg> &inputs,
                     const std::vector<Arg> &outputs) const {
  checkArgs(inputs_, inputs, "inputs");
  checkArgs(outputs_, outputs, "outputs");

  // One flat int64 array holds every descriptor (sizes known up front), so
  // a call costs a single allocation whatever the argument count.
  size_t total = inputs_.size() + outputs_.size();
  size_t words = 0;
  auto countWords = [&](const std::vector<ArgSpec> &specs) {
    for (const ArgSpec &s : specs)
      words += s.kind == ArgKind::Tensor ? 3 + 2 * s.shape.size() : 1;
  };
  countWords(inputs_);
  countWords(outputs_);
  std::vector<int64_t> storage(words);
  std::vector<void *> descPtrs(total);
  std::vector<void *> packed(total);

  size_t at = 0, slot = 0;
  auto pack = [&](const std::vector<ArgSpec> &specs,
                  const std::vector<Arg> &args) {
    for (size_t i = 0; i < specs.size(); ++i, ++slot) {
      const ArgSpec &s = specs[i];
      if (s.kind == ArgKind::Tensor) {
        buildDescriptor(s, args[i], storage, at);
        descPtrs[slot] = &storage[at];
        packed[slot] = &descPtrs[slot]; // C interface takes descriptor*
        at += 3 + 2 * s.shape.size();
      } else if (s.kind == ArgKind::Int) {
        storage[at] = args[i].intValue;
        packed[slot] = &storage[at++];
      } else {
        double *d = reinterpret_cast<double *>(&storage[at++]);
        *d = args[i].floatValue;
        packed[slot] = d;
      }
    }
  };
  pack(inputs_, inputs);
  pack(outputs_, outputs);

  applyThreadSettings();
  std::atomic<int64_t> failedCheck{-1};
  std::atomic<int64_t> *previousSlot = exchangeCheckSlot(&failedCheck);
  entry_(packed.data()); // compiled code: returns normally, never throws
  releaseThreads();
  exchangeCheckSlot(previousSlot);
  int64_t orphan = takeOrphanCheckFailure();
  int64_t index = failedCheck.load();
  if (index < 0)
    index = orphan;
  if (index >= 0) {
    if (static_cast<uint64_t>(index) < checkMessages_.size())
      throw std::runtime_error("ltc_mlir: " + checkMessages_[index]);
    if (index == kRegionTooWideCheck)
      throw std::runtime_error(
          "ltc_mlir: a parallel loop of the compiled graph passes more "
          "arguments than the libgomp bridge forwards; set "
          "LTC_MLIR_OPENMP=libomp and report the graph");
    throw std::runtime_error("ltc_mlir: runtime check #" +
                             std::to_string(index) +
                             " of the compiled graph failed (no message)");
  }
}

} // namespace runtime
} // namespace ltc_mlir
