// Ops without a (correct) Lazy kernel recorded as a few lowered lazy ops.
//
// Each kernel first runs the eager argument checks (the op's Meta kernel,
// or the CPU kernel's checks restated with its messages), then builds the
// result from ops that have lowerings, so the op stays in the graph:
//  - im2col (F.unfold) gathers each block element from the zero-padded
//    input through a constant index table [kH*kW*L] (block element major);
//    col2im (F.fold) scatter_adds the columns into a zero-padded plane with
//    the same table and crops the padding. Each is the other's backward.
//    scatter_add adds in index order: sums round like ATen's loops.
//  - nll_loss2d_forward/backward: nll_loss_forward/backward of self
//    permuted to [N*H*W, C] and target flattened to [N*H*W].
//  - max_unpool2d/3d: scatter of the values into zeros [.., prod(size)];
//    their autograd backward gathers (max_pool_double_backward).
//  - multi_margin_loss (+ backward): the margins of every class against the
//    target's score (gather), clamped, the target's own term zeroed (scatter);
//    the backward sets the target's gradient to minus its row's sum.
//  - multilabel_margin_loss (+ backward): the same over [N, K, C] pairs
//    (listed target k, non-target class i), is_target from comparing the
//    listed targets (up to the first -1: a cumsum) with every class.
//  - upsample_bicubic2d (+ backward): ATen's separable cubic taps (clamped
//    at the borders) as two interpolation matrices A_h [oH, H], A_w [oW, W]:
//    out = A_h x A_w^T, grad_input = A_h^T g A_w (two mm each). Float and
//    double only; other dtypes run eagerly.
//  - pixel_shuffle/pixel_unshuffle: view_copy, permute_copy, view_copy
//    (torch LTC's kernel read wrong elements through as_strided_copy).
// Out-of-range values (targets, unpool indices) fail the runtime checks of
// the ops they become (nll_loss_forward's, scatter's, gather's): a Python
// RuntimeError naming the bound, never an out-of-bounds access.
// The index tables and interpolation matrices are computed on the host and
// uploaded as graph inputs (they depend on the sizes only: the graph's hash
// does not change with them).
#include <ATen/ATen.h>
#include <ATen/native/UpSample.h>
#include <ATen/div_rtn.h>
#include <ATen/native/im2col_shape_check.h>
#include <torch/csrc/lazy/core/tensor.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/eager_meta_checks.h"
#include "ltc_backend/lazy_kernels/kernel_table.h"
#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

const c10::IValue& Arg(const c10::OperatorHandle& op, const torch::jit::Stack& stack, size_t i) {
  return stack[stack.size() - op.schema().arguments().size() + i];
}

void Return(const c10::OperatorHandle& op, torch::jit::Stack* stack,
            std::vector<at::Tensor> results) {
  torch::jit::drop(*stack, op.schema().arguments().size());
  for (at::Tensor& r : results) torch::jit::push(*stack, std::move(r));
}

// A host tensor as a lazy graph input on `like`'s device.
at::Tensor ToLazy(const at::Tensor& host, const at::Tensor& like) {
  torch::lazy::LazyTensorPtr lazy = torch::lazy::TryGetLtcTensor(like);
  TORCH_CHECK(lazy, "ltc_mlir: expected a lazy tensor");
  return torch::lazy::CreateAtenFromLtcTensor(
      torch::lazy::LazyTensor::Create(host.contiguous(), lazy->GetDevice()));
}

// ---------------------------------------------------------------------------
// im2col / col2im
// ---------------------------------------------------------------------------

struct Blocks {
  int64_t k[2], d[2], p[2], s[2];
  int64_t in[2];   // image size
  int64_t out[2];  // blocks per dim
  int64_t padded(int i) const { return in[i] + 2 * p[i]; }
  int64_t K() const { return k[0] * k[1]; }
  int64_t L() const { return out[0] * out[1]; }
};

Blocks GetBlocks(c10::IntArrayRef image, c10::IntArrayRef k, c10::IntArrayRef d,
                 c10::IntArrayRef p, c10::IntArrayRef s) {
  Blocks b;
  for (int i = 0; i < 2; ++i) {
    b.k[i] = k[i];
    b.d[i] = d[i];
    b.p[i] = p[i];
    b.s[i] = s[i];
    b.in[i] = image[i];
    b.out[i] = (b.padded(i) - (d[i] * (k[i] - 1) + 1)) / s[i] + 1;
  }
  return b;
}

