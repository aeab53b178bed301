// Matrix decompositions through LAPACK, called as eager PyTorch's CPU
// kernels call them (aten/src/ATen/native/BatchLinearAlgebra*.cpp): each
// matrix is copied column-major, the routine's optimal workspace is queried
// once per call and reused for every matrix of the batch. Same routine, same
// arguments, same library: the same vectors and signs as eager.
#include "ltc_mlir/runtime/lapack.h"

#include "ltc_mlir/runtime/entry_points.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <optional>
#include <vector>

namespace ltc_mlir {
namespace runtime {
namespace {

// Fortran LAPACK entry points: every argument by address. (The hidden
// lengths of the character arguments are left out, as PyTorch does.)
template <typename T> struct Routines {
  void (*gesdd)(const char *jobz, const int *m, const int *n, T *a,
                const int *lda, T *s, T *u, const int *ldu, T *vt,
                const int *ldvt, T *work, const int *lwork, int *iwork,
                int *info) = nullptr;
  void (*syevd)(const char *jobz, const char *uplo, const int *n, T *a,
                const int *lda, T *w, T *work, const int *lwork, int *iwork,
                const int *liwork, int *info) = nullptr;
  void (*geqrf)(const int *m, const int *n, T *a, const int *lda, T *tau,
                T *work, const int *lwork, int *info) = nullptr;
  void (*orgqr)(const int *m, const int *n, const int *k, T *a,
                const int *lda, const T *tau, T *work, const int *lwork,
                int *info) = nullptr;
  bool complete() const { return gesdd && syevd && geqrf && orgqr; }
};

struct Lapack {
  Routines<float> f32;
  Routines<double> f64;
};

template <typename Fn> void bind(void *handle, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
}

const Lapack *lapack() {
  static const Lapack *loaded = []() -> const Lapack * {
    // In a torch process: the LAPACK eager uses, the one inside the wheel's
    // libtorch_cpu (MKL), which exports the Fortran names. Without torch
    // (runtime unit tests, standalone programs): the system's liblapack,
    // RTLD_LOCAL to keep its names out of the JIT's way.
    void *handle = dlopen("libtorch_cpu.so", RTLD_LAZY | RTLD_NOLOAD);
    if (!handle || !dlsym(handle, "sgesdd_"))
      handle = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return nullptr;
    static Lapack l;
    bind(handle, "sgesdd_", l.f32.gesdd);
    bind(handle, "dgesdd_", l.f64.gesdd);
    bind(handle, "ssyevd_", l.f32.syevd);
    bind(handle, "dsyevd_", l.f64.syevd);
    bind(handle, "sgeqrf_", l.f32.geqrf);
    bind(handle, "dgeqrf_", l.f64.geqrf);
    bind(handle, "sorgqr_", l.f32.orgqr);
    bind(handle, "dorgqr_", l.f64.orgqr);
    return l.f32.complete() && l.f64.complete() ? &l : nullptr;
  }();
  return loaded;
}

template <typename T> const Routines<T> &routines();
template <> const Routines<float> &routines<float>() { return lapack()->f32; }
template <> const Routines<double> &routines<double>() { return lapack()->f64; }

/// PyTorch reads the queried workspace size by truncation.
template <typename T> int workspaceSize(T queried) {
  return std::max<int>(1, static_cast<int>(queried));
}

/// Matrix `b` of a [B, rows, cols] descriptor, copied into `out` as a
/// column-major rows x cols matrix with leading dimension `ld`.
template <typename T>
void gatherColumnMajor(const MemRefDescriptor<T, 3> &d, int64_t b, T *out,
                       int64_t ld, int64_t rows, int64_t cols) {
  const T *base = d.aligned + d.offset + b * d.strides[0];
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      out[i + j * ld] = base[i * d.strides[1] + j * d.strides[2]];
}

/// The column-major rows x cols matrix `in` (leading dimension `ld`) written
/// to matrix `b` of a [B, rows', cols'] descriptor (its first rows x cols).
template <typename T>
void scatterColumnMajor(const T *in, int64_t ld, int64_t rows, int64_t cols,
                        MemRefDescriptor<T, 3> &d, int64_t b) {
  T *base = d.aligned + d.offset + b * d.strides[0];
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      base[i * d.strides[1] + j * d.strides[2]] = in[i + j * ld];
}

template <typename T>
void setRow(MemRefDescriptor<T, 2> &d, int64_t b, const T *values,
            int64_t count) {
  T *base = d.aligned + d.offset + b * d.strides[0];
  for (int64_t i = 0; i < count; ++i)
    base[i * d.strides[1]] = values[i];
}

void setInfo(MemRefDescriptor<int32_t, 1> &info, int64_t b, int value) {
  info.aligned[info.offset + b * info.strides[0]] = value;
}

// linalg.svd (apply_svd): gesdd with jobz 'A' (full_matrices), 'S' or 'N'.
template <typename T>
void svd(MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 3> *u,
         MemRefDescriptor<T, 2> *s, MemRefDescriptor<T, 3> *vh,
         MemRefDescriptor<int32_t, 1> *info, int64_t fullMatrices,
         int64_t computeUV) {
  const Routines<T> &r = routines<T>();
  const int batch = static_cast<int>(a->sizes[0]);
  const int m = static_cast<int>(a->sizes[1]);
  const int n = static_cast<int>(a->sizes[2]);
  const int k = std::min(m, n);
  const char jobz = computeUV ? (fullMatrices ? 'A' : 'S') : 'N';
  const int uCols = fullMatrices ? m : k, vhRows = fullMatrices ? n : k;
  const int lda = std::max(1, m);
  const int ldu = computeUV ? std::max(1, m) : 1;
  const int ldvh = computeUV ? std::max(1, vhRows) : 1;
  std::vector<T> work_a(static_cast<size_t>(lda) * n);
  std::vector<T> work_s(std::max(1, k));
  std::vector<T> work_u(computeUV ? static_cast<size_t>(ldu) * uCols : 1);
  std::vector<T> work_vh(computeUV ? static_cast<size_t>(ldvh) * n : 1);
  std::vector<int> iwork(8 * std::max(1, k));
  int status = 0, lwork = -1;
  T queried = 0;
  r.gesdd(&jobz, &m, &n, work_a.data(), &lda, work_s.data(), work_u.data(),
          &ldu, work_vh.data(), &ldvh, &queried, &lwork, iwork.data(),
          &status);
  lwork = workspaceSize(queried);
  std::vector<T> work(lwork);
  for (int b = 0; b < batch; ++b) {
    gatherColumnMajor(*a, b, work_a.data(), lda, m, n);
    r.gesdd(&jobz, &m, &n, work_a.data(), &lda, work_s.data(), work_u.data(),
            &ldu, work_vh.data(), &ldvh, work.data(), &lwork, iwork.data(),
            &status);
    setInfo(*info, b, status);
    setRow(*s, b, work_s.data(), k);
    if (computeUV) {
      scatterColumnMajor(work_u.data(), ldu, m, uCols, *u, b);
      scatterColumnMajor(work_vh.data(), ldvh, vhRows, n, *vh, b);
    }
  }
}

// syevd (linalg.eigh, apply_lapack_eigh) with its workspace queried once.
template <typename T> struct SymmetricEigen {
  char jobz, uplo;
  int n, lda, lwork = -1, liwork = -1;
  std::vector<T> work;
  std::vector<int> iwork;

  SymmetricEigen(bool vectors, bool upper, int n)
      : jobz(vectors ? 'V' : 'N'),
        uplo(upper ? 'U' : 'L'), n(n), lda(std::max(1, n)) {
    std::vector<T> probe(static_cast<size_t>(lda) * n), w(std::max(1, n));
    T queried = 0;
    int queriedInts = 0, status = 0;
    call(probe.data(), w.data(), &queried, &queriedInts, &status);
    lwork = workspaceSize(queried);
    liwork = std::max(1, queriedInts);
    work.resize(lwork);
    iwork.resize(liwork);
  }
  void call(T *a, T *w, T *workspace, int *intWorkspace, int *status) {
    routines<T>().syevd(&jobz, &uplo, &n, a, &lda, w, workspace, &lwork,
                        intWorkspace, &liwork, status);
  }
};

template <typename T>
void symmetricEigen(MemRefDescriptor<T, 3> *a,
                    MemRefDescriptor<T, 2> *values, MemRefDescriptor<T, 3> *vectors,
                    MemRefDescriptor<int32_t, 1> *info, int64_t upper,
                    int64_t computeVectors) {
  const int batch = static_cast<int>(a->sizes[0]);
  const int n = static_cast<int>(a->sizes[1]);
  SymmetricEigen<T> routine(computeVectors, upper, n);
  std::vector<T> work_a(static_cast<size_t>(routine.lda) * n);
  std::vector<T> work_w(std::max(1, n));
  for (int b = 0; b < batch; ++b) {
    int status = 0;
    gatherColumnMajor(*a, b, work_a.data(), routine.lda, n, n);
    routine.call(work_a.data(), work_w.data(), routine.work.data(),
                 routine.iwork.data(), &status);
    setInfo(*info, b, status);
    setRow(*values, b, work_w.data(), n);
    if (computeVectors)
      scatterColumnMajor(work_a.data(), routine.lda, n, n, *vectors, b);
  }
}

// geqrf for m x n column-major matrices (leading dimension m), with the
// workspace queried once (apply_geqrf); tau holds the last call's factors.
template <typename T> struct HouseholderQR {
  int m, n, lda, lwork = -1;
  std::vector<T> tau, work;
  HouseholderQR(int m, int n)
      : m(m), n(n), lda(std::max(1, m)), tau(std::max(1, std::min(m, n))) {
    std::vector<T> probe(static_cast<size_t>(lda) * n);
    T queried = 0;
    int status = 0;
    routines<T>().geqrf(&m, &n, probe.data(), &lda, tau.data(), &queried,
                        &lwork, &status);
    lwork = workspaceSize(queried);
    work.resize(lwork);
  }
  void factor(T *a) {
    int status = 0;
    routines<T>().geqrf(&m, &n, a, &lda, tau.data(), work.data(), &lwork,
                        &status);
  }
};

// orgqr: the m x n Q of k reflectors stored in a column-major matrix
// (apply_orgqr), with the workspace queried once.
template <typename T> struct HouseholderProduct {
  int m, n, k, lda, lwork = -1;
  std::vector<T> work;
  HouseholderProduct(int m, int n, int k) : m(m), n(n), k(k), lda(std::max(1, m)) {
    std::vector<T> probe(static_cast<size_t>(lda) * n), tau(std::max(1, k));
    T queried = 0;
    int status = 0;
    routines<T>().orgqr(&m, &n, &k, probe.data(), &lda, tau.data(), &queried,
                        &lwork, &status);
    lwork = workspaceSize(queried);
    work.resize(lwork);
  }
  void form(T *a, const T *tau) {
    int status = 0;
    routines<T>().orgqr(&m, &n, &k, a, &lda, tau, work.data(), &lwork,
                        &status);
  }
};

// linalg.qr (linalg_qr_out): geqrf, R = the upper triangle of its first
// rows, then orgqr on Q (m x qCols) holding geqrf's reflectors.
// mode: 0 reduced (Q m x k), 1 complete (Q m x m), 2 r (no Q).
template <typename T>
void qr(MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 3> *q,
        MemRefDescriptor<T, 3> *rOut, int64_t mode) {
  const int batch = static_cast<int>(a->sizes[0]);
  const int m = static_cast<int>(a->sizes[1]);
  const int n = static_cast<int>(a->sizes[2]);
  const int k = std::min(m, n);
  const bool computeQ = mode != 2;
  const int qCols = mode == 1 ? m : k;
  const int rRows = mode == 1 ? m : k;
  HouseholderQR<T> factorization(m, n);
  const int lda = factorization.lda;
  std::vector<T> work_a(static_cast<size_t>(lda) * n);
  std::vector<T> work_q(computeQ ? static_cast<size_t>(lda) * qCols : 1);
  std::optional<HouseholderProduct<T>> product;
  if (computeQ)
    product.emplace(m, qCols, k);
  for (int b = 0; b < batch; ++b) {
    gatherColumnMajor(*a, b, work_a.data(), lda, m, n);
    factorization.factor(work_a.data());
    // R: rows [0, rRows) of the factored matrix, zero below the diagonal.
    T *rBase = rOut->aligned + rOut->offset + b * rOut->strides[0];
    for (int i = 0; i < rRows; ++i)
      for (int j = 0; j < n; ++j)
        rBase[i * rOut->strides[1] + j * rOut->strides[2]] =
            j >= i ? work_a[i + static_cast<size_t>(j) * lda] : T(0);
    if (!computeQ)
      continue;
    // orgqr reads the reflectors from the first k columns and sets the
    // others itself.
    std::fill(work_q.begin(), work_q.end(), T(0));
    std::memcpy(work_q.data(), work_a.data(),
                sizeof(T) * static_cast<size_t>(lda) * std::min(qCols, n));
    product->form(work_q.data(), factorization.tau.data());
    scatterColumnMajor(work_q.data(), lda, m, qCols, *q, b);
  }
}

// geqrf (apply_geqrf): the factored matrix (R above the diagonal, the
// reflectors below) and tau.
template <typename T>
void geqrf(MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 3> *out,
           MemRefDescriptor<T, 2> *tauOut) {
  const int batch = static_cast<int>(a->sizes[0]);
  const int m = static_cast<int>(a->sizes[1]);
  const int n = static_cast<int>(a->sizes[2]);
  HouseholderQR<T> factorization(m, n);
  std::vector<T> work_a(static_cast<size_t>(factorization.lda) * n);
  for (int b = 0; b < batch; ++b) {
    gatherColumnMajor(*a, b, work_a.data(), factorization.lda, m, n);
    factorization.factor(work_a.data());
    scatterColumnMajor(work_a.data(), factorization.lda, m, n, *out, b);
    setRow(*tauOut, b, factorization.tau.data(), std::min(m, n));
  }
}

// linalg_householder_product (apply_orgqr): Q from the first tau.size(-1)
// reflectors of each matrix.
template <typename T>
void householderProduct(MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 2> *tau,
                        MemRefDescriptor<T, 3> *out) {
  const int batch = static_cast<int>(a->sizes[0]);
  const int m = static_cast<int>(a->sizes[1]);
  const int n = static_cast<int>(a->sizes[2]);
  const int k = static_cast<int>(tau->sizes[1]);
  HouseholderProduct<T> product(m, n, k);
  std::vector<T> work_a(static_cast<size_t>(product.lda) * n);
  std::vector<T> tauRow(std::max(1, k));
  for (int b = 0; b < batch; ++b) {
    gatherColumnMajor(*a, b, work_a.data(), product.lda, m, n);
    const T *tauBase = tau->aligned + tau->offset + b * tau->strides[0];
    for (int i = 0; i < k; ++i)
      tauRow[i] = tauBase[i * tau->strides[1]];
    product.form(work_a.data(), tauRow.data());
    scatterColumnMajor(work_a.data(), product.lda, m, n, *out, b);
  }
}

} // namespace
} // namespace runtime
} // namespace ltc_mlir

