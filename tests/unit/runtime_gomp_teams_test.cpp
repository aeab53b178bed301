// Runtime units: the libomp entry points implemented on libgomp's team
// (gomp_teams.cpp), called the way OpenMPIRBuilder's code calls them.
#include "ltc_mlir/runtime/gomp_teams.h"
#include "ltc_mlir/runtime/openmp.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <dlfcn.h>
#include <vector>

using namespace ltc_mlir::runtime;

namespace {

using Microtask = void (*)(int32_t *, int32_t *, ...);
using ForkCall = void (*)(void *, int32_t, Microtask, ...);
using StaticInit8u = void (*)(void *, int32_t, int32_t, int32_t *, uint64_t *,
                              uint64_t *, int64_t *, int64_t, int64_t);
using StaticInit8 = void (*)(void *, int32_t, int32_t, int32_t *, int64_t *,
                             int64_t *, int64_t *, int64_t, int64_t);
using ThreadNum = int32_t (*)(void *);
using Barrier = void (*)(void *, int32_t);
using PushThreads = void (*)(void *, int32_t, int32_t);
using Reduce = int32_t (*)(void *, int32_t, int32_t, size_t, void *,
                           void (*)(void *, void *), void *);
using EndReduce = void (*)(void *, int32_t, void *);

template <typename F> F shim(const char *name) {
  return reinterpret_cast<F>(resolveGompShimSymbol(name));
}

/// libgomp as libtorch would have loaded it (the runtime never loads it).
bool haveGomp() {
  static bool loaded = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL) && loadTorchGomp();
  return loaded;
}

constexpr int32_t kStatic = 34, kStaticChunked = 33;

struct Share {
  int64_t lower = 0, upper = -1;
  int32_t last = 0, threads = 0;
};

struct LoopCase {
  int64_t lower, upper, incr, chunk;
  int32_t schedule;
  std::vector<Share> shares = std::vector<Share>(8);
};

void unsignedLoop(int32_t *, int32_t *, LoopCase *c) {
  int32_t thread = shim<ThreadNum>("__kmpc_global_thread_num")(nullptr);
  uint64_t lower = c->lower, upper = c->upper;
  int64_t stride = 0;
  int32_t last = 0;
  shim<StaticInit8u>("__kmpc_for_static_init_8u")(nullptr, thread, c->schedule, &last,
                                                  &lower, &upper, &stride, c->incr,
                                                  c->chunk);
  c->shares[thread] = {int64_t(lower), int64_t(upper), last, 0};
  shim<Barrier>("__kmpc_barrier")(nullptr, thread);
}

void signedLoop(int32_t *, int32_t *, LoopCase *c) {
  int32_t thread = shim<ThreadNum>("__kmpc_global_thread_num")(nullptr);
  int64_t lower = c->lower, upper = c->upper, stride = 0;
  int32_t last = 0;
  shim<StaticInit8>("__kmpc_for_static_init_8")(nullptr, thread, c->schedule, &last,
                                                &lower, &upper, &stride, c->incr,
                                                c->chunk);
  c->shares[thread] = {lower, upper, last, 0};
}

void expectRange(const Share &share, int64_t lower, int64_t upper) {
  EXPECT_EQ(share.lower, lower);
  EXPECT_EQ(share.upper, upper);
}

void fork(int threads, Microtask body, void *arg) {
  setNumThreads(threads);
  shim<ForkCall>("__kmpc_fork_call")(nullptr, 1, body, arg);
  setNumThreads(1);
}

TEST(RuntimeGompTeams, FindsLibgompAndImplementsTheEmittedEntryPoints) {
  ASSERT_TRUE(haveGomp());
  for (const char *name :
       {"__kmpc_fork_call", "__kmpc_global_thread_num", "__kmpc_barrier",
        "__kmpc_for_static_init_8u", "__kmpc_for_static_init_4",
        "__kmpc_for_static_fini", "__kmpc_reduce_nowait"})
    EXPECT_NE(resolveGompShimSymbol(name), nullptr) << name;
  // Dynamic schedules are not bridged: such code must fail to link.
  EXPECT_EQ(resolveGompShimSymbol("__kmpc_dispatch_init_8u"), nullptr);
}

TEST(RuntimeGompTeams, StaticLoopGivesEachThreadOneBlockCoveringAll) {
  ASSERT_TRUE(haveGomp());
  LoopCase c{0, 9, 1, 0, kStatic}; // 10 iterations on 3 threads: 4, 3, 3
  fork(3, reinterpret_cast<Microtask>(&unsignedLoop), &c);
  expectRange(c.shares[0], 0, 3);
  expectRange(c.shares[1], 4, 6);
  expectRange(c.shares[2], 7, 9);
  EXPECT_EQ(c.shares[0].last + c.shares[1].last, 0);
  EXPECT_EQ(c.shares[2].last, 1);
}

TEST(RuntimeGompTeams, ThreadsWithoutIterationsGetAnEmptyRange) {
  ASSERT_TRUE(haveGomp());
  LoopCase c{0, 1, 1, 0, kStatic}; // 2 iterations on 3 threads
  fork(3, reinterpret_cast<Microtask>(&unsignedLoop), &c);
  EXPECT_EQ(c.shares[0].upper - c.shares[0].lower + 1, 1);
  EXPECT_EQ(c.shares[1].upper - c.shares[1].lower + 1, 1);
  EXPECT_EQ(c.shares[2].upper - c.shares[2].lower + 1, 0);
  EXPECT_EQ(c.shares[1].last, 1);
  EXPECT_EQ(c.shares[2].last, 0);
}

