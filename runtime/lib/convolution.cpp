// f32 2-D convolutions (runtime/convolution.h): 1x1 and weight-heavy ones as
// GEMMs (pointwise_convolution.cpp, gemm_convolution.cpp), the others by
// oneDNN's primitives (onednn/convolution_primitive.cpp), plain loops when
// neither can. The operands: convolution_operands.h.
#include "ltc_mlir/runtime/convolution.h"

#include "convolution_operands.h"
#include "onednn_library.h"
#include "ltc_mlir/runtime/entry_points.h"
#include "ltc_mlir/runtime/memref.h"
#include "ltc_mlir/runtime/openmp.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <vector>

namespace ltc_mlir {
namespace runtime {
namespace {

using namespace convolution;

std::atomic<int64_t> fallbackCount{0};

//===----------------------------------------------------------------------===//
// Plain loops: shapes oneDNN refuses.
//===----------------------------------------------------------------------===//

float &at(Tensor4 *t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return t->aligned[t->offset + a * t->strides[0] + b * t->strides[1] +
                    c * t->strides[2] + d * t->strides[3]];
}

/// Calls `body(n, f, c, oh, ow, kh, kw, ih, iw)` for every product term of
/// the convolution whose input position is inside the input (c is the
/// channel within the weights' group slice, ih/iw the input position).
template <typename Body>
void forEachTerm(const Operands &o, const Params &p, Body body) {
  int64_t n = o.src->sizes[0], h = o.src->sizes[2], w = o.src->sizes[3];
  int64_t f = o.weights->sizes[0], cg = o.weights->sizes[1];
  int64_t kh = o.weights->sizes[2], kw = o.weights->sizes[3];
  int64_t oh = o.dst->sizes[2], ow = o.dst->sizes[3];
  int64_t fg = f / p.groups;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t of = 0; of < f; ++of)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x)
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < kh; ++i) {
              int64_t iy = y * p.stride[0] - p.padding[0] + i * p.dilation[0];
              if (iy < 0 || iy >= h)
                continue;
              for (int64_t j = 0; j < kw; ++j) {
                int64_t ix =
                    x * p.stride[1] - p.padding[1] + j * p.dilation[1];
                if (ix >= 0 && ix < w)
                  body(b, of, (of / fg) * cg + c, c, y, x, i, j, iy, ix);
              }
            }
}

void fill(Tensor4 *t, float value) {
  for (int64_t a = 0; a < t->sizes[0]; ++a)
    for (int64_t b = 0; b < t->sizes[1]; ++b)
      for (int64_t c = 0; c < t->sizes[2]; ++c)
        for (int64_t d = 0; d < t->sizes[3]; ++d)
          at(t, a, b, c, d) = value;
}

void referenceConvolution(Kind kind, const Operands &o, const Params &p) {
  fallbackCount.fetch_add(1, std::memory_order_relaxed);
  switch (kind) {
  case Kind::Forward: {
    fill(o.dst, 0.0f);
    forEachTerm(o, p, [&](int64_t b, int64_t f, int64_t ci, int64_t c,
                          int64_t y, int64_t x, int64_t i, int64_t j,
                          int64_t iy, int64_t ix) {
      at(o.dst, b, f, y, x) += at(o.src, b, ci, iy, ix) * at(o.weights, f, c, i, j);
    });
    if (o.bias && o.bias->sizes[0] > 0)
      for (int64_t b = 0; b < o.dst->sizes[0]; ++b)
        for (int64_t f = 0; f < o.dst->sizes[1]; ++f)
          for (int64_t y = 0; y < o.dst->sizes[2]; ++y)
            for (int64_t x = 0; x < o.dst->sizes[3]; ++x)
              at(o.dst, b, f, y, x) +=
                  o.bias->aligned[o.bias->offset + f * o.bias->strides[0]];
    return;
  }
  case Kind::BackwardData:
    fill(o.src, 0.0f);
    forEachTerm(o, p, [&](int64_t b, int64_t f, int64_t ci, int64_t c,
                          int64_t y, int64_t x, int64_t i, int64_t j,
                          int64_t iy, int64_t ix) {
      at(o.src, b, ci, iy, ix) += at(o.dst, b, f, y, x) * at(o.weights, f, c, i, j);
    });
    return;
  case Kind::BackwardWeights:
    fill(o.weights, 0.0f);
    forEachTerm(o, p, [&](int64_t b, int64_t f, int64_t ci, int64_t c,
                          int64_t y, int64_t x, int64_t i, int64_t j,
                          int64_t iy, int64_t ix) {
      at(o.weights, f, c, i, j) += at(o.src, b, ci, iy, ix) * at(o.dst, b, f, y, x);
    });
    return;
  }
}

