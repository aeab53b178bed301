// Runtime units: ltc_mlir_rt_sgemm, the GEMM block compiled code calls, for
// every operand layout it is handed (row-major, transposed, column-major C,
// doubly strided views, broadcast rows), overwrite and accumulate, against
// a double-precision reference.
#include "ltc_mlir/runtime/gemm.h"
#include "ltc_mlir/runtime/symbols.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

/// A matrix view into `storage` (element (i, j) at i * rowStride + j *
/// colStride), big enough for the largest strides used.
struct View {
  std::vector<float> storage;
  int64_t rows, cols, rowStride, colStride;
  float &at(int64_t i, int64_t j) { return storage[i * rowStride + j * colStride]; }
  int64_t address() { return reinterpret_cast<int64_t>(storage.data()); }
};

View makeView(int64_t rows, int64_t cols, int64_t rowStride, int64_t colStride,
              std::mt19937 &rng) {
  View v{{}, rows, cols, rowStride, colStride};
  int64_t extent = (rows - 1) * rowStride + (cols - 1) * colStride + 1;
  v.storage.resize(static_cast<size_t>(extent));
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &x : v.storage)
    x = dist(rng);
  return v;
}

enum class Layout { RowMajor, Transposed, Strided, BroadcastRows };

View layoutView(Layout layout, int64_t rows, int64_t cols, std::mt19937 &rng) {
  switch (layout) {
  case Layout::RowMajor:
    return makeView(rows, cols, cols + 3, 1, rng); // padded rows
  case Layout::Transposed:
    return makeView(rows, cols, 1, rows, rng);
  case Layout::Strided:
    return makeView(rows, cols, 2 * cols + 1, 2, rng);
  case Layout::BroadcastRows:
    return makeView(rows, cols, 0, 1, rng); // every row the same
  }
  return makeView(rows, cols, cols, 1, rng);
}

struct Case {
  Layout a, b, c;
  bool accumulate;
};

class SgemmLayouts : public ::testing::TestWithParam<Case> {};

TEST_P(SgemmLayouts, MatchesReference) {
  const Case &p = GetParam();
  std::mt19937 rng(7);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{37, 53, 29},
                         {64, 128, 96},
                         {1, 40, 17},
                         {33, 1, 65}}) {
    View a = layoutView(p.a, m, k, rng), b = layoutView(p.b, k, n, rng);
    // C must not broadcast: writes would collide.
    View c = layoutView(p.c == Layout::BroadcastRows ? Layout::RowMajor : p.c,
                        m, n, rng);
    std::vector<double> expected(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = p.accumulate ? c.at(i, j) : 0.0;
        for (int64_t q = 0; q < k; ++q)
          sum += double(a.at(i, q)) * double(b.at(q, j));
        expected[i * n + j] = sum;
      }
    ltc_mlir_rt_sgemm(m, n, k, a.address(), a.rowStride, a.colStride,
                      b.address(), b.rowStride, b.colStride, c.address(),
                      c.rowStride, c.colStride, p.accumulate ? 1 : 0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        ASSERT_NEAR(c.at(i, j), expected[i * n + j], 1e-4 * (1 + std::sqrt(double(k))))
            << "m=" << m << " n=" << n << " k=" << k << " at (" << i << ", " << j << ")";
  }
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (Layout a : {Layout::RowMajor, Layout::Transposed, Layout::Strided,
                   Layout::BroadcastRows})
    for (Layout b : {Layout::RowMajor, Layout::Transposed, Layout::Strided})
      for (Layout c : {Layout::RowMajor, Layout::Transposed, Layout::Strided})
        for (bool accumulate : {false, true})
          cases.push_back({a, b, c, accumulate});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, SgemmLayouts, ::testing::ValuesIn(allCases()));

TEST(Sgemm, OverwriteIgnoresGarbageInC) {
  // beta = 0 must not read C: NaN in the output buffer stays out.
  std::mt19937 rng(3);
  View a = makeView(48, 40, 40, 1, rng), b = makeView(40, 56, 56, 1, rng);
  std::vector<float> c(48 * 56, std::nanf(""));
  ltc_mlir_rt_sgemm(48, 56, 40, a.address(), 40, 1, b.address(), 56, 1,
                    reinterpret_cast<int64_t>(c.data()), 56, 1, 0);
  for (float x : c)
    ASSERT_FALSE(std::isnan(x));
}

TEST(Sgemm, EmptySumIsZeroOrUnchanged) {
  std::vector<float> c(6, 5.0f);
  float dummy = 0;
  int64_t d = reinterpret_cast<int64_t>(&dummy);
  ltc_mlir_rt_sgemm(2, 3, 0, d, 0, 0, d, 0, 0, reinterpret_cast<int64_t>(c.data()), 3, 1, 1);
  EXPECT_EQ(c[4], 5.0f);
  ltc_mlir_rt_sgemm(2, 3, 0, d, 0, 0, d, 0, 0, reinterpret_cast<int64_t>(c.data()), 3, 1, 0);
  EXPECT_EQ(c[4], 0.0f);
}

TEST(Sgemm, ResolvedByName) {
  EXPECT_EQ(ltc_mlir::runtime::resolveRuntimeSymbol("ltc_mlir_rt_sgemm"),
            reinterpret_cast<void *>(&ltc_mlir_rt_sgemm));
}

} // namespace
