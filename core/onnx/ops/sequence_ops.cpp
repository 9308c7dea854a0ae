// Operators that transformer exports use for positions, masks and comparisons (opsets 13–18):
//   Range(start, limit, delta)   scalars, float or integer: [start, start + delta, …) while < limit (> for delta
//                                < 0); n = max(⌈(limit − start) / delta⌉, 0), delta = 0 refused. No gradient.
//   CumSum(x, axis)              running sum along axis; exclusive / reverse attributes; float or integer.
//                                dX = CumSum(dY) with the direction reversed (same exclusive).
//   Trilu(x, k = 0)              keeps the upper (upper = 1) or lower triangle of the last two axes: element
//                                (i, j) kept when j − i ≥ k (upper) or j − i ≤ k (lower), else 0. dX = dY masked.
//   Tile(x, repeats)             output dim d = x dim d · repeats[d]; dX[k] = Σ of dY over the copies of k.
//   Less, Greater, LessOrEqual, GreaterOrEqual   broadcast comparisons → bool. No gradient.
//   Not, And, Or, Xor            on bool tensors (broadcast for the binary ones). No gradient.
//   Min, Max                     element-wise over 1 or more inputs with broadcasting; the gradient goes to the
//                                first input that attains the result (PyTorch's convention for ties differs).
#include <cmath>

#include "onnx/ops/common.h"

namespace attnlab::onnx {
namespace {

template <class T>
std::string range_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 3, false); !e.empty()) return e;
  for (int k = 0; k < 3; ++k)
    if (in[k]->numel() != 1) return "start, limit and delta must be scalars";
  const bool is_float = in[0]->is_float();
  const double start = in[0]->at(0), limit = in[1]->at(0), delta = in[2]->at(0);
  if (delta == 0) return "delta is 0";
  const double count = std::ceil((limit - start) / delta);
  if (!std::isfinite(count)) return "the range has no finite length";
  const int64_t len = count > 0 ? static_cast<int64_t>(std::min(count, 9.0e18)) : 0;
  if (auto e = check_output_size({len}); !e.empty()) return e;
  if (is_float) {
    out[0] = Tensor<T>::floats({len});
    for (int64_t k = 0; k < len; ++k) out[0].f[k] = static_cast<T>(start + static_cast<double>(k) * delta);
  } else {
    out[0] = Tensor<T>::ints({len}, in[0]->dtype);
    const int64_t s = in[0]->i[0], d = in[2]->i[0];
    for (int64_t k = 0; k < len; ++k) out[0].i[k] = wrap_add(s, wrap_mul(k, d));
  }
  return "";
}