bool isEmpty(const Tensor4 *t) {
  return t->sizes[0] == 0 || t->sizes[1] == 0 || t->sizes[2] == 0 ||
         t->sizes[3] == 0;
}

/// One convolution, oneDNN on one libgomp thread (see "Threads" below).
void convolveOnce(Kind kind, const Operands &o, const Params &p) {
  // Empty tensors (no products, or nothing to write): the loops are exact.
  if (isEmpty(o.src) || isEmpty(o.weights) || isEmpty(o.dst)) {
    referenceConvolution(kind, o, p);
    return;
  }
  if (convolvePointwise(kind, o, p) || convolveWithGemm(kind, o, p))
    return;
  if (oneDnn().convolve &&
      oneDnn().convolve(static_cast<int64_t>(kind), &o, &p))
    return;
  referenceConvolution(kind, o, p);
}

//===----------------------------------------------------------------------===//
// Threads: independent pieces on libomp's threads.
//===----------------------------------------------------------------------===//
//
// Compiled code runs its loops on libomp, oneDNN on libgomp: a oneDNN call
// on several libgomp threads leaves them spinning (GOMP_SPINCOUNT) on the
// cores the next compiled loop's libomp threads need, which made a
// 2-thread ResNet step slower than a 1-thread one. So a call on T > 1
// threads is cut into T independent convolutions, each run by oneDNN on one
// thread inside one libomp parallel region:
//  - grouped convolutions: slices of whole groups (nothing read twice);
//  - otherwise each piece reads one operand whole, and reorders it into
//    oneDNN's layout again, so the split is the one whose whole operand is
//    smallest: batch slices read all the weights; output-channel slices
//    (forward, weight gradient) all the input; input-channel slices (input
//    gradient, weight gradient) all of grad_output. Early ResNet layers
//    (big activations, small weights) are cut by batch, late ones (small
//    activations, big weights) by channels. The weight gradient is never
//    cut by batch: that would need a reduction of the pieces.
// Channel slices are multiples of 16 (oneDNN's blocks). Results may differ
// from a 1-thread run in the last bits, as eager's do.

/// A piece of a convolution: the operands' descriptors narrowed to slices.
struct Piece {
  Tensor4 src, weights, dst;
  Tensor1 bias;
  bool hasBias = false;
  Params params;
  Operands operands() {
    return {&src, &weights, &dst, hasBias ? &bias : nullptr};
  }
};

template <typename T> T sliced(T t, int dim, int64_t start, int64_t size) {
  t.offset += start * t.strides[dim];
  t.sizes[dim] = size;
  return t;
}

/// Up to `parts` consecutive ranges covering [0, extent), each a multiple of
/// `multiple` long except the last.
std::vector<std::pair<int64_t, int64_t>> ranges(int64_t extent, int64_t parts,
                                                int64_t multiple) {
  int64_t size = (extent + parts - 1) / parts;
  size = (size + multiple - 1) / multiple * multiple;
  std::vector<std::pair<int64_t, int64_t>> r;
  for (int64_t start = 0; start < extent; start += size)
    r.push_back({start, std::min(size, extent - start)});
  return r;
}

