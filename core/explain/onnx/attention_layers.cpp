// read_attention_layers, attention_layers_of (attention_layers.h).
#include "explain/onnx/attention_layers.h"

namespace attnlab {
namespace {

// One distribution [heads, n, n] (and its gradient when given) as per-head n × n matrices.
bool heads_of(const std::string& name, const onnx::Shape& shape, const float* p, size_t size, const float* g,
              std::vector<Mat<double>>* heads, std::vector<Mat<double>>* grads, std::string* error) {
  onnx::AttentionShape s;
  if (!onnx::attention_shape_of(shape, &s) || s.queries != s.keys ||
      static_cast<size_t>(s.heads * s.queries * s.keys) != size) {
    *error = "the attention at '" + name + "' is not a square [heads, positions, positions] map";
    return false;
  }
  const int64_t n = s.keys;
  for (int64_t h = 0; h < s.heads; ++h) {
    Mat<double> m(n, n), dm = Mat<double>::Zero(n, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const size_t k = static_cast<size_t>((h * n + i) * n + j);
        m(i, j) = p[k];
        if (g) dm(i, j) = g[k];
      }
    heads->push_back(m);
    grads->push_back(dm);
  }
  return true;
}

}  // namespace

bool read_attention_layers(const onnx::Executor<float>& ex, const std::vector<onnx::FoundAttention>& found,
                           bool with_gradients, std::vector<std::vector<Mat<double>>>* A,
                           std::vector<std::vector<Mat<double>>>* dA, std::string* error) {
  A->clear();
  dA->clear();
  for (const onnx::FoundAttention& a : found) {
    const onnx::Tensor<float>* p = ex.value(a.probabilities);
    if (!p || !p->is_float()) {
      *error = "the attention at '" + a.softmax_node + "' is not a square [heads, positions, positions] map";
      return false;
    }
    const onnx::Tensor<float>* g = with_gradients ? ex.gradient(a.probabilities) : nullptr;
    std::vector<Mat<double>> heads, grads;
    if (!heads_of(a.softmax_node, p->shape, p->f.data(), p->f.size(), g ? g->f.data() : nullptr, &heads, &grads, error))
      return false;
    A->push_back(heads);
    if (with_gradients) dA->push_back(grads);
  }
  return true;
}

bool attention_layers_of(const std::vector<AttentionValues>& values, std::vector<std::vector<Mat<double>>>* A,
                         std::string* error) {
  A->clear();
  for (const AttentionValues& v : values) {
    std::vector<Mat<double>> heads, grads;
    if (!heads_of(v.name, v.shape, v.data.data(), v.data.size(), nullptr, &heads, &grads, error)) return false;
    A->push_back(heads);
  }
  return true;
}

}  // namespace attnlab
