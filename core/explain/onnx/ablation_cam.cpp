// AblationCAM on any ONNX classifier layer (see layer_method.h): one partial forward pass per channel.
#include <algorithm>
#include <cmath>

#include "explain/onnx/layer_method.h"

namespace attnlab {

bool onnx_ablation_cam(OnnxClassifier& clf, const std::vector<float>& x, const std::string& layer, int c,
                       LayerMapResult* out, std::string* error) {
  if (!clf.forward(x.data(), x.size(), error)) return false;
  if (c < 0 || c >= clf.num_classes()) {
    *error = "class " + std::to_string(c) + " is out of range (" + std::to_string(clf.num_classes()) + " classes)";
    return false;
  }
  const double y = clf.logits()[c];
  LayerTensors L;
  if (!clf.layer(layer, &L, error)) return false;
  const size_t hw = static_cast<size_t>(L.h) * L.w;
  // pytorch-grad-cam divides by the score as it is; only an exact zero is nudged (the weights are then huge).
  const double denom = y != 0 ? y : 1e-7;
  std::vector<double> weight(L.k);
  std::vector<float> ablated = L.activation;
  for (int k = 0; k < L.k; ++k) {
    std::fill(ablated.begin() + k * hw, ablated.begin() + (k + 1) * hw, 0.f);
    if (!clf.forward_from_layer(layer, ablated, error)) return false;
    weight[k] = (y - clf.logits()[c]) / denom;
    std::copy(L.activation.begin() + k * hw, L.activation.begin() + (k + 1) * hw, ablated.begin() + k * hw);
  }
  if (!clf.forward(x.data(), x.size(), error)) return false;  // the unchanged network again
  out->map.assign(hw, 0.f);
  for (size_t p = 0; p < hw; ++p) {
    double s = 0;
    for (int k = 0; k < L.k; ++k) s += weight[k] * L.activation[k * hw + p];
    out->map[p] = static_cast<float>(std::max(0.0, s));
  }
  out->h = L.h;
  out->w = L.w;
  out->weights.assign(weight.begin(), weight.end());
  return true;
}

}  // namespace attnlab