// [1, 1, K * L] flat positions in the padded plane, block element major.
at::Tensor BlockIndex(const Blocks& b, const at::Tensor& like, int64_t n, int64_t c) {
  at::Tensor table = at::empty({b.K() * b.L()}, at::kLong);
  int64_t* t = table.data_ptr<int64_t>();
  const int64_t wp = b.padded(1);
  for (int64_t ki = 0; ki < b.k[0]; ++ki)
    for (int64_t kj = 0; kj < b.k[1]; ++kj)
      for (int64_t oh = 0; oh < b.out[0]; ++oh)
        for (int64_t ow = 0; ow < b.out[1]; ++ow)
          *t++ = (ki * b.d[0] + oh * b.s[0]) * wp + (kj * b.d[1] + ow * b.s[1]);
  at::Tensor lazy = at::view_copy(ToLazy(table, like), {1, 1, b.K() * b.L()});
  return at::expand_copy(lazy, {n, c, b.K() * b.L()});
}

void Im2col(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor self = Arg(op, *stack, 0).toTensor();
  std::vector<int64_t> k = Arg(op, *stack, 1).toIntVector();
  std::vector<int64_t> d = Arg(op, *stack, 2).toIntVector();
  std::vector<int64_t> p = Arg(op, *stack, 3).toIntVector();
  std::vector<int64_t> s = Arg(op, *stack, 4).toIntVector();
  // The eager argument checks and result shape ([N,] C*K, L).
  at::Tensor shape = at::im2col(MetaLike(self), k, d, p, s);
  if (shape.numel() == 0) return Return(op, stack, {at::zeros(shape.sizes(), self.options())});
  const bool batched = self.dim() == 4;
  const int64_t n = batched ? self.size(0) : 1, c = self.size(-3);
  Blocks b = GetBlocks(self.sizes().slice(self.dim() - 2), k, d, p, s);
  at::Tensor x = at::view_copy(self, {n, c, b.in[0], b.in[1]});
  at::Tensor padded = at::constant_pad_nd(x, {b.p[1], b.p[1], b.p[0], b.p[0]}, 0);
  padded = at::view_copy(padded, {n, c, b.padded(0) * b.padded(1)});
  at::Tensor cols = at::gather(padded, 2, BlockIndex(b, self, n, c));
  Return(op, stack, {at::view_copy(cols, shape.sizes())});
}

void Col2im(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor self = Arg(op, *stack, 0).toTensor();
  std::vector<int64_t> size = Arg(op, *stack, 1).toIntVector();
  std::vector<int64_t> k = Arg(op, *stack, 2).toIntVector();
  std::vector<int64_t> d = Arg(op, *stack, 3).toIntVector();
  std::vector<int64_t> p = Arg(op, *stack, 4).toIntVector();
  std::vector<int64_t> s = Arg(op, *stack, 5).toIntVector();
  // The eager checks, with eager's messages (torch's Python Meta kernel
  // words them differently).
  for (const auto& list : {std::make_pair("output_size", &size), std::make_pair("kernel_size", &k),
                           std::make_pair("dilation", &d), std::make_pair("padding", &p),
                           std::make_pair("stride", &s)})
    TORCH_CHECK(list.second->size() == 2, "It is expected ", list.first,
                " equals to 2, but got size ", list.second->size());
  at::native::col2im_shape_check(MetaLike(self), at::Tensor(), size[0], size[1], k[0], k[1], d[0],
                                 d[1], p[0], p[1], s[0], s[1]);
  const bool batched = self.dim() == 3;
  const int64_t n = batched ? self.size(0) : 1, c = self.size(-2) / (k[0] * k[1]);
  std::vector<int64_t> result = {c, size[0], size[1]};
  if (batched) result.insert(result.begin(), n);
  if (self.numel() == 0) return Return(op, stack, {at::zeros(result, self.options())});
  Blocks b = GetBlocks(size, k, d, p, s);
  at::Tensor cols = at::view_copy(self, {n, c, b.K() * b.L()});
  at::Tensor plane = at::zeros({n, c, b.padded(0) * b.padded(1)}, self.options());
  plane = at::scatter_add(plane, 2, BlockIndex(b, self, n, c), cols);
  plane = at::view_copy(plane, {n, c, b.padded(0), b.padded(1)});
  plane = at::slice_copy(plane, 2, b.p[0], b.p[0] + b.in[0], 1);
  plane = at::slice_copy(plane, 3, b.p[1], b.p[1] + b.in[1], 1);
  Return(op, stack, {at::view_copy(plane, result)});
}

