//===- compiler_api_test.cpp - ltc_mlir::compileTorchModule ---------------===//
//
// Error reporting (parse, verifier, unknown ops, signatures), reproducers,
// dumps, signature extraction and numerics of small graphs through the
// runtime.
//
//===----------------------------------------------------------------------===//

#include "compiler_test_utils.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace ltc_mlir;
using namespace ltc_mlir::test;

namespace {

std::string makeTempDir() {
  char tmpl[] = "/tmp/ltc_mlir_compiler_test.XXXXXX";
  const char *dir = mkdtemp(tmpl);
  return dir ? dir : "/tmp";
}

bool fileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char *kIdentity = R"mlir(
func.func @forward(%arg0: !torch.vtensor<[2,3],f32>, %arg1: !torch.int, %arg2: !torch.float, %arg3: !torch.vtensor<[],si64>) -> (!torch.vtensor<[2,3],f32>, !torch.vtensor<[],si64>) {
  return %arg0, %arg3 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[],si64>
}
)mlir";

} // namespace

TEST(CompilerApi, ParseErrorIsReportedWithReproducer) {
  std::string dir = makeTempDir();
  CompileOptions options = defaultOptions();
  options.reproducerDir = dir;
  CompileResult r = compileTorchModule("func.func @forward( garbage", options);
  EXPECT_EQ(r.function, nullptr);
  EXPECT_NE(r.error.find("failed to parse"), std::string::npos) << r.error;
  ASSERT_FALSE(r.reproducerPath.empty());
  EXPECT_EQ(r.reproducerPath.rfind(dir, 0), 0u) << r.reproducerPath;
  std::string contents = readFile(r.reproducerPath);
  EXPECT_NE(contents.find("// failed to parse"), std::string::npos);
  EXPECT_NE(contents.find("func.func @forward( garbage"), std::string::npos);
}

TEST(CompilerApi, OnlyTheNewestReproducersAreKept) {
  std::string dir = makeTempDir();
  CompileOptions options = defaultOptions();
  options.reproducerDir = dir;
  options.maxReproducers = 3;
  std::vector<std::string> paths;
  for (int i = 0; i < 5; ++i) {
    CompileResult r = compileTorchModule("func.func @forward( garbage", options);
    ASSERT_FALSE(r.reproducerPath.empty()) << r.writeError;
    paths.push_back(r.reproducerPath);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(fileExists(paths[i]), i >= 2) << paths[i];
}

TEST(CompilerApi, UnwritableReproducerDirIsReported) {
  CompileOptions options = defaultOptions();
  options.reproducerDir = "/proc/ltc_mlir_no_such_dir";
  CompileResult r = compileTorchModule("func.func @forward( garbage", options);
  EXPECT_TRUE(r.reproducerPath.empty());
  EXPECT_NE(r.writeError.find("cannot write /proc/ltc_mlir_no_such_dir/"),
            std::string::npos)
      << r.writeError;
}

TEST(CompilerApi, VerifierErrorIsReported) {
  CompileResult r = compileTorchModule(R"mlir(
func.func @forward(%a: !torch.vtensor<[64,784],f32>, %b: !torch.vtensor<[512,784],f32>) -> !torch.vtensor<[64,512],f32> {
  %0 = torch.aten.mm %a, %b : (!torch.vtensor<[64,784],f32>, !torch.vtensor<[512,784],f32>) -> !torch.vtensor<[64,512],f32>
  return %0 : !torch.vtensor<[64,512],f32>
})mlir",
                                       defaultOptions());
  EXPECT_EQ(r.function, nullptr);
  EXPECT_NE(r.error.find("inner dimensions mismatch"), std::string::npos)
      << r.error;
  EXPECT_TRUE(r.unsupportedOps.empty());
}

TEST(CompilerApi, BadTypeIsReported) {
  CompileResult r = compileTorchModule(R"mlir(
func.func @forward(%a: !torch.vtensor<[2,-3],f32>) -> !torch.vtensor<[2,-3],f32> {
  return %a : !torch.vtensor<[2,-3],f32>
})mlir",
                                       defaultOptions());
  EXPECT_EQ(r.function, nullptr);
  EXPECT_NE(r.error.find("must be static and non-negative"), std::string::npos)
      << r.error;
}

TEST(CompilerApi, UnregisteredOpsAreListed) {
  // Ops that are not in torch's registry (every ATen op is registered).
  CompileResult r = compileTorchModule(R"mlir(
func.func @forward(%a: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %0 = "torch.aten.twiddle"(%a) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %1 = "torch.aten.frobnicate"(%0) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  %2 = "torch.aten.twiddle"(%1) : (!torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  return %2 : !torch.vtensor<[4],f32>
})mlir",
                                       defaultOptions());
  EXPECT_EQ(r.function, nullptr);
  EXPECT_EQ(
      r.unsupportedOps,
      (std::vector<std::string>{"torch.aten.twiddle", "torch.aten.frobnicate"}));
  EXPECT_NE(
      r.error.find("unsupported ops: torch.aten.twiddle, torch.aten.frobnicate"),
      std::string::npos)
      << r.error;
  // Unsupported ops are a known limit, not a compiler bug: no reproducer.
  EXPECT_TRUE(r.reproducerPath.empty());
}

