// Grad-CAM on an ONNX layer: α_k = spatial mean of G_k; map = ReLU(Σ_k α_k A_k) (see layer_method.h).
#include <algorithm>

#include "explain/onnx/layer_method.h"

namespace attnlab {

std::vector<float> onnx_grad_cam(const LayerTensors& L) {
  if (!layer_tensors_ok(L)) return {};
  const size_t hw = static_cast<size_t>(L.h) * L.w;
  std::vector<double> acc(hw, 0.0);
  for (int k = 0; k < L.k; ++k) {
    const float* a = L.activation.data() + k * hw;
    const float* g = L.gradient.data() + k * hw;
    double alpha = 0;
    for (size_t p = 0; p < hw; ++p) alpha += g[p];
    alpha /= static_cast<double>(hw);
    for (size_t p = 0; p < hw; ++p) acc[p] += alpha * a[p];
  }
  std::vector<float> out(hw);
  for (size_t p = 0; p < hw; ++p) out[p] = static_cast<float>(std::max(0.0, acc[p]));
  return out;
}

}  // namespace attnlab
