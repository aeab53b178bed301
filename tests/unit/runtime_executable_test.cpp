// Runtime units: descriptor layout, argument checking, OpenMP loading.
// A hand-written entry point stands in for compiled code.
#include "ltc_mlir/runtime/executable.h"
#include "ltc_mlir/runtime/openmp.h"
#include "ltc_mlir/runtime/symbols.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace ltc_mlir::runtime;

namespace {

// Same layout as MLIR's StridedMemRefType<float, 2>.
struct Desc2D {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};
struct Desc0D {
  float *allocated;
  float *aligned;
  int64_t offset;
};

// out[i][j] = in[i][j] * scale + bias + offsetScalar
void fakeEntry(void **args) {
  Desc2D *in = *static_cast<Desc2D **>(args[0]);
  int64_t bias = *static_cast<int64_t *>(args[1]);
  double scale = *static_cast<double *>(args[2]);
  Desc0D *shift = *static_cast<Desc0D **>(args[3]);
  Desc2D *out = *static_cast<Desc2D **>(args[4]);
  for (int64_t i = 0; i < in->sizes[0]; ++i)
    for (int64_t j = 0; j < in->sizes[1]; ++j)
      out->aligned[out->offset + i * out->strides[0] + j * out->strides[1]] =
          in->aligned[in->offset + i * in->strides[0] + j * in->strides[1]] *
              static_cast<float>(scale) +
          static_cast<float>(bias) + shift->aligned[0];
}

Executable makeExecutable() {
  return Executable(&fakeEntry,
                    {{ArgKind::Tensor, {2, 3}}, {ArgKind::Int, {}},
                     {ArgKind::Float, {}}, {ArgKind::Tensor, {}}},
                    {{ArgKind::Tensor, {2, 3}}}, nullptr);
}

} // namespace

TEST(RuntimeExecutable, PassesContiguousDescriptorsAndScalars) {
  Executable exe = makeExecutable();
  std::vector<float> in = {0, 1, 2, 3, 4, 5}, out(6, -1.f);
  float shift = 0.5f;
  exe.run({Arg::tensor(in.data()), Arg::integer(10), Arg::floating(2.0),
           Arg::tensor(&shift)},
          {Arg::tensor(out.data())});
  for (int i = 0; i < 6; ++i)
    EXPECT_FLOAT_EQ(out[i], in[i] * 2.0f + 10.0f + 0.5f) << "element " << i;
}

TEST(RuntimeExecutable, RejectsWrongArity) {
  Executable exe = makeExecutable();
  std::vector<float> buf(6);
  EXPECT_THROW(exe.run({Arg::tensor(buf.data())}, {Arg::tensor(buf.data())}),
               std::invalid_argument);
}

TEST(RuntimeExecutable, RejectsWrongKindWithSlotInMessage) {
  Executable exe = makeExecutable();
  std::vector<float> buf(6);
  float s = 0;
  try {
    exe.run({Arg::tensor(buf.data()), Arg::floating(1.0), Arg::floating(2.0),
             Arg::tensor(&s)},
            {Arg::tensor(buf.data())});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("inputs #1 must be a int"),
              std::string::npos)
        << e.what();
  }
}

TEST(RuntimeExecutable, RejectsNullBuffer) {
  Executable exe = makeExecutable();
  std::vector<float> buf(6);
  float s = 0;
  EXPECT_THROW(exe.run({Arg::tensor(nullptr), Arg::integer(1),
                        Arg::floating(2.0), Arg::tensor(&s)},
                       {Arg::tensor(buf.data())}),
               std::invalid_argument);
}

// Code for every batch size: a dynamic size is given per call and reaches
// the descriptor; static sizes are checked, missing sizes rejected.
TEST(RuntimeExecutable, DynamicSizesComeFromEachCall) {
  Executable exe(&fakeEntry,
                 {{ArgKind::Tensor, {kDynamicSize, 3}}, {ArgKind::Int, {}},
                  {ArgKind::Float, {}}, {ArgKind::Tensor, {}}},
                 {{ArgKind::Tensor, {kDynamicSize, 3}}}, nullptr);
  EXPECT_TRUE(exe.hasDynamicSizes());
  EXPECT_FALSE(makeExecutable().hasDynamicSizes());
  std::vector<float> in = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, out(12, -1.f);
  float shift = 0;
  const int64_t fourRows[] = {4, 3};
  exe.run({Arg::tensor(in.data(), fourRows), Arg::integer(1), Arg::floating(1.0),
           Arg::tensor(&shift)},
          {Arg::tensor(out.data(), fourRows)});
  for (int i = 0; i < 12; ++i)
    EXPECT_FLOAT_EQ(out[i], in[i] + 1.0f) << "element " << i;
  const int64_t wrongColumns[] = {4, 2};
  try {
    exe.run({Arg::tensor(in.data(), wrongColumns), Arg::integer(1),
             Arg::floating(1.0), Arg::tensor(&shift)},
            {Arg::tensor(out.data(), fourRows)});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("has shape [4, 2], the code takes [?, 3]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(exe.run({Arg::tensor(in.data()), Arg::integer(1),
                        Arg::floating(1.0), Arg::tensor(&shift)},
                       {Arg::tensor(out.data(), fourRows)}),
               std::invalid_argument);
}

