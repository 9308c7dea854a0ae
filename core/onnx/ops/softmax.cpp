// Softmax and LogSoftmax. Opset ≥ 13: along one axis (default −1). Opset < 13: over the input coerced to
// 2-D at `axis` (default 1), i.e. over all axes from `axis` on. Max-subtracted for stability; each exp computed
// once (float rows of the last axis on four lanes: nn/simd.h exp, which is 0 below e^−87 — four such keys of a
// mask skip it; the sum in order, so a row's values do not depend on where it lies).
// Backward: softmax dx = y ⊙ (dy − Σ dy·y); log-softmax dx = dy − softmax · Σ dy.
// Rows in parts on the core's threads (ops/parts.h): each row whole in one part, so its values are the same on any
// thread count.
#include <cmath>
#include <type_traits>

#include "nn/simd.h"
#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"

namespace attnlab::onnx {
namespace {

struct Split3 {
  int64_t outer = 1, dim = 1, inner = 1;
};

constexpr int64_t kSoftmaxWork = 8;  // an element's work in multiply-adds (an exp, a sum, a division)

template <class T>
std::string split_of(const Node& n, const Tensor<T>& x, Split3* s) {
  const int r = x.rank();
  if (r == 0) return "Softmax of a scalar";
  int64_t axis;
  if (!norm_axis(n.attr_int("axis", n.opset >= 13 ? -1 : 1), r, &axis)) return "axis out of range for " + shape_str(x.shape);
  for (int k = 0; k < axis; ++k) s->outer *= x.shape[k];
  if (n.opset >= 13) {
    s->dim = x.shape[axis];
    for (int k = static_cast<int>(axis) + 1; k < r; ++k) s->inner *= x.shape[k];
  } else {
    for (int k = static_cast<int>(axis); k < r; ++k) s->dim *= x.shape[k];
  }
  return "";
}

template <class T>
std::string softmax_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  Split3 s;
  if (auto e = split_of(n, x, &s); !e.empty()) return e;
  const bool log = n.op_type == "LogSoftmax";
  out[0] = Tensor<T>::uninit(x.shape);  // every element written below
  if (s.dim == 0) return "";  // an empty axis: an empty output, nothing to read
  if constexpr (std::is_same_v<T, float>) {
    if (s.inner == 1) {  // the usual case (the last axis): each row's exps on four lanes (nn/simd.h), the sum in order
      for_parts(s.outer, s.dim * kSoftmaxWork, [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          const float* xr = x.f.data() + o * s.dim;
          float* yr = out[0].f.data() + o * s.dim;
          // the row's maximum on four lanes (the same value as a scalar scan: max does not depend on order)
          float m = xr[0];
          int64_t d0 = 0;
          if (s.dim >= 8) {
            simd::v4 m4 = simd::load(xr);
            for (d0 = 4; d0 + 4 <= s.dim; d0 += 4) m4 = simd::max(m4, simd::load(xr + d0));
            m = std::max(std::max(m4[0], m4[1]), std::max(m4[2], m4[3]));
          }
          for (int64_t d = d0; d < s.dim; ++d) m = std::max(m, xr[d]);
          // a NaN stays NaN (simd::exp clamps its input), and the row's sum then makes the whole row NaN, as before
          const simd::v4 mx = simd::splat(m);
          int64_t d = 0, live = 0;  // live: the end of the last chunk of four not skipped (zeros after it)
          for (; d + 4 <= s.dim; d += 4) {
            const simd::v4 v = simd::load(xr + d);
            const simd::v4 t = v - mx;
            // four masked keys (a causal or padding mask's large negative): exp is exactly 0 below −87, skip it
            const simd::i4 low = t < simd::splat(-87.f);
            if (low[0] & low[1] & low[2] & low[3]) {
              simd::store(yr + d, simd::splat(0.f));
              continue;
            }
            simd::store(yr + d, v == v ? simd::exp(t) : v);
            live = d + 4;
          }
          const int64_t tail = d;
          if (tail < s.dim)
            simd::map4(xr + tail, nullptr, yr + tail, static_cast<long>(s.dim - tail),
                       [mx](simd::v4 v) { return v == v ? simd::exp(v - mx) : v; });
          // The sum in order; the skipped chunks' zeros after `live` add exactly nothing (the sum is ≥ +0), so they are
          // left out, and 0 / sum stays 0 below.
          float sum = 0;
          for (d = 0; d < live; ++d) sum += yr[d];
          for (d = tail; d < s.dim; ++d) sum += yr[d];
          if (log) {
            const float shift = m + std::log(sum);
            for (d = 0; d < s.dim; ++d) yr[d] = xr[d] - shift;
          } else {  // each element divided by the sum, four at a time (the same quotients)
            const simd::v4 sum4 = simd::splat(sum);
            const int64_t end4 = sum == sum ? live : tail;  // a NaN sum makes the whole row NaN, zeros too
            for (d = 0; d < end4; d += 4) simd::store(yr + d, simd::load(yr + d) / sum4);
            for (d = tail; d < s.dim; ++d) yr[d] /= sum;
          }
        }
      });
      return "";
    }
  }
  for_parts(s.outer, s.dim * s.inner * kSoftmaxWork, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        const T* xp = x.f.data() + o * s.dim * s.inner + i;
        T* yp = out[0].f.data() + o * s.dim * s.inner + i;
        T m = xp[0];
        for (int64_t d = 1; d < s.dim; ++d) m = std::max(m, xp[d * s.inner]);
        T sum = 0;
        for (int64_t d = 0; d < s.dim; ++d) sum += (yp[d * s.inner] = std::exp(xp[d * s.inner] - m));
        const T ls = std::log(sum);
        for (int64_t d = 0; d < s.dim; ++d) yp[d * s.inner] = log ? xp[d * s.inner] - m - ls : yp[d * s.inner] / sum;
      }
  });
  return "";
}

template <class T>
std::string softmax_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                        const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  const Tensor<T>& x = *in[0];
  Split3 s;
  if (auto e = split_of(n, x, &s); !e.empty()) return e;
  const bool log = n.op_type == "LogSoftmax";
  din[0] = Tensor<T>::uninit(x.shape);  // every element written below
  if (s.dim == 0) return "";
  for_parts(s.outer, s.dim * s.inner * kSoftmaxWork, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        const int64_t base = o * s.dim * s.inner + i;
        const T* y = out[0]->f.data() + base;
        const T* g = dout[0]->f.data() + base;
        T* dx = din[0].f.data() + base;
        T acc = 0;
        for (int64_t d = 0; d < s.dim; ++d) acc += log ? g[d * s.inner] : g[d * s.inner] * y[d * s.inner];
        for (int64_t d = 0; d < s.dim; ++d) {
          const int64_t q = d * s.inner;
          dx[q] = log ? g[q] - std::exp(y[q]) * acc : y[q] * (g[q] - acc);
        }
      }
  });
  return "";
}

}  // namespace

template <class T>
void register_softmax_ops(OpRegistry<T>& r) {
  r["Softmax"] = {&softmax_fwd<T>, &softmax_bwd<T>, 1};
  r["LogSoftmax"] = {&softmax_fwd<T>, &softmax_bwd<T>, 1};
}
template void register_softmax_ops<float>(OpRegistry<float>&);
template void register_softmax_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
