// One signature for the CAM-family methods on any ONNX classifier layer (pytorch-grad-cam's definitions),
// from the layer's activation A [K, h, w] and the gradient G = d logits[c] / dA [K, h, w]:
//   gradcam    (grad_cam.cpp)     ReLU(Σ_k α_k A_k), α_k = mean_p G_k,p                    (Selvaraju et al.)
//   gradcampp  (grad_cam_pp.cpp)  ReLU(Σ_k w_k A_k), w_k = Σ_p ReLU(G) · a, a = G² / (2G² + Σ_p A_k · G³ + 1e-7)
//                                 (0 where G = 0)                                          (Chattopadhay et al.)
//   hirescam   (hires_cam.cpp)    ReLU(Σ_k G_k ⊙ A_k)                                       (Draelos & Carin)
//   xgradcam   (xgrad_cam.cpp)    ReLU(Σ_k w_k A_k), w_k = Σ_p G·A / (Σ_p A_k + 1e-7)       (Fu et al.)
//   layercam   (layer_cam.cpp)    ReLU(Σ_k ReLU(G_k) ⊙ A_k)                                 (Jiang et al.)
//   eigencam   (eigen_cam.cpp)    ReLU of the projection of the centred [h·w, K] activations on their first
//                                 principal direction (no gradient). The SVD's sign is arbitrary; we pick
//                                 the sign whose projection correlates positively with Σ_k A_k.
//   cam        (cam.cpp)          Σ_k w_k A_k, no ReLU, w_k = h·w · G_k (Zhou et al.: the class map); only where
//                                 the head after the layer is GAP + linear, i.e. G_k is the same at every
//                                 position (to 1e-4 of max |G|) — else empty
// Result: row-major [h·w] at layer resolution (before upsampling); empty when A / G are inconsistent (or, for a
// method with conditions such as cam, when they do not hold: layer_method_no_map_reason(name) says which).
// And one that needs forward passes instead of the gradient:
//   ablationcam (ablation_cam.cpp) ReLU(Σ_k w_k A_k), w_k = (y_c − y_c^(k)) / y_c, y_c the class logit and y_c^(k)
//                                 the logit with channel k of the layer zeroed and the rest of the network re-run
//                                 (Desai & Ramaswamy 2020, pytorch-grad-cam's AblationCAM): K partial passes.
// And the baseline the others are measured against (no pass at all):
//   random     (random_layer_map.cpp) values uniform in [0, 1) from Rng(seed) over the layer's h × w grid
#pragma once
#include <string>
#include <vector>

#include "explain/onnx/onnx_classifier.h"

namespace attnlab {

using LayerMethodFn = std::vector<float> (*)(const LayerTensors& L);

std::vector<float> onnx_grad_cam(const LayerTensors& L);
std::vector<float> onnx_grad_cam_pp(const LayerTensors& L);
std::vector<float> onnx_hires_cam(const LayerTensors& L);
std::vector<float> onnx_xgrad_cam(const LayerTensors& L);
std::vector<float> onnx_layer_cam(const LayerTensors& L);
std::vector<float> onnx_eigen_cam(const LayerTensors& L);
std::vector<float> onnx_cam(const LayerTensors& L);

// name -> method (nullptr if unknown); needs_gradient false only for eigencam.
LayerMethodFn find_layer_method(const std::string& name, bool* needs_gradient = nullptr);
std::vector<std::string> layer_method_names();
// Why a method can return no map for consistent A / G ("" when it always returns one).
std::string layer_method_no_map_reason(const std::string& name);

struct LayerMapResult {
  std::vector<float> map;  // [h·w]
  int h = 0, w = 0;
  std::vector<float> weights;  // [K] the channel weights
};
bool onnx_ablation_cam(OnnxClassifier& clf, const std::vector<float>& x, const std::string& layer, int class_index,
                       LayerMapResult* out, std::string* error);
// After a forward pass (clf.spatial_layers()); false with a message when `layer` is not one of them.
bool onnx_random_layer_map(const OnnxClassifier& clf, const std::string& layer, uint64_t seed, LayerMapResult* out,
                           std::string* error);

inline bool layer_tensors_ok(const LayerTensors& L) {
  const size_t n = static_cast<size_t>(L.k) * L.h * L.w;
  return L.k > 0 && L.h > 0 && L.w > 0 && L.activation.size() == n && L.gradient.size() == n;
}

}  // namespace attnlab
