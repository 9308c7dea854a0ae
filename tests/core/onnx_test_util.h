// Test helpers for the ONNX executor: file reading, running a model on TensorProto inputs, comparing.
#pragma once
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "onnx/executor.h"
#include "onnx/reader.h"

namespace attnlab::test {

inline bool read_bytes(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// A whole file as a string ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::vector<uint8_t> bytes;
  return read_bytes(path, &bytes) ? std::string(bytes.begin(), bytes.end()) : std::string();
}

inline bool load_model_file(const std::string& path, onnx::Model* m, std::string* err) {
  std::vector<uint8_t> b;
  if (!read_bytes(path, &b)) {
    *err = "cannot read " + path;
    return false;
  }
  return onnx::read_model(b.data(), b.size(), m, err);
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
    const double w = want_float ? (want.dtype == onnx::kDouble ? want.d[k] : want.f[k]) : static_cast<double>(want.i[k]);
    const double g = got.at(k);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    const double r = std::abs(g - w) / (atol + rtol * std::abs(w));
    if (!(r <= worst)) worst = std::isnan(r) ? 1e30 : r;
  }
  return worst;
}

}  // namespace attnlab::test