TEST(CompilerApi, RegisteredOpsWithoutLoweringAreListed) {
  // linalg_inv and linalg_det parse and verify (generated from torch's
  // registry) but have no lowering (matrix factorizations are left to the
  // eager fallback); the conversion names them, in either syntax.
  CompileResult r = compileTorchModule(R"mlir(
func.func @forward(%a: !torch.vtensor<[4,4],f32>) -> !torch.vtensor<[],f32> {
  %0 = "torch.aten.linalg_inv"(%a) : (!torch.vtensor<[4,4],f32>) -> !torch.vtensor<[4,4],f32>
  %1 = torch.aten.linalg_det %0 : (!torch.vtensor<[4,4],f32>) -> !torch.vtensor<[],f32>
  return %1 : !torch.vtensor<[],f32>
})mlir",
                                       defaultOptions());
  EXPECT_EQ(r.function, nullptr);
  EXPECT_EQ(r.unsupportedOps,
            (std::vector<std::string>{"torch.aten.linalg_inv",
                                      "torch.aten.linalg_det"}));
  EXPECT_NE(
      r.error.find("unsupported op 'torch.aten.linalg_inv': no lowering"),
      std::string::npos)
      << r.error;
}

TEST(CompilerApi, MissingForwardAndScalarResultsAreErrors) {
  CompileResult r = compileTorchModule(R"mlir(
func.func @main(%a: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  return %a : !torch.vtensor<[4],f32>
})mlir",
                                       defaultOptions());
  EXPECT_EQ(r.function, nullptr);
  EXPECT_NE(r.error.find("no func.func @forward"), std::string::npos)
      << r.error;

  r = compileTorchModule(R"mlir(
func.func @forward(%a: !torch.int) -> !torch.int {
  return %a : !torch.int
})mlir",
                         defaultOptions());
  EXPECT_EQ(r.function, nullptr);
  EXPECT_NE(r.error.find("results must be !torch.vtensor"), std::string::npos)
      << r.error;
}

TEST(CompilerApi, SignatureDumpsAndIdentityRun) {
  std::string dir = makeTempDir();
  CompileOptions options = defaultOptions();
  options.dumpDir = dir;
  options.dumpName = "ident";
  CompileResult r = compileTorchModule(kIdentity, options);
  ASSERT_NE(r.function, nullptr) << r.error;
  EXPECT_GT(r.compileTimeMs, 0.0);

  const CompiledFunction &f = *r.function;
  ASSERT_EQ(f.inputs.size(), 4u);
  EXPECT_EQ(f.inputs[0].kind, ValueKind::Tensor);
  EXPECT_EQ(f.inputs[0].dtype, "f32");
  EXPECT_EQ(f.inputs[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f.inputs[1].kind, ValueKind::Int);
  EXPECT_EQ(f.inputs[2].kind, ValueKind::Float);
  EXPECT_EQ(f.inputs[3].dtype, "si64");
  EXPECT_TRUE(f.inputs[3].shape.empty());
  ASSERT_EQ(f.outputs.size(), 2u);
  EXPECT_EQ(f.outputs[1].dtype, "si64");

  for (const char *stage : {"torch", "linalg", "llvm"})
    EXPECT_TRUE(fileExists(dir + "/ident." + stage + ".mlir")) << stage;
  EXPECT_EQ(r.reproducerPath, dir + "/ident.torch.mlir");
  EXPECT_NE(readFile(dir + "/ident.llvm.mlir").find("_mlir_ciface_forward"),
            std::string::npos);

  // Outputs are copies: the inputs are never aliased or written.
  float in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {};
  int64_t s = 42, sOut = 0;
  load(f).run({runtime::Arg::tensor(in), runtime::Arg::integer(7),
               runtime::Arg::floating(0.5), runtime::Arg::tensor(&s)},
              {runtime::Arg::tensor(out), runtime::Arg::tensor(&sOut)});
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(out[i], in[i]);
  EXPECT_EQ(sOut, 42);
}

TEST(CompilerApi, ConcurrentCompiles) {
  std::vector<CompileResult> results(3);
  std::vector<std::thread> threads;
  for (auto &result : results)
    threads.emplace_back([&result] {
      result = compileTorchModule(kIdentity, defaultOptions());
    });
  for (auto &t : threads)
    t.join();
  for (auto &result : results)
    EXPECT_NE(result.function, nullptr) << result.error;
}

// Needs the TorchToLinalg patterns for mm / add.Tensor / relu. W is [K,N].
TEST(CompilerApi, LinearReluNumerics) {
  const int M = 64, K = 784, N = 512;
  std::string text = R"mlir(
func.func @forward(%x: !torch.vtensor<[64,784],f32>, %w: !torch.vtensor<[784,512],f32>, %b: !torch.vtensor<[512],f32>, %one: !torch.int) -> !torch.vtensor<[64,512],f32> {
  %0 = torch.aten.mm %x, %w : (!torch.vtensor<[64,784],f32>, !torch.vtensor<[784,512],f32>) -> !torch.vtensor<[64,512],f32>
  %1 = torch.aten.add.Tensor %0, %b, %one : (!torch.vtensor<[64,512],f32>, !torch.vtensor<[512],f32>, !torch.int) -> !torch.vtensor<[64,512],f32>
  %2 = torch.aten.relu %1 : (!torch.vtensor<[64,512],f32>) -> !torch.vtensor<[64,512],f32>
  return %2 : !torch.vtensor<[64,512],f32>
})mlir";
  CompileResult r = compileTorchModule(text, defaultOptions());
  ASSERT_NE(r.function, nullptr) << r.error;
  std::vector<float> x(M * K), w(K * N), b(N), out(M * N);
  for (int i = 0; i < M * K; ++i)
    x[i] = float((i * 7) % 13) / 13.0f - 0.4f;
  for (int i = 0; i < K * N; ++i)
    w[i] = float((i * 5) % 11) / 11.0f - 0.5f;
  for (int i = 0; i < N; ++i)
    b[i] = float(i % 7) / 7.0f - 0.5f;
  runtime::Executable exe = load(*r.function);
  runtime::setNumThreads(2);
  auto run = [&] {
    exe.run({runtime::Arg::tensor(x.data()), runtime::Arg::tensor(w.data()),
             runtime::Arg::tensor(b.data()), runtime::Arg::integer(1)},
            {runtime::Arg::tensor(out.data())});
  };
  run();
  double maxErr = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = b[j];
      for (int k = 0; k < K; ++k)
        acc += double(x[i * K + k]) * w[k * N + j];
      maxErr = std::max(maxErr, std::fabs(std::max(acc, 0.0) - out[i * N + j]));
    }
  EXPECT_LT(maxErr, 1e-3);

  const int iters = 50;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i)
    run();
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("[ perf     ] mm+bias+relu 64x784x512: %.1f "
              "GFLOP/s, %.3f ms/iter, compile %.0f ms\n",
              2.0 * M * N * K * iters / secs / 1e9, secs / iters * 1e3,
              r.compileTimeMs);
}

