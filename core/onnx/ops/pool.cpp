// Pools over 1-D and 2-D spatial inputs X [N, C, (H,) W]:
//   MaxPool       kernel_shape, strides, pads, dilations, ceil_mode, auto_pad; padding never wins (−∞);
//                 the optional Indices output is not supported. dX: dY goes to the first maximum of each window.
//   AveragePool   the same geometry (no dilations); count_include_pad = 0 divides by the window's cells
//                 inside the input, = 1 by its cells inside the padded input (PyTorch / ORT); dX spreads
//                 dY / count over those cells.
//   GlobalAveragePool, GlobalMaxPool   any rank ≥ 3: Y [N, C, 1, …] (the mean / max over all spatial cells).
#include <cmath>
#include <limits>

#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"
#include "onnx/ops/window.h"

namespace attnlab::onnx {
namespace {

template <class T>
std::string pool_dims(const Node& n, const Tensor<T>& x, Window2d* g) {
  if (x.rank() != 3 && x.rank() != 4) return "only 1-D and 2-D pools are supported (input " + shape_str(x.shape) + ")";
  const int sp = x.rank() - 2;
  const auto ks = n.attr_ints("kernel_shape", {});
  if (static_cast<int>(ks.size()) != sp) return "kernel_shape must have " + std::to_string(sp) + " entries";
  if (n.op_type == "AveragePool") {
    for (int64_t v : n.attr_ints("dilations", {}))
      if (v != 1) return "dilations are not supported in AveragePool";
  }
  if (n.op_type == "MaxPool" && n.attr_int("storage_order", 0) != 0) return "storage_order = 1 is not supported";
  if (auto e = window_geometry(n, sp, x.shape.data() + 2, ks.data(), true, g); !e.empty()) return e;
  if (auto e = check_output_size({x.shape[0], x.shape[1], g->Ho, g->Wo}); !e.empty()) return e;
  return charge_work({x.shape[0], x.shape[1], g->Ho, g->Wo, g->kh, g->kw});
}

template <class T>
Shape pool_out_shape(const Tensor<T>& x, const Window2d& g) {
  Shape os = {x.shape[0], x.shape[1]};
  if (g.spatial == 2) os.push_back(g.Ho);
  os.push_back(g.Wo);
  return os;
}

// Calls f(oy, ox, iy, ix) for every input cell of each output window (inside the input).
template <class F>
void for_windows(const Window2d& g, F&& f) {
  for (int64_t oy = 0; oy < g.Ho; ++oy)
    for (int64_t ox = 0; ox < g.Wo; ++ox)
      for (int64_t i = 0; i < g.kh; ++i) {
        const int64_t iy = oy * g.sh - g.pt + i * g.dh;
        if (iy < 0 || iy >= g.H) continue;
        for (int64_t j = 0; j < g.kw; ++j) {
          const int64_t ix = ox * g.sw - g.pl + j * g.dw;
          if (ix >= 0 && ix < g.W) f(oy, ox, iy, ix);
        }
      }
}

// Number of cells averaged by output (oy, ox).
inline int64_t avg_count(const Window2d& g, int64_t oy, int64_t ox, bool include_pad) {
  auto span = [](int64_t start, int64_t k, int64_t lo, int64_t hi) {
    return std::max<int64_t>(0, std::min(start + k, hi) - std::max(start, lo));
  };
  const int64_t y0 = oy * g.sh - g.pt, x0 = ox * g.sw - g.pl;
  if (include_pad) return span(y0, g.kh, -g.pt, g.H + g.pb) * span(x0, g.kw, -g.pl, g.W + g.pr);
  return span(y0, g.kh, 0, g.H) * span(x0, g.kw, 0, g.W);
}

// The forward in parts over planes (ops/parts.h), each output row built tap by tap over the kernel column's inside
// range (window.h tap_ranges): every output takes its cells in the order (i, j), as a per-window loop would.
template <class T>
std::string pool_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1); !e.empty()) return e;
  if (out.size() > 1 && !n.outputs[1].empty()) return "the Indices output is not supported";
  const Tensor<T>& x = *in[0];
  Window2d g;
  if (auto e = pool_dims(n, x, &g); !e.empty()) return e;
  out[0] = Tensor<T>::uninit(pool_out_shape(x, g));  // every row filled below before its taps
  const int64_t planes = x.shape[0] * x.shape[1], HW = g.H * g.W, P = g.Ho * g.Wo;
  const bool is_max = n.op_type == "MaxPool", include_pad = n.attr_int("count_include_pad", 0) != 0;
  const std::vector<TapRange> taps = tap_ranges(g);
  const T start = is_max ? -std::numeric_limits<T>::infinity() : T(0);
  for_parts(planes, P * g.kh * g.kw, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const T* xc = x.f.data() + c * HW;
      for (int64_t oy = 0; oy < g.Ho; ++oy) {
        T* yr = out[0].f.data() + c * P + oy * g.Wo;
        std::fill(yr, yr + g.Wo, start);
        for_row_taps(g, taps, oy, [&](int64_t, int64_t, int64_t iy, const TapRange& t) {
          const T* xr = xc + iy * g.W + t.off;
          if (is_max)
            for (int64_t ox = t.lo; ox < t.hi; ++ox) yr[ox] = std::max(yr[ox], xr[ox * g.sw]);
          else
            for (int64_t ox = t.lo; ox < t.hi; ++ox) yr[ox] += xr[ox * g.sw];
        });
        if (!is_max)
          for (int64_t ox = 0; ox < g.Wo; ++ox) {
            const int64_t cnt = avg_count(g, oy, ox, include_pad);
            yr[ox] = cnt ? yr[ox] / T(cnt) : T(0);
          }
      }
    }
  });
  return "";
}