/// Below this many multiply-adds a convolution runs on one thread.
constexpr int64_t kMinParallelMacs = int64_t(1) << 20;
/// The same for grouped (depthwise) convolutions: with a few multiply-adds
/// per element they cost memory traffic and layout reorders rather than
/// FMAs, and a half of the groups per thread pays off far earlier
/// (MobileNetV2 train at 2 threads: ~1.5 ms less per step than at 2^20).
constexpr int64_t kMinParallelGroupedMacs = int64_t(1) << 16;
constexpr int64_t kChannelBlock = 16;

enum class Cut { None, Batch, OutputChannels, InputChannels };

int64_t elements(const Tensor4 *t) {
  return t->sizes[0] * t->sizes[1] * t->sizes[2] * t->sizes[3];
}

/// The cut of an ungrouped (or too little grouped) convolution into
/// `threads` pieces that reads the least data twice (see above).
Cut chooseCut(Kind kind, const Operands &o, const Params &p, int threads) {
  int64_t n = o.src->sizes[0], c = o.src->sizes[1], f = o.dst->sizes[1];
  bool channelCuts = p.groups == 1;
  struct Option {
    Cut cut;
    bool possible;
    int64_t wholeElements; // of the operand every piece reads whole
  };
  Option options[] = {
      {Cut::Batch, kind != Kind::BackwardWeights && n >= threads,
       elements(o.weights)},
      {Cut::OutputChannels,
       channelCuts && kind != Kind::BackwardData && f >= 2 * kChannelBlock,
       elements(o.src)},
      {Cut::InputChannels,
       channelCuts && kind != Kind::Forward && c >= 2 * kChannelBlock,
       elements(o.dst)},
  };
  Cut best = Cut::None;
  int64_t bestElements = 0;
  for (const Option &option : options)
    if (option.possible &&
        (best == Cut::None || option.wholeElements < bestElements)) {
      best = option.cut;
      bestElements = option.wholeElements;
    }
  return best;
}

std::vector<Piece> split(Kind kind, const Operands &o, const Params &p,
                         int threads) {
  Piece whole{*o.src, *o.weights, *o.dst, {}, false, p};
  if (o.bias && o.bias->sizes[0] > 0) {
    whole.bias = *o.bias;
    whole.hasBias = true;
  }
  int64_t n = o.src->sizes[0], c = o.src->sizes[1], f = o.dst->sizes[1];
  int64_t g = p.groups;
  int64_t macs = n * f * o.dst->sizes[2] * o.dst->sizes[3] * (c / g) *
                 o.weights->sizes[2] * o.weights->sizes[3];
  if (threads <= 1 || macs < (g > 1 ? kMinParallelGroupedMacs : kMinParallelMacs))
    return {whole};
  std::vector<Piece> pieces;
  if (g > 1 && g >= threads) {
    int64_t cg = c / g, fg = f / g;
    for (auto [start, size] : ranges(g, threads, 1)) {
      Piece piece = whole;
      piece.src = sliced(whole.src, 1, start * cg, size * cg);
      piece.weights = sliced(whole.weights, 0, start * fg, size * fg);
      piece.dst = sliced(whole.dst, 1, start * fg, size * fg);
      if (whole.hasBias)
        piece.bias = sliced(whole.bias, 0, start * fg, size * fg);
      piece.params.groups = size;
      pieces.push_back(piece);
    }
    return pieces;
  }
  Cut cut = chooseCut(kind, o, p, threads);
  if (cut == Cut::None)
    return {whole};
  if (cut == Cut::Batch) {
    for (auto [start, size] : ranges(n, threads, 1)) {
      Piece piece = whole;
      piece.src = sliced(whole.src, 0, start, size);
      piece.dst = sliced(whole.dst, 0, start, size);
      pieces.push_back(piece);
    }
    return pieces;
  }
  bool inputChannels = cut == Cut::InputChannels;
  for (auto [start, size] :
       ranges(inputChannels ? c : f, threads, kChannelBlock)) {
    Piece piece = whole;
    if (inputChannels) {
      piece.src = sliced(whole.src, 1, start, size);
      piece.weights = sliced(whole.weights, 1, start, size);
    } else {
      piece.weights = sliced(whole.weights, 0, start, size);
      piece.dst = sliced(whole.dst, 1, start, size);
      if (whole.hasBias)
        piece.bias = sliced(whole.bias, 0, start, size);
    }
    pieces.push_back(piece);
  }
  return pieces;
}

