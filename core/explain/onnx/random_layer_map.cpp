// The random baseline on a user's ONNX classifier (layer_method.h onnx_random_layer_map): h·w values uniform in
// [0, 1) from Rng(seed) over the grid of `layer` — the grid the CAM-family maps of that layer have, so the baseline
// is coarse where they are and the deletion / insertion curves compare like with like (the Images tab's random map
// is over MobileNetV2's 7 × 7 features the same way). Reads nothing but the layer's shape: no class, no gradient.
#include "explain/onnx/layer_method.h"
#include "nn/rng.h"

namespace attnlab {

bool onnx_random_layer_map(const OnnxClassifier& clf, const std::string& layer, uint64_t seed, LayerMapResult* out,
                           std::string* error) {
  for (const SpatialLayer& l : clf.spatial_layers()) {
    if (l.name != layer) continue;
    Rng rng(seed);
    out->h = l.height;
    out->w = l.width;
    out->map.resize(static_cast<size_t>(l.height) * l.width);
    for (float& v : out->map) v = static_cast<float>(rng.uniform());
    out->weights.clear();
    return true;
  }
  *error = "no spatial layer named '" + layer + "'";
  return false;
}

}  // namespace attnlab
