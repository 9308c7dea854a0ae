// suffix_pass.cpp — see suffix_pass.h.
#include "onnx/suffix_pass.h"

#include <algorithm>
#include <set>

namespace attnlab::onnx {
namespace {

// t's entries [start, start + n) along axis a (0-based), floats or integers alike.
template <class T>
Tensor<T> slice_axis(const Tensor<T>& t, int a, int64_t start, int64_t n) {
  Tensor<T> r;
  r.dtype = t.dtype;
  r.shape = t.shape;
  r.shape[static_cast<size_t>(a)] = n;
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < a; ++k) outer *= t.shape[static_cast<size_t>(k)];
  for (int k = a + 1; k < t.rank(); ++k) inner *= t.shape[static_cast<size_t>(k)];
  const int64_t len = t.shape[static_cast<size_t>(a)];
  auto copy = [&](const auto& src, auto& dst) {
    dst.resize(static_cast<size_t>(outer * n * inner));
    for (int64_t o = 0; o < outer; ++o)
      std::copy_n(src.begin() + (o * len + start) * inner, n * inner, dst.begin() + o * n * inner);
  };
  if (t.is_float()) copy(t.f, r.f);
  else copy(t.i, r.i);
  return r;
}

}  // namespace

bool suffix_elementwise(const std::string& op) {
  static const std::set<std::string> kOps = {"Add",   "Sub",  "Mul",     "Div",          "Pow",        "Max",
                                             "Min",   "Where", "Equal",  "Less",         "Greater",    "LessOrEqual",
                                             "And",   "Or",   "Xor",     "GreaterOrEqual", "Mod",      "Sum"};
  return kOps.count(op) > 0;
}

template <class T>
std::string suffix_cut_inputs(const std::string& op_type, const std::vector<char>& is_shape,
                              std::vector<const Tensor<T>*>* in, int64_t rows, int64_t full, std::vector<Tensor<T>>* cut) {
  std::vector<const Tensor<T>*>& x = *in;
  bool any = false;
  for (size_t q = 0; q < x.size(); ++q)
    if (x[q] && is_shape[q] && std::count(x[q]->shape.begin(), x[q]->shape.end(), full) > 0) any = true;
  if (!any || rows == full) return "";
  if (!suffix_elementwise(op_type))
    return "a value built from the sequence's length (" + std::to_string(full) + " positions) reaches " + op_type +
           ", which a pass on the last positions cannot cut";
  // The broadcast of the token path's inputs, right-aligned.
  size_t rank = 0;
  for (size_t q = 0; q < x.size(); ++q)
    if (x[q] && !is_shape[q]) rank = std::max(rank, x[q]->shape.size());
  std::vector<int64_t> token(rank, 1);
  for (size_t q = 0; q < x.size(); ++q) {
    if (!x[q] || is_shape[q]) continue;
    const Shape& s = x[q]->shape;
    for (size_t k = 0; k < s.size(); ++k) {
      int64_t& d = token[rank - s.size() + k];
      if (s[k] != 1) d = s[k];
    }
  }
  for (size_t q = 0; q < x.size(); ++q) {
    if (!x[q] || !is_shape[q]) continue;
    const Shape s = x[q]->shape;  // a copy: x[q] moves below
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] != full || s.size() - k > rank || token[rank - (s.size() - k)] != rows) continue;
      cut->push_back(slice_axis(*x[q], static_cast<int>(k), full - rows, rows));
      x[q] = &cut->back();
    }
  }
  return "";
}

template <class T>
std::string suffix_extend(const Tensor<T>& head, const Tensor<T>& value, int axis, Tensor<T>* out) {
  const int r = value.rank();
  const int a = axis < 0 ? r + axis : axis;
  bool ok = head.rank() == r && a >= 1 && a < r && head.is_float() && value.is_float();
  for (int k = 0; ok && k < r; ++k)
    ok = k == a || head.shape[static_cast<size_t>(k)] == value.shape[static_cast<size_t>(k)] ||
         (k == 0 && head.shape[0] == 1);
  if (!ok)
    return "the cached positions " + shape_str(head.shape) + " do not fit the value " + shape_str(value.shape) +
           " on axis " + std::to_string(axis);
  const int64_t B = value.shape[0], h = head.shape[static_cast<size_t>(a)], v = value.shape[static_cast<size_t>(a)];
  int64_t outer = 1, inner = 1;  // within one sequence of the batch
  for (int k = 1; k < a; ++k) outer *= value.shape[static_cast<size_t>(k)];
  for (int k = a + 1; k < r; ++k) inner *= value.shape[static_cast<size_t>(k)];
  Shape s = value.shape;
  s[static_cast<size_t>(a)] = h + v;
  *out = Tensor<T>::uninit(s);
  for (int64_t b = 0; b < B; ++b) {
    const int64_t hb = head.shape[0] == 1 ? 0 : b;
    for (int64_t o = 0; o < outer; ++o) {
      T* dst = out->f.data() + ((b * outer + o) * (h + v)) * inner;
      std::copy_n(head.f.data() + ((hb * outer + o) * h) * inner, h * inner, dst);
      std::copy_n(value.f.data() + ((b * outer + o) * v) * inner, v * inner, dst + h * inner);
    }
  }
  return "";
}

template <class T>
Tensor<T> suffix_head(const Tensor<T>& t, int axis, int64_t n) {
  const int a = axis < 0 ? t.rank() + axis : axis;
  return slice_axis(t, a, 0, n);
}

template std::string suffix_cut_inputs<float>(const std::string&, const std::vector<char>&, std::vector<const Tensor<float>*>*,
                                              int64_t, int64_t, std::vector<Tensor<float>>*);
template std::string suffix_cut_inputs<double>(const std::string&, const std::vector<char>&,
                                               std::vector<const Tensor<double>*>*, int64_t, int64_t,
                                               std::vector<Tensor<double>>*);
template std::string suffix_extend<float>(const Tensor<float>&, const Tensor<float>&, int, Tensor<float>*);
template std::string suffix_extend<double>(const Tensor<double>&, const Tensor<double>&, int, Tensor<double>*);
template Tensor<float> suffix_head<float>(const Tensor<float>&, int, int64_t);
template Tensor<double> suffix_head<double>(const Tensor<double>&, int, int64_t);

}  // namespace attnlab::onnx
