/* The f32 FMA throughput of one core, measured: the peak the kernel
 * benchmarks compare with (benchmarks/peak.py compiles this at run time).
 * Twelve independent FMA chains per iteration cover the FMA latency times
 * the FMA units of current x86 cores, so the loop runs at the core's real
 * (turbo) FMA rate, which /proc/cpuinfo's clock does not tell. The ISA is
 * the widest the host has: AVX-512F, else AVX2 + FMA. */
#include <immintrin.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define CHAINS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define N_CHAINS 12

#define DEFINE_LOOP(name, isa, vec, set1, lanes)                               \
  __attribute__((target(isa))) static float name(long iters) {             \
    const vec b = set1(0.999999f), c = set1(1e-6f);                          \
    CHAINS(DECLARE_##name)                                                   \
    for (long i = 0; i < iters; ++i) { CHAINS(STEP_##name) }                 \
    vec sum = a0;                                                            \
    CHAINS(SUM_##name)                                                       \
    float out[lanes];                                                        \
    __builtin_memcpy(out, &sum, sizeof(out));                                \
    return out[0];                                                           \
  }

#define DECLARE_loop512(k) __m512 a##k = _mm512_set1_ps((float)(k));
#define STEP_loop512(k) a##k = _mm512_fmadd_ps(a##k, b, c);
#define SUM_loop512(k) sum = _mm512_add_ps(sum, a##k);
DEFINE_LOOP(loop512, "avx512f", __m512, _mm512_set1_ps, 16)

#define DECLARE_loop256(k) __m256 a##k = _mm256_set1_ps((float)(k));
#define STEP_loop256(k) a##k = _mm256_fmadd_ps(a##k, b, c);
#define SUM_loop256(k) sum = _mm256_add_ps(sum, a##k);
DEFINE_LOOP(loop256, "avx2,fma", __m256, _mm256_set1_ps, 8)

volatile float ltc_fma_peak_sink;

/* GFLOP/s of the FMA loop run for about `seconds` (after a warm-up that
 * lets the clock ramp up); *lanes_out = 16 (AVX-512F), 8 (AVX2 + FMA) or 0
 * (neither: nothing measured). */
double ltc_fma_peak_gflops(double seconds, int *lanes_out) {
  int lanes = __builtin_cpu_supports("avx512f")                             ? 16
              : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 8
                                                                           : 0;
  *lanes_out = lanes;
  if (!lanes)
    return 0.0;
  float (*loop)(long) = lanes == 16 ? loop512 : loop256;
  long iters = 1 << 16;
  ltc_fma_peak_sink = loop(iters);
  double start = now(), elapsed = 0.0;
  while ((elapsed = now() - start) < 0.1 * seconds) { /* warm-up, sizing */
    ltc_fma_peak_sink = loop(iters);
    iters *= 2;
  }
  long total = 0;
  start = now();
  do {
    ltc_fma_peak_sink = loop(iters);
    total += iters;
  } while ((elapsed = now() - start) < seconds);
  return (double)total * N_CHAINS * lanes * 2.0 / elapsed / 1e9;
}
