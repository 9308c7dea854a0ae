// Operators that change only the shape, or make shape tensors (int64):
//   Reshape (shape input, or attribute before opset 5; 0 copies a dim unless allowzero, −1 is inferred),
//   Flatten (axis, default 1 → [∏ before, ∏ from]), Squeeze / Unsqueeze (axes attribute before opset 13,
//   input from 13), Identity-like data: the gradient is dY reshaped back.
//   Expand (numpy broadcast of X and the shape; dX = Σ dY over broadcast axes),
//   Shape (start / end of opset 15), ConstantOfShape (value attribute, default float 0), Constant (value,
//   value_float(s), value_int(s)), Cast (to: float ↔ integer types; floats round toward zero into ints; to FLOAT16 / BFLOAT16 rounds the
//   values to that precision and computes on as T; the
//   gradient passes float → float only). Shape, ConstantOfShape, Constant and casts to integers have no gradient.
#include <cmath>
#include <cstring>

#include "io/safetensors.h"

#include "onnx/ops/common.h"

namespace attnlab::onnx {
namespace {

template <class T>
Tensor<T> with_shape(const Tensor<T>& x, Shape s) {
  Tensor<T> y = x;
  y.shape = std::move(s);
  return y;
}
template <class T>
std::string pass_bwd(const Node&, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                     const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  din[0] = with_shape(*dout[0], in[0]->shape);
  return "";
}

template <class T>
std::string reshape_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  std::vector<int64_t> want;
  if (n.opset < 5) want = n.attr_ints("shape");
  else {
    if (in.size() < 2 || !in[1]) return "the shape input is missing";
    if (in[1]->is_float()) return "the shape must be an int64 tensor";
    want = in[1]->i;
  }
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  Shape s(want.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t k = 0; k < want.size(); ++k) {
    int64_t v = want[k];
    if (v == 0 && !allowzero) {
      if (k >= x.shape.size()) return "shape " + shape_str(want) + ": 0 at an axis the input does not have";
      v = x.shape[k];
    }
    if (v == -1) {
      if (infer >= 0) return "shape " + shape_str(want) + " has two −1";
      infer = static_cast<int>(k);
      continue;
    }
    if (v < 0) return "shape " + shape_str(want) + " has a negative dimension";
    s[k] = v;
    if (!checked_mul(known, v, &known)) return "cannot reshape " + shape_str(x.shape) + " to " + shape_str(want);
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known) return "cannot reshape " + shape_str(x.shape) + " to " + shape_str(want);
    s[infer] = x.numel() / known;
  }
  // The element count overflow-checked: a shape whose product wraps around 2^64 to the input's count is refused.
  if (auto e = check_output_size(s); !e.empty()) return "cannot reshape " + shape_str(x.shape) + " to " + shape_str(want) + ": " + e;
  if (shape_numel(s) != x.numel()) return "cannot reshape " + shape_str(x.shape) + " to " + shape_str(want);
  out[0] = with_shape(x, s);
  return "";
}

template <class T>
std::string flatten_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  int64_t axis = n.attr_int("axis", 1);
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis > x.rank()) return "axis out of range for " + shape_str(x.shape);
  int64_t a = 1;
  for (int k = 0; k < axis; ++k) a *= x.shape[k];
  out[0] = with_shape(x, {a, a ? x.numel() / a : 0});
  return "";
}

template <class T>
bool axes_of(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<int64_t>* axes, std::string* err) {
  if (n.opset < 13) {
    *axes = n.attr_ints("axes");
    return true;
  }
  if (in.size() > 1 && in[1]) {
    if (in[1]->is_float()) { *err = "axes must be an int64 tensor"; return false; }
    *axes = in[1]->i;
  }
  return true;
}