struct AxisSplit {
  int64_t outer = 1, dim = 1, inner = 1;
};
template <class T>
std::string axis_split(const Tensor<T>& x, int64_t axis_value, AxisSplit* s) {
  int64_t ax;
  if (!norm_axis(axis_value, x.rank(), &ax)) return "axis out of range for " + shape_str(x.shape);
  for (int k = 0; k < ax; ++k) s->outer *= x.shape[k];
  s->dim = x.shape[ax];
  for (int k = static_cast<int>(ax) + 1; k < x.rank(); ++k) s->inner *= x.shape[k];
  return "";
}
// y = cumulative sum of x along the split's axis (values v(k) read through get, written through set).
template <class V, class Get, class Set>
void cumsum_along(const AxisSplit& s, bool exclusive, bool reverse, Get get, Set set) {
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      V acc = V(0);
      for (int64_t q = 0; q < s.dim; ++q) {
        const int64_t d = reverse ? s.dim - 1 - q : q;
        const int64_t k = (o * s.dim + d) * s.inner + i;
        if (exclusive) { set(k, acc); acc = acc + get(k); }
        else { acc = acc + get(k); set(k, acc); }
      }
    }
}
template <class T>
std::string cumsum_axis(const Node&, const std::vector<const Tensor<T>*>& in, AxisSplit* s) {
  if (in[1]->numel() != 1 || in[1]->is_float()) return "axis must be an integer scalar";
  return axis_split(*in[0], in[1]->i[0], s);
}
template <class T>
std::string cumsum_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2, false); !e.empty()) return e;
  AxisSplit s;
  if (auto e = cumsum_axis(n, in, &s); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  const bool ex = n.attr_int("exclusive", 0) != 0, rev = n.attr_int("reverse", 0) != 0;
  if (x.is_float()) {
    out[0] = Tensor<T>::floats(x.shape);
    cumsum_along<T>(s, ex, rev, [&](int64_t k) { return x.f[k]; }, [&](int64_t k, T v) { out[0].f[k] = v; });
  } else {
    out[0] = Tensor<T>::ints(x.shape, x.dtype);
    struct W {  // wrapping int64 so an overflowing sum is defined
      int64_t v;
      W operator+(W o) const { return W(wrap_add(v, o.v)); }
      explicit W(int64_t x = 0) : v(x) {}
    };
    cumsum_along<W>(s, ex, rev, [&](int64_t k) { return W(x.i[k]); }, [&](int64_t k, W v) { out[0].i[k] = v.v; });
  }
  return "";
}
template <class T>
std::string cumsum_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  AxisSplit s;
  if (auto e = cumsum_axis(n, in, &s); !e.empty()) return e;
  const bool ex = n.attr_int("exclusive", 0) != 0, rev = n.attr_int("reverse", 0) != 0;
  din[0] = Tensor<T>::floats(in[0]->shape);
  const auto& g = dout[0]->f;
  cumsum_along<T>(s, ex, !rev, [&](int64_t k) { return g[k]; }, [&](int64_t k, T v) { din[0].f[k] = v; });
  return "";
}

template <class T>
std::string trilu_k(const std::vector<const Tensor<T>*>& in, int64_t* k) {
  *k = 0;
  if (in.size() > 1 && in[1]) {
    if (in[1]->numel() != 1 || in[1]->is_float()) return "k must be an integer scalar";
    *k = in[1]->i[0];
  }
  if (in[0]->rank() < 2) return "Trilu needs rank ≥ 2, got " + shape_str(in[0]->shape);
  return "";
}
inline bool trilu_keep(int64_t i, int64_t j, int64_t k, bool upper) {
  // j − i compared with k without overflow: i, j ≤ 2^28 and k any int64.
  const int64_t diff = j - i;
  return upper ? diff >= k : diff <= k;
}
template <class T, class F>
void trilu_each(const Tensor<T>& x, int64_t k, bool upper, F&& f) {
  const int64_t R = x.shape[x.rank() - 2], C = x.shape[x.rank() - 1];
  const int64_t mats = R * C == 0 ? 0 : x.numel() / (R * C);
  for (int64_t m = 0; m < mats; ++m)
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j) f((m * R + i) * C + j, trilu_keep(i, j, k, upper));
}
template <class T>
std::string trilu_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  int64_t k;
  if (auto e = trilu_k(in, &k); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  const bool upper = n.attr_int("upper", 1) != 0;
  out[0] = x.is_float() ? Tensor<T>::floats(x.shape) : Tensor<T>::ints(x.shape, x.dtype);
  trilu_each(x, k, upper, [&](int64_t q, bool keep) {
    if (!keep) return;
    if (x.is_float()) out[0].f[q] = x.f[q];
    else out[0].i[q] = x.i[q];
  });
  return "";
}
template <class T>
std::string trilu_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                      const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  int64_t k;
  if (auto e = trilu_k(in, &k); !e.empty()) return e;
  din[0] = Tensor<T>::floats(in[0]->shape);
  trilu_each(*in[0], k, n.attr_int("upper", 1) != 0, [&](int64_t q, bool keep) {
    if (keep) din[0].f[q] = dout[0]->f[q];
  });
  return "";
}

