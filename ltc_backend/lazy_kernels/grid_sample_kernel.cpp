// F.grid_sample (grid_sampler_2d) as differentiable lazy ops on the
// AutogradLazy key. torch 2.14's LTC has Lazy kernels for grid_sampler_2d
// and its backward (single nodes, which TorchToLinalg has no pattern for);
// here both are ops the compiler lowers.
//
// The forward is ATen's, step by step in the input dtype: the grid is
// unnormalized (align_corners), border/reflection padding maps coordinates
// into the image (reflection as ATen's fabs/fmod/flip parity), then
//  - bilinear: the four neighbours of floor(x), floor(y), weighted by the
//    distances to the opposite sides and summed nw, ne, sw, se;
//  - nearest: the pixel at round-half-even (x, y);
//  - bicubic: 4 x 4 taps around floor(x, y), each tap's coordinate padded,
//    weighted by the cubic convolution coefficients (A = -0.75), rows first.
// Pixels outside the image read as zero (gathered at a clamped index and
// masked). Autograd differentiates these ops: the input gradient scatters
// through the gathers; the grid gradient flows through the weights. ATen's
// backward zeroes the grid gradient at and beyond the clip borders, so the
// clip here takes constant values there (where), not clamp's inclusive
// gradient. Other dtypes than f32/f64 keep torch's kernel (eager's result
// or error).
#include <ATen/ATen.h>
#include <ATen/native/GridSamplerUtils.h>
#include <torch/library.h>

#include "ltc_backend/lazy_kernels/lazy_kernels.h"

namespace ltc_mlir {
namespace backend {
namespace {

using at::native::GridSamplerInterpolation;
using at::native::GridSamplerPadding;

at::Tensor Unnormalize(const at::Tensor& coord, int64_t size, bool alignCorners) {
  if (alignCorners) return at::mul(at::div(at::add(coord, 1), 2), size - 1);
  return at::div(at::sub(at::mul(at::add(coord, 1), size), 1), 2);
}

// min(size - 1, max(x, 0)) with zero gradient at and beyond the borders.
at::Tensor Clip(const at::Tensor& x, int64_t size) {
  at::Tensor low = at::zeros_like(x), high = at::full_like(x, size - 1);
  return at::where(at::le(x, 0), low, at::where(at::ge(x, size - 1), high, x));
}

// ATen's reflect_coordinates over [twiceLow / 2, twiceHigh / 2].
at::Tensor Reflect(const at::Tensor& x, int64_t twiceLow, int64_t twiceHigh) {
  if (twiceLow == twiceHigh) return at::zeros_like(x);
  double low = twiceLow / 2.0, span = (twiceHigh - twiceLow) / 2.0;
  at::Tensor in = at::abs(at::sub(x, low));
  at::Tensor extra = at::fmod(in, span);
  at::Tensor flips = at::floor(at::div(in, span)).to(at::kLong);
  at::Tensor even = at::eq(at::remainder(flips, 2), 0);
  return at::where(even, at::add(extra, low), at::add(at::rsub(extra, span), low));
}

at::Tensor Pad(const at::Tensor& x, int64_t size, GridSamplerPadding padding, bool alignCorners) {
  if (padding == GridSamplerPadding::Border) return Clip(x, size);
  if (padding == GridSamplerPadding::Reflection) {
    at::Tensor reflected = alignCorners ? Reflect(x, 0, 2 * (size - 1))
                                        : Reflect(x, -1, 2 * size - 1);
    return Clip(reflected, size);
  }
  return x;
}

// Reads input [N, C, H, W] at integer coordinates ix, iy [N, Ho, Wo] (float
// tensors holding whole numbers): [N, C, Ho, Wo], zero outside the image.
struct Sampler {
  at::Tensor flat;  // [N, C, H * W]
  int64_t n, c, h, w, ho, wo;