struct PieceWork {
  Kind kind;
  std::vector<Piece> *pieces;
};

void convolvePiece(int64_t index, void *context) {
  auto *work = static_cast<PieceWork *>(context);
  Piece &piece = (*work->pieces)[index];
  convolveOnce(work->kind, piece.operands(), piece.params);
}

void convolve(Kind kind, const Operands &o, const Params &p) {
  int threads = getNumThreads();
  std::vector<Piece> pieces = split(kind, o, p, threads);
  if (pieces.size() == 1) {
    // One piece on one thread (small or unsplittable): no libgomp team.
    convolveOnce(kind, o, p);
    return;
  }
  PieceWork work{kind, &pieces};
  parallelFor(static_cast<int64_t>(pieces.size()), &convolvePiece, &work);
}

Params params(int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t dh,
              int64_t dw, int64_t groups) {
  return Params{{sh, sw}, {ph, pw}, {dh, dw}, groups};
}

} // namespace
} // namespace runtime
} // namespace ltc_mlir

using ltc_mlir::runtime::convolution::Kind;
using ltc_mlir::runtime::convolution::Operands;
using ltc_mlir::runtime::convolution::Tensor1;
using ltc_mlir::runtime::convolution::Tensor4;

extern "C" {

void _mlir_ciface_ltc_mlir_rt_conv2d_forward_f32(
    Tensor4 *input, Tensor4 *weight, Tensor1 *bias, Tensor4 *out, int64_t sh,
    int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
    int64_t groups) {
  ltc_mlir::runtime::convolve(Kind::Forward, Operands{input, weight, out, bias},
                              ltc_mlir::runtime::params(sh, sw, ph, pw, dh, dw,
                                                        groups));
}

void _mlir_ciface_ltc_mlir_rt_conv2d_backward_data_f32(
    Tensor4 *gradOut, Tensor4 *weight, Tensor4 *gradInput, int64_t sh,
    int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
    int64_t groups) {
  ltc_mlir::runtime::convolve(
      Kind::BackwardData, Operands{gradInput, weight, gradOut, nullptr},
      ltc_mlir::runtime::params(sh, sw, ph, pw, dh, dw, groups));
}

void _mlir_ciface_ltc_mlir_rt_conv2d_backward_weights_f32(
    Tensor4 *input, Tensor4 *gradOut, Tensor4 *gradWeight, int64_t sh,
    int64_t sw, int64_t ph, int64_t pw, int64_t dh, int64_t dw,
    int64_t groups) {
  ltc_mlir::runtime::convolve(
      Kind::BackwardWeights, Operands{input, gradWeight, gradOut, nullptr},
      ltc_mlir::runtime::params(sh, sw, ph, pw, dh, dw, groups));
}

} // extern "C"

namespace ltc_mlir {
namespace runtime {

void *resolveConvolutionSymbol(const std::string &name) {
  static const EntryPoint entries[] = {
      LTC_MLIR_CIFACE_ENTRY_POINT(conv2d_forward, f32),
      LTC_MLIR_CIFACE_ENTRY_POINT(conv2d_backward_data, f32),
      LTC_MLIR_CIFACE_ENTRY_POINT(conv2d_backward_weights, f32),
  };
  return findEntryPoint(entries, name.c_str());
}

ConvolutionStats convolutionStats() {
  return {fallbackCount.load()};
}

} // namespace runtime
} // namespace ltc_mlir
