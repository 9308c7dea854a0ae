// Broadcasting binary operators (numpy semantics, opset ≥ 7), out = op(a, b):
//   Opset < 7: the legacy form (broadcast = 1 with axis) as well.
//   Add, Sub, Mul, Div   float: the usual; integer tensors (shape arithmetic): int64 arithmetic,
//                        Div truncates toward zero (C++ / ORT); the result keeps a's type.
//                        da = reduce(dout · ∂op/∂a) over broadcast axes, db likewise.
//   Pow                  a^b (b may be an integer tensor); da = b·a^(b−1)·dout, db = a^b·ln(a)·dout (a > 0).
//   Equal                bool output (no gradient).
//   Where(cond, x, y)    cond ? x : y over the broadcast of the three; dx = dout where cond, dy elsewhere.
#include <cmath>

#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"

namespace attnlab::onnx {
namespace {

enum class Bin { Add, Sub, Mul, Div, Pow };

Bin kind_of(const std::string& op) {
  return op == "Add" ? Bin::Add : op == "Sub" ? Bin::Sub : op == "Mul" ? Bin::Mul : op == "Div" ? Bin::Div : Bin::Pow;
}

// Opset < 7: broadcasting only with broadcast = 1, b aligned to a at `axis` (default: the trailing axes).
template <class T>
Shape b_shape(const Node& n, const Tensor<T>& a, const Tensor<T>& b) {
  if (n.opset >= 7 || !n.attr_int("broadcast", 0) || b.rank() >= a.rank()) return b.shape;
  int64_t axis = n.attr_int("axis", a.rank() - b.rank());
  if (axis < 0) axis += a.rank();  // bin_fwd refuses an axis outside [0, rank(a) − rank(b)] first
  if (axis < 0 || axis > a.rank() - b.rank()) return b.shape;
  Shape s(static_cast<size_t>(axis), 1);
  s.insert(s.end(), b.shape.begin(), b.shape.end());
  while (s.size() < a.shape.size()) s.push_back(1);
  return s;
}

template <class T>
std::string bin_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2, false); !e.empty()) return e;
  const Tensor<T>&a = *in[0], &b = *in[1];
  if (n.opset < 7 && n.attr_int("broadcast", 0) && b.rank() < a.rank() && n.attr("axis")) {
    const int64_t axis = n.attr_int("axis", 0), ax = axis < 0 ? axis + a.rank() : axis;
    if (ax < 0 || ax > a.rank() - b.rank())
      return "broadcast axis " + std::to_string(axis) + " is out of range for " + shape_str(a.shape) + " and " + shape_str(b.shape);
  }
  const Shape bs = b_shape(n, a, b);
  Shape os;
  if (!broadcast_shapes(a.shape, bs, &os))
    return "shapes " + shape_str(a.shape) + " and " + shape_str(b.shape) + " do not broadcast";
  if (auto e = check_output_size(os); !e.empty()) return e;
  const Bin kind = kind_of(n.op_type);
  const Shape sa = broadcast_strides(a.shape, os), sb = broadcast_strides(bs, os);
  if (kind == Bin::Pow) {
    if (!a.is_float()) {  // integer base: the result keeps the base's type
      out[0] = Tensor<T>::ints(os, a.dtype);
      broadcast_loop2(os, sa, sb, [&](int64_t k, int64_t ia, int64_t ib) {
        out[0].i[k] = saturate_i64(std::pow(static_cast<double>(a.i[ia]), b.at(ib)));
      });
      return "";
    }
    out[0] = Tensor<T>::uninit(os);  // every element written below
    T* o = out[0].f.data();
    if (b.numel() == 1 && os == a.shape && (b.at(0) == 2 || b.at(0) == 1)) {  // x² (RMSNorm, decomposed LayerNorm)
      const T* pa = a.f.data();
      const size_t nn = a.f.size();
      if (b.at(0) == 2) for (size_t k = 0; k < nn; ++k) o[k] = pa[k] * pa[k];
      else std::copy(pa, pa + nn, o);
      return "";
    }
    broadcast_loop2(os, sa, sb, [&](int64_t k, int64_t ia, int64_t ib) {
      o[k] = std::pow(a.f[ia], static_cast<T>(b.at(ib)));
    });
    return "";
  }
  if (a.is_float() != b.is_float()) return "mixed float and integer inputs";
  if (a.is_float()) {
    out[0] = Tensor<T>::uninit(os);  // every element written below
    T* o = out[0].f.data();
    const T *pa = a.f.data(), *pb = b.f.data();
    if (a.shape == b.shape) {  // fast path: same shape, in parts on the core's threads (ops/parts.h)
      for_parts(static_cast<int64_t>(a.f.size()), kElementWork, [&](int64_t b0, int64_t b1) {
        switch (kind) {
          case Bin::Add: for (int64_t k = b0; k < b1; ++k) o[k] = pa[k] + pb[k]; break;
          case Bin::Sub: for (int64_t k = b0; k < b1; ++k) o[k] = pa[k] - pb[k]; break;
          case Bin::Mul: for (int64_t k = b0; k < b1; ++k) o[k] = pa[k] * pb[k]; break;
          default: for (int64_t k = b0; k < b1; ++k) o[k] = pa[k] / pb[k]; break;
        }
      });
      return "";
    }
    // Row by row over the innermost axis, each operand there contiguous or one repeated value (a mask [T, T] over
    // [B, H, T, T], a norm's [.., 1] divisor, a table over the batch), in loops the compiler vectorises: the same
    // element-wise operations as the index-by-index loop; the rows in parts on the core's threads (ops/parts.h).
    const int64_t row_len = os.empty() ? 1 : os.back();
    auto rows = [&](auto op) {
      for_parts(broadcast_rows(os), row_len * kElementWork, [&](int64_t r0, int64_t r1) {
        broadcast_rows2_part(os, sa, sb, r0, r1, [&](int64_t k, int64_t ia, int64_t ib, int64_t len, int64_t step_a, int64_t step_b) {
          T* ok = o + k;
          const T *xa = pa + ia, *xb = pb + ib;
          if (step_a == 1 && step_b == 1) {
            for (int64_t j = 0; j < len; ++j) ok[j] = op(xa[j], xb[j]);
          } else if (step_a == 1 && step_b == 0) {
            const T v = *xb;
            for (int64_t j = 0; j < len; ++j) ok[j] = op(xa[j], v);
          } else if (step_a == 0 && step_b == 1) {
            const T v = *xa;
            for (int64_t j = 0; j < len; ++j) ok[j] = op(v, xb[j]);
          } else {
            for (int64_t j = 0; j < len; ++j) ok[j] = op(xa[j * step_a], xb[j * step_b]);
          }
        });
      });
    };
    switch (kind) {
      case Bin::Add: rows([](T x, T y) { return x + y; }); break;
      case Bin::Sub: rows([](T x, T y) { return x - y; }); break;
      case Bin::Mul: rows([](T x, T y) { return x * y; }); break;
      default: rows([](T x, T y) { return x / y; }); break;
    }
    return "";
  }
  out[0] = Tensor<T>::ints(os, a.dtype);
  int64_t* o = out[0].i.data();
  std::string err;
  broadcast_loop2(os, sa, sb, [&](int64_t k, int64_t ia, int64_t ib) {
    const int64_t x = a.i[ia], y = b.i[ib];
    switch (kind) {
      case Bin::Add: o[k] = wrap_add(x, y); break;  // overflow wraps (two's complement), never UB
      case Bin::Sub: o[k] = wrap_sub(x, y); break;
      case Bin::Mul: o[k] = wrap_mul(x, y); break;
      default:
        if (y == 0) { err = "integer division by zero"; o[k] = 0; }
        else o[k] = wrap_div(x, y);
    }
  });
  return err;
}