// ---------------------------------------------------------------------------
// nll_loss2d
// ---------------------------------------------------------------------------

// ATen's nll_loss2d argument checks (its messages).
void CheckNllLoss2d(const at::Tensor& self, const at::Tensor& target, const at::Tensor& weight) {
  TORCH_CHECK(target.dim() == 3, "only batches of spatial targets supported (3D tensors)"
              " but got targets of dimension: ", target.dim());
  TORCH_CHECK(self.dim() == 4, "only batches of spatial inputs supported (4D tensors), "
              "but got input of dimension: ", self.dim());
  TORCH_CHECK(!weight.defined() || weight.numel() == self.size(1),
              "weight tensor should be defined either for all or no classes");
  TORCH_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) &&
                  self.size(3) == target.size(2),
              "input and target batch or spatial sizes don't match: target ", target.sizes(),
              ", input ", self.sizes());
}

// self [N, C, H, W] -> [N*H*W, C]; target [N, H, W] -> [N*H*W].
at::Tensor FlatSelf(const at::Tensor& self) {
  at::Tensor t = at::permute_copy(self, {0, 2, 3, 1});
  return at::view_copy(t, {self.size(0) * self.size(2) * self.size(3), self.size(1)});
}

at::Tensor FlatTarget(const at::Tensor& target) { return at::view_copy(target, {target.numel()}); }


void NllLoss2dForward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor self = Arg(op, *stack, 0).toTensor();
  const at::Tensor target = Arg(op, *stack, 1).toTensor();
  const at::Tensor weight = OptionalTensorArgument(Arg(op, *stack, 2));
  const int64_t reduction = Arg(op, *stack, 3).toInt();
  const int64_t ignore_index = Arg(op, *stack, 4).toInt();
  CheckNllLoss2d(self, target, weight);
  if (self.numel() == 0) return RunEagerFallback(op, stack);
  auto r = at::nll_loss_forward(FlatSelf(self), FlatTarget(target), weight, reduction,
                                ignore_index);
  at::Tensor output = std::get<0>(r);
  if (reduction == at::Reduction::None) output = at::view_copy(output, target.sizes());
  Return(op, stack, {output, std::get<1>(r)});
}

void NllLoss2dBackward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor grad = Arg(op, *stack, 0).toTensor();
  const at::Tensor self = Arg(op, *stack, 1).toTensor();
  const at::Tensor target = Arg(op, *stack, 2).toTensor();
  const at::Tensor weight = OptionalTensorArgument(Arg(op, *stack, 3));
  const int64_t reduction = Arg(op, *stack, 4).toInt();
  const int64_t ignore_index = Arg(op, *stack, 5).toInt();
  const at::Tensor total_weight = Arg(op, *stack, 6).toTensor();
  CheckNllLoss2d(self, target, weight);
  if (self.numel() == 0) return RunEagerFallback(op, stack);
  at::Tensor g = reduction == at::Reduction::None ? FlatTarget(grad) : grad;
  at::Tensor flat = at::nll_loss_backward(g, FlatSelf(self), FlatTarget(target), weight,
                                          reduction, ignore_index, total_weight);
  flat = at::view_copy(flat, {self.size(0), self.size(2), self.size(3), self.size(1)});
  Return(op, stack, {at::permute_copy(flat, {0, 3, 1, 2})});
}

// ---------------------------------------------------------------------------
// max_unpool2d / max_unpool3d
// ---------------------------------------------------------------------------

