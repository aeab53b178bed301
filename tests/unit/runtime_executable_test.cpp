// Runtime units: descriptor layout, argument checking, OpenMP loading.
// A hand-written entry point stands in for compiled code.
#include "ltc_mlir/runtime/executable.h"
#include "ltc_mlir/runtime/openmp.h"

#include <gtest/gtest.h>

#include <stdexcept>
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

TEST(RuntimeExecutable, RejectsNullEntry) {
  EXPECT_THROW(Executable(nullptr, {}, {}, nullptr), std::invalid_argument);
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