TEST(RuntimeExecutable, RejectsNullEntry) {
  EXPECT_THROW(Executable(nullptr, {}, {}, nullptr), std::invalid_argument);
}

namespace {

// Stands in for code with runtime checks: args[0] is a 1-D int64 tensor of
// check indices to fail, in order (negative entries are skipped), args[1] an
// int: when nonzero, the failures are reported from a separate thread (as
// an OpenMP worker would). Writes args[2][0] = 1 so a run is observable.
struct Desc1DI64 {
  int64_t *allocated;
  int64_t *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
};
void checkingEntry(void **args) {
  Desc1DI64 *fails = *static_cast<Desc1DI64 **>(args[0]);
  int64_t fromWorker = *static_cast<int64_t *>(args[1]);
  Desc0D *out = *static_cast<Desc0D **>(args[2]);
  auto report = [&] {
    for (int64_t i = 0; i < fails->sizes[0]; ++i)
      if (fails->aligned[i] >= 0)
        ltc_mlir_rt_check_failed(fails->aligned[i]);
  };
  if (fromWorker)
    std::thread(report).join();
  else
    report();
  out->aligned[0] = 1.0f;
}

Executable makeCheckingExecutable(int64_t numFails) {
  return Executable(&checkingEntry,
                    {{ArgKind::Tensor, {numFails}}, {ArgKind::Int, {}}},
                    {{ArgKind::Tensor, {}}}, nullptr,
                    {"nll_loss_forward: Target is out of bounds",
                     "as_strided_copy: storage offset is out of bounds"});
}

std::string runExpectingError(const Executable &exe,
                              std::vector<int64_t> fails, bool fromWorker) {
  float out = 0;
  try {
    exe.run({Arg::tensor(fails.data()), Arg::integer(fromWorker)},
            {Arg::tensor(&out)});
  } catch (const std::runtime_error &e) {
    EXPECT_EQ(out, 1.0f) << "the code runs to completion before the throw";
    return e.what();
  }
  ADD_FAILURE() << "expected std::runtime_error";
  return "";
}

} // namespace

TEST(RuntimeChecks, PassingChecksDoNotThrow) {
  Executable exe = makeCheckingExecutable(2);
  std::vector<int64_t> none = {-1, -1};
  float out = 0;
  exe.run({Arg::tensor(none.data()), Arg::integer(0)}, {Arg::tensor(&out)});
  EXPECT_EQ(out, 1.0f);
  EXPECT_EQ(exe.checkMessages().size(), 2u);
}

TEST(RuntimeChecks, FailedCheckThrowsItsMessageAndTheNextRunIsClean) {
  Executable exe = makeCheckingExecutable(2);
  EXPECT_EQ(runExpectingError(exe, {-1, 0}, false),
            "ltc_mlir: nll_loss_forward: Target is out of bounds");
  // The first failure of a run wins.
  EXPECT_EQ(runExpectingError(exe, {1, 0}, false),
            "ltc_mlir: as_strided_copy: storage offset is out of bounds");
  // Nothing is left over for the next run.
  std::vector<int64_t> none = {-1, -1};
  float out = 0;
  EXPECT_NO_THROW(exe.run({Arg::tensor(none.data()), Arg::integer(0)},
                          {Arg::tensor(&out)}));
}

TEST(RuntimeChecks, FailureOnAnotherThreadIsReportedByTheRun) {
  Executable exe = makeCheckingExecutable(1);
  EXPECT_EQ(runExpectingError(exe, {1}, true),
            "ltc_mlir: as_strided_copy: storage offset is out of bounds");
  std::vector<int64_t> none = {-1};
  float out = 0;
  EXPECT_NO_THROW(exe.run({Arg::tensor(none.data()), Arg::integer(0)},
                          {Arg::tensor(&out)}));
}

TEST(RuntimeChecks, UnknownIndexStillThrows) {
  Executable exe = makeCheckingExecutable(1);
  std::string what = runExpectingError(exe, {7}, false);
  EXPECT_NE(what.find("runtime check #7"), std::string::npos) << what;
}

