// LayerCAM on an ONNX layer: map = ReLU(Σ_k ReLU(G_k) ⊙ A_k) (see layer_method.h).
#include <algorithm>

#include "explain/onnx/layer_method.h"

namespace attnlab {

std::vector<float> onnx_layer_cam(const LayerTensors& L) {
  if (!layer_tensors_ok(L)) return {};
  const size_t hw = static_cast<size_t>(L.h) * L.w;
  std::vector<double> acc(hw, 0.0);
  for (int k = 0; k < L.k; ++k)
    for (size_t p = 0; p < hw; ++p)
      acc[p] += std::max(0.0, static_cast<double>(L.gradient[k * hw + p])) * L.activation[k * hw + p];
  std::vector<float> out(hw);
  for (size_t p = 0; p < hw; ++p) out[p] = static_cast<float>(std::max(0.0, acc[p]));
  return out;
}

}  // namespace attnlab