void MaxUnpool(const c10::OperatorHandle& op, torch::jit::Stack* stack, int dims) {
  const at::Tensor self = Arg(op, *stack, 0).toTensor();
  const at::Tensor indices = Arg(op, *stack, 1).toTensor();
  std::vector<int64_t> size = Arg(op, *stack, 2).toIntVector();
  const char* name = dims == 2 ? "max_unpooling2d" : "max_unpooling3d";
  TORCH_CHECK(indices.scalar_type() == at::kLong,
              "elements in indices should be type int64 but got: ", indices.scalar_type());
  TORCH_CHECK(static_cast<int>(size.size()) == dims, "There should be exactly ", dims,
              " elements (", dims == 2 ? "height, width" : "depth, height, width",
              ") in output_size, but got ", size.size(), " elements.");
  TORCH_CHECK(self.dim() == dims + 1 || self.dim() == dims + 2, "Input to ", name,
              " should be a ", dims + 1, "d or ", dims + 2,
              "d Tensor, but got tensor with dimension: ", self.dim());
  TORCH_CHECK(self.sizes() == indices.sizes(), "Expected shape of indices to be same as that of "
              "the input tensor (", self.sizes(), ") but got indices tensor with shape: ",
              indices.sizes());
  if (dims == 3) {
    std::vector<int64_t> stride = Arg(op, *stack, 3).toIntVector();
    std::vector<int64_t> padding = Arg(op, *stack, 4).toIntVector();
    TORCH_CHECK(stride.size() == 3, "There should be exactly three elements (depth, height, "
                "width) in stride, but got: ", stride.size(), " elements.");
    TORCH_CHECK(padding.size() == 3, "There should be exactly three elements (depth, height, "
                "width) in padding, but got: ", padding.size(), " elements.");
    TORCH_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0,
                "strides should be greater than zero, but got stride: ", stride);
  }
  for (int64_t i = 1; i < self.dim(); ++i)
    TORCH_CHECK(self.size(i) > 0, name, "_forward_out_cpu(): Expected input to have non-zero "
                "size for non-batch dimensions, but got ", self.sizes(), " with dimension ", i,
                " being empty.");
  if (self.numel() == 0) return RunEagerFallback(op, stack);
  std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - dims);
  int64_t in_plane = 1, out_plane = 1;
  for (int i = 0; i < dims; ++i) {
    in_plane *= self.size(self.dim() - dims + i);
    out_plane *= size[i];
  }
  std::vector<int64_t> flat_in = batch, flat_out = batch, out_sizes = batch;
  flat_in.push_back(in_plane);
  flat_out.push_back(out_plane);
  out_sizes.insert(out_sizes.end(), size.begin(), size.end());
  at::Tensor plane = at::zeros(flat_out, self.options());
  plane = at::scatter(plane, -1, at::view_copy(indices, flat_in), at::view_copy(self, flat_in));
  Return(op, stack, {at::view_copy(plane, out_sizes)});
}

void MaxUnpool2d(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  MaxUnpool(op, stack, 2);
}

void MaxUnpool3d(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  MaxUnpool(op, stack, 3);
}

// ---------------------------------------------------------------------------
// upsample_bicubic2d
// ---------------------------------------------------------------------------

// [out, in]: row o holds the cubic weights of output o (ATen's
// coefficients, in its opmath type), taps clamped to [0, in).
template <typename scalar_t>
at::Tensor CubicMatrix(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  at::Tensor m = at::zeros({out, in}, c10::CppTypeToScalarType<scalar_t>::value);
  scalar_t* a = m.data_ptr<scalar_t>();
  const scalar_t ratio =
      at::native::area_pixel_compute_scale<scalar_t>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const scalar_t real = at::native::area_pixel_compute_source_index<scalar_t>(
        ratio, o, align_corners, /*cubic=*/true);
    const int64_t i = static_cast<int64_t>(std::floor(real));
    scalar_t w[4];
    at::native::get_cubic_upsample_coefficients<scalar_t>(w, real - i);
    for (int64_t j = 0; j < 4; ++j) {
      int64_t tap = std::max<int64_t>(0, std::min<int64_t>(in - 1, i - 1 + j));
      a[o * in + tap] += w[j];
    }
  }
  return m;
}

// out = ah x aw^T over the last two dims of x [N, C, H, W] (ah [oH, H], aw [oW, W]).
at::Tensor Separable(const at::Tensor& x, const at::Tensor& ah, const at::Tensor& aw) {
  const int64_t nc = x.size(0) * x.size(1), h = x.size(2), w = x.size(3);
  const int64_t oh = ah.size(0), ow = aw.size(0);
  at::Tensor awt = ToLazy(aw.t().contiguous(), x), aht = ToLazy(ah.t().contiguous(), x);
  at::Tensor y = at::mm(at::view_copy(x, {nc * h, w}), awt);             // [NC*H, oW]
  y = at::permute_copy(at::view_copy(y, {nc, h, ow}), {0, 2, 1});         // [NC, oW, H]
  at::Tensor z = at::mm(at::view_copy(y, {nc * ow, h}), aht);            // [NC*oW, oH]
  z = at::permute_copy(at::view_copy(z, {nc, ow, oh}), {0, 2, 1});        // [NC, oH, oW]
  return at::view_copy(z, {x.size(0), x.size(1), oh, ow});
}

std::optional<double> OptionalDouble(const c10::IValue& v) {
  if (v.isNone()) return std::nullopt;
  return v.toDouble();
}