template <class T>
std::string tile_shape(const std::vector<const Tensor<T>*>& in, Shape* os) {
  const Tensor<T>& x = *in[0];
  if (in[1]->is_float()) return "repeats must be an int64 tensor";
  const auto& rep = in[1]->i;
  if (static_cast<int>(rep.size()) != x.rank()) return "repeats has " + std::to_string(rep.size()) + " entries for rank " + std::to_string(x.rank());
  os->resize(rep.size());
  for (size_t d = 0; d < rep.size(); ++d) {
    if (rep[d] < 0) return "negative repeats";
    if (!checked_mul(x.shape[d], rep[d], &(*os)[d])) return "the output would overflow";
  }
  return check_output_size(*os);
}
// Calls f(output index, input index) for every output element.
template <class T, class F>
void tile_each(const Tensor<T>& x, const Shape& os, F&& f) {
  const int r = x.rank();
  const Shape xs = strides_of(x.shape);
  const int64_t n = shape_numel(os);
  std::vector<int64_t> idx(r, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (int d = 0; d < r; ++d) src += (idx[d] % x.shape[d]) * xs[d];
    f(k, src);
    for (int d = r - 1; d >= 0; --d) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
}
template <class T>
std::string tile_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2, false); !e.empty()) return e;
  Shape os;
  if (auto e = tile_shape(in, &os); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  out[0] = x.is_float() ? Tensor<T>::floats(os) : Tensor<T>::ints(os, x.dtype);
  tile_each(x, os, [&](int64_t k, int64_t s) {
    if (x.is_float()) out[0].f[k] = x.f[s];
    else out[0].i[k] = x.i[s];
  });
  return "";
}
template <class T>
std::string tile_bwd(const Node&, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                     const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  din[0] = Tensor<T>::floats(in[0]->shape);
  tile_each(*in[0], out[0]->shape, [&](int64_t k, int64_t s) { din[0].f[s] += dout[0]->f[k]; });
  return "";
}

enum class Cmp { Less, Greater, LessEq, GreaterEq, And, Or, Xor };
Cmp cmp_kind(const std::string& op) {
  return op == "Less" ? Cmp::Less : op == "Greater" ? Cmp::Greater : op == "LessOrEqual" ? Cmp::LessEq
       : op == "GreaterOrEqual" ? Cmp::GreaterEq : op == "And" ? Cmp::And : op == "Or" ? Cmp::Or : Cmp::Xor;
}
template <class T>
std::string compare_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2, false); !e.empty()) return e;
  const Tensor<T>&a = *in[0], &b = *in[1];
  const Cmp kind = cmp_kind(n.op_type);
  const bool logical = kind == Cmp::And || kind == Cmp::Or || kind == Cmp::Xor;
  if (logical && (a.is_float() || b.is_float())) return "inputs must be bool tensors";
  Shape os;
  if (!broadcast_shapes(a.shape, b.shape, &os)) return "shapes " + shape_str(a.shape) + " and " + shape_str(b.shape) + " do not broadcast";
  if (auto e = check_output_size(os); !e.empty()) return e;
  out[0] = Tensor<T>::ints(os, kBool);
  broadcast_loop2(os, broadcast_strides(a.shape, os), broadcast_strides(b.shape, os), [&](int64_t k, int64_t ia, int64_t ib) {
    bool v;
    if (logical) {
      const bool x = a.i[ia] != 0, y = b.i[ib] != 0;
      v = kind == Cmp::And ? (x && y) : kind == Cmp::Or ? (x || y) : (x != y);
    } else if (!a.is_float() && !b.is_float()) {  // int64 compared exactly
      const int64_t x = a.i[ia], y = b.i[ib];
      v = kind == Cmp::Less ? x < y : kind == Cmp::Greater ? x > y : kind == Cmp::LessEq ? x <= y : x >= y;
    } else {
      const double x = a.at(ia), y = b.at(ib);
      v = kind == Cmp::Less ? x < y : kind == Cmp::Greater ? x > y : kind == Cmp::LessEq ? x <= y : x >= y;
    }
    out[0].i[k] = v;
  });
  return "";
}
template <class T>
std::string not_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  if (in[0]->is_float()) return "the input must be a bool tensor";
  out[0] = Tensor<T>::ints(in[0]->shape, kBool);
  for (size_t k = 0; k < out[0].i.size(); ++k) out[0].i[k] = in[0]->i[k] == 0;
  return "";
}

