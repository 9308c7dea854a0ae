// CAM (Zhou et al. 2016) on an ONNX layer: map = Σ_k w_k A_k, no ReLU (the raw class map, as core/explain/image/
// cam.cpp), with the class weights read off the gradient: when the head after the layer is global average pooling
// + one linear layer, d logit_c / dA_k,p = W[c, k] / (h·w) at every position p, so w_k = h·w · G_k,p. Any other head
// makes G vary over positions: then CAM is not defined and the map is empty (layer_method_no_map_reason says why).
#include <algorithm>
#include <cmath>

#include "explain/onnx/layer_method.h"

namespace attnlab {

std::vector<float> onnx_cam(const LayerTensors& L) {
  if (!layer_tensors_ok(L)) return {};
  const size_t hw = static_cast<size_t>(L.h) * L.w;
  double scale = 0;
  for (float g : L.gradient) scale = std::max(scale, static_cast<double>(std::abs(g)));
  const double tol = 1e-4 * scale;
  std::vector<double> acc(hw, 0.0);
  for (int k = 0; k < L.k; ++k) {
    const float* a = L.activation.data() + k * hw;
    const float* g = L.gradient.data() + k * hw;
    for (size_t p = 1; p < hw; ++p)
      if (std::abs(static_cast<double>(g[p]) - g[0]) > tol) return {};  // not a GAP + linear head
    double w = 0;  // Σ_p G_k,p = h·w · G_k = W[c, k]
    for (size_t p = 0; p < hw; ++p) w += g[p];
    for (size_t p = 0; p < hw; ++p) acc[p] += w * a[p];
  }
  return std::vector<float>(acc.begin(), acc.end());
}

}  // namespace attnlab