std::pair<at::Tensor, at::Tensor> CubicMatrices(at::ScalarType dtype, c10::IntArrayRef in,
                                                c10::IntArrayRef out, bool align_corners,
                                                std::optional<double> sh,
                                                std::optional<double> sw) {
  if (dtype == at::kDouble)
    return {CubicMatrix<double>(in[0], out[0], align_corners, sh),
            CubicMatrix<double>(in[1], out[1], align_corners, sw)};
  return {CubicMatrix<float>(in[0], out[0], align_corners, sh),
          CubicMatrix<float>(in[1], out[1], align_corners, sw)};
}

void UpsampleBicubic2d(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor self = Arg(op, *stack, 0).toTensor();
  std::vector<int64_t> size = Arg(op, *stack, 1).toIntVector();
  const bool align_corners = Arg(op, *stack, 2).toBool();
  auto sh = OptionalDouble(Arg(op, *stack, 3)), sw = OptionalDouble(Arg(op, *stack, 4));
  at::Tensor shape = at::upsample_bicubic2d(MetaLike(self), size, align_corners, sh, sw);
  if ((self.scalar_type() != at::kFloat && self.scalar_type() != at::kDouble) ||
      self.numel() == 0)
    return RunEagerFallback(op, stack);
  auto m = CubicMatrices(self.scalar_type(), self.sizes().slice(2), size, align_corners, sh, sw);
  Return(op, stack, {Separable(self, m.first, m.second)});
}

void UpsampleBicubic2dBackward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor grad = Arg(op, *stack, 0).toTensor();
  std::vector<int64_t> size = Arg(op, *stack, 1).toIntVector();
  std::vector<int64_t> input_size = Arg(op, *stack, 2).toIntVector();
  const bool align_corners = Arg(op, *stack, 3).toBool();
  auto sh = OptionalDouble(Arg(op, *stack, 4)), sw = OptionalDouble(Arg(op, *stack, 5));
  at::Tensor shape =
      at::upsample_bicubic2d_backward(MetaLike(grad), size, input_size, align_corners, sh, sw);
  if ((grad.scalar_type() != at::kFloat && grad.scalar_type() != at::kDouble) ||
      grad.numel() == 0 || shape.numel() == 0)
    return RunEagerFallback(op, stack);
  auto m = CubicMatrices(grad.scalar_type(), c10::IntArrayRef(input_size).slice(2), size,
                         align_corners, sh, sw);
  Return(op, stack, {Separable(grad, m.first.t().contiguous(), m.second.t().contiguous())});
}

// ---------------------------------------------------------------------------
// multi_margin_loss (+ backward)
// ---------------------------------------------------------------------------

struct MarginArgs {
  at::Tensor x, y;  // [N, C], [N] (a 1-d self is one frame)
  at::Tensor weight;
  int64_t p, reduction;
  double margin;
  int64_t frames, classes;
};

// ATen's multi_margin_loss_shape_check and p check (its messages).
MarginArgs GetMarginArgs(const at::Tensor& self, const at::Tensor& target, const c10::IValue& p,
                         const c10::IValue& margin, const c10::IValue& weight,
                         const c10::IValue& reduction) {
  MarginArgs a;
  a.frames = self.dim() <= 1 ? 1 : self.size(0);
  a.classes = self.dim() <= 1 ? (self.dim() == 0 ? 1 : self.size(0)) : self.size(1);
  TORCH_CHECK((self.dim() <= 1 && self.numel() != 0) || (self.dim() == 2 && self.size(1) != 0),
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ",
              self.sizes());
  TORCH_CHECK(target.dim() <= 1 && target.numel() == a.frames,
              "inconsistent target size, expected ", a.frames, " but got ", target.sizes());
  a.weight = OptionalTensorArgument(weight);
  if (a.weight.defined())
    TORCH_CHECK(a.weight.dim() <= 1 && a.weight.numel() == a.classes,
                "inconsistent weight size, expected ", a.classes, " but got ", a.weight.sizes());
  a.p = p.toScalar().toLong();
  TORCH_CHECK(a.p == 1 || a.p == 2, "only p == 1 and p == 2 supported");
  a.margin = margin.toScalar().toDouble();
  a.reduction = reduction.toInt();
  a.x = at::view_copy(self, {a.frames, a.classes});
  a.y = at::view_copy(target, {a.frames, 1});
  return a;
}