TEST(RuntimeChecks, ConcurrentRunsReportTheirOwnFailures) {
  Executable exe = makeCheckingExecutable(1);
  std::vector<std::thread> threads;
  std::vector<std::string> errors(8);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::vector<int64_t> fails = {t % 2 == 0 ? 0 : -1};
        float out = 0;
        try {
          exe.run({Arg::tensor(fails.data()), Arg::integer(0)},
                  {Arg::tensor(&out)});
          if (t % 2 == 0)
            errors[t] = "no error";
        } catch (const std::runtime_error &e) {
          if (t % 2 != 0)
            errors[t] = e.what();
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < 8; ++t)
    EXPECT_EQ(errors[t], "") << "thread " << t;
}

TEST(RuntimeChecks, ResolvesRuntimeSymbolsOnly) {
  EXPECT_EQ(resolveRuntimeSymbol("ltc_mlir_rt_check_failed"),
            reinterpret_cast<void *>(&ltc_mlir_rt_check_failed));
  EXPECT_EQ(resolveRuntimeSymbol("__kmpc_fork_call"), nullptr);
  EXPECT_EQ(resolveRuntimeSymbol("ltc_mlir_rt_unknown"), nullptr);
}

TEST(RuntimeSymbols, MemrefCopyBetweenStridedViews) {
  EXPECT_EQ(resolveRuntimeSymbol("memrefCopy"),
            reinterpret_cast<void *>(&memrefCopy));
  // src: columns 1..3 of a 3x5 buffer with row stride 5; dst: the 3x3 block
  // at offset 2 of a 3x6 buffer with strides [6, 1]; then a transposed,
  // non-unit innermost stride.
  std::vector<float> in(15), out(18, -1.0f);
  for (int i = 0; i < 15; ++i)
    in[i] = float(i);
  Desc2D src{in.data(), in.data(), 1, {3, 3}, {5, 1}};
  Desc2D dst{out.data(), out.data(), 2, {3, 3}, {6, 1}};
  ltc_mlir_UnrankedMemRef s{2, &src}, d{2, &dst};
  memrefCopy(sizeof(float), &s, &d);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j)
      EXPECT_EQ(out[i * 6 + j],
                j >= 2 && j < 5 ? float(i * 5 + 1 + j - 2) : -1.0f)
          << i << "," << j;
  std::vector<float> t(9, 0.0f);
  Desc2D srcT{in.data(), in.data(), 0, {3, 3}, {1, 5}}; // in^T (3x3 block)
  Desc2D dstT{t.data(), t.data(), 0, {3, 3}, {3, 1}};
  ltc_mlir_UnrankedMemRef sT{2, &srcT}, dT{2, &dstT};
  memrefCopy(sizeof(float), &sT, &dT);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(t[i * 3 + j], in[j * 5 + i]);
}

TEST(RuntimeOpenMP, LoadsLibompPrivatelyAndResolvesKmpc) {
  ASSERT_TRUE(openMPAvailable()) << openMPLoadError();
  EXPECT_NE(resolveOpenMPSymbol("__kmpc_fork_call"), nullptr);
  EXPECT_NE(resolveOpenMPSymbol("__kmpc_for_static_init_8u"), nullptr);
  EXPECT_EQ(resolveOpenMPSymbol("definitely_not_an_omp_symbol"), nullptr);
}

TEST(RuntimeOpenMP, ThreadCountIsClampedToOne) {
  setNumThreads(0);
  EXPECT_EQ(getNumThreads(), 1);
  setNumThreads(2);
  EXPECT_EQ(getNumThreads(), 2);
  setNumThreads(1);
}

#include "ltc_mlir/runtime/buffer_cache.h"

#include <cstdint>

TEST(RuntimeBufferCache, ReusesFreedBlocksOfTheSameSizeAligned) {
  releaseCachedBuffers();
  const size_t size = 1 << 20;
  void *a = ltc_mlir_rt_alloc(size);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
  ltc_mlir_rt_free(a);
  EXPECT_GE(cachedBufferBytes(), size);
  void *b = ltc_mlir_rt_alloc(size); // same rounded size: the cached block
  EXPECT_EQ(a, b);
  EXPECT_EQ(cachedBufferBytes(), 0u);
  void *c = ltc_mlir_rt_alloc(size); // the block is in use: a new one
  EXPECT_NE(b, c);
  ltc_mlir_rt_free(b);
  ltc_mlir_rt_free(c);
  releaseCachedBuffers();
  EXPECT_EQ(cachedBufferBytes(), 0u);
}

TEST(RuntimeBufferCache, SmallAndOverAlignedBlocksAreNotCached) {
  releaseCachedBuffers();
  void *small = ltc_mlir_rt_alloc(100);
  ltc_mlir_rt_free(small);
  EXPECT_EQ(cachedBufferBytes(), 0u);
  void *wide = ltc_mlir_rt_aligned_alloc(4096, 1 << 20);
  ASSERT_NE(wide, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(wide) % 4096, 0u);
  ltc_mlir_rt_free(wide);
  EXPECT_EQ(cachedBufferBytes(), 0u);
  ltc_mlir_rt_free(nullptr); // like free(NULL)
}
