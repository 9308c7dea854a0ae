// read_attention_layers (attention_layers.h).
#include "explain/onnx/attention_layers.h"

namespace attnlab {

bool read_attention_layers(const onnx::Executor<float>& ex, const std::vector<onnx::FoundAttention>& found,
                           bool with_gradients, std::vector<std::vector<Mat<double>>>* A,
                           std::vector<std::vector<Mat<double>>>* dA, std::string* error) {
  A->clear();
  dA->clear();
  for (const onnx::FoundAttention& a : found) {
    onnx::AttentionShape s;
    if (!onnx::attention_shape(ex, a, &s) || s.queries != s.keys) {
      *error = "the attention at '" + a.softmax_node + "' is not a square [heads, positions, positions] map";
      return false;
    }
    const onnx::Tensor<float>& p = *ex.value(a.probabilities);
    const onnx::Tensor<float>* g = with_gradients ? ex.gradient(a.probabilities) : nullptr;
    std::vector<Mat<double>> heads, grads;
    const int64_t n = s.keys;
    for (int64_t h = 0; h < s.heads; ++h) {
      Mat<double> m(n, n), dm = Mat<double>::Zero(n, n);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const size_t k = static_cast<size_t>((h * n + i) * n + j);
          m(i, j) = p.f[k];
          if (g) dm(i, j) = g->f[k];
        }
      heads.push_back(m);
      grads.push_back(dm);
    }
    A->push_back(heads);
    if (with_gradients) dA->push_back(grads);
  }
  return true;
}

}  // namespace attnlab