// margin - x[n, y[n]] + x[n, i]  ([N, C]); the target's weight [N, 1] in *wy.
at::Tensor MarginTerms(const MarginArgs& a, at::Tensor* wy) {
  at::Tensor xy = at::gather(a.x, 1, a.y);
  if (a.weight.defined())
    *wy = at::view_copy(at::gather(at::view_copy(a.weight, {a.classes}), 0,
                                   at::view_copy(a.y, {a.frames})), {a.frames, 1});
  return at::add(at::rsub(xy, a.margin), a.x);
}

void MultiMarginLoss(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor self = Arg(op, *stack, 0).toTensor();
  const at::Tensor target = Arg(op, *stack, 1).toTensor();
  MarginArgs a = GetMarginArgs(self, target, Arg(op, *stack, 2), Arg(op, *stack, 3),
                               Arg(op, *stack, 4), Arg(op, *stack, 5));
  if (!at::isFloatingType(self.scalar_type())) return RunEagerFallback(op, stack);
  at::Tensor wy;
  at::Tensor h = at::clamp_min(MarginTerms(a, &wy), 0);
  if (a.p == 2) h = at::mul(h, h);
  if (wy.defined()) h = at::mul(h, wy);
  h = at::scatter(h, 1, a.y, 0);  // the target's own term
  at::Tensor per_frame = at::div(at::sum(h, {1}), a.classes);
  at::Tensor out;
  if (a.reduction == at::Reduction::None)
    out = at::view_copy(per_frame, target.dim() == 0 ? std::vector<int64_t>{}
                                                     : std::vector<int64_t>{a.frames});
  else
    out = a.reduction == at::Reduction::Mean ? at::mean(per_frame) : at::sum(per_frame);
  Return(op, stack, {out});
}

void MultiMarginLossBackward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor grad = Arg(op, *stack, 0).toTensor();
  const at::Tensor self = Arg(op, *stack, 1).toTensor();
  const at::Tensor target = Arg(op, *stack, 2).toTensor();
  MarginArgs a = GetMarginArgs(self, target, Arg(op, *stack, 3), Arg(op, *stack, 4),
                               Arg(op, *stack, 5), Arg(op, *stack, 6));
  if (!at::isFloatingType(self.scalar_type())) return RunEagerFallback(op, stack);
  const double g = a.reduction == at::Reduction::Mean ? 1.0 / (a.frames * a.classes)
                                                      : 1.0 / a.classes;
  at::Tensor wy;
  at::Tensor z = MarginTerms(a, &wy);
  at::Tensor h = a.p == 1 ? at::mul(at::gt(z, 0).to(self.scalar_type()), g)
                          : at::mul(at::clamp_min(z, 0), 2 * g);
  if (wy.defined()) h = at::mul(h, wy);
  h = at::scatter(h, 1, a.y, 0);
  h = at::scatter(h, 1, a.y, at::neg(at::sum(h, {1}, /*keepdim=*/true)));
  at::Tensor go = a.reduction == at::Reduction::None && target.dim() > 0
                      ? at::view_copy(grad, {a.frames, 1})
                      : grad;
  Return(op, stack, {at::view_copy(at::mul(h, go), self.sizes())});
}

// ---------------------------------------------------------------------------
// multilabel_margin_loss (+ backward)
// ---------------------------------------------------------------------------

// target [N, C] lists each frame's classes up to the first -1.
struct MultilabelArgs {
  at::Tensor x, target;  // [N, C]
  at::Tensor valid;      // [N, C] bool: position k is before the first -1
  at::Tensor classes;    // [N, C] target with the positions after it set to 0
  int64_t frames, dim;
};

// ATen's multilabel_margin_loss_shape_check (its messages).
MultilabelArgs GetMultilabelArgs(const at::Tensor& self, const at::Tensor& target) {
  MultilabelArgs a;
  const int64_t nd = self.dim();
  TORCH_CHECK((nd == 2 && self.size(1) != 0) || (nd == 1 && self.size(0) != 0) || nd == 0,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ",
              self.sizes());
  if (nd <= 1) {
    a.frames = 1;
    a.dim = nd == 0 ? 1 : self.size(0);
    TORCH_CHECK(target.dim() <= 1 && target.numel() == a.dim, "inconsistent size ",
                target.sizes(), " for ", "target");
  } else {
    a.frames = self.size(0);
    a.dim = self.size(1);
    TORCH_CHECK(target.dim() == 2 && target.size(0) == a.frames && target.size(1) == a.dim,
                "inconsistent target size: ", target.sizes(), " for input of size: ",
                self.sizes());
  }
  a.x = at::view_copy(self, {a.frames, a.dim});
  a.target = at::view_copy(target, {a.frames, a.dim});
  at::Tensor stops = at::cumsum(at::eq(a.target, -1).to(at::kLong), 1);
  a.valid = at::eq(stops, 0);
  a.classes = at::mul(a.target, a.valid.to(at::kLong));
  return a;
}