// The backward in parts over planes (a plane's dX is written by its part only), windows in the forward's order.
template <class T>
std::string pool_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                     const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  const Tensor<T>& x = *in[0];
  Window2d g;
  if (auto e = pool_dims(n, x, &g); !e.empty()) return e;
  din[0] = Tensor<T>::uninit(x.shape);  // each plane zeroed by its part
  const int64_t planes = x.shape[0] * x.shape[1], HW = g.H * g.W, P = g.Ho * g.Wo;
  const bool is_max = n.op_type == "MaxPool", include_pad = n.attr_int("count_include_pad", 0) != 0;
  for_parts(planes, P * g.kh * g.kw, [&](int64_t c0, int64_t c1) {
    std::vector<char> taken(static_cast<size_t>(is_max ? P : 0));
    for (int64_t c = c0; c < c1; ++c) {
      const T* xc = x.f.data() + c * HW;
      const T* yc = out[0]->f.data() + c * P;
      const T* gc = dout[0]->f.data() + c * P;
      T* dx = din[0].f.data() + c * HW;
      std::fill(dx, dx + HW, T(0));
      if (is_max) {
        std::fill(taken.begin(), taken.end(), 0);
        for_windows(g, [&](int64_t oy, int64_t ox, int64_t iy, int64_t ix) {
          const int64_t o = oy * g.Wo + ox;
          if (!taken[o] && xc[iy * g.W + ix] == yc[o]) {
            dx[iy * g.W + ix] += gc[o];
            taken[o] = 1;
          }
        });
      } else {
        for_windows(g, [&](int64_t oy, int64_t ox, int64_t iy, int64_t ix) {
          const int64_t cnt = avg_count(g, oy, ox, include_pad);
          dx[iy * g.W + ix] += gc[oy * g.Wo + ox] / T(cnt);
        });
      }
    }
  });
  return "";
}

template <class T>
std::string global_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  if (x.rank() < 3) return "input must have rank ≥ 3, got " + shape_str(x.shape);
  Shape os(x.shape.size(), 1);
  os[0] = x.shape[0];
  os[1] = x.shape[1];
  out[0] = Tensor<T>::uninit(os);  // every plane's value written below
  const int64_t planes = x.shape[0] * x.shape[1], S = x.numel() / std::max<int64_t>(1, planes);
  const bool is_max = n.op_type == "GlobalMaxPool";
  for_parts(planes, S * kElementWork, [&](int64_t c0, int64_t c1) {  // planes in parts (ops/parts.h)
    for (int64_t c = c0; c < c1; ++c) {
      const T* xc = x.f.data() + c * S;
      if (is_max) {
        T m = -std::numeric_limits<T>::infinity();
        for (int64_t s = 0; s < S; ++s) m = std::max(m, xc[s]);
        out[0].f[c] = m;
      } else {
        T acc = 0;
        for (int64_t s = 0; s < S; ++s) acc += xc[s];
        out[0].f[c] = acc / T(S);
      }
    }
  });
  return "";
}
template <class T>
std::string global_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  const Tensor<T>& x = *in[0];
  din[0] = Tensor<T>::floats(x.shape);
  const int64_t planes = x.shape[0] * x.shape[1], S = x.numel() / std::max<int64_t>(1, planes);
  const bool is_max = n.op_type == "GlobalMaxPool";
  for_parts(planes, S * kElementWork, [&](int64_t c0, int64_t c1) {  // planes in parts: each writes its own
    for (int64_t c = c0; c < c1; ++c) {
      const T gv = dout[0]->f[c];
      T* dx = din[0].f.data() + c * S;
      if (is_max) {
        const T* xc = x.f.data() + c * S;
        for (int64_t s = 0; s < S; ++s)
          if (xc[s] == out[0]->f[c]) {
            dx[s] = gv;
            break;
          }
      } else {
        for (int64_t s = 0; s < S; ++s) dx[s] = gv / T(S);
      }
    }
  });
  return "";
}

}  // namespace

template <class T>
void register_pool_ops(OpRegistry<T>& r) {
  r["MaxPool"] = {&pool_fwd<T>, &pool_bwd<T>, 1};
  r["AveragePool"] = {&pool_fwd<T>, &pool_bwd<T>, 1};
  r["GlobalAveragePool"] = {&global_fwd<T>, &global_bwd<T>, 1};
  r["GlobalMaxPool"] = {&global_fwd<T>, &global_bwd<T>, 1};
}
template void register_pool_ops<float>(OpRegistry<float>&);
template void register_pool_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