// Sums g (shape os) into the shape of an input broadcast with strides s.
template <class T>
Tensor<T> reduce_to(const Shape& in_shape, const Shape& os, const Shape& s, const Values<T>& g) {
  Tensor<T> r = Tensor<T>::floats(in_shape);
  const Shape zero(os.size(), 0);
  broadcast_loop2(os, s, zero, [&](int64_t k, int64_t ia, int64_t) { r.f[ia] += g[k]; });
  return r;
}

template <class T>
std::string bin_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                    const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  const Tensor<T>&a = *in[0], &b = *in[1];
  const Shape& os = out[0]->shape;
  const Bin kind = kind_of(n.op_type);
  const Shape bs = b_shape(n, a, b);
  const Shape sa = broadcast_strides(a.shape, os), sb = broadcast_strides(bs, os);
  const Values<T>& g = dout[0]->f;
  const Values<T>& y = out[0]->f;
  const size_t nn = g.size();
  if (need[0]) {
    if (kind == Bin::Add || kind == Bin::Sub) {
      din[0] = a.shape == os ? *dout[0] : reduce_to(a.shape, os, sa, g);
    } else {
      Values<T> t(nn);  // every element written below
      broadcast_loop2(os, sa, sb, [&](int64_t k, int64_t ia, int64_t ib) {
        const T bv = static_cast<T>(b.at(ib));
        t[k] = kind == Bin::Mul ? g[k] * bv : kind == Bin::Div ? g[k] / bv
             : (bv == T(0) ? T(0) : g[k] * bv * std::pow(a.f[ia], bv - T(1)));
      });
      din[0] = reduce_to(a.shape, os, sa, t);
    }
  }
  if (need[1]) {
    Values<T> t(nn);
    broadcast_loop2(os, sa, sb, [&](int64_t k, int64_t ia, int64_t ib) {
      switch (kind) {
        case Bin::Add: t[k] = g[k]; break;
        case Bin::Sub: t[k] = -g[k]; break;
        case Bin::Mul: t[k] = g[k] * a.f[ia]; break;
        case Bin::Div: t[k] = -g[k] * y[k] / b.f[ib]; break;
        default: t[k] = a.f[ia] > T(0) ? g[k] * y[k] * std::log(a.f[ia]) : T(0);
      }
    });
    din[1] = reduce_to(bs, os, sb, t);
    din[1].shape = b.shape;
  }
  return "";
}

