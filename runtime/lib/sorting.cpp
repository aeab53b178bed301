// Sorting and selection entry points (runtime/sorting.h).
//
// Every algorithm works on (key, index) pairs, the index being the
// element's position along the dim, and compares keys only, exactly as
// eager's CPU kernels do (the key of an f16/bf16 element is its float
// value, which orders the same way). Values are then read back from the
// input at the chosen indices, so they are bit-exact.
#include "ltc_mlir/runtime/sorting.h"

#include "ltc_mlir/runtime/entry_points.h"
#include "ltc_mlir/runtime/half_conversions.h"
#include "ltc_mlir/runtime/memref.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

namespace ltc_mlir {
namespace runtime {
namespace {

// Storage types of the reduced-precision floats and of bool.
struct HalfBits {
  uint16_t bits;
};
struct BFloat16Bits {
  uint16_t bits;
};
struct BoolByte {
  uint8_t value;
};

// The key an element is compared by.
template <typename S> struct Key {
  using type = S;
  static S of(S v) { return v; }
};
template <> struct Key<HalfBits> {
  using type = float;
  static float of(HalfBits v) { return halfBitsToFloat(v.bits); }
};
template <> struct Key<BFloat16Bits> {
  using type = float;
  static float of(BFloat16Bits v) {
    uint32_t word = static_cast<uint32_t>(v.bits) << 16;
    float f;
    std::memcpy(&f, &word, sizeof(f));
    return f;
  }
};
template <> struct Key<BoolByte> {
  using type = bool;
  static bool of(BoolByte v) { return v.value != 0; }
};

template <typename K> bool isNan(K k) {
  if constexpr (std::is_floating_point_v<K>)
    return std::isnan(k);
  else
    return false;
}

template <typename K> using Entry = std::pair<K, int64_t>;

// Eager's orders: NaN after every number ascending, before it descending.
template <typename K> bool ascending(const Entry<K> &a, const Entry<K> &b) {
  return (!isNan(a.first) && isNan(b.first)) || a.first < b.first;
}
template <typename K> bool descending(const Entry<K> &a, const Entry<K> &b) {
  return (isNan(a.first) && !isNan(b.first)) || a.first > b.first;
}

template <typename T> T &at(MemRefDescriptor<T, 3> *m, int64_t o, int64_t j, int64_t i) {
  return m->aligned[m->offset + o * m->strides[0] + j * m->strides[1] + i * m->strides[2]];
}

/// Runs `fn(o, i, line)` on each line of `in` with `line` holding its
/// (key, position) entries, then writes the first `count` entries' values
/// and positions to `values` and `indices`.
template <typename S, typename Fn>
void forEachLine(MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,
                 MemRefDescriptor<int64_t, 3> *indices, int64_t count, Fn fn) {
  using K = typename Key<S>::type;
  const int64_t n = in->sizes[1];
  std::vector<Entry<K>> line(n);
  for (int64_t o = 0; o < in->sizes[0]; ++o)
    for (int64_t i = 0; i < in->sizes[2]; ++i) {
      for (int64_t j = 0; j < n; ++j)
        line[j] = {Key<S>::of(at(in, o, j, i)), j};
      fn(line);
      for (int64_t j = 0; j < count; ++j) {
        at(values, o, j, i) = at(in, o, line[j].second, i);
        at(indices, o, j, i) = line[j].second;
      }
    }
}

// torch.sort (sort_kernel): std::sort, or std::stable_sort when asked.
template <typename S>
void sortLines(MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,
               MemRefDescriptor<int64_t, 3> *indices, bool descend, bool stable) {
  using K = typename Key<S>::type;
  auto comp = descend ? descending<K> : ascending<K>;
  forEachLine(in, values, indices, in->sizes[1], [&](std::vector<Entry<K>> &line) {
    if (stable)
      std::stable_sort(line.begin(), line.end(), comp);
    else
      std::sort(line.begin(), line.end(), comp);
  });
}

// torch.topk (topk_impl_loop): std::partial_sort when k is small against
// n, else std::nth_element and (sorted) a std::sort of the first k - 1.
template <typename S>
void topkLines(MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,
               MemRefDescriptor<int64_t, 3> *indices, int64_t k, bool largest,
               bool sorted) {
  using K = typename Key<S>::type;
  auto comp = largest ? descending<K> : ascending<K>;
  const bool partial = k * 64 <= in->sizes[1];
  forEachLine(in, values, indices, k, [&](std::vector<Entry<K>> &line) {
    if (partial) {
      std::partial_sort(line.begin(), line.begin() + k, line.end(), comp);
      return;
    }
    std::nth_element(line.begin(), line.begin() + k - 1, line.end(), comp);
    if (sorted)
      std::sort(line.begin(), line.begin() + k - 1, comp);
  });
}

// torch.kthvalue: the quickselect of Sedgewick's "Implementing Quicksort
// Programs" (1978), median-of-three pivot, as ATen's kthvalue runs it, with
// NaN greater than every number. Leaves the (target)-th smallest at
// line[target].
template <typename K> void quickSelect(std::vector<Entry<K>> &line, int64_t target) {
  auto greater = [](K x, K y) { return (isNan(x) && !isNan(y)) || x > y; };
  auto swap = [&](int64_t a, int64_t b) { std::swap(line[a], line[b]); };
  int64_t lo = 0, hi = static_cast<int64_t>(line.size()) - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (greater(line[lo].first, line[hi].first))
        swap(lo, hi);
      return;
    }
    // Median of line[lo], line[mid], line[hi] to line[lo]; the smaller to
    // line[lo + 1] and the larger to line[hi] bound the scans below.
    swap((lo + hi) >> 1, lo + 1);
    if (greater(line[lo + 1].first, line[hi].first))
      swap(lo + 1, hi);
    if (greater(line[lo].first, line[hi].first))
      swap(lo, hi);
    if (greater(line[lo + 1].first, line[lo].first))
      swap(lo + 1, lo);
    const K pivot = line[lo].first;
    int64_t up = lo + 1, down = hi;
    for (;;) {
      do
        ++up;
      while (greater(pivot, line[up].first));
      do
        --down;
      while (greater(line[down].first, pivot));
      if (down < up)
        break;
      swap(up, down);
    }
    swap(lo, down);
    if (down <= target)
      lo = up;
    if (down >= target)
      hi = down - 1;
  }
}

template <typename S>
void kthvalueLines(MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,
                   MemRefDescriptor<int64_t, 3> *indices, int64_t k) {
  using K = typename Key<S>::type;
  forEachLine(in, values, indices, 1, [&](std::vector<Entry<K>> &line) {
    quickSelect(line, k - 1);
    line[0] = line[k - 1];
  });
}

// torch.mode (mode_kernel_impl): std::sort by key (plain <), then the first
// longest run of equal keys wins, reported by its last entry.
template <typename S>
void modeLines(MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,
               MemRefDescriptor<int64_t, 3> *indices) {
  using K = typename Key<S>::type;
  forEachLine(in, values, indices, 1, [&](std::vector<Entry<K>> &line) {
    const int64_t n = static_cast<int64_t>(line.size());
    std::sort(line.begin(), line.end(),
              [](const Entry<K> &a, const Entry<K> &b) { return a.first < b.first; });
    Entry<K> best{K(0), 0};
    int64_t run = 0, bestRun = 0;
    for (int64_t j = 0; j < n; ++j) {
      ++run;
      if (j == n - 1 || line[j].first != line[j + 1].first) {
        if (run > bestRun) {
          best = line[j];
          bestRun = run;
        }
        run = 0;
      }
    }
    if (n == 0)
      line.push_back(best);
    else
      line[0] = best;
  });
}

} // namespace
} // namespace runtime
} // namespace ltc_mlir