template <class T>
std::string squeeze_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  std::vector<int64_t> axes;
  std::string err;
  if (!axes_of(n, in, &axes, &err)) return err;
  std::vector<char> drop(x.shape.size(), 0);
  if (axes.empty()) {
    for (size_t k = 0; k < x.shape.size(); ++k) drop[k] = x.shape[k] == 1;
  } else {
    for (int64_t a : axes) {
      int64_t ax;
      if (!norm_axis(a, x.rank(), &ax)) return "axis " + std::to_string(a) + " out of range for " + shape_str(x.shape);
      if (x.shape[ax] != 1) return "cannot squeeze axis " + std::to_string(a) + " of " + shape_str(x.shape);
      drop[ax] = 1;
    }
  }
  Shape s;
  for (size_t k = 0; k < x.shape.size(); ++k)
    if (!drop[k]) s.push_back(x.shape[k]);
  out[0] = with_shape(x, s);
  return "";
}

template <class T>
std::string unsqueeze_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  std::vector<int64_t> axes;
  std::string err;
  if (!axes_of(n, in, &axes, &err)) return err;
  if (axes.empty()) return "axes are required";
  if (axes.size() > 64) return "too many axes (" + std::to_string(axes.size()) + ")";
  const int r = x.rank() + static_cast<int>(axes.size());
  std::vector<char> add(r, 0);
  for (int64_t a : axes) {
    int64_t ax;
    if (!norm_axis(a, r, &ax) || add[ax]) return "bad or repeated axis " + std::to_string(a);
    add[ax] = 1;
  }
  Shape s;
  size_t q = 0;
  for (int k = 0; k < r; ++k) s.push_back(add[k] ? 1 : x.shape[q++]);
  if (auto e = check_output_size(s); !e.empty()) return e;
  out[0] = with_shape(x, s);
  return "";
}

template <class T>
std::string expand_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 2, false); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  if (in[1]->is_float()) return "the shape must be an int64 tensor";
  Shape os;
  if (auto e = check_output_size(in[1]->i); !e.empty()) return e;
  if (!broadcast_shapes(x.shape, in[1]->i, &os)) return "cannot expand " + shape_str(x.shape) + " to " + shape_str(in[1]->i);
  if (auto e = check_output_size(os); !e.empty()) return e;
  const Shape sx = broadcast_strides(x.shape, os), zero(os.size(), 0);
  out[0] = x.is_float() ? Tensor<T>::floats(os) : Tensor<T>::ints(os, x.dtype);
  broadcast_loop2(os, sx, zero, [&](int64_t k, int64_t ix, int64_t) {
    if (x.is_float()) out[0].f[k] = x.f[ix];
    else out[0].i[k] = x.i[ix];
  });
  return "";
}
template <class T>
std::string expand_bwd(const Node&, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  const Shape& os = out[0]->shape;
  din[0] = Tensor<T>::floats(in[0]->shape);
  const Shape sx = broadcast_strides(in[0]->shape, os), zero(os.size(), 0);
  broadcast_loop2(os, sx, zero, [&](int64_t k, int64_t ix, int64_t) { din[0].f[ix] += dout[0]->f[k]; });
  return "";
}

template <class T>
std::string shape_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  const int r = in[0]->rank();
  int64_t start = n.attr_int("start", 0), end = n.attr_int("end", r);
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::min<int64_t>(std::max<int64_t>(start, 0), r);
  end = std::min<int64_t>(std::max<int64_t>(end, 0), r);
  const int64_t len = std::max<int64_t>(0, end - start);
  out[0] = Tensor<T>::ints({len});
  for (int64_t k = 0; k < len; ++k) out[0].i[k] = in[0]->shape[start + k];
  return "";
}

template <class T>
std::string constant_of_shape_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  if (in[0]->is_float()) return "the shape must be an int64 tensor";
  Shape s = in[0]->i;
  if (auto e = check_output_size(s); !e.empty()) return e;
  const Attribute* a = n.attr("value");
  if (a && (a->tensor.empty() || a->tensor[0].numel() != 1)) return "value must be a one-element tensor";
  if (!a || is_float_type(a->tensor[0].dtype)) {
    const T v = a ? (a->tensor[0].dtype == kDouble ? T(a->tensor[0].d[0]) : T(a->tensor[0].f[0])) : T(0);
    out[0] = Tensor<T>::floats(s, v);
  } else {
    out[0] = Tensor<T>::ints(s, a->tensor[0].dtype);
    std::fill(out[0].i.begin(), out[0].i.end(), a->tensor[0].int_at(0));
  }
  return "";
}