// 1 - x[n, target[n, k]] + x[n, i]  ([N, K, C]). Like eager, every target
// value (also after the first -1) must be in [-1, C): the gather reads
// x padded with one column in front at target + 1, which checks just that
// (its message names the shifted bound [0, C + 1)).
at::Tensor MultilabelTerms(const MultilabelArgs& a) {
  at::Tensor padded = at::constant_pad_nd(a.x, {1, 0}, 0);
  at::Tensor xj = at::gather(padded, 1, at::add(a.target, 1));
  return at::add(at::rsub(at::view_copy(xj, {a.frames, a.dim, 1}), 1),
                 at::view_copy(a.x, {a.frames, 1, a.dim}));
}

// Pairs (target k, class i) that count: k listed, i not a target.
at::Tensor MultilabelPairs(const MultilabelArgs& a, const at::Tensor& is_target) {
  at::Tensor listed = at::view_copy(a.valid, {a.frames, a.dim, 1});
  at::Tensor other = at::view_copy(at::eq(is_target, 0), {a.frames, 1, a.dim});
  return at::logical_and(listed, other);
}

void MultilabelMarginLossForward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor self = Arg(op, *stack, 0).toTensor();
  const at::Tensor target = Arg(op, *stack, 1).toTensor();
  const int64_t reduction = Arg(op, *stack, 2).toInt();
  MultilabelArgs a = GetMultilabelArgs(self, target);
  if (!at::isFloatingType(self.scalar_type())) return RunEagerFallback(op, stack);
  // is_target[n, c]: c is listed in target[n] (before the first -1).
  at::Tensor host_classes = at::arange(a.dim, at::kLong);
  at::Tensor classes = at::view_copy(ToLazy(host_classes, self), {1, 1, a.dim});
  at::Tensor hit = at::logical_and(
      at::eq(at::view_copy(a.classes, {a.frames, a.dim, 1}), classes),
      at::view_copy(a.valid, {a.frames, a.dim, 1}));
  at::Tensor is_target = at::gt(at::sum(hit.to(at::kLong), {1}), 0).to(self.scalar_type());
  at::Tensor z = at::clamp_min(MultilabelTerms(a), 0);
  z = at::mul(z, MultilabelPairs(a, is_target).to(self.scalar_type()));
  at::Tensor per_frame = at::div(at::sum(z, {1, 2}), a.dim);
  at::Tensor out;
  if (reduction == at::Reduction::None)
    out = at::view_copy(per_frame, self.dim() <= 1 ? std::vector<int64_t>{}
                                                   : std::vector<int64_t>{a.frames});
  else
    out = reduction == at::Reduction::Mean ? at::mean(per_frame) : at::sum(per_frame);
  Return(op, stack, {out, at::view_copy(is_target, target.sizes())});
}

void MultilabelMarginLossBackward(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const at::Tensor grad = Arg(op, *stack, 0).toTensor();
  const at::Tensor self = Arg(op, *stack, 1).toTensor();
  const at::Tensor target = Arg(op, *stack, 2).toTensor();
  const int64_t reduction = Arg(op, *stack, 3).toInt();
  const at::Tensor is_target_in = Arg(op, *stack, 4).toTensor();
  MultilabelArgs a = GetMultilabelArgs(self, target);
  if (!at::isFloatingType(self.scalar_type()) || is_target_in.numel() != a.frames * a.dim)
    return RunEagerFallback(op, stack);
  at::Tensor is_target = at::view_copy(is_target_in, {a.frames, a.dim});
  const double g = reduction == at::Reduction::Mean ? 1.0 / (a.frames * a.dim) : 1.0 / a.dim;
  at::Tensor pos = at::logical_and(at::gt(MultilabelTerms(a), 0), MultilabelPairs(a, is_target));
  at::Tensor w = at::mul(pos.to(self.scalar_type()), g);  // [N, K, C]
  at::Tensor gi = at::scatter_add(at::sum(w, {1}), 1, a.classes, at::neg(at::sum(w, {2})));
  at::Tensor go = reduction == at::Reduction::None && self.dim() > 1
                      ? at::view_copy(grad, {a.frames, 1})
                      : grad;
  Return(op, stack, {at::view_copy(at::mul(gi, go), self.sizes())});
}

