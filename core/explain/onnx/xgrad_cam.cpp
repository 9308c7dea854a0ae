// XGrad-CAM on an ONNX layer: w_k = Σ_p G·A / (Σ_p A_k + 1e-7); map = ReLU(Σ_k w_k A_k) (see layer_method.h).
#include <algorithm>

#include "explain/onnx/layer_method.h"

namespace attnlab {

std::vector<float> onnx_xgrad_cam(const LayerTensors& L) {
  if (!layer_tensors_ok(L)) return {};
  const size_t hw = static_cast<size_t>(L.h) * L.w;
  std::vector<double> acc(hw, 0.0);
  for (int k = 0; k < L.k; ++k) {
    const float* a = L.activation.data() + k * hw;
    const float* g = L.gradient.data() + k * hw;
    double sa = 0, sga = 0;
    for (size_t p = 0; p < hw; ++p) {
      sa += a[p];
      sga += static_cast<double>(g[p]) * a[p];
    }
    const double wk = sga / (sa + 1e-7);
    for (size_t p = 0; p < hw; ++p) acc[p] += wk * a[p];
  }
  std::vector<float> out(hw);
  for (size_t p = 0; p < hw; ++p) out[p] = static_cast<float>(std::max(0.0, acc[p]));
  return out;
}

}  // namespace attnlab