template <class T>
std::string constant_fwd(const Node& n, const std::vector<const Tensor<T>*>&, std::vector<Tensor<T>>& out) {
  if (const Attribute* a = n.attr("value")) {
    if (a->tensor.empty()) return "value is not a tensor";
    out[0] = tensor_from_data<T>(a->tensor[0]);
  } else if ((a = n.attr("value_float"))) {
    out[0] = Tensor<T>::floats({}, T(a->f));
  } else if ((a = n.attr("value_floats"))) {
    out[0] = Tensor<T>::floats({static_cast<int64_t>(a->floats.size())});
    for (size_t k = 0; k < a->floats.size(); ++k) out[0].f[k] = T(a->floats[k]);
  } else if ((a = n.attr("value_int"))) {
    out[0] = Tensor<T>::ints({});
    out[0].i[0] = a->i;
  } else if ((a = n.attr("value_ints"))) {
    out[0] = Tensor<T>::ints({static_cast<int64_t>(a->ints.size())});
    out[0].i = a->ints;
  } else {
    return "only value, value_float(s) and value_int(s) are supported (sparse_value / strings are not)";
  }
  return "";
}

template <class T>
std::string cast_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  const int to = static_cast<int>(n.attr_int("to", 0));
  const Tensor<T>& x = *in[0];
  if (is_float_type(to)) {
    out[0] = Tensor<T>::floats(x.shape);
    for (size_t k = 0; k < out[0].f.size(); ++k) out[0].f[k] = static_cast<T>(x.at(k));
    if (to == kFloat16)  // values rounded through IEEE half (computed on as T)
      for (auto& v : out[0].f) v = static_cast<T>(round_to_half(static_cast<float>(v)));
    if (to == kBFloat16)  // round to nearest even on the upper 16 bits
      for (auto& v : out[0].f) {
        float f = static_cast<float>(v);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
        std::memcpy(&f, &bits, 4);
        v = static_cast<T>(f);
      }
  } else if (is_integer_type(to)) {
    out[0] = Tensor<T>::ints(x.shape, to);
    for (size_t k = 0; k < out[0].i.size(); ++k) {
      const double v = x.at(k);
      if (to == kBool) out[0].i[k] = v != 0;
      else if (!std::isfinite(v)) return "cast of a non-finite value to an integer";
      else out[0].i[k] = saturate_i64(v);  // out of range saturates (C++ leaves it undefined)
    }
  } else {
    return std::string("cast to ") + data_type_name(to) + " is not supported";
  }
  return "";
}

}  // namespace

template <class T>
void register_shape_ops(OpRegistry<T>& r) {
  r["Reshape"] = {&reshape_fwd<T>, &pass_bwd<T>, 1};
  r["Flatten"] = {&flatten_fwd<T>, &pass_bwd<T>, 1};
  r["Squeeze"] = {&squeeze_fwd<T>, &pass_bwd<T>, 1};
  r["Unsqueeze"] = {&unsqueeze_fwd<T>, &pass_bwd<T>, 1};
  r["Expand"] = {&expand_fwd<T>, &expand_bwd<T>, 8};
  r["Shape"] = {&shape_fwd<T>, nullptr, 1};
  r["ConstantOfShape"] = {&constant_of_shape_fwd<T>, nullptr, 9};
  r["Constant"] = {&constant_fwd<T>, nullptr, 1};
  r["Cast"] = {&cast_fwd<T>, &pass_bwd<T>, 6};
}
template void register_shape_ops<float>(OpRegistry<float>&);
template void register_shape_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