// Min / Max: the broadcast shape of all inputs, then a pairwise fold.
template <class T>
std::string minmax_shape(const Node& n, const std::vector<const Tensor<T>*>& in, Shape* os) {
  if (in.empty()) return n.op_type + " needs inputs";
  if (auto e = check_inputs(n, in, in.size(), false); !e.empty()) return e;
  *os = in[0]->shape;
  for (const auto* t : in) {
    if (t->is_float() != in[0]->is_float()) return "inputs differ in type";
    Shape s;
    if (!broadcast_shapes(*os, t->shape, &s)) return "shapes do not broadcast";
    *os = s;
  }
  return check_output_size(*os);
}
template <class T>
std::string minmax_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  Shape os;
  if (auto e = minmax_shape(n, in, &os); !e.empty()) return e;
  const bool is_max = n.op_type == "Max";
  const bool fl = in[0]->is_float();
  out[0] = fl ? Tensor<T>::floats(os) : Tensor<T>::ints(os, in[0]->dtype);
  const Shape zero(os.size(), 0);
  for (size_t j = 0; j < in.size(); ++j) {
    const Tensor<T>& x = *in[j];
    broadcast_loop2(os, broadcast_strides(x.shape, os), zero, [&](int64_t k, int64_t ix, int64_t) {
      if (fl) {
        T& o = out[0].f[k];
        const T v = x.f[ix];
        if (j == 0 || (is_max ? v > o : v < o) || std::isnan(v)) o = v;
      } else {
        int64_t& o = out[0].i[k];
        const int64_t v = x.i[ix];
        if (j == 0 || (is_max ? v > o : v < o)) o = v;
      }
    });
  }
  return "";
}
template <class T>
std::string minmax_bwd(const Node&, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  const Shape& os = out[0]->shape;
  const Shape zero(os.size(), 0);
  std::vector<char> taken(static_cast<size_t>(shape_numel(os)), 0);
  for (size_t j = 0; j < in.size(); ++j) {
    const Tensor<T>& x = *in[j];
    if (need[j]) din[j] = Tensor<T>::floats(x.shape);
    broadcast_loop2(os, broadcast_strides(x.shape, os), zero, [&](int64_t k, int64_t ix, int64_t) {
      if (taken[k] || !(x.f[ix] == out[0]->f[k])) return;
      taken[k] = 1;
      if (need[j]) din[j].f[ix] += dout[0]->f[k];
    });
  }
  return "";
}

}  // namespace

template <class T>
void register_sequence_ops(OpRegistry<T>& r) {
  r["Range"] = {&range_fwd<T>, nullptr, 11};
  r["CumSum"] = {&cumsum_fwd<T>, &cumsum_bwd<T>, 11};
  r["Trilu"] = {&trilu_fwd<T>, &trilu_bwd<T>, 14};
  r["Tile"] = {&tile_fwd<T>, &tile_bwd<T>, 6};
  for (const char* name : {"Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"})
    r[name] = {&compare_fwd<T>, nullptr, 7};
  r["Not"] = {&not_fwd<T>, nullptr, 1};
  r["Min"] = {&minmax_fwd<T>, &minmax_bwd<T>, 6};  // opsets 6–7 without broadcasting: a special case
  r["Max"] = {&minmax_fwd<T>, &minmax_bwd<T>, 6};
}
template void register_sequence_ops<float>(OpRegistry<float>&);
template void register_sequence_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
