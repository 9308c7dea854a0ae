// read_attention_layers, attention_layers_of (attention_layers.h).
#include "explain/onnx/attention_layers.h"

namespace attnlab {
namespace {

// One distribution [heads, n, n] (and its gradient when grads is given: zero where g is null) as per-head n × n
// matrices.
bool heads_of(const std::string& name, const onnx::Shape& shape, const float* p, size_t size, const float* g,
              std::vector<Mat<double>>* heads, std::vector<Mat<double>>* grads, std::string* error) {
  onnx::AttentionShape s;
  if (!onnx::attention_shape_of(shape, &s) || s.queries != s.keys ||
      static_cast<size_t>(s.heads * s.queries * s.keys) != size) {
    *error = "the attention at '" + name + "' is not a square [heads, positions, positions] map";
    return false;
  }
  const int64_t n = s.keys;
  auto read = [n](const float* v, int64_t h) {
    Mat<double> m(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) m(i, j) = v[static_cast<size_t>((h * n + i) * n + j)];
    return m;
  };
  for (int64_t h = 0; h < s.heads; ++h) {
    heads->push_back(read(p, h));
    if (grads) grads->push_back(g ? read(g, h) : Mat<double>::Zero(n, n));
  }
  return true;
}

}  // namespace

bool read_attention_layers(const onnx::Executor<float>& ex, const std::vector<onnx::FoundAttention>& found,
                           bool with_gradients, std::vector<std::vector<Mat<double>>>* A,
                           std::vector<std::vector<Mat<double>>>* dA, std::string* error) {
  A->clear();
  if (dA) dA->clear();
  with_gradients = with_gradients && dA;
  for (const onnx::FoundAttention& a : found) {
    const onnx::Tensor<float>* p = ex.value(a.probabilities);
    if (!p || !p->is_float()) {
      *error = "the attention at '" + a.softmax_node + "' is not a square [heads, positions, positions] map";
      return false;
    }
    const onnx::Tensor<float>* g = with_gradients ? ex.gradient(a.probabilities) : nullptr;
    std::vector<Mat<double>> heads, grads;
    if (!heads_of(a.softmax_node, p->shape, p->f.data(), p->f.size(), g ? g->f.data() : nullptr, &heads,
                  with_gradients ? &grads : nullptr, error))
      return false;
    A->push_back(std::move(heads));
    if (with_gradients) dA->push_back(std::move(grads));
  }
  return true;
}

bool attention_layers_of(const std::vector<AttentionValues>& values, std::vector<std::vector<Mat<double>>>* A,
                         std::string* error) {
  A->clear();
  for (const AttentionValues& v : values) {
    std::vector<Mat<double>> heads;
    if (!heads_of(v.name, v.shape, v.data.data(), v.data.size(), nullptr, &heads, nullptr, error)) return false;
    A->push_back(std::move(heads));
  }
  return true;
}

}  // namespace attnlab