using ltc_mlir::runtime::MemRefDescriptor;

// The C-interface entry points, per dtype (runtime/lapack.h).
#define LTC_MLIR_LAPACK_ENTRY_POINTS(T, SUFFIX)                                 \
  void _mlir_ciface_ltc_mlir_rt_svd_##SUFFIX(                                   \
      MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 3> *u,                     \
      MemRefDescriptor<T, 2> *s, MemRefDescriptor<T, 3> *vh,                    \
      MemRefDescriptor<int32_t, 1> *info, int64_t full, int64_t computeUV) {    \
    ltc_mlir::runtime::svd(a, u, s, vh, info, full, computeUV);                 \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_eigh_##SUFFIX(                                  \
      MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 2> *values,                \
      MemRefDescriptor<T, 3> *vectors, MemRefDescriptor<int32_t, 1> *info,      \
      int64_t upper, int64_t computeV) {                                        \
    ltc_mlir::runtime::symmetricEigen(a, values, vectors, info, upper,          \
                                      computeV);                                \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_qr_##SUFFIX(MemRefDescriptor<T, 3> *a,          \
                                           MemRefDescriptor<T, 3> *q,           \
                                           MemRefDescriptor<T, 3> *r,           \
                                           int64_t mode) {                      \
    ltc_mlir::runtime::qr(a, q, r, mode);                                       \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_geqrf_##SUFFIX(MemRefDescriptor<T, 3> *a,       \
                                              MemRefDescriptor<T, 3> *out,     \
                                              MemRefDescriptor<T, 2> *tau) {   \
    ltc_mlir::runtime::geqrf(a, out, tau);                                      \
  }                                                                             \
  void _mlir_ciface_ltc_mlir_rt_householder_product_##SUFFIX(                   \
      MemRefDescriptor<T, 3> *a, MemRefDescriptor<T, 2> *tau,                   \
      MemRefDescriptor<T, 3> *out) {                                            \
    ltc_mlir::runtime::householderProduct(a, tau, out);                         \
  }

