// Runtime units: the sorting entry points compiled code calls (sort, topk,
// kthvalue, mode; runtime/lib/sorting.cpp), called here the way the
// generated code calls them: memref descriptors of [outer, n, inner] views
// with strided layouts (the op's dim in the middle, as in a transposed or
// sliced tensor). Results are checked against definitions (sortedness, a
// permutation that reproduces the values, stability, the k-th order
// statistic, the most frequent value), with NaN treated as the largest
// value, as eager does. These tests also run under scripts/test_sanitize.sh
// (AddressSanitizer checks every strided access).
#include "ltc_mlir/runtime/memref.h"
#include "ltc_mlir/runtime/sorting.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

using namespace ltc_mlir::runtime;

namespace {

using Desc = MemRefDescriptor<float, 3>;
using IndexDesc = MemRefDescriptor<int64_t, 3>;
using SortFn = void (*)(Desc *, Desc *, IndexDesc *, int64_t, int64_t);
using TopkFn = void (*)(Desc *, Desc *, IndexDesc *, int64_t, int64_t, int64_t);
using KthFn = void (*)(Desc *, Desc *, IndexDesc *, int64_t);
using ModeFn = void (*)(Desc *, Desc *, IndexDesc *);

template <typename Fn> Fn entry(const char *op) {
  void *address = resolveSortingSymbol(std::string("_mlir_ciface_ltc_mlir_rt_") + op + "_f32");
  EXPECT_NE(address, nullptr) << op;
  return reinterpret_cast<Fn>(address);
}

/// [outer, n, inner] laid out as [n, outer, inner] in memory (the op's dim
/// outermost, like a transposed tensor), with a storage offset of 3.
template <typename T> struct Strided {
  std::vector<T> storage;
  MemRefDescriptor<T, 3> desc;
  Strided(int64_t outer, int64_t n, int64_t inner)
      : storage(3 + std::max<int64_t>(outer * n * inner, 1)) {
    desc.allocated = desc.aligned = storage.data();
    desc.offset = 3;
    desc.sizes[0] = outer, desc.sizes[1] = n, desc.sizes[2] = inner;
    desc.strides[0] = inner, desc.strides[1] = outer * inner, desc.strides[2] = 1;
  }
  T &at(int64_t o, int64_t j, int64_t i) {
    return storage[desc.offset + o * desc.strides[0] + j * desc.strides[1] + i * desc.strides[2]];
  }
};

/// Eager's order: NaN after every number.
bool less(float a, float b) { return !std::isnan(a) && (std::isnan(b) || a < b); }
bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

/// Values with many ties (and NaNs in every 7th position when `nans`).
Strided<float> input(int64_t outer, int64_t n, int64_t inner, bool nans, unsigned seed) {
  Strided<float> in(outer, n, inner);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> value(-4, 4);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < inner; ++i)
        in.at(o, j, i) = nans && j % 7 == 3 ? NAN : 0.5f * value(gen);
  return in;
}

std::vector<float> line(Strided<float> &t, int64_t o, int64_t i) {
  std::vector<float> values;
  for (int64_t j = 0; j < t.desc.sizes[1]; ++j)
    values.push_back(t.at(o, j, i));
  return values;
}

struct Shape {
  int64_t outer, n, inner;
};
const Shape kShapes[] = {{1, 0, 1}, {1, 1, 1}, {3, 17, 2}, {2, 100, 3}, {1, 5000, 2}};

TEST(RuntimeSorting, SortIsAStablePermutationInEagersOrder) {
  SortFn sort = entry<SortFn>("sort");
  for (const Shape &s : kShapes)
    for (int64_t descending : {0, 1})
      for (int64_t stable : {0, 1}) {
        Strided<float> in = input(s.outer, s.n, s.inner, true, 11);
        Strided<float> values(s.outer, s.n, s.inner);
        Strided<int64_t> indices(s.outer, s.n, s.inner);
        sort(&in.desc, &values.desc, &indices.desc, descending, stable);
        for (int64_t o = 0; o < s.outer; ++o)
          for (int64_t i = 0; i < s.inner; ++i) {
            std::vector<bool> seen(s.n, false);
            for (int64_t j = 0; j < s.n; ++j) {
              int64_t index = indices.at(o, j, i);
              ASSERT_TRUE(index >= 0 && index < s.n);
              ASSERT_FALSE(seen[index]) << "index repeated";
              seen[index] = true;
              ASSERT_TRUE(same(values.at(o, j, i), in.at(o, index, i)));
              if (j == 0) continue;
              float prev = values.at(o, j - 1, i), cur = values.at(o, j, i);
              ASSERT_FALSE(descending ? less(prev, cur) : less(cur, prev)) << "not sorted";
              if (stable && same(prev, cur))
                ASSERT_LT(indices.at(o, j - 1, i), index) << "ties out of order";
            }
          }
      }
}

