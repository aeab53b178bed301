//===- compiler_half_types_test.cpp - f16/bf16 code on any x86 CPU --------===//
//
// f16/bf16 conversions, arithmetic and sums compiled for the host and for a
// CPU without F16C, AVX512-FP16 and AVX512-BF16 (CompileOptions::
// targetFeatures): the second must link (LLVM then calls __truncsfhf2 /
// __extendhfsf2, which the runtime provides) and both must give the values
// of the runtime's reference conversions (checked against an exact
// reference in runtime_half_conversions_test.cpp), bit for bit.
//
//===----------------------------------------------------------------------===//

#include "compiler_test_utils.h"

#include "ltc_mlir/runtime/half_conversions.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace ltc_mlir;
using namespace ltc_mlir::test;
using namespace ltc_mlir::runtime;

namespace {

runtime::Arg T(void *data) { return runtime::Arg::tensor(data); }

constexpr int64_t kN = 4096;

const char *kGraph = R"mlir(
func.func @forward(%x: !torch.vtensor<[4096],f32>, %h: !torch.vtensor<[4096],f16>, %d: !torch.vtensor<[4096],f64>, %b: !torch.vtensor<[4096],bf16>) -> (!torch.vtensor<[4096],f16>, !torch.vtensor<[4096],f32>, !torch.vtensor<[4096],bf16>, !torch.vtensor<[4096],f16>, !torch.vtensor<[],f16>, !torch.vtensor<[4096],bf16>, !torch.vtensor<[4096],f16>, !torch.vtensor<[4096],bf16>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %int5 = torch.constant.int 5
  %int6 = torch.constant.int 6
  %int15 = torch.constant.int 15
  %0 = torch.aten._to_copy %x, %int5, %none, %none, %none, %false, %none : (!torch.vtensor<[4096],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4096],f16>
  %1 = torch.aten._to_copy %h, %int6, %none, %none, %none, %false, %none : (!torch.vtensor<[4096],f16>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4096],f32>
  %2 = torch.aten._to_copy %x, %int15, %none, %none, %none, %false, %none : (!torch.vtensor<[4096],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4096],bf16>
  %3 = torch.aten.mul.Tensor %h, %h : (!torch.vtensor<[4096],f16>, !torch.vtensor<[4096],f16>) -> !torch.vtensor<[4096],f16>
  %4 = torch.aten.sum %h, %none : (!torch.vtensor<[4096],f16>, !torch.none) -> !torch.vtensor<[],f16>
  %5 = torch.aten._to_copy %d, %int15, %none, %none, %none, %false, %none : (!torch.vtensor<[4096],f64>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4096],bf16>
  %6 = torch.aten._to_copy %d, %int5, %none, %none, %none, %false, %none : (!torch.vtensor<[4096],f64>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.bool, !torch.none) -> !torch.vtensor<[4096],f16>
  %7 = torch.aten.mul.Tensor %b, %b : (!torch.vtensor<[4096],bf16>, !torch.vtensor<[4096],bf16>) -> !torch.vtensor<[4096],bf16>
  return %0, %1, %2, %3, %4, %5, %6, %7 : !torch.vtensor<[4096],f16>, !torch.vtensor<[4096],f32>, !torch.vtensor<[4096],bf16>, !torch.vtensor<[4096],f16>, !torch.vtensor<[],f16>, !torch.vtensor<[4096],bf16>, !torch.vtensor<[4096],f16>, !torch.vtensor<[4096],bf16>
}
)mlir";

uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

/// Same value, or both NaN.
bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || bitsOf(a) == bitsOf(b);
}

bool isHalfNaN(uint16_t bits) { return (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff); }
bool isBFloat16NaN(uint16_t bits) {
  return (bits & 0x7f80) == 0x7f80 && (bits & 0x7f);
}