// pixel_shuffle / pixel_unshuffle: eager's checks (its C++ kernel on a meta
// tensor), then [*, C, r, r, H, W] <-> [*, C, H, r, W, r] as view_copy and
// permute_copy. torch LTC's own kernel recorded an as_strided_copy of a
// permuted value, which read the wrong elements.
at::Tensor PixelShuffleLazy(const at::Tensor& self, int64_t r, bool shuffle) {
  {
    EagerMetaChecks eager_messages;
    at::Tensor meta = at::empty(self.sizes(), self.options().device(at::kMeta));
    if (shuffle)
      at::pixel_shuffle(meta, r);
    else
      at::pixel_unshuffle(meta, r);
  }
  const int64_t n = self.dim();
  std::vector<int64_t> batch(self.sizes().begin(), self.sizes().end() - 3);
  const int64_t c = self.size(n - 3), h = self.size(n - 2), w = self.size(n - 1);
  const int64_t b = static_cast<int64_t>(batch.size());
  std::vector<int64_t> split = batch, perm, joined = batch;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  if (shuffle) {  // [*, C', r, r, H, W] -> [*, C', H, r, W, r]
    for (int64_t d : {c / (r * r), r, r, h, w}) split.push_back(d);
    for (int64_t d : {0, 3, 1, 4, 2}) perm.push_back(b + d);
    for (int64_t d : {c / (r * r), h * r, w * r}) joined.push_back(d);
  } else {  // [*, C, H', r, W', r] -> [*, C, r, r, H', W']
    for (int64_t d : {c, h / r, r, w / r, r}) split.push_back(d);
    for (int64_t d : {0, 2, 4, 1, 3}) perm.push_back(b + d);
    for (int64_t d : {c * r * r, h / r, w / r}) joined.push_back(d);
  }
  return at::view_copy(at::permute_copy(at::view_copy(self, split), perm), joined);
}

at::Tensor PixelShuffle(const at::Tensor& self, int64_t r) {
  return PixelShuffleLazy(self, r, true);
}
at::Tensor PixelUnshuffle(const at::Tensor& self, int64_t r) {
  return PixelShuffleLazy(self, r, false);
}

}  // namespace

void RegisterDecomposedKernels() {
  static torch::Library* lib = new torch::Library(torch::Library::IMPL, "aten",
                                                  c10::DispatchKey::Lazy, __FILE__, __LINE__);
  QuietWarnings quiet;  // functorch's batching rules also sit on the Lazy key
  lib->impl("im2col", torch::CppFunction::makeFromBoxedFunction<&Im2col>());
  lib->impl("col2im", torch::CppFunction::makeFromBoxedFunction<&Col2im>());
  lib->impl("nll_loss2d_forward", torch::CppFunction::makeFromBoxedFunction<&NllLoss2dForward>());
  lib->impl("nll_loss2d_backward",
            torch::CppFunction::makeFromBoxedFunction<&NllLoss2dBackward>());
  lib->impl("max_unpool2d", torch::CppFunction::makeFromBoxedFunction<&MaxUnpool2d>());
  lib->impl("max_unpool3d", torch::CppFunction::makeFromBoxedFunction<&MaxUnpool3d>());
  lib->impl("multi_margin_loss", torch::CppFunction::makeFromBoxedFunction<&MultiMarginLoss>());
  lib->impl("multi_margin_loss_backward",
            torch::CppFunction::makeFromBoxedFunction<&MultiMarginLossBackward>());
  lib->impl("multilabel_margin_loss_forward",
            torch::CppFunction::makeFromBoxedFunction<&MultilabelMarginLossForward>());
  lib->impl("multilabel_margin_loss_backward",
            torch::CppFunction::makeFromBoxedFunction<&MultilabelMarginLossBackward>());
  lib->impl("upsample_bicubic2d",
            torch::CppFunction::makeFromBoxedFunction<&UpsampleBicubic2d>());
  lib->impl("upsample_bicubic2d_backward",
            torch::CppFunction::makeFromBoxedFunction<&UpsampleBicubic2dBackward>());
  lib->impl("pixel_shuffle", TORCH_FN(PixelShuffle));
  lib->impl("pixel_unshuffle", TORCH_FN(PixelUnshuffle));
}

}  // namespace backend
}  // namespace ltc_mlir
