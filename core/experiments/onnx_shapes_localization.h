// The localisation lab's measures on any ONNX image classifier (issue 30: a vision transformer trained on the
// procedural shapes, scored against their exact object masks beside the CNN's CAM): the shapes test split
// (data/shapes_dataset.h) fed to the model as the CNN sees it (planar RGB in [0, 1], [1, 3, S, S]), each image
// explained for its true class by each method of explain/onnx/onnx_explain.h, the map (at its own resolution:
// the patch grid of a ViT, a feature map of a CNN) upsampled bilinearly to S × S as evaluate_cnn does, then
// scored with metrics/localization.h: pointing game at 0 px and at the standard tolerance, the argmax cell's
// block, energy in the mask, IoU at 0.5 of the min-max normalised map.
//
//   OnnxShapesRequest r;  r.shapes = …; r.seed = 1; r.n = 1000; r.methods = {"rollout", "chefer", "gradcam"};
//   onnx_shapes_localization(clf, r, &out, &err, progress)
//     → {n, image_size, seed, confounder, texture_contrast, accuracy, mask_fraction, centre_baseline
//        {pointing_game, pointing_game_standard}, methods: {name: {pointing_game, pointing_game_standard,
//        pointing_feature_cell, energy_in_mask, mask_iou, map_shape [h, w], note?}}}
//   false + message when the model's input is not [1, 3, S, S] for the data's S, or a method cannot run on it.
//   progress(done, total) is called after each image; returning false stops (error "cancelled").
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/shapes_dataset.h"
#include "explain/onnx/onnx_classifier.h"

namespace attnlab {

struct OnnxShapesRequest {
  ShapesConfig shapes;
  uint64_t seed = 1;  // the data seed of the test split
  int n = 1000;
  std::vector<std::string> methods;
  double iou_threshold = 0.5;
};

bool onnx_shapes_localization(OnnxClassifier& clf, const OnnxShapesRequest& request, nlohmann::json* out,
                              std::string* error, const std::function<bool(int, int)>& progress = nullptr);

}  // namespace attnlab
