// Conv (opset 1–21), 1-D and 2-D: X [N, C, (H,) W], W [M, C/group, (kh,) kw], optional B [M] →
// Y [N, M, (Ho,) Wo]; group (incl. depthwise, any multiplier), strides, pads, dilations, auto_pad.
// Forward: per image and group, im2col [C/g·kh·kw, Ho·Wo] then one GEMM W_g · col (Eigen); a 1×1 stride-1
// unpadded conv uses X directly as col; depthwise (C/g = 1) is a direct loop, forward and backward; a 3×3
// stride-1 conv with enough outputs goes through Winograd's F(2×2, 3×3) (conv_winograd.h).
// Backward: dX = col2im(W_gᵀ · dY_g); dW_g = Σ_n dY_g · colᵀ; dB = Σ dY (each only when needed).
#include <algorithm>
#include <Eigen/Core>
#include <memory>

#include "onnx/ops/common.h"
#include "onnx/ops/conv_winograd.h"
#include "onnx/ops/parts.h"
#include "onnx/ops/scratch.h"
#include "onnx/ops/window.h"

namespace attnlab::onnx {
namespace {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct ConvDims {
  int64_t N, C, M, G, Cg, Mg;
  Window2d g;
  bool pointwise, depthwise;
};

template <class T>
std::string conv_dims(const Node& n, const std::vector<const Tensor<T>*>& in, ConvDims* d) {
  if (auto e = check_inputs(n, in, 2); !e.empty()) return e;
  const Tensor<T>&x = *in[0], &w = *in[1];
  if (x.rank() != 3 && x.rank() != 4) return "only 1-D and 2-D convolutions are supported (input " + shape_str(x.shape) + ")";
  if (w.rank() != x.rank()) return "weight " + shape_str(w.shape) + " does not match input " + shape_str(x.shape);
  const int sp = x.rank() - 2;
  d->N = x.shape[0];
  d->C = x.shape[1];
  d->M = w.shape[0];
  d->G = n.attr_int("group", 1);
  if (d->G < 1 || d->C % d->G || d->M % d->G) return "group " + std::to_string(d->G) + " does not divide C and M";
  d->Cg = d->C / d->G;
  d->Mg = d->M / d->G;
  if (w.shape[1] != d->Cg) return "weight " + shape_str(w.shape) + " expects " + std::to_string(w.shape[1] * d->G) + " input channels, got " + std::to_string(d->C);
  const auto ks = n.attr_ints("kernel_shape", {});
  if (!ks.empty() && (static_cast<int>(ks.size()) != sp || !std::equal(ks.begin(), ks.end(), w.shape.begin() + 2)))
    return "kernel_shape does not match the weight";
  if (auto e = window_geometry(n, sp, x.shape.data() + 2, w.shape.data() + 2, false, &d->g); !e.empty()) return e;
  if (in.size() > 2 && in[2] && (!in[2]->is_float() || in[2]->numel() != d->M)) return "bias must have M values";
  const Window2d& g = d->g;
  if (auto e = check_output_size({d->N, d->M, g.Ho, g.Wo}); !e.empty()) return e;
  if (auto e = check_output_size({g.Ho, g.Wo, d->Cg, g.kh, g.kw}); !e.empty()) return e;  // im2col buffer
  if (auto e = charge_work({d->N, d->M, g.Ho, g.Wo, d->Cg, g.kh, g.kw}); !e.empty()) return e;
  d->pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0;
  d->depthwise = d->Cg == 1 && !d->pointwise;
  return "";
}

// col [Cg·kh·kw, (r1 − r0)·Wo] from x [Cg, H, W]: the windows of output rows r0 .. r1 − 1 (all: 0, Ho). Each row of
// a tap is zeros, x's inside run (tap_ranges: a copy when sw = 1), zeros.
template <class T>
void im2col(const T* x, int64_t Cg, const Window2d& g, const std::vector<TapRange>& taps, T* col, int64_t r0, int64_t r1) {
  const int64_t P = (r1 - r0) * g.Wo;
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        T* row = col + ((c * g.kh + i) * g.kw + j) * P;
        const T* xc = x + c * g.H * g.W;
        const TapRange& t = taps[static_cast<size_t>(j)];
        for (int64_t oy = r0; oy < r1; ++oy) {
          const int64_t iy = oy * g.sh - g.pt + i * g.dh;
          T* r = row + (oy - r0) * g.Wo;
          if (iy < 0 || iy >= g.H) {
            std::fill(r, r + g.Wo, T(0));
            continue;
          }
          const T* xr = xc + iy * g.W + t.off;
          std::fill(r, r + t.lo, T(0));
          if (g.sw == 1) std::copy(xr + t.lo, xr + t.hi, r + t.lo);
          else
            for (int64_t ox = t.lo; ox < t.hi; ++ox) r[ox] = xr[ox * g.sw];
          std::fill(r + t.hi, r + g.Wo, T(0));
        }
      }
}
// dx [Cg, H, W] += the windows of col [Cg·kh·kw, Ho·Wo] put back (each cell's terms in the order c, i, j, oy, ox).
template <class T>
void col2im(const T* col, int64_t Cg, const Window2d& g, const std::vector<TapRange>& taps, T* dx) {
  const int64_t P = g.Ho * g.Wo;
  for (int64_t c = 0; c < Cg; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const T* row = col + ((c * g.kh + i) * g.kw + j) * P;
        T* xc = dx + c * g.H * g.W;
        const TapRange& t = taps[static_cast<size_t>(j)];
        for (int64_t oy = 0; oy < g.Ho; ++oy) {
          const int64_t iy = oy * g.sh - g.pt + i * g.dh;
          if (iy < 0 || iy >= g.H) continue;
          T* xr = xc + iy * g.W + t.off;
          const T* r = row + oy * g.Wo;
          if (g.sw == 1)
            for (int64_t ox = t.lo; ox < t.hi; ++ox) xr[ox] += r[ox];
          else
            for (int64_t ox = t.lo; ox < t.hi; ++ox) xr[ox * g.sw] += r[ox];
        }
      }
}

// Depthwise: output channel m reads input channel m / Mg. Every output sums its window's taps inside x in the order
// (i, j), starting from 0, as a per-pixel loop would. A square 3 × 3 or 5 × 5 kernel at column stride 1 or 2 takes
// the outputs whose whole window lies inside x (interior rows, columns [lo, hi) of every tap's range) in one pass per
// row with the taps in registers (one store per output); the rest — and other kernels — run tap by tap over each
// kernel column's range of outputs whose input column lies inside x (window.h tap_ranges), with no bounds test per
// element. Both sum the same terms in the same order: the same bits where the target has no FMA (WebAssembly);
// natively the compiler contracts w · x + sum into FMA as it chooses, so the last bits may differ between the two.

// Outputs ox0 .. ox0 + B − 1 of a row whose K × K windows lie inside x: q[i·K + j] points at input column off_j of
// the row of tap i, and output ox reads q[i·K + j][ox · S]. Tap after tap over the block: its B sums stay in
// (vector) registers and each is its own chain of w · x + sum, in the order (i, j).
template <class T, int K, int S, int B>
inline void depthwise_block(const T* const* q, const T* wk, int64_t ox0, T* __restrict y) {
  T acc[B];
  for (int b = 0; b < B; ++b) acc[b] = 0;
  for (int t = 0; t < K * K; ++t) {
    const T wt = wk[t];
    const T* qt = q[t] + ox0 * S;
    for (int b = 0; b < B; ++b) acc[b] += wt * qt[b * S];
  }
  for (int b = 0; b < B; ++b) y[ox0 + b] = acc[b];
}

// y[ox] for ox in [lo, hi) of one output row whose K × K windows lie inside x (q as above): blocks of 16, then of
// 4, then one at a time. The weights are copied to a local array: y's stores could otherwise alias them.
template <class T, int K, int S>
void depthwise_row_interior(const T* const* q, const T* w, int64_t lo, int64_t hi, T* __restrict y) {
  T wk[K * K];
  for (int t = 0; t < K * K; ++t) wk[t] = w[t];
  int64_t ox = lo;
  for (; ox + 16 <= hi; ox += 16) depthwise_block<T, K, S, 16>(q, wk, ox, y);
  for (; ox + 4 <= hi; ox += 4) depthwise_block<T, K, S, 4>(q, wk, ox, y);
  for (; ox < hi; ++ox) depthwise_block<T, K, S, 1>(q, wk, ox, y);
}

// Output ox of row oy alone: its taps inside x in the order (i, j) (the interior's edges).
template <class T>
T depthwise_pixel(const T* x, const T* w, const Window2d& g, const std::vector<TapRange>& taps, int64_t oy, int64_t ox) {
  T acc = 0;
  for_row_taps(g, taps, oy, [&](int64_t i, int64_t j, int64_t iy, const TapRange& t) {
    if (ox >= t.lo && ox < t.hi) acc += w[i * g.kw + j] * x[iy * g.W + t.off + ox * g.sw];
  });
  return acc;
}

// One output row tap by tap (the rows whose windows leave x, and kernels with no register path).
template <class T>
void depthwise_row_taps(const T* x, const T* w, const Window2d& g, const std::vector<TapRange>& taps, int64_t oy, T* yr) {
  std::fill(yr, yr + g.Wo, T(0));
  for_row_taps(g, taps, oy, [&](int64_t i, int64_t j, int64_t iy, const TapRange& t) {
    const T wv = w[i * g.kw + j];
    const T* xr = x + iy * g.W + t.off;
    if (g.sw == 1) {
      for (int64_t ox = t.lo; ox < t.hi; ++ox) yr[ox] += wv * xr[ox];
    } else {
      for (int64_t ox = t.lo; ox < t.hi; ++ox) yr[ox] += wv * xr[ox * g.sw];
    }
  });
}

// y [Ho, Wo] = the depthwise window of x [H, W] with kernel w [K, K], column stride S.
template <class T, int K, int S>
void depthwise_fwd_square(const T* x, const T* w, const Window2d& g, const std::vector<TapRange>& taps, T* y) {
  int64_t lo = 0, hi = g.Wo;  // the columns every tap reads inside x
  for (const TapRange& t : taps) {
    lo = std::max(lo, t.lo);
    hi = std::min(hi, t.hi);
  }
  hi = std::max(lo, hi);
  for (int64_t oy = 0; oy < g.Ho; ++oy) {
    T* yr = y + oy * g.Wo;
    const int64_t iy0 = oy * g.sh - g.pt, iy1 = iy0 + (K - 1) * g.dh;
    if (iy0 < 0 || iy1 >= g.H || lo == hi) {
      depthwise_row_taps(x, w, g, taps, oy, yr);
      continue;
    }
    const T* p[K * K];
    for (int i = 0; i < K; ++i)
      for (int j = 0; j < K; ++j) p[i * K + j] = x + (iy0 + i * g.dh) * g.W + taps[static_cast<size_t>(j)].off;
    for (int64_t ox = 0; ox < lo; ++ox) yr[ox] = depthwise_pixel(x, w, g, taps, oy, ox);
    depthwise_row_interior<T, K, S>(p, w, lo, hi, yr);
    for (int64_t ox = hi; ox < g.Wo; ++ox) yr[ox] = depthwise_pixel(x, w, g, taps, oy, ox);
  }
}

// y [Ho, Wo] = the depthwise window of x [H, W] with kernel w [kh, kw].
template <class T>
void depthwise_fwd(const T* x, const T* w, const Window2d& g, const std::vector<TapRange>& taps, T* y) {
  const bool square3 = g.kh == 3 && g.kw == 3, square5 = g.kh == 5 && g.kw == 5;
  if (square3 && g.sw == 1) return depthwise_fwd_square<T, 3, 1>(x, w, g, taps, y);
  if (square3 && g.sw == 2) return depthwise_fwd_square<T, 3, 2>(x, w, g, taps, y);
  if (square5 && g.sw == 1) return depthwise_fwd_square<T, 5, 1>(x, w, g, taps, y);
  if (square5 && g.sw == 2) return depthwise_fwd_square<T, 5, 2>(x, w, g, taps, y);
  for (int64_t oy = 0; oy < g.Ho; ++oy) depthwise_row_taps(x, w, g, taps, oy, y + oy * g.Wo);
}

// The depthwise backward for one output channel: dx [H, W] += the window's transpose applied to dy [Ho, Wo]
// (when dx), dw [kh, kw] += Σ dy · x under each tap (when dw).
template <class T>
void depthwise_bwd(const T* x, const T* w, const T* dy, const Window2d& g, const std::vector<TapRange>& taps, T* dx, T* dw) {
  for (int64_t oy = 0; oy < g.Ho; ++oy) {
    const T* dyr = dy + oy * g.Wo;
    for_row_taps(g, taps, oy, [&](int64_t i, int64_t j, int64_t iy, const TapRange& t) {
      const int64_t at = iy * g.W + t.off;
      if (dx) {
        const T wv = w[i * g.kw + j];
        T* dxr = dx + at;
        if (g.sw == 1) {  // contiguous: the compiler vectorises it
          for (int64_t ox = t.lo; ox < t.hi; ++ox) dxr[ox] += wv * dyr[ox];
        } else {
          for (int64_t ox = t.lo; ox < t.hi; ++ox) dxr[ox * g.sw] += wv * dyr[ox];
        }
      }
      if (dw) {
        const T* xr = x + at;
        T s = 0;
        for (int64_t ox = t.lo; ox < t.hi; ++ox) s += dyr[ox] * xr[ox * g.sw];
        dw[i * g.kw + j] += s;
      }
    });
  }
}

// The forward in parts on the core's threads (ops/parts.h), each output element computed whole in one part:
// depthwise by output channels; otherwise, per image and group, by blocks of output channels when the output has
// fewer pixels than channels (one im2col, the weight's rows in blocks), else by blocks of output rows (each part
// builds the im2col columns of its rows and multiplies them).
template <class T>
std::string conv_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  ConvDims d;
  if (auto e = conv_dims(n, in, &d); !e.empty()) return e;
  const Window2d& g = d.g;
  const std::vector<TapRange> taps = tap_ranges(g);
  const Tensor<T>&x = *in[0], &w = *in[1];
  const T* bias = in.size() > 2 && in[2] ? in[2]->f.data() : nullptr;
  Shape os = {d.N, d.M};
  if (g.spatial == 2) os.push_back(g.Ho);
  os.push_back(g.Wo);
  out[0] = Tensor<T>::uninit(os);  // every element assigned below (a product with =, or depthwise_fwd's fill)
  const int64_t HW = g.H * g.W, P = g.Ho * g.Wo, Kc = d.Cg * g.kh * g.kw;
  T* y = out[0].f.data();
  const auto add_bias = [&](int64_t m, T* ym, int64_t len) {  // m: the output channel
    if (!bias) return;
    const T bv = bias[m];
    for (int64_t p = 0; p < len; ++p) ym[p] += bv;
  };
  if (d.depthwise) {
    for_parts(d.N * d.M, P * Kc, [&](int64_t b0, int64_t b1) {
      for (int64_t bm = b0; bm < b1; ++bm) {  // bm = image · M + output channel
        const int64_t b = bm / d.M, m = bm % d.M, grp = m / d.Mg;
        depthwise_fwd(x.f.data() + (b * d.C + grp * d.Cg) * HW, w.f.data() + m * Kc, g, taps, y + bm * P);
        add_bias(m, y + bm * P, P);
      }
    });
    return "";
  }
  if (winograd_applies(g)) {  // 3 × 3, stride 1, outputs large enough (conv_winograd.h)
    conv3x3_winograd(x.f.data(), w.f.data(), bias, d.N, d.G, d.Cg, d.Mg, g, y);
    return "";
  }
  using Strided = Eigen::Map<RowMat<T>, 0, Eigen::OuterStride<>>;
  using CStrided = Eigen::Map<const RowMat<T>, 0, Eigen::OuterStride<>>;
  if (P < d.Mg) {  // few pixels, many output channels (a deep layer): one im2col, the channels in blocks
    const Scratch<T> col(d.pointwise ? 0 : Kc * P);
    for (int64_t b = 0; b < d.N; ++b)
      for (int64_t grp = 0; grp < d.G; ++grp) {
        const T* xg = x.f.data() + (b * d.C + grp * d.Cg) * HW;
        T* yg = y + (b * d.M + grp * d.Mg) * P;
        if (!d.pointwise) im2col(xg, d.Cg, g, taps, col.data(), 0, g.Ho);
        const Eigen::Map<const RowMat<T>> Col(d.pointwise ? xg : col.data(), Kc, P);
        for_parts(d.Mg, Kc * P, [&](int64_t m0, int64_t m1) {
          Eigen::Map<RowMat<T>>(yg + m0 * P, m1 - m0, P).noalias() =
              Eigen::Map<const RowMat<T>>(w.f.data() + (grp * d.Mg + m0) * Kc, m1 - m0, Kc) * Col;
          for (int64_t m = m0; m < m1; ++m) add_bias(grp * d.Mg + m, yg + m * P, P);
        });
      }
    return "";
  }
  // many pixels: blocks of output rows, each part building the im2col columns of its rows
  const int64_t row_parts = op_parts(g.Ho, d.Mg * Kc * g.Wo);
  const auto conv_rows = [&](int64_t item) {  // item = (image · G + group) · row_parts + part
    const int64_t part = item % row_parts, bg = item / row_parts;
    const int64_t b = bg / d.G, grp = bg % d.G;
    const int64_t r0 = static_cast<int64_t>(split_begin(g.Ho, row_parts, part)), r1 = static_cast<int64_t>(split_begin(g.Ho, row_parts, part + 1));
    const int64_t p0 = r0 * g.Wo, len = (r1 - r0) * g.Wo;
    const T* xg = x.f.data() + (b * d.C + grp * d.Cg) * HW;
    T* yg = y + (b * d.M + grp * d.Mg) * P;
    const Eigen::Map<const RowMat<T>> Wg(w.f.data() + grp * d.Mg * Kc, d.Mg, Kc);
    Strided Y(yg + p0, d.Mg, len, Eigen::OuterStride<>(P));
    if (d.pointwise) {
      Y.noalias() = Wg * CStrided(xg + p0, d.Cg, len, Eigen::OuterStride<>(P));
    } else {
      const Scratch<T> col(Kc * len);
      im2col(xg, d.Cg, g, taps, col.data(), r0, r1);
      Y.noalias() = Wg * Eigen::Map<const RowMat<T>>(col.data(), Kc, len);
    }
    for (int64_t m = 0; m < d.Mg; ++m) add_bias(grp * d.Mg + m, yg + m * P + p0, len);
  };
  for_parts(d.N * d.G * row_parts, d.Mg * Kc * P / row_parts, [&](int64_t i0, int64_t i1) {
    for (int64_t item = i0; item < i1; ++item) conv_rows(item);
  });
  return "";
}

