// runtime/openmp.h - the OpenMP runtime that runs generated code's loops.
//
// Generated code calls libomp's __kmpc_* entry points. libtorch uses GCC's
// libgomp. When libgomp is in the process (torch loaded it), those entry
// points are implemented on libgomp's team (gomp_teams.cpp), so compiled
// loops and torch's ops share one set of workers. Otherwise (the runtime
// without torch, or LTC_MLIR_OPENMP=libomp): libomp also exports GOMP_*
// and omp_* names, so libomp is opened privately
// (RTLD_LOCAL) and its symbols are handed to the JIT through resolveSymbol;
// nothing of it leaks into torch's symbol lookups. Its workers spin for up
// to 1 ms between the parallel regions of a graph and sleep after it
// (releaseThreads), so eager torch ops that run between graphs keep both
// cores.
#ifndef LTC_MLIR_RUNTIME_OPENMP_H
#define LTC_MLIR_RUNTIME_OPENMP_H

#include <cstdint>
#include <string>

namespace ltc_mlir {
namespace runtime {

enum class OpenMPRuntime { Auto, LibOmp, TorchGomp };

/// Asks for a runtime; Auto (the default) takes TorchGomp when libgomp is
/// loaded. Only a call before the first compile or run has an effect.
void selectOpenMPRuntime(OpenMPRuntime runtime);
/// The runtime in use, fixed by its first call. Thread-safe.
OpenMPRuntime activeOpenMPRuntime();
const char *openMPRuntimeName();

/// Address of OpenMP entry point `name` in the active runtime, or nullptr.
/// Loads libomp on first use when it is the active one. Thread-safe.
void *resolveOpenMPSymbol(const std::string &name);

/// Threads used by the next graph executions (>= 1). Thread-safe.
void setNumThreads(int numThreads);
int getNumThreads();

/// Applies the requested thread count to libomp for the calling thread;
/// Executable::run calls it before each execution. Cheap when nothing
/// changed.
void applyThreadSettings();

/// Puts libomp's idle workers to sleep at once (a soft pause) instead of
/// letting them spin for the blocktime; Executable::run calls it after each
/// execution. No-op when the user set KMP_BLOCKTIME.
void releaseThreads();

/// Runs body(i, context) for i in [0, count) in one libomp parallel region
/// of the requested thread count (index i on thread i % threads), from
/// runtime functions compiled code calls outside its own parallel loops.
/// Serial when libomp is missing or count <= 1.
void parallelFor(int64_t count, void (*body)(int64_t, void *), void *context);

/// True when libomp could be loaded; otherwise `openMPLoadError()` says why.
bool openMPAvailable();
std::string openMPLoadError();

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_OPENMP_H
