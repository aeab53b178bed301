// runtime/gomp_teams.h - compiled parallel loops on libtorch's libgomp (see
// gomp_teams.cpp); openmp.cpp chooses between it and libomp.
#ifndef LTC_MLIR_RUNTIME_GOMP_TEAMS_H
#define LTC_MLIR_RUNTIME_GOMP_TEAMS_H

#include <cstdint>
#include <string>

namespace ltc_mlir {
namespace runtime {

/// Finds the libgomp already loaded in the process (libtorch's); false
/// when there is none or it lacks an entry point used here.
bool loadTorchGomp();

/// The bridge's implementation of libomp entry point `name`
/// (__kmpc_fork_call, __kmpc_for_static_init_8u, ...), or nullptr.
void *resolveGompShimSymbol(const std::string &name);

/// parallelFor (openmp.h) on the libgomp team.
void gompParallelFor(int64_t count, void (*body)(int64_t, void *), void *context);

/// The runtime-check index a run reports when a parallel region passes more
/// arguments than the bridge forwards (OpenMPIRBuilder passes one struct).
constexpr int64_t kRegionTooWideCheck = INT64_MAX - 1;

} // namespace runtime
} // namespace ltc_mlir

#endif // LTC_MLIR_RUNTIME_GOMP_TEAMS_H