// The backward in parts on the core's threads (ops/parts.h), each output element of dX, dW and dB computed whole
// in one part, its terms summed in the same order on any thread count: depthwise by input channel (its output
// channels and images in order inside); otherwise per image and group, dX by blocks of input channels (their rows
// of Wgᵀ · dY, then col2im of those channels) and dW by blocks of output channels after im2col of the image.
template <class T>
std::string conv_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                     const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  ConvDims d;
  if (auto e = conv_dims(n, in, &d); !e.empty()) return e;
  const Window2d& g = d.g;
  const std::vector<TapRange> taps = tap_ranges(g);
  const Tensor<T>&x = *in[0], &w = *in[1];
  const T* dy = dout[0]->f.data();
  const int64_t HW = g.H * g.W, P = g.Ho * g.Wo, khw = g.kh * g.kw, Kc = d.Cg * khw;
  const bool need_w = need.size() > 1 && need[1], need_b = need.size() > 2 && need[2];
  if (need[0]) din[0] = Tensor<T>::uninit(x.shape);  // zeroed in parts below, by the part that sums into it
  if (need_w) din[1] = Tensor<T>::floats(w.shape);
  if (need_b) din[2] = Tensor<T>::floats(in[2]->shape);
  using RMap = Eigen::Map<RowMat<T>>;
  using CMap = Eigen::Map<const RowMat<T>>;
  if (d.depthwise) {
    for_parts(d.G, d.N * d.Mg * P * Kc * (need[0] + need_w), [&](int64_t g0, int64_t g1) {
      for (int64_t grp = g0; grp < g1; ++grp)  // = the input channel
        for (int64_t b = 0; b < d.N; ++b) {
          const T* xg = x.f.data() + (b * d.C + grp) * HW;
          T* dxg = need[0] ? din[0].f.data() + (b * d.C + grp) * HW : nullptr;
          if (dxg) std::fill(dxg, dxg + HW, T(0));
          for (int64_t m = grp * d.Mg; m < (grp + 1) * d.Mg; ++m)
            depthwise_bwd(xg, w.f.data() + m * Kc, dy + (b * d.M + m) * P, g, taps, dxg, need_w ? din[1].f.data() + m * Kc : nullptr);
        }
    });
  }
  const Scratch<T> col(need_w && !d.depthwise && !d.pointwise ? Kc * P : 0);
  for (int64_t b = 0; b < d.N && !d.depthwise; ++b)
    for (int64_t grp = 0; grp < d.G; ++grp) {
      const T* xg = x.f.data() + (b * d.C + grp * d.Cg) * HW;
      const T* dyg = dy + (b * d.M + grp * d.Mg) * P;
      const CMap dY(dyg, d.Mg, P), Wg(w.f.data() + grp * d.Mg * Kc, d.Mg, Kc);
      if (need[0]) {
        T* dxg = din[0].f.data() + (b * d.C + grp * d.Cg) * HW;
        for_parts(d.Cg, khw * d.Mg * P, [&](int64_t c0, int64_t c1) {  // input channels c0 .. c1 − 1
          std::fill(dxg + c0 * HW, dxg + c1 * HW, T(0));
          const auto Wc = Wg.middleCols(c0 * khw, (c1 - c0) * khw);
          if (d.pointwise) {
            RMap(dxg + c0 * HW, c1 - c0, P).noalias() += Wc.transpose() * dY;
          } else {
            const Scratch<T> part((c1 - c0) * khw * P);
            RMap(part.data(), (c1 - c0) * khw, P).noalias() = Wc.transpose() * dY;
            col2im(part.data(), c1 - c0, g, taps, dxg + c0 * HW);
          }
        });
      }
      if (need_w) {
        const T* colp = xg;
        if (!d.pointwise) {
          im2col(xg, d.Cg, g, taps, col.data(), 0, g.Ho);
          colp = col.data();
        }
        T* dwg = din[1].f.data() + grp * d.Mg * Kc;
        for_parts(d.Mg, Kc * P, [&](int64_t m0, int64_t m1) {  // output channels m0 .. m1 − 1
          RMap(dwg + m0 * Kc, m1 - m0, Kc).noalias() += dY.middleRows(m0, m1 - m0) * CMap(colp, Kc, P).transpose();
        });
      }
    }
  if (need_b)
    for (int64_t b = 0; b < d.N; ++b)
      for (int64_t m = 0; m < d.M; ++m)
        for (int64_t p = 0; p < P; ++p) din[2].f[m] += dy[(b * d.M + m) * P + p];
  return "";
}

}  // namespace

template <class T>
void register_conv_ops(OpRegistry<T>& r) {
  r["Conv"] = {&conv_fwd<T>, &conv_bwd<T>, 1};
}
template void register_conv_ops<float>(OpRegistry<float>&);
template void register_conv_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
