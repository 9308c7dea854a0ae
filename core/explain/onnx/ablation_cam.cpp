// AblationCAM on any ONNX classifier layer (see layer_method.h): one partial forward pass per channel, the channels
// side by side on the core's threads.
#include <algorithm>
#include <cmath>

#include "explain/onnx/layer_method.h"
#include "parallel/parallel_for.h"

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
  // The channels in contiguous parts side by side on the core's threads, each part on its own copy of the classifier
  // (holding this forward); a channel's weight depends on that channel alone, so on no thread count. Not when only a
  // short head follows the layer (MobileNetV2's last: pooling, one product): copying the classifier would cost more
  // than the re-runs it shares out (measured: 0.87x on 2 threads).
  constexpr int kMinNodesToSplit = 8;
  const int most = clf.nodes_after(layer) >= kMinNodesToSplit ? thread_count() : 1;
  const size_t lanes = static_cast<size_t>(clf.lanes(std::min(L.k, most)));  // memory bounds the copies
  std::vector<OnnxClassifier> copies(lanes - 1, clf);
  std::vector<std::string> errors(lanes);
  parallel_for(lanes, [&](size_t j) {
    OnnxClassifier& mine = j == 0 ? clf : copies[j - 1];
    std::vector<float> ablated = L.activation;
    const size_t k0 = split_begin(L.k, lanes, j), k1 = split_begin(L.k, lanes, j + 1);
    for (size_t k = k0; k < k1; ++k) {
      std::fill(ablated.begin() + k * hw, ablated.begin() + (k + 1) * hw, 0.f);
      if (!mine.forward_from_layer(layer, ablated, &errors[j])) return;
      weight[k] = (y - mine.logits()[c]) / denom;
      std::copy(L.activation.begin() + k * hw, L.activation.begin() + (k + 1) * hw, ablated.begin() + k * hw);
    }
  });
  for (const std::string& e : errors)
    if (!e.empty()) {
      *error = e;
      return false;
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