TEST(RuntimeGompTeams, NegativeStepAndChunkedSchedules) {
  ASSERT_TRUE(haveGomp());
  LoopCase down{10, 1, -3, 0, kStatic}; // 10, 7, 4, 1 on 2 threads
  fork(2, reinterpret_cast<Microtask>(&signedLoop), &down);
  expectRange(down.shares[0], 10, 7);
  expectRange(down.shares[1], 4, 1);
  EXPECT_EQ(down.shares[1].last, 1);

  LoopCase chunked{0, 9, 1, 2, kStaticChunked}; // chunks of 2, round robin
  fork(2, reinterpret_cast<Microtask>(&signedLoop), &chunked);
  expectRange(chunked.shares[0], 0, 1);
  expectRange(chunked.shares[1], 2, 3);
  EXPECT_EQ(chunked.shares[0].last, 1); // the last chunk (8, 9) is thread 0's
}

TEST(RuntimeGompTeams, OneThreadRunsInlineWithTheWholeRange) {
  ASSERT_TRUE(haveGomp());
  LoopCase c{0, 99, 1, 0, kStatic};
  fork(1, reinterpret_cast<Microtask>(&unsignedLoop), &c);
  expectRange(c.shares[0], 0, 99);
  EXPECT_EQ(c.shares[0].last, 1);
}

struct BarrierCase {
  std::atomic<int> arrived{0};
  int seenAfterBarrier[8] = {};
};

void barrierBody(int32_t *, int32_t *, BarrierCase *c) {
  int32_t thread = shim<ThreadNum>("__kmpc_global_thread_num")(nullptr);
  c->arrived.fetch_add(1);
  shim<Barrier>("__kmpc_barrier")(nullptr, thread);
  c->seenAfterBarrier[thread] = c->arrived.load();
}

TEST(RuntimeGompTeams, BarrierWaitsForTheWholeTeam) {
  ASSERT_TRUE(haveGomp());
  for (int round = 0; round < 50; ++round) {
    BarrierCase c;
    fork(4, reinterpret_cast<Microtask>(&barrierBody), &c);
    for (int t = 0; t < 4; ++t)
      ASSERT_EQ(c.seenAfterBarrier[t], 4) << "thread " << t << " round " << round;
  }
}

struct ReduceCase {
  int64_t sum = 0; // updated only inside the reduction's critical section
  int32_t teamSeen = 0;
};

void reduceBody(int32_t *, int32_t *, ReduceCase *c) {
  int32_t thread = shim<ThreadNum>("__kmpc_global_thread_num")(nullptr);
  int64_t partial = 0;
  for (int i = 0; i < 1000; ++i)
    partial += thread + 1;
  if (shim<Reduce>("__kmpc_reduce_nowait")(nullptr, thread, 1, 8, &partial, nullptr,
                                           nullptr) == 1) {
    int64_t before = c->sum;
    c->sum = before + partial;
    shim<EndReduce>("__kmpc_end_reduce_nowait")(nullptr, thread, nullptr);
  }
}

TEST(RuntimeGompTeams, ReductionsCombineEveryThreadsPartialOnce) {
  ASSERT_TRUE(haveGomp());
  for (int round = 0; round < 20; ++round) {
    ReduceCase c;
    fork(4, reinterpret_cast<Microtask>(&reduceBody), &c);
    ASSERT_EQ(c.sum, 1000 * (1 + 2 + 3 + 4));
  }
}

void countTeam(int32_t *, int32_t *, std::atomic<int> *members) { members->fetch_add(1); }

TEST(RuntimeGompTeams, PushedThreadCountAndNestedRegions) {
  ASSERT_TRUE(haveGomp());
  std::atomic<int> members{0};
  setNumThreads(3);
  shim<PushThreads>("__kmpc_push_num_threads")(nullptr, 0, 2);
  shim<ForkCall>("__kmpc_fork_call")(nullptr, 1, reinterpret_cast<Microtask>(&countTeam),
                                     &members);
  EXPECT_EQ(members.load(), 2);
  setNumThreads(1);

  // A region inside a region runs on the thread that reaches it, alone.
  struct Nested {
    std::atomic<int> inner{0};
  } nested;
  auto outer = +[](int32_t *, int32_t *, Nested *n) {
    shim<ForkCall>("__kmpc_fork_call")(nullptr, 1,
                                       reinterpret_cast<Microtask>(&countTeam), &n->inner);
  };
  fork(2, reinterpret_cast<Microtask>(outer), &nested);
  EXPECT_EQ(nested.inner.load(), 2); // once per outer thread
}

TEST(RuntimeGompTeams, ParallelForVisitsEveryIndexOnce) {
  ASSERT_TRUE(haveGomp());
  std::vector<std::atomic<int>> visits(37);
  setNumThreads(2);
  gompParallelFor(
      37, [](int64_t i, void *v) { (*static_cast<std::vector<std::atomic<int>> *>(v))[i]++; },
      &visits);
  setNumThreads(1);
  for (auto &v : visits)
    EXPECT_EQ(v.load(), 1);
}

} // namespace