template <class T>
std::string equal_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2, false); !e.empty()) return e;
  const Tensor<T>&a = *in[0], &b = *in[1];
  Shape os;
  if (!broadcast_shapes(a.shape, b.shape, &os))
    return "shapes " + shape_str(a.shape) + " and " + shape_str(b.shape) + " do not broadcast";
  if (auto e = check_output_size(os); !e.empty()) return e;
  out[0] = Tensor<T>::ints(os, kBool);
  broadcast_loop2(os, broadcast_strides(a.shape, os), broadcast_strides(b.shape, os),
                  [&](int64_t k, int64_t ia, int64_t ib) { out[0].i[k] = a.at(ia) == b.at(ib); });
  return "";
}

template <class T>
std::string where_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 3, false); !e.empty()) return e;
  const Tensor<T>&c = *in[0], &x = *in[1], &y = *in[2];
  if (c.is_float()) return "the condition must be a bool tensor";
  if (x.is_float() != y.is_float()) return "x and y must have the same type";
  Shape s1, os;
  if (!broadcast_shapes(c.shape, x.shape, &s1) || !broadcast_shapes(s1, y.shape, &os))
    return "shapes " + shape_str(c.shape) + ", " + shape_str(x.shape) + ", " + shape_str(y.shape) + " do not broadcast";
  if (auto e = check_output_size(os); !e.empty()) return e;
  out[0] = x.is_float() ? Tensor<T>::floats(os) : Tensor<T>::ints(os, x.dtype);
  broadcast_loop3(os, broadcast_strides(c.shape, os), broadcast_strides(x.shape, os), broadcast_strides(y.shape, os),
                  [&](int64_t k, int64_t ic, int64_t ix, int64_t iy) {
                    if (x.is_float()) out[0].f[k] = c.i[ic] ? x.f[ix] : y.f[iy];
                    else out[0].i[k] = c.i[ic] ? x.i[ix] : y.i[iy];
                  });
  return "";
}
template <class T>
std::string where_bwd(const Node&, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                      const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  const Tensor<T>&c = *in[0], &x = *in[1], &y = *in[2];
  const Shape& os = out[0]->shape;
  const Shape sc = broadcast_strides(c.shape, os), sx = broadcast_strides(x.shape, os), sy = broadcast_strides(y.shape, os);
  if (need[1]) din[1] = Tensor<T>::floats(x.shape);
  if (need[2]) din[2] = Tensor<T>::floats(y.shape);
  broadcast_loop3(os, sc, sx, sy, [&](int64_t k, int64_t ic, int64_t ix, int64_t iy) {
    const T g = dout[0]->f[k];
    if (c.i[ic]) { if (need[1]) din[1].f[ix] += g; }
    else if (need[2]) din[2].f[iy] += g;
  });
  return "";
}

}  // namespace

template <class T>
void register_binary_ops(OpRegistry<T>& r) {
  for (const char* name : {"Add", "Sub", "Mul", "Div", "Pow"}) r[name] = {&bin_fwd<T>, &bin_bwd<T>, 1};
  r["Equal"] = {&equal_fwd<T>, nullptr, 7};
  r["Where"] = {&where_fwd<T>, &where_bwd<T>, 9};
}
template void register_binary_ops<float>(OpRegistry<float>&);
template void register_binary_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
