// runtime/entry_points.h - the tables through which the JIT finds the
// runtime's entry points by name (lapack.cpp, sorting.cpp, ctc_loss.cpp,
// half_conversions.cpp each keep one).
#ifndef LTC_MLIR_RUNTIME_ENTRY_POINTS_H
#define LTC_MLIR_RUNTIME_ENTRY_POINTS_H

#include <cstddef>
#include <cstring>

namespace ltc_mlir {
namespace runtime {

struct EntryPoint {
  const char *name;
  void *address;
};

/// The address `name` has in `table`, or null.
template <size_t N>
void *findEntryPoint(const EntryPoint (&table)[N], const char *name) {
  for (const EntryPoint &e : table)
    if (std::strcmp(e.name, name) == 0)
      return e.address;
  return nullptr;
}

} // namespace runtime
} // namespace ltc_mlir

/// The table row of the C-interface entry point ltc_mlir_rt_<OP>_<SUFFIX>.
#define LTC_MLIR_CIFACE_ENTRY_POINT(OP, SUFFIX)                                 \
  ::ltc_mlir::runtime::EntryPoint {                                             \
    "_mlir_ciface_ltc_mlir_rt_" #OP "_" #SUFFIX,                                \
        reinterpret_cast<void *>(&_mlir_ciface_ltc_mlir_rt_##OP##_##SUFFIX)     \
  }

#endif // LTC_MLIR_RUNTIME_ENTRY_POINTS_H