  at::Tensor Read(const at::Tensor& ix, const at::Tensor& iy) const {
    at::Tensor inside = at::logical_and(at::logical_and(at::ge(ix, 0), at::le(ix, w - 1)),
                                        at::logical_and(at::ge(iy, 0), at::le(iy, h - 1)));
    at::Tensor col = at::clamp(ix, 0, w - 1).to(at::kLong);
    at::Tensor row = at::clamp(iy, 0, h - 1).to(at::kLong);
    at::Tensor index = at::add(at::mul(row, w), col).reshape({n, 1, ho * wo}).expand({n, c, ho * wo});
    at::Tensor values = at::gather(flat, 2, index).reshape({n, c, ho, wo});
    return at::where(inside.unsqueeze(1), values, at::zeros_like(values));
  }
};

// ATen's cubic convolution coefficients of the 4 taps at offset t.
std::array<at::Tensor, 4> CubicCoefficients(const at::Tensor& t) {
  const double a = -0.75;
  auto near = [&](const at::Tensor& x) {  // |x| <= 1
    return at::add(at::mul(at::mul(at::sub(at::mul(x, a + 2), a + 3), x), x), 1);
  };
  auto far = [&](const at::Tensor& x) {  // 1 < |x| < 2
    return at::sub(at::mul(at::add(at::mul(at::sub(at::mul(x, a), 5 * a), x), 8 * a), x), 4 * a);
  };
  at::Tensor rest = at::rsub(t, 1.0);
  return {far(at::add(t, 1.0)), near(t), near(rest), far(at::add(rest, 1.0))};
}

at::Tensor GridSampler2d(const at::Tensor& input, const at::Tensor& grid, int64_t interpolation,
                         int64_t paddingMode, bool alignCorners) {
  at::native::check_grid_sampler_common(input, grid);
  at::native::check_grid_sampler_2d(input, grid);
  auto mode = static_cast<GridSamplerInterpolation>(interpolation);
  auto padding = static_cast<GridSamplerPadding>(paddingMode);
  Sampler s{at::Tensor(), input.size(0), input.size(1), input.size(2), input.size(3),
            grid.size(1), grid.size(2)};
  if (s.n * s.c * s.ho * s.wo == 0) return at::zeros({s.n, s.c, s.ho, s.wo}, input.options());
  s.flat = input.reshape({s.n, s.c, s.h * s.w});
  at::Tensor gx = grid.select(-1, 0), gy = grid.select(-1, 1);
  at::Tensor x = Unnormalize(gx, s.w, alignCorners), y = Unnormalize(gy, s.h, alignCorners);
  if (mode == GridSamplerInterpolation::Bicubic) {
    at::Tensor x0 = at::floor(x), y0 = at::floor(y);
    std::array<at::Tensor, 4> cx = CubicCoefficients(at::sub(x, x0));
    std::array<at::Tensor, 4> cy = CubicCoefficients(at::sub(y, y0));
    at::Tensor out;
    for (int i = 0; i < 4; ++i) {
      at::Tensor ty = at::trunc(Pad(at::add(y0, i - 1), s.h, padding, alignCorners));
      at::Tensor rowValue;
      for (int j = 0; j < 4; ++j) {
        at::Tensor tx = at::trunc(Pad(at::add(x0, j - 1), s.w, padding, alignCorners));
        at::Tensor term = at::mul(s.Read(tx, ty), cx[j].unsqueeze(1));
        rowValue = j == 0 ? term : at::add(rowValue, term);
      }
      at::Tensor term = at::mul(rowValue, cy[i].unsqueeze(1));
      out = i == 0 ? term : at::add(out, term);
    }
    return out;
  }
  x = Pad(x, s.w, padding, alignCorners);
  y = Pad(y, s.h, padding, alignCorners);
  if (mode == GridSamplerInterpolation::Nearest) {
    // Rounded coordinates carry no gradient; eager's grid gradient is zeros
    // (a zero term keeps the grid in the autograd graph).
    at::Tensor zeros = at::where(at::zeros_like(gx, at::kBool), gx, at::zeros_like(gx));
    return at::add(s.Read(at::round(x), at::round(y)), zeros.unsqueeze(1));
  }
  at::Tensor west = at::floor(x), north = at::floor(y);
  at::Tensor east = at::add(west, 1), south = at::add(north, 1);
  at::Tensor tw = at::sub(x, west), te = at::sub(east, x);
  at::Tensor tn = at::sub(y, north), ts = at::sub(south, y);
  auto weighted = [&](const at::Tensor& ix, const at::Tensor& iy, const at::Tensor& weight) {
    return at::mul(s.Read(ix, iy), weight.unsqueeze(1));
  };
  at::Tensor out = at::add(weighted(west, north, at::mul(ts, te)),
                           weighted(east, north, at::mul(ts, tw)));
  out = at::add(out, weighted(west, south, at::mul(tn, te)));
  return at::add(out, weighted(east, south, at::mul(tn, tw)));
}

at::Tensor GridSampler2dLazy(c10::DispatchKeySet ks, const at::Tensor& input,
                             const at::Tensor& grid, int64_t interpolation, int64_t padding,
                             bool alignCorners) {
  // Eager's CPU kernel reads the grid as the input's dtype.
  TORCH_CHECK(input.scalar_type() == grid.scalar_type(), "expected scalar type ",
              input.scalar_type(), " but found ", grid.scalar_type());
  bool handled = (input.scalar_type() == at::kFloat || input.scalar_type() == at::kDouble) &&
                 interpolation >= 0 && interpolation <= 2 && padding >= 0 && padding <= 2;
  if (!handled)
    return at::_ops::grid_sampler_2d::redispatch(RegularAutogradKeys(ks), input, grid,
                                                 interpolation, padding, alignCorners);
  return GridSampler2d(input, grid, interpolation, padding, alignCorners);
}

}  // namespace

void RegisterGridSampleKernel() {
  static torch::Library* lib = new torch::Library(
      torch::Library::IMPL, "aten", c10::DispatchKey::AutogradLazy, __FILE__, __LINE__);
  lib->impl("grid_sampler_2d", TORCH_FN(GridSampler2dLazy));
}

}  // namespace backend
}  // namespace ltc_mlir
