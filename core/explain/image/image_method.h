// One signature for every feature-map explanation method of the image lab (class activation maps over the
// last conv feature maps F [K, h, w] and a GAP + linear head). Each method lives in its own file:
//   cam        (cam.cpp)                 Σ_k W[c,k] F_k, raw (no ReLU; Zhou et al. 2016)
//   gradcam    (grad_cam.cpp)            ReLU(Σ_k α_k F_k), α_k = mean_p ∂y_c/∂F_k,p (the head's backward)
//   gradcampp  (grad_cam_plus_plus.cpp)  ReLU(Σ_k w_k F_k), Grad-CAM++ closed form for an exp score
//   random     (random_map.cpp)          uniform [0, 1) values from the seed (a baseline)
// With a GAP + linear head Grad-CAM = ReLU(CAM) / (h·w) exactly (tested).
// Result: the raw map at feature resolution, row-major [h, w] (empty when the inputs are inconsistent:
// K != head.channels, class out of range, h or w < 1, or a null feature pointer).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "nn/gap_linear_head.h"

namespace attnlab {

struct FeatureMapsView {
  const float* data = nullptr;  // [k, h, w] row-major
  int k = 0, h = 0, w = 0;
  const float* channel(int c) const { return data + static_cast<size_t>(c) * h * w; }
};

struct MapOptions {
  uint64_t seed = 0;  // used by stochastic methods (random)
};

using ImageMethodFn = std::vector<float> (*)(const FeatureMapsView& F, const GapLinearHead<float>& head,
                                             int class_index, const MapOptions& options);

std::vector<float> cam_map(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index,
                           const MapOptions& options);
std::vector<float> grad_cam_map(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index,
                                const MapOptions& options);
std::vector<float> grad_cam_plus_plus_map(const FeatureMapsView& F, const GapLinearHead<float>& head,
                                          int class_index, const MapOptions& options);
std::vector<float> random_map(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index,
                              const MapOptions& options);

// Registry: name -> method (nullptr for an unknown name); names in a fixed order.
ImageMethodFn find_image_method(const std::string& name);
std::vector<std::string> image_method_names();

// Shared precondition check of the methods.
bool image_method_inputs_ok(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index);

}  // namespace attnlab
