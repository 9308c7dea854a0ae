// Test helpers for the ONNX executor: file reading, running a model on TensorProto inputs, comparing.
#pragma once
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "explain/onnx/onnx_classifier.h"
#include "onnx/executor.h"
#include "onnx/reader.h"

namespace attnlab::test {

// Node attributes of one type each (the single-op tests build their nodes by hand).
inline onnx::Attribute named_attr(const std::string& name, onnx::Attribute::Type type) {
  onnx::Attribute a;
  a.name = name;
  a.type = type;
  return a;
}
inline onnx::Attribute int_attr(const std::string& name, int64_t v) {
  onnx::Attribute a = named_attr(name, onnx::Attribute::kInt);
  a.i = v;
  return a;
}
inline onnx::Attribute ints_attr(const std::string& name, std::vector<int64_t> v) {
  onnx::Attribute a = named_attr(name, onnx::Attribute::kInts);
  a.ints = std::move(v);
  return a;
}
inline onnx::Attribute float_attr(const std::string& name, float v) {
  onnx::Attribute a = named_attr(name, onnx::Attribute::kFloat);
  a.f = v;
  return a;
}
inline onnx::Attribute string_attr(const std::string& name, const std::string& v) {
  onnx::Attribute a = named_attr(name, onnx::Attribute::kString);
  a.s = v;
  return a;
}
// A float / double tensor of the given shape with standard normal values drawn from rng.
template <class T>
onnx::Tensor<T> normal_tensor(const onnx::Shape& shape, std::mt19937& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  onnx::Tensor<T> t = onnx::Tensor<T>::floats(shape);
  for (T& v : t.f) v = static_cast<T>(nd(rng));
  return t;
}

inline bool read_bytes(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// max |a − b| / max |b| over two equally long vectors (1e30 when the lengths differ): the ONNX parity tests' measure.
template <class A, class B>
double rel_err(const std::vector<A>& a, const std::vector<B>& b) {
  if (a.size() != b.size()) return 1e30;
  double num = 0, den = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    num = std::max(num, std::abs(static_cast<double>(a[k]) - static_cast<double>(b[k])));
    den = std::max(den, std::abs(static_cast<double>(b[k])));
  }
  return den > 0 ? num / den : num;
}

// A whole file as a string ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::vector<uint8_t> bytes;
  return read_bytes(path, &bytes) ? std::string(bytes.begin(), bytes.end()) : std::string();
}

// A hand-built test graph's float inputs and its outputs, by name.
inline void add_float_io(onnx::Model* m, const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  onnx::ValueInfo vi;
  vi.dtype = onnx::kFloat;
  for (const auto& name : inputs) {
    vi.name = name;
    m->inputs.push_back(vi);
  }
  for (const auto& name : outputs) {
    vi.name = name;
    m->outputs.push_back(vi);
  }
}

inline bool load_model_file(const std::string& path, onnx::Model* m, std::string* err) {
  std::vector<uint8_t> b;
  if (!read_bytes(path, &b)) {
    *err = "cannot read " + path;
    return false;
  }
  return onnx::read_model(b.data(), b.size(), m, err);
}

// An image classifier from an .onnx file.
inline bool load_classifier_file(const std::string& path, OnnxClassifier* clf, std::string* err) {
  std::vector<uint8_t> b;
  if (!read_bytes(path, &b)) {
    *err = "cannot read " + path;
    return false;
  }
  return clf->load(b.data(), b.size(), err);
}

inline bool load_tensor_file(const std::string& path, onnx::TensorData* t, std::string* err) {
  std::vector<uint8_t> b;
  if (!read_bytes(path, &b)) {
    *err = "cannot read " + path;
    return false;
  }
  return onnx::read_tensor(b.data(), b.size(), t, err);
}

// max |a − b| / (atol + rtol |b|) over the elements (≤ 1 passes); -1 for a shape or type mismatch.
template <class T>
double tolerance_ratio(const onnx::Tensor<T>& got, const onnx::TensorData& want, double rtol, double atol) {
  if (got.shape != want.dims) return -1;
  const bool want_float = onnx::is_float_type(want.dtype);
  if (want_float != got.is_float()) return -1;
  double worst = 0;
  const size_t n = static_cast<size_t>(want.numel());
  for (size_t k = 0; k < n; ++k) {
    const double w = want_float ? (want.dtype == onnx::kDouble ? want.d[k] : want.f[k]) : static_cast<double>(want.int_at(k));
    const double g = got.at(k);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    const double r = std::abs(g - w) / (atol + rtol * std::abs(w));
    if (!(r <= worst)) worst = std::isnan(r) ? 1e30 : r;
  }
  return worst;
}

}  // namespace attnlab::test
