// Name -> image explanation method (see image_method.h).
#include "explain/image/image_method.h"

namespace attnlab {
namespace {
struct Entry {
  const char* name;
  ImageMethodFn fn;
};
const Entry kMethods[] = {
    {"cam", &cam_map}, {"gradcam", &grad_cam_map}, {"gradcampp", &grad_cam_plus_plus_map}, {"random", &random_map}};
}  // namespace

ImageMethodFn find_image_method(const std::string& name) {
  for (const Entry& e : kMethods)
    if (name == e.name) return e.fn;
  return nullptr;
}

std::vector<std::string> image_method_names() {
  std::vector<std::string> names;
  for (const Entry& e : kMethods) names.push_back(e.name);
  return names;
}

bool image_method_inputs_ok(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index) {
  return F.data && F.h >= 1 && F.w >= 1 && F.k == head.channels && class_index >= 0 &&
         class_index < head.classes && head.weight.size() == static_cast<size_t>(head.classes) * head.channels;
}

}  // namespace attnlab

// ---- the catalogue entries (method_catalogue.h) ----
#include "explain/image/method_catalogue.h"
#include "metrics/road.h"

namespace attnlab {

const std::vector<ImageMethodInfo>& image_method_catalogue() {
  static const std::vector<ImageMethodInfo> all = {
      {"cam", "CAM", "map",
       "Class activation map (Zhou et al. 2016): the classifier weights of the class times the last feature maps.", "0", {}},
      {"gradcam", "Grad-CAM", "map",
       "Grad-CAM: feature maps weighted by the mean gradient of the class score. With a GAP + linear head it equals "
       "CAM up to a positive scale.", "0", {}},
      {"gradcampp", "Grad-CAM++", "map", "Grad-CAM++: higher-order weighting of positive gradients.", "0", {}},
      {"scorecam", "Score-CAM", "plan",
       "Score-CAM: one masked forward pass per feature channel (a channel that is zero on the photo adds nothing and is "
       "skipped); weights = the class probability of each masked photo.",
       "K (one per feature channel)", {}},
      {"rise", "RISE", "plan",
       "RISE: N random cells×cells masks, upsampled; the map is the probability-weighted mean of the masks.", "n",
       {iparam("n", 1000, 50, 8000, "number of random masks"), iparam("cells", 7, 1, 224, "mask grid cells per side"),
        {"p", "number", 0.5, 0.01, 1, {}, "probability that a cell is kept"},
        iparam("seed", 1, 0, 2147483647, "seed of the masks")}},
      {"occlusion", "Occlusion", "plan",
       "Occlusion: a grey window-px square slides with the stride; the map is the mean drop in probability.",
       "1 + ((224 − window) / stride + 1)²",
       {iparam("window", 32, 1, 224, "square side in pixels"), iparam("stride", 16, 1, 224, "step in pixels")}},
      {"random", "Random", "map", "A random map (seeded) — the baseline every method must beat.", "0", {}},
      {"deletion", "Deletion curve", "metric",
       "Deletion (RISE protocol): the most salient pixels first set to grey; probability against the fraction removed.",
       "steps + 1", {iparam("steps", 50, 1, 50176, "points of the curve after the first")}},
      {"insertion", "Insertion curve", "metric",
       "Insertion: the most salient pixels first restored from a blurred photo; probability against the fraction.",
       "steps + 1", {iparam("steps", 50, 1, 50176, "points of the curve after the first")}},
      {"road", "ROAD", "metric",
       "ROAD (Rong et al. 2022): the most (MoRF) or least (LeRF) salient 10 … 90 % of the pixels replaced by noisy linear "
       "imputation from their neighbours; the class probability at each step.",
       "9", {{"order", "string", "morf", 0, 0, {"morf", "lerf"}, "most (morf) or least (lerf) relevant first"},
             {"noise", "number", 0.6, 0, 255, {}, "σ of the noise added to imputed pixels (0–255 units)"},
             iparam("seed", 1, 0, 2147483647, "seed of the noise")}},
      {"explanationMask", "Explanation as a mask", "metric",
       "The photo masked by the normalised map: drop / increase in confidence (Score-CAM's average drop).", "2", {}},
  };
  return all;
}

const ImageMethodInfo* find_image_method_info(const std::string& name) {
  for (const ImageMethodInfo& m : image_method_catalogue())
    if (m.name == name) return &m;
  return nullptr;
}

long image_method_passes(const std::string& name, const nlohmann::json& params, int channels, std::string* error) {
  std::string bad;
  const ImageMethodInfo* m = find_image_method_info(name);
  if (!m) bad = "unknown image method '" + name + "'";
  else bad = check_params(m->params, params.is_null() ? nlohmann::json::object() : params);
  if (bad.empty() && channels < 1) bad = "channels must be >= 1";
  if (!bad.empty()) {
    if (error) *error = bad;
    return -1;
  }
  const nlohmann::json p = params.is_object() ? params : nlohmann::json::object();
  auto get = [&](const char* key) { return param_or_default(m->params, p, key).get<long>(); };
  if (name == "scorecam") return channels;
  if (name == "rise") return get("n");
  if (name == "occlusion") {
    const long window = get("window"), stride = get("stride"), per_side = (224 - window) / stride + 1;
    return 1 + per_side * per_side;
  }
  if (name == "deletion" || name == "insertion") return get("steps") + 1;
  if (name == "explanationMask") return 2;
  if (name == "road") return static_cast<long>(road_percentages().size());
  return 0;
}

}  // namespace attnlab