extern "C" {
LTC_MLIR_LAPACK_ENTRY_POINTS(float, f32)
LTC_MLIR_LAPACK_ENTRY_POINTS(double, f64)
}
#undef LTC_MLIR_LAPACK_ENTRY_POINTS

namespace ltc_mlir {
namespace runtime {

void *resolveLapackSymbol(const std::string &name) {
#define LTC_MLIR_LAPACK_ENTRIES(OP)                                             \
  LTC_MLIR_CIFACE_ENTRY_POINT(OP, f32), LTC_MLIR_CIFACE_ENTRY_POINT(OP, f64)
  static const EntryPoint entries[] = {
      LTC_MLIR_LAPACK_ENTRIES(svd),   LTC_MLIR_LAPACK_ENTRIES(eigh),
      LTC_MLIR_LAPACK_ENTRIES(qr),
      LTC_MLIR_LAPACK_ENTRIES(geqrf), LTC_MLIR_LAPACK_ENTRIES(householder_product),
  };
#undef LTC_MLIR_LAPACK_ENTRIES
  // Without LAPACK no entry point resolves: the compile fails, the graph
  // runs eagerly.
  void *address = findEntryPoint(entries, name.c_str());
  return address && lapack() ? address : nullptr;
}

} // namespace runtime
} // namespace ltc_mlir