// Reductions tiled along their reduction loops (sum over rows, row-wise
// log-softmax). Needs the TorchToLinalg reduction/softmax patterns.
TEST(CompilerApi, ReductionNumerics) {
  const int M = 64, N = 512;
  CompileResult r = compileTorchModule(R"mlir(
func.func @forward(%x: !torch.vtensor<[64,512],f32>) -> (!torch.vtensor<[512],f32>, !torch.vtensor<[64,512],f32>) {
  %c0 = torch.constant.int 0
  %c1 = torch.constant.int 1
  %l = torch.prim.ListConstruct %c0 : (!torch.int) -> !torch.list<int>
  %f = torch.constant.bool false
  %n = torch.constant.none
  %0 = torch.aten.sum.dim_IntList %x, %l, %f, %n : (!torch.vtensor<[64,512],f32>, !torch.list<int>, !torch.bool, !torch.none) -> !torch.vtensor<[512],f32>
  %1 = torch.aten._log_softmax %x, %c1, %f : (!torch.vtensor<[64,512],f32>, !torch.int, !torch.bool) -> !torch.vtensor<[64,512],f32>
  return %0, %1 : !torch.vtensor<[512],f32>, !torch.vtensor<[64,512],f32>
})mlir",
                                       defaultOptions());
  ASSERT_NE(r.function, nullptr) << r.error;
  std::vector<float> x(M * N), sum(N), lsm(M * N);
  for (int i = 0; i < M * N; ++i)
    x[i] = float((i * 37) % 101) / 25.0f - 2.0f;
  runtime::setNumThreads(2);
  load(*r.function)
      .run(
          {runtime::Arg::tensor(x.data())},
          {runtime::Arg::tensor(sum.data()), runtime::Arg::tensor(lsm.data())});
  for (int j = 0; j < N; ++j) {
    double acc = 0;
    for (int i = 0; i < M; ++i)
      acc += x[i * N + j];
    EXPECT_NEAR(sum[j], acc, 1e-3) << j;
  }
  for (int i = 0; i < M; ++i) {
    double mx = -1e30, se = 0;
    for (int j = 0; j < N; ++j)
      mx = std::max(mx, double(x[i * N + j]));
    for (int j = 0; j < N; ++j)
      se += std::exp(x[i * N + j] - mx);
    for (int j = 0; j < N; ++j)
      ASSERT_NEAR(lsm[i * N + j], x[i * N + j] - mx - std::log(se), 1e-4)
          << i << "," << j;
  }
}
