// Grad-CAM++ on an ONNX layer, pytorch-grad-cam's closed form (see layer_method.h):
// a = G² / (2G² + (Σ_p A_k) · G³ + 1e-7), 0 where G = 0; w_k = Σ_p ReLU(G) · a; map = ReLU(Σ_k w_k A_k).
#include <algorithm>

#include "explain/onnx/layer_method.h"

namespace attnlab {

std::vector<float> onnx_grad_cam_pp(const LayerTensors& L) {
  if (!layer_tensors_ok(L)) return {};
  const size_t hw = static_cast<size_t>(L.h) * L.w;
  std::vector<double> acc(hw, 0.0);
  for (int k = 0; k < L.k; ++k) {
    const float* a = L.activation.data() + k * hw;
    const float* g = L.gradient.data() + k * hw;
    double sum_a = 0;
    for (size_t p = 0; p < hw; ++p) sum_a += a[p];
    double wk = 0;
    for (size_t p = 0; p < hw; ++p) {
      const double g1 = g[p], g2 = g1 * g1, g3 = g2 * g1;
      if (g1 == 0) continue;
      const double aij = g2 / (2 * g2 + sum_a * g3 + 1e-7);
      wk += std::max(0.0, g1) * aij;
    }
    for (size_t p = 0; p < hw; ++p) acc[p] += wk * a[p];
  }
  std::vector<float> out(hw);
  for (size_t p = 0; p < hw; ++p) out[p] = static_cast<float>(std::max(0.0, acc[p]));
  return out;
}

}  // namespace attnlab