using ltc_mlir::runtime::MemRefDescriptor;

#define LTC_MLIR_SORTING_ENTRY_POINTS(S, SUFFIX)                                \
  void _mlir_ciface_ltc_mlir_rt_sort_##SUFFIX(                                  \
      MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,               \
      MemRefDescriptor<int64_t, 3> *indices, int64_t descending,                \
      int64_t stable) {                                                         \
    ltc_mlir::runtime::sortLines(in, values, indices, descending, stable);      \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_topk_##SUFFIX(                                  \
      MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,               \
      MemRefDescriptor<int64_t, 3> *indices, int64_t k, int64_t largest,        \
      int64_t sorted) {                                                         \
    ltc_mlir::runtime::topkLines(in, values, indices, k, largest, sorted);      \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_kthvalue_##SUFFIX(                              \
      MemRefDescriptor<S, 3> *in, MemRefDescriptor<S, 3> *values,               \
      MemRefDescriptor<int64_t, 3> *indices, int64_t k) {                       \
    ltc_mlir::runtime::kthvalueLines(in, values, indices, k);                   \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_mode_##SUFFIX(MemRefDescriptor<S, 3> *in,       \
                                             MemRefDescriptor<S, 3> *values,   \
                                             MemRefDescriptor<int64_t, 3> *indices) { \
    ltc_mlir::runtime::modeLines(in, values, indices);                          \
  }

#define LTC_MLIR_SORTING_TYPES(X)                                               \
  X(float, f32)                                                                 \
  X(double, f64)                                                                \
  X(ltc_mlir::runtime::HalfBits, f16)                                           \
  X(ltc_mlir::runtime::BFloat16Bits, bf16)                                      \
  X(int64_t, i64)                                                               \
  X(int32_t, i32)                                                               \
  X(int16_t, i16)                                                               \
  X(int8_t, i8)                                                                 \
  X(uint8_t, u8)                                                                \
  X(ltc_mlir::runtime::BoolByte, b8)

extern "C" {
LTC_MLIR_SORTING_TYPES(LTC_MLIR_SORTING_ENTRY_POINTS)
}
#undef LTC_MLIR_SORTING_ENTRY_POINTS

namespace ltc_mlir {
namespace runtime {

void *resolveSortingSymbol(const std::string &name) {
#define LTC_MLIR_SORTING_TYPE_ENTRIES(S, SUFFIX)                                \
  LTC_MLIR_CIFACE_ENTRY_POINT(sort, SUFFIX),                                    \
      LTC_MLIR_CIFACE_ENTRY_POINT(topk, SUFFIX),                                \
      LTC_MLIR_CIFACE_ENTRY_POINT(kthvalue, SUFFIX),                            \
      LTC_MLIR_CIFACE_ENTRY_POINT(mode, SUFFIX),
  static const EntryPoint entries[] = {LTC_MLIR_SORTING_TYPES(LTC_MLIR_SORTING_TYPE_ENTRIES)};
#undef LTC_MLIR_SORTING_TYPE_ENTRIES
  return findEntryPoint(entries, name.c_str());
}

} // namespace runtime
} // namespace ltc_mlir
#undef LTC_MLIR_SORTING_TYPES