TEST(RuntimeSorting, TopkSelectsTheKExtremeValues) {
  TopkFn topk = entry<TopkFn>("topk");
  for (const Shape &s : kShapes)
    for (int64_t k : {int64_t{0}, int64_t{1}, s.n / 3, s.n})
      for (int64_t largest : {0, 1})
        for (int64_t sorted : {0, 1}) {
          if (k > s.n) continue;
          Strided<float> in = input(s.outer, s.n, s.inner, true, 12);
          Strided<float> values(s.outer, k, s.inner);
          Strided<int64_t> indices(s.outer, k, s.inner);
          topk(&in.desc, &values.desc, &indices.desc, k, largest, sorted);
          for (int64_t o = 0; o < s.outer; ++o)
            for (int64_t i = 0; i < s.inner; ++i) {
              std::vector<float> expected = line(in, o, i);
              std::sort(expected.begin(), expected.end(), less);
              if (largest) std::reverse(expected.begin(), expected.end());
              expected.resize(k);
              std::vector<float> got;
              for (int64_t j = 0; j < k; ++j) {
                int64_t index = indices.at(o, j, i);
                ASSERT_TRUE(index >= 0 && index < s.n);
                ASSERT_TRUE(same(values.at(o, j, i), in.at(o, index, i)));
                got.push_back(values.at(o, j, i));
              }
              if (!sorted) {
                std::sort(got.begin(), got.end(), less);
                if (largest) std::reverse(got.begin(), got.end());
              }
              for (int64_t j = 0; j < k; ++j)
                ASSERT_TRUE(same(got[j], expected[j])) << "k " << k << " position " << j;
            }
        }
}

TEST(RuntimeSorting, KthvalueIsTheKthOrderStatistic) {
  KthFn kthvalue = entry<KthFn>("kthvalue");
  for (const Shape &s : kShapes) {
    if (s.n == 0) continue;
    for (int64_t k : {int64_t{1}, (s.n + 1) / 2, s.n}) {
      Strided<float> in = input(s.outer, s.n, s.inner, true, 13);
      Strided<float> values(s.outer, 1, s.inner);
      Strided<int64_t> indices(s.outer, 1, s.inner);
      kthvalue(&in.desc, &values.desc, &indices.desc, k);
      for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
          std::vector<float> expected = line(in, o, i);
          std::sort(expected.begin(), expected.end(), less);
          ASSERT_TRUE(same(values.at(o, 0, i), expected[k - 1]));
          int64_t index = indices.at(o, 0, i);
          ASSERT_TRUE(index >= 0 && index < s.n);
          ASSERT_TRUE(same(in.at(o, index, i), expected[k - 1]));
        }
    }
  }
}

TEST(RuntimeSorting, ModeIsAMostFrequentValue) {
  ModeFn mode = entry<ModeFn>("mode");
  for (const Shape &s : kShapes) {
    if (s.n == 0) continue;
    Strided<float> in = input(s.outer, s.n, s.inner, false, 14);
    Strided<float> values(s.outer, 1, s.inner);
    Strided<int64_t> indices(s.outer, 1, s.inner);
    mode(&in.desc, &values.desc, &indices.desc);
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        std::map<float, int64_t> counts;
        for (float v : line(in, o, i)) ++counts[v];
        int64_t best = 0;
        for (const auto &entry : counts) best = std::max(best, entry.second);
        float value = values.at(o, 0, i);
        ASSERT_EQ(counts[value], best) << "not a most frequent value";
        int64_t index = indices.at(o, 0, i);
        ASSERT_TRUE(index >= 0 && index < s.n);
        ASSERT_EQ(in.at(o, index, i), value);
      }
  }
}

TEST(RuntimeSorting, EveryStorageTypeHasItsEntryPoints) {
  for (const char *op : {"sort", "topk", "kthvalue", "mode"})
    for (const char *type : {"f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "b8"})
      EXPECT_NE(resolveSortingSymbol(std::string("_mlir_ciface_ltc_mlir_rt_") + op + "_" + type),
                nullptr)
          << op << " " << type;
  EXPECT_EQ(resolveSortingSymbol("_mlir_ciface_ltc_mlir_rt_sort_c64"), nullptr);
}

} // namespace