void runAndCheck(const CompileOptions &options) {
  CompileResult compiled = compileTorchModule(kGraph, options);
  ASSERT_NE(compiled.function, nullptr) << compiled.error;

  // Inputs: rounding ties and their neighbours, subnormals, overflow, NaN,
  // then random values.
  std::vector<float> x = {0.0f,
                          -0.0f,
                          1.0f + 0x1p-11f, // f16 tie -> 1.0
                          1.0f + 3 * 0x1p-11f, // f16 tie -> up
                          1.0f + 0x1p-8f, // bf16 tie -> 1.0
                          65504.0f,
                          65519.996f,
                          65520.0f, // overflows f16
                          0x1p-24f,
                          0x1p-25f, // f16 tie -> 0
                          0x1.8p-25f,
                          3.0e38f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN()};
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 100.0f);
  while (x.size() < kN)
    x.push_back(normal(rng));
  std::vector<double> d(kN);
  for (int64_t i = 0; i < kN; ++i)
    d[i] = double(x[i]) * (1.0 + 0x1p-30); // not exactly a float
  // f16/bf16 inputs: multiples of 1/16 below 16, so that the f32 sum of
  // all 4096 is exact whatever the order.
  std::vector<uint16_t> h(kN), b(kN);
  float exactSum = 0;
  for (int64_t i = 0; i < kN; ++i) {
    float v = float(int(rng() % 512) - 256) / 16.0f;
    h[i] = floatToHalfBits(v);
    b[i] = floatToBFloat16Bits(v * 0.75f);
    exactSum += v;
  }

  std::vector<uint16_t> xToHalf(kN), xToBF(kN), hSquared(kN), dToBF(kN),
      dToHalf(kN), bSquared(kN);
  std::vector<float> hToFloat(kN);
  uint16_t hSum = 0;
  load(*compiled.function)
      .run({T(x.data()), T(h.data()), T(d.data()), T(b.data())},
           {T(xToHalf.data()), T(hToFloat.data()), T(xToBF.data()),
            T(hSquared.data()), T(&hSum), T(dToBF.data()), T(dToHalf.data()),
            T(bSquared.data())});

  for (int64_t i = 0; i < kN; ++i) {
    SCOPED_TRACE("element " + std::to_string(i) + ", x = " +
                 std::to_string(x[i]));
    uint16_t eHalf = floatToHalfBits(x[i]);
    if (std::isnan(x[i]))
      EXPECT_TRUE(isHalfNaN(xToHalf[i]));
    else
      EXPECT_EQ(xToHalf[i], eHalf);
    EXPECT_TRUE(sameFloat(hToFloat[i], halfBitsToFloat(h[i])));
    uint16_t eBF = floatToBFloat16Bits(x[i]);
    if (std::isnan(x[i]))
      EXPECT_TRUE(isBFloat16NaN(xToBF[i]));
    else
      EXPECT_EQ(xToBF[i], eBF);
    float hv = halfBitsToFloat(h[i]);
    EXPECT_EQ(hSquared[i], floatToHalfBits(hv * hv)); // exact in f32
    // f64 -> f16/bf16 rounds through f32, as c10 does.
    if (std::isnan(d[i])) {
      EXPECT_TRUE(isBFloat16NaN(dToBF[i]));
      EXPECT_TRUE(isHalfNaN(dToHalf[i]));
    } else {
      EXPECT_EQ(dToBF[i], floatToBFloat16Bits(float(d[i])));
      EXPECT_EQ(dToHalf[i], floatToHalfBits(float(d[i])));
    }
    float bv;
    uint32_t bBits = uint32_t(b[i]) << 16;
    std::memcpy(&bv, &bBits, 4);
    EXPECT_EQ(bSquared[i], floatToBFloat16Bits(bv * bv));
  }
  // Accumulated in f32 and rounded once (an f16 accumulator would stop at
  // a much coarser grid).
  EXPECT_EQ(hSum, floatToHalfBits(exactSum));
}

} // namespace

TEST(CompilerHalfTypes, HostCpu) { runAndCheck(defaultOptions()); }

TEST(CompilerHalfTypes, CpuWithoutHalfInstructions) {
  CompileOptions options = defaultOptions();
  options.targetFeatures = "-f16c,-avx512fp16,-avx512bf16,-avxneconvert";
  runAndCheck(options);
}
