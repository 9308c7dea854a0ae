// The executor's runtime tensor: a shape, an ONNX element type and its values — floating types in `f`
// (as T: float for the product, double for gradient checks), integer and bool types in `i` (int64).
// Row-major (C order), like ONNX. Helpers for shapes, strides and numpy-style broadcasting.
#pragma once
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnx/model.h"

namespace attnlab::onnx {

using Shape = std::vector<int64_t>;

inline int64_t shape_numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}
inline std::string shape_str(const Shape& s) {
  std::string out = "[";
  for (size_t k = 0; k < s.size(); ++k) out += (k ? "," : "") + std::to_string(s[k]);
  return out + "]";
}
inline Shape strides_of(const Shape& s) {
  Shape st(s.size(), 1);
  for (int k = static_cast<int>(s.size()) - 2; k >= 0; --k) st[k] = st[k + 1] * s[k + 1];
  return st;
}

// A std::allocator whose value-initialisation leaves a number unset: `resize(n)` and `Values(n)` allocate without
// writing (an op that writes every element of its output skips a pass over memory: Tensor::uninit); `assign(n, v)`,
// `resize(n, v)` and every other constructor write as std::vector's do.
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};
template <class T>
using Values = std::vector<T, NoInitAllocator<T>>;

// Copies between a tensor's values and a plain std::vector (what the explanation code outside the executor holds).
template <class T>
std::vector<T> to_std(const Values<T>& v) {
  return std::vector<T>(v.begin(), v.end());
}
template <class T>
Values<T> to_values(const std::vector<T>& v) {
  return Values<T>(v.begin(), v.end());
}

template <class T>
struct Tensor {
  Shape shape;
  int dtype = kFloat;
  Values<T> f;
  std::vector<int64_t> i;

  bool is_float() const { return is_float_type(dtype); }
  int64_t numel() const { return shape_numel(shape); }
  int rank() const { return static_cast<int>(shape.size()); }
  static Tensor floats(Shape s, T fill = T(0)) {
    Tensor t;
    t.shape = std::move(s);
    t.dtype = kFloat;
    t.f.assign(static_cast<size_t>(shape_numel(t.shape)), fill);
    return t;
  }
  // A float tensor whose values are unset: for an op that writes every element before anyone reads it. In the
  // sanitized build (ATTNLAB_POISON_UNINIT) they are NaN, so an element left unwritten shows in the tests' values.
  static Tensor uninit(Shape s) {
    Tensor t;
    t.shape = std::move(s);
    t.dtype = kFloat;
#ifdef ATTNLAB_POISON_UNINIT
    t.f.assign(static_cast<size_t>(shape_numel(t.shape)), std::numeric_limits<T>::quiet_NaN());
#else
    t.f.resize(static_cast<size_t>(shape_numel(t.shape)));
#endif
    return t;
  }
  static Tensor ints(Shape s, int dtype = kInt64) {
    Tensor t;
    t.shape = std::move(s);
    t.dtype = dtype;
    t.i.assign(static_cast<size_t>(shape_numel(t.shape)), 0);
    return t;
  }
  // Value k as double, whatever the storage.
  double at(size_t k) const { return is_float() ? static_cast<double>(f[k]) : static_cast<double>(i[k]); }
};

template <class T>
Tensor<T> tensor_from_data(const TensorData& d) {
  Tensor<T> t;
  t.shape = d.dims;
  t.dtype = d.dtype;
  if (d.dtype == kDouble) t.f.assign(d.d.begin(), d.d.end());
  else if (is_float_type(d.dtype)) t.f.assign(d.f.begin(), d.f.end());
  else if (d.bytes.empty()) t.i = d.i;
  else {  // 8-bit values kept as bytes: TensorData::int_at knows their sign
    t.i.reserve(d.bytes.size());
    for (size_t k = 0; k < d.bytes.size(); ++k) t.i.push_back(d.int_at(k));
  }
  if (is_float_type(d.dtype)) t.dtype = kFloat;  // all float types compute as T
  return t;
}

// numpy broadcasting of two shapes; false if incompatible.
bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out);

// For an output shape and an input shape broadcast into it: the input's stride per output axis (0 where
// broadcast), aligned to the output's rank.
Shape broadcast_strides(const Shape& in, const Shape& out);

// Normalises an axis in [-rank, rank) to [0, rank); false if out of range.
inline bool norm_axis(int64_t axis, int rank, int64_t* out) {
  if (axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

}  // namespace attnlab::onnx
