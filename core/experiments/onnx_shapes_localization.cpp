// The localisation lab's measures on an ONNX image classifier (see the header).
#include "experiments/onnx_shapes_localization.h"

#include <algorithm>
#include <cmath>

#include "explain/onnx/onnx_explain.h"
#include "image/map_ops.h"
#include "metrics/localization.h"

namespace attnlab {

using nlohmann::json;

namespace {

struct MethodSums {
  double pointing = 0, pointing_standard = 0, feature_cell = 0, energy = 0, iou = 0;
  int h = 0, w = 0;
  std::string note;
};

}  // namespace

bool onnx_shapes_localization(OnnxClassifier& clf, const OnnxShapesRequest& request, json* out, std::string* error,
                              const std::function<bool(int, int)>& progress) {
  const std::string bad = check_shapes_config(request.shapes);
  if (!bad.empty()) {
    *error = bad;
    return false;
  }
  if (request.n < 1 || request.methods.empty()) {
    *error = "give at least one image and one method";
    return false;
  }
  const int S = request.shapes.image_size;
  const std::vector<int64_t> shape = clf.input_shape();
  if (shape.size() != 4 || shape[1] != 3 || shape[2] != S || shape[3] != S) {
    std::string got;
    for (size_t k = 0; k < shape.size(); ++k) got += (k ? "," : "") + std::to_string(shape[k]);
    *error = "the model's input is [" + got + "]; the shapes need [1,3," + std::to_string(S) + "," + std::to_string(S) +
             "] (planar RGB in [0, 1], as the localisation CNN sees them)";
    return false;
  }
  const ShapesDataset data(request.shapes, request.seed, Split::Test, request.n);
  const double tol_std = standard_pointing_tolerance(S);
  const MapPoint centre = centre_point(S, S);
  std::vector<MethodSums> sums(request.methods.size());
  double correct = 0, area = 0, centre_hit = 0, centre_hit_std = 0;
  for (int i = 0; i < request.n; ++i) {
    const ShapeExample ex = data.example(i);
    for (size_t m = 0; m < request.methods.size(); ++m) {
      OnnxExplainRequest r;
      r.method = request.methods[m];
      r.class_index = ex.label;
      json res;
      if (!onnx_explain(clf, ex.image, r, &res, error)) {
        *error = request.methods[m] + ": " + *error;
        return false;
      }
      if (m == 0) {
        const std::vector<float> logits = res["logits"];
        correct += static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin()) == ex.label;
      }
      const std::vector<float> map = res["map"];
      const int h = res["map_shape"][0], w = res["map_shape"][1];
      const std::vector<float> up = upsample_bilinear(map.data(), h, w, S, S);
      MethodSums& s = sums[m];
      s.h = h;
      s.w = w;
      if (res.contains("note") && res["note"].is_string()) s.note = res["note"];
      s.pointing += pointing_game(up, ex.mask, S, S, 1, 0.0);
      s.pointing_standard += pointing_game(up, ex.mask, S, S, 1, tol_std);
      s.feature_cell += block_pointing_hit(map, h, w, ex.mask, S, 1);
      s.energy += energy_in_mask(up, ex.mask, 1);
      s.iou += mask_iou(up, ex.mask, 1, request.iou_threshold);
    }
    double on = 0;
    for (uint8_t v : ex.mask) on += v == 1;
    area += on / (static_cast<double>(S) * S);
    centre_hit += pointing_hit_at(ex.mask, S, S, centre.y, centre.x, 1, 0.0);
    centre_hit_std += pointing_hit_at(ex.mask, S, S, centre.y, centre.x, 1, tol_std);
    if (progress && !progress(i + 1, request.n)) {
      *error = "cancelled";
      return false;
    }
  }
  const double n = request.n;
  json methods = json::object();
  for (size_t m = 0; m < request.methods.size(); ++m) {
    const MethodSums& s = sums[m];
    json row = {{"pointing_game", s.pointing / n}, {"pointing_game_standard", s.pointing_standard / n},
                {"pointing_feature_cell", s.feature_cell / n}, {"energy_in_mask", s.energy / n},
                {"mask_iou", s.iou / n}, {"map_shape", {s.h, s.w}}};
    if (!s.note.empty()) row["note"] = s.note;
    methods[request.methods[m]] = row;
  }
  *out = {{"n", request.n},
          {"image_size", S},
          {"seed", request.seed},
          {"confounder", request.shapes.confounder},
          {"texture_contrast", request.shapes.texture_contrast},
          {"accuracy", correct / n},
          {"mask_fraction", area / n},
          {"pointing_tolerance_standard", tol_std},
          {"centre_baseline", {{"pointing_game", centre_hit / n}, {"pointing_game_standard", centre_hit_std / n}}},
          {"methods", methods}};
  return true;
}

}  // namespace attnlab
