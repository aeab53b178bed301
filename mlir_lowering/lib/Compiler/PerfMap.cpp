//===- PerfMap.cpp - name compiled functions for perf ---------------------===//
//
// perf shows JIT-linked code as anonymous "[JIT]" addresses. Linux perf
// reads /tmp/perf-<pid>.map ("<hex start> <hex size> <name>" per line) for
// such code; with LTC_MLIR_PERF_MAP=1 a JITLink plugin appends the address
// and size of every function of a graph after it is fixed up, so a profile
// of a training step names each outlined loop nest (`ltc_nest_forward_<n>`,
// matching the dumps of LTC_MLIR_DUMP_DIR) and the graph it belongs to.
//
//===----------------------------------------------------------------------===//

#include "JitSupport.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace ltc_mlir {
namespace detail {
namespace {

bool perfMapEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("LTC_MLIR_PERF_MAP");
    return value && *value && std::string(value) != "0";
  }();
  return enabled;
}

class PerfMapPlugin : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
  explicit PerfMapPlugin(std::string graphName)
      : graphName_(std::move(graphName)) {}

  void modifyPassConfig(llvm::orc::MaterializationResponsibility &,
                        llvm::jitlink::LinkGraph &,
                        llvm::jitlink::PassConfiguration &config) override {
    config.PostFixupPasses.push_back([this](llvm::jitlink::LinkGraph &graph) {
      write(graph);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility &) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib &,
                                      llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib &, llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

private:
  void write(llvm::jitlink::LinkGraph &graph) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    FILE *file = std::fopen(path.c_str(), "a");
    if (!file)
      return;
    for (llvm::jitlink::Symbol *symbol : graph.defined_symbols())
      if (symbol->hasName() && symbol->isCallable() && symbol->getSize() > 0)
        std::fprintf(file, "%llx %llx %s:%s\n",
                     static_cast<unsigned long long>(symbol->getAddress().getValue()),
                     static_cast<unsigned long long>(symbol->getSize()),
                     graphName_.c_str(), (*symbol->getName()).str().c_str());
    std::fclose(file);
  }

  std::string graphName_;
};

} // namespace

void addPerfMapPlugin(llvm::orc::LLJIT &jit, const std::string &graphName) {
  if (!perfMapEnabled())
    return;
  if (auto *layer =
          llvm::dyn_cast<llvm::orc::ObjectLinkingLayer>(&jit.getObjLinkingLayer()))
    layer->addPlugin(std::make_shared<PerfMapPlugin>(graphName));
}

} // namespace detail
} // namespace ltc_mlir
