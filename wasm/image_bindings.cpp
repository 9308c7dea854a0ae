// The only Embind code for the image lab (contract: docs/DESIGN.md "Image core API"). Owns no math: it
// checks types and sizes, copies typed arrays into the wasm heap, calls core/, and copies results out
// (fresh typed arrays, never views of the heap).
// Errors as docs/DESIGN.md "Binding convention": raw names start with "_raw_", nothing is thrown inside wasm
// (a JS exception unwinding through wasm frames would skip C++ destructors and leak memory on every error);
// wasm/facade.js exposes the public names (preprocessImage, ImageLab, planRise, …) and throws.
// An ImageLab keeps the photo it explains (input, features, mask) and the maps made from it, so one map
// crosses the boundary once (renderMap) and recolouring reuses it (recolor).
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <emscripten/bind.h>

#include "boundary.h"

#include "catalogue/param_spec.h"
#include "explain/image/image_method.h"
#include "explain/image/method_catalogue.h"
#include "explain/image/plan.h"
#include "image/colormap.h"
#include "image/erase.h"
#include "image/map_ops.h"
#include "image/preprocess.h"
#include "metrics/deletion_insertion.h"
#include "metrics/road.h"
#include "metrics/localization.h"
#include "nn/gap_linear_head.h"

namespace {

using namespace attnlab;
using namespace attnlab::wasm;
using nlohmann::json;

const size_t kPlane = static_cast<size_t>(kImageSize) * kImageSize;
const int kModelClasses = 1001;  // MobileNetV2 (index 0 = background): accept(start, logits) assumes it

bool image224(const val& v, std::vector<float>* out, Err& e) {
  return f32(v, "image", out, e, 3 * kPlane, "3·224·224 = " + num(3 * kPlane));
}
bool map224(const val& v, const char* name, std::vector<float>* out, Err& e) {
  return f32(v, name, out, e, kPlane, "224·224 = " + num(kPlane));
}
bool mask224(const val& v, std::vector<uint8_t>* out, Err& e) {
  return u8(v, "mask", out, e, kPlane, "224·224 = " + num(kPlane));
}

bool colormap_arg(const val& v, Colormap* cm, Err& e) {
  if (!e.ok()) return false;
  *cm = Colormap::Viridis;
  if (v.isUndefined() || v.isNull()) return true;
  std::string name;
  if (!string_arg(v, "colormap", &name, e)) return false;
  if (name.empty()) return true;
  if (!parse_colormap(name, cm)) return e.fail("unknown colormap '" + name + "' (viridis, inferno, gray, jet)");
  return true;
}

bool class_arg(int class_index, Err& e) {
  if (!e.ok()) return false;
  if (class_index < 0) return e.fail("classIndex must be >= 0, got " + std::to_string(class_index));
  return true;
}

val out_f32(const std::vector<float>& v) { return out_array(v); }
val out_u8(const std::vector<uint8_t>& v) { return out_array(v); }

// ---- preprocessing, map operations, colour maps ----

val preprocess_image(const val& rgba, int width, int height) {
  Err e;
  std::vector<uint8_t> px;
  std::vector<float> out;
  if (!check_image_size(width, height, &e.message)) return error_val(e.message);
  const size_t n = static_cast<size_t>(width) * height * 4;
  if (!u8(rgba, "rgba", &px, e, n, "width·height·4 = " + num(n)) ||
      !preprocess_rgba(px.data(), width, height, &out, &e.message))
    return error_val(e.message);
  return out_f32(out);
}

val preprocess_mask_js(const val& labels, int width, int height) {
  Err e;
  std::vector<uint8_t> px, out;
  if (!check_image_size(width, height, &e.message)) return error_val(e.message);
  const size_t n = static_cast<size_t>(width) * height;
  if (!u8(labels, "labels", &px, e, n, "width·height = " + num(n)) ||
      !preprocess_mask(px.data(), width, height, &out, &e.message))
    return error_val(e.message);
  return out_u8(out);
}

val upsample_map(const val& map, int h, int w, int H, int W) {
  Err e;
  std::vector<float> m;
  dim(h, "h", e), dim(w, "w", e), dim(H, "H", e, 4096), dim(W, "W", e, 4096);
  const size_t n = static_cast<size_t>(h) * w;
  if (!f32(map, "map", &m, e, n, "h·w = " + num(n))) return error_val(e.message);
  return out_f32(upsample_bilinear(m.data(), h, w, H, W));
}

val normalize_map(const val& map) {
  Err e;
  std::vector<float> m;
  if (!f32(map, "map", &m, e)) return error_val(e.message);
  return out_f32(normalize_minmax(m));
}

val colorize_map(const val& map01, int H, int W, const val& colormap) {
  Err e;
  Colormap cm;
  std::vector<float> m;
  dim(H, "H", e, 4096), dim(W, "W", e, 4096), colormap_arg(colormap, &cm, e);
  const size_t n = static_cast<size_t>(H) * W;
  if (!f32(map01, "map01", &m, e, n, "H·W = " + num(n))) return error_val(e.message);
  return out_rgba(colorize_rgba(m.data(), H, W, cm));
}

val overlay_map(const val& image, const val& map01, int H, int W, double opacity, const val& colormap) {
  Err e;
  Colormap cm;
  std::vector<float> img, m;
  dim(H, "H", e, 4096), dim(W, "W", e, 4096), colormap_arg(colormap, &cm, e);
  if (e.ok() && !(opacity >= 0 && opacity <= 1)) e.fail("opacity must be in [0, 1]");
  const size_t n = static_cast<size_t>(H) * W;
  f32(image, "image", &img, e, 3 * n, "3·H·W = " + num(3 * n));
  if (!f32(map01, "map01", &m, e, n, "H·W = " + num(n))) return error_val(e.message);
  return out_rgba(overlay_rgba(img.data(), m.data(), H, W, static_cast<float>(opacity), cm));
}

val image_method_names_json() {
  std::string out = "[";
  for (const std::string& n : image_method_names()) out += (out.size() > 1 ? ",\"" : "\"") + n + "\"";
  return val(out + "]");
}

// ---- perturbation plans (protocol: explain/image/plan.h) ----

class PlanHandle {
 public:
  PlanHandle(std::unique_ptr<ImagePlan> plan, std::string error) : plan_(std::move(plan)), error_(std::move(error)) {}

  std::string error() const { return error_; }
  int count() const { return plan_ ? plan_->count() : 0; }
  bool done() const { return plan_ && plan_->done(); }
  int accepted() const { return plan_ ? plan_->accepted() : 0; }

  val inputs(int start, int n) const {
    Err e;
    if (!range_ok(start, n, e)) return error_val(e.message);
    std::vector<float> out(static_cast<size_t>(n) * 3 * plan_->height() * plan_->width());
    plan_->inputs(start, n, out.data());
    return out_f32(out);
  }

  // logits [n·1001] (n = length / 1001); returns undefined or an Error
  val accept(int start, const val& logits) {
    Err e;
    std::vector<float> l;
    if (f32(logits, "logits", &l, e) && (l.empty() || l.size() % kModelClasses != 0))
      e.fail("logits must have n·1001 values (n inputs × 1001 classes), got " + num(l.size()));
    if (!e.ok()) return error_val(e.message);
    return accept_rows(start, static_cast<int>(l.size() / kModelClasses), l);
  }

  // logits [n·C] for any number of classes C = length / n
  val accept_n(int start, int n, const val& logits) {
    Err e;
    std::vector<float> l;
    if (f32(logits, "logits", &l, e) && (n < 1 || l.empty() || l.size() % n != 0))
      e.fail("logits must have n·C values for n = " + std::to_string(n) + ", got " + num(l.size()));
    if (!e.ok()) return error_val(e.message);
    return accept_rows(start, n, l);
  }

  val result() const {
    Err e;
    if (!done_ok(e)) return error_val(e.message);
    return out_f32(plan_->result());
  }

  val result_json() const {
    Err e;
    if (!done_ok(e)) return error_val(e.message);
    return val(plan_->result_json());
  }

 private:
  bool range_ok(int start, int n, Err& e) const {
    if (!plan_) return e.fail("plan was not constructed: " + error_);
    if (start < 0 || n < 1 || start + n > plan_->count())
      return e.fail("inputs " + std::to_string(start) + ".." + std::to_string(start + n) + " are outside the plan's " +
                    std::to_string(plan_->count()) + " inputs");
    return true;
  }
  bool done_ok(Err& e) const {
    if (!plan_) return e.fail("plan was not constructed: " + error_);
    if (!plan_->done())
      return e.fail("plan not done: " + std::to_string(plan_->accepted()) + " of " + std::to_string(plan_->count()) +
                    " inputs accepted");
    return true;
  }
  val accept_rows(int start, int n, const std::vector<float>& l) {
    Err e;
    if (!range_ok(start, n, e)) return error_val(e.message);
    const std::string error = plan_->accept(start, n, l.data(), static_cast<int>(l.size() / n));
    if (!error.empty()) return error_val(error);
    return val::undefined();
  }

  std::shared_ptr<ImagePlan> plan_;
  std::string error_;
};

PlanHandle made(std::unique_ptr<ImagePlan> plan, const std::string& error) {
  return PlanHandle(std::move(plan), plan ? "" : error);
}
PlanHandle failed(const std::string& error) { return PlanHandle(nullptr, error); }

PlanHandle plan_score_cam(const val& image, const val& features, int h, int w, int class_index) {
  Err e;
  std::vector<float> img, f;
  dim(h, "h", e, 4096), dim(w, "w", e, 4096), class_arg(class_index, e), image224(image, &img, e);
  const size_t hw = static_cast<size_t>(h) * w;
  if (f32(features, "features", &f, e) && (f.empty() || f.size() % hw != 0))
    e.fail("features must have K·h·w values (a multiple of h·w = " + num(hw) + "), got " + num(f.size()));
  if (!e.ok()) return failed(e.message);
  return made(make_score_cam_plan(img, kImageSize, kImageSize, f, h, w, class_index, &e.message), e.message);
}

PlanHandle plan_rise(const val& image, int class_index, int n, int cells, double p, double seed) {
  Err e;
  std::vector<float> img;
  uint64_t s = 0;
  class_arg(class_index, e), seed_arg(seed, &s, e);
  if (!image224(image, &img, e)) return failed(e.message);
  return made(make_rise_plan(img, kImageSize, kImageSize, class_index, n, cells, p, s, &e.message), e.message);
}

PlanHandle plan_occlusion(const val& image, int class_index, int window, int stride) {
  Err e;
  std::vector<float> img;
  class_arg(class_index, e);
  if (!image224(image, &img, e)) return failed(e.message);
  return made(make_occlusion_plan(img, kImageSize, kImageSize, class_index, window, stride, &e.message), e.message);
}

PlanHandle plan_curve(CurveKind kind, const val& image, const val& saliency, int class_index, int steps) {
  Err e;
  std::vector<float> img, sal;
  class_arg(class_index, e), image224(image, &img, e);
  if (!map224(saliency, "saliency", &sal, e)) return failed(e.message);
  return made(make_curve_plan(kind, img, kImageSize, kImageSize, sal, class_index, steps, &e.message), e.message);
}
PlanHandle plan_deletion(const val& image, const val& saliency, int class_index, int steps) {
  return plan_curve(CurveKind::Deletion, image, saliency, class_index, steps);
}
PlanHandle plan_insertion(const val& image, const val& saliency, int class_index, int steps) {
  return plan_curve(CurveKind::Insertion, image, saliency, class_index, steps);
}

// ROAD (metrics/road.h): order 'morf' | 'lerf', the catalogue's percentages 10 … 90, noise (0–255 units), seed.
PlanHandle plan_road(const val& image, const val& saliency, int class_index, const val& order, double noise, double seed) {
  Err e;
  std::vector<float> img, sal;
  std::string o;
  uint64_t s = 0;
  class_arg(class_index, e), image224(image, &img, e), string_arg(order, "order", &o, e), seed_arg(seed, &s, e);
  if (e.ok() && o != "morf" && o != "lerf") e.fail("order must be morf or lerf, got '" + o + "'");
  if (!map224(saliency, "saliency", &sal, e)) return failed(e.message);
  return made(make_road_plan(o == "morf" ? RoadOrder::MostRelevantFirst : RoadOrder::LeastRelevantFirst, img, kImageSize,
                             kImageSize, sal, class_index, road_percentages(), noise, s, &e.message),
              e.message);
}

PlanHandle plan_explanation_mask(const val& image, const val& saliency, int class_index) {
  Err e;
  std::vector<float> img, sal;
  class_arg(class_index, e), image224(image, &img, e);
  if (!map224(saliency, "saliency", &sal, e)) return failed(e.message);
  return made(make_explanation_mask_plan(img, kImageSize, kImageSize, sal, class_index, &e.message), e.message);
}

// ---- the GAP + linear head, and the photo it explains ----

// The photo an ImageLab keeps: the 224² model input, its features, an optional label mask, and the maps made
// from it (min–max normalised, 224²) by name.
struct Photo {
  std::vector<float> image, features;
  int h = 0, w = 0;
  std::vector<uint8_t> mask;
  int positive = 1;
  double tolerance = 15;
  std::map<std::string, std::vector<float>> maps;
};

class ImageLab {
 public:
  // Never fails loudly: a bad argument leaves error() non-empty (the facade throws it).
  ImageLab(const val& weight, const val& bias, int classes, int channels) {
    Err e;
    auto head = std::make_shared<GapLinearHead<float>>();
    dim(classes, "C", e, 1 << 20), dim(channels, "K", e, 1 << 20);
    const size_t ck = static_cast<size_t>(classes) * channels;
    if (e.ok() && ck > (size_t(1) << 28)) e.fail("C·K is too large");
    f32(weight, "weight", &head->weight, e, ck, "C·K = " + num(ck));
    f32(bias, "bias", &head->bias, e, static_cast<size_t>(classes), "C = " + num(classes));
    error_ = e.message;
    if (!e.ok()) return;
    head->classes = classes;
    head->channels = channels;
    head_ = std::move(head);
  }

  std::string error() const { return error_; }
  int classes() const { return head_->classes; }
  int channels() const { return head_->channels; }

  val logits(const val& features, int n, int h, int w) const {
    Err e;
    std::vector<float> f;
    dim(n, "N", e, 1 << 16), dim(h, "h", e, 4096), dim(w, "w", e, 4096);
    const size_t size = static_cast<size_t>(n) * head_->channels * h * w;
    if (!f32(features, "features", &f, e, size, "N·K·h·w = " + num(size))) return error_val(e.message);
    std::vector<float> out(static_cast<size_t>(n) * head_->classes);
    head_->forward(f.data(), n, h * w, out.data());
    return out_f32(out);
  }

  val softmax(const val& logits, int n) const {
    Err e;
    std::vector<float> l;
    dim(n, "N", e, 1 << 16);
    const size_t size = static_cast<size_t>(n) * head_->classes;
    if (!f32(logits, "logits", &l, e, size, "N·C = " + num(size))) return error_val(e.message);
    return out_f32(softmax_rows(l.data(), n, head_->classes));
  }

  val map(const val& method, const val& features, int h, int w, int class_index, double seed) const {
    Err e;
    std::vector<float> f;
    dim(h, "h", e, 4096), dim(w, "w", e, 4096);
    const size_t size = static_cast<size_t>(head_->channels) * h * w;
    if (!f32(features, "features", &f, e, size, "K·h·w = " + num(size))) return error_val(e.message);
    std::vector<float> m;
    if (!feature_map(method, f, h, w, class_index, seed, &m, e)) return error_val(e.message);
    return out_f32(m);
  }

  // A new lab with redrawn weights (and the same photo); error() set on a bad seed.
  ImageLab randomized(double seed) const {
    Err e;
    uint64_t s = 0;
    if (!seed_arg(seed, &s, e)) return ImageLab(nullptr, nullptr, e.message);
    auto photo = photo_ ? std::make_shared<Photo>(*photo_) : nullptr;
    if (photo) photo->maps.clear();
    return ImageLab(std::make_shared<GapLinearHead<float>>(randomized_head(*head_, s)), photo, "");
  }

  // The photo to explain: model input [3·224·224] and features [K·h·w]; forgets the kept maps and the mask.
  val set_photo(const val& image, const val& features, int h, int w) {
    Err e;
    auto p = std::make_shared<Photo>();
    dim(h, "h", e, 4096), dim(w, "w", e, 4096), image224(image, &p->image, e);
    const size_t size = e.ok() ? static_cast<size_t>(head_->channels) * h * w : 0;
    if (!f32(features, "features", &p->features, e, size, "K·h·w = " + num(size))) return error_val(e.message);
    p->h = h, p->w = w;
    photo_ = std::move(p);
    return val::undefined();
  }

  // A label mask [224·224] for the pointing game and energy (null: none).
  val set_mask(const val& mask, int positive_label, double tolerance_px) {
    Err e;
    if (!photo_) return error_val("setMask: no photo (setPhoto first)");
    if (mask.isNull() || mask.isUndefined()) {
      photo_->mask.clear();
      return val::undefined();
    }
    if (!(tolerance_px >= 0)) e.fail("tolerancePx must be >= 0");
    std::vector<uint8_t> k;
    if (!mask224(mask, &k, e)) return error_val(e.message);
    photo_->mask = std::move(k);
    photo_->positive = positive_label;
    photo_->tolerance = tolerance_px;
    return val::undefined();
  }

  // map → upsample → min–max → overlay, in one call; the map is kept under the method's name.
  val render_map(const val& method, int class_index, double seed, const val& colormap, double opacity) {
    Err e;
    Colormap cm;
    std::vector<float> m;
    std::string name;
    if (!photo_) return error_val("renderMap: no photo (setPhoto first)");
    string_arg(method, "method", &name, e), colormap_arg(colormap, &cm, e), opacity_arg(opacity, e);
    if (!feature_map(method, photo_->features, photo_->h, photo_->w, class_index, seed, &m, e)) return error_val(e.message);
    return keep(name, upsample_bilinear(m.data(), photo_->h, photo_->w, kImageSize, kImageSize), cm, opacity);
  }

  // A plan's map [224·224] (Score-CAM, RISE, occlusion): normalised, kept under name, drawn.
  val put_map(const std::string& name, const val& map, const val& colormap, double opacity) {
    Err e;
    Colormap cm;
    std::vector<float> m;
    if (!photo_) return error_val("putMap: no photo (setPhoto first)");
    colormap_arg(colormap, &cm, e), opacity_arg(opacity, e);
    if (!map224(map, "map", &m, e)) return error_val(e.message);
    return keep(name, m, cm, opacity);
  }

  // The kept map drawn again with another colour map / opacity (nothing recomputed).
  val recolor(const std::string& name, const val& colormap, double opacity) const {
    Err e;
    Colormap cm;
    const std::vector<float>* m = kept(name, e);
    colormap_arg(colormap, &cm, e), opacity_arg(opacity, e);
    if (!e.ok()) return error_val(e.message);
    return out_rgba(overlay_rgba(photo_->image.data(), m->data(), kImageSize, kImageSize, static_cast<float>(opacity), cm));
  }

  // A plan on the kept photo (params: the catalogue's, defaults filled; curves read params.map, a kept map).
  PlanHandle plan(const std::string& kind, int class_index, const val& params_val) const;

 private:
  ImageLab(std::shared_ptr<const GapLinearHead<float>> head, std::shared_ptr<Photo> photo, std::string error)
      : head_(std::move(head)), photo_(std::move(photo)), error_(std::move(error)) {}

  bool feature_map(const val& method, const std::vector<float>& f, int h, int w, int class_index, double seed,
                   std::vector<float>* out, Err& e) const {
    std::string name;
    MapOptions options;
    ImageMethodFn fn = nullptr;
    if (string_arg(method, "method", &name, e) && !(fn = find_image_method(name)))
      e.fail("unknown map method '" + name + "' (cam, gradcam, gradcampp, random)");
    seed_arg(seed, &options.seed, e);
    if (e.ok() && (class_index < 0 || class_index >= head_->classes))
      e.fail("classIndex must be in 0.." + std::to_string(head_->classes - 1) + ", got " + std::to_string(class_index));
    if (!e.ok()) return false;
    *out = fn(FeatureMapsView{f.data(), head_->channels, h, w}, *head_, class_index, options);
    return true;
  }

  static bool opacity_arg(double opacity, Err& e) {
    return e.ok() && !(opacity >= 0 && opacity <= 1) ? e.fail("opacity must be in [0, 1]") : e.ok();
  }

  const std::vector<float>* kept(const std::string& name, Err& e) const {
    if (!photo_) return e.fail("no photo (setPhoto first)"), nullptr;
    auto it = photo_->maps.find(name);
    if (it == photo_->maps.end()) return e.fail("no kept map '" + name + "' for this photo"), nullptr;
    return &it->second;
  }

  // {map01, rgba, peak {x, y}, pointing? {hit, energy}}
  val keep(const std::string& name, const std::vector<float>& map224, Colormap cm, double opacity) {
    std::vector<float>& m = photo_->maps[name] = normalize_minmax(map224);
    size_t peak = 0;
    for (size_t i = 0; i < m.size(); ++i)
      if (m[i] > m[peak]) peak = i;
    val out = val::object(), xy = val::object();
    out.set("map01", out_f32(m));
    out.set("rgba", out_rgba(overlay_rgba(photo_->image.data(), m.data(), kImageSize, kImageSize, static_cast<float>(opacity), cm)));
    xy.set("x", static_cast<int>(peak % kImageSize));
    xy.set("y", static_cast<int>(peak / kImageSize));
    out.set("peak", xy);
    if (!photo_->mask.empty()) {
      val p = val::object();
      p.set("hit", pointing_game(m, photo_->mask, kImageSize, kImageSize, photo_->positive, photo_->tolerance));
      p.set("energy", energy_in_mask(m, photo_->mask, photo_->positive));
      out.set("pointing", p);
    }
    return out;
  }

  std::shared_ptr<const GapLinearHead<float>> head_;
  std::shared_ptr<Photo> photo_;
  std::string error_;
};

PlanHandle ImageLab::plan(const std::string& kind, int class_index, const val& params_val) const {
  Err e;
  json params;
  const ImageMethodInfo* info = find_image_method_info(kind);
  if (!photo_) return failed("plan: no photo (setPhoto first)");
  if (!info || info->kind == "map") return failed("unknown plan '" + kind + "' (scorecam, rise, occlusion, deletion, insertion, explanationMask)");
  object_arg(params_val, "plan parameters", &params, e), class_arg(class_index, e);
  if (e.ok()) e.fail(check_params(info->params, params));
  const std::vector<float>* saliency = nullptr;
  if (e.ok() && info->kind == "metric") {
    std::string name;
    if (!params.contains("map") || !params["map"].is_string()) e.fail("the " + kind + " plan needs params.map, the name of a kept map");
    else saliency = kept(params["map"].get<std::string>(), e);
  }
  if (!e.ok()) return failed(e.message);
  auto get = [&](const char* key) { return param_or_default(info->params, params, key); };
  const std::vector<float>& img = photo_->image;
  const int S = kImageSize;
  std::unique_ptr<ImagePlan> p;
  if (kind == "scorecam") p = make_score_cam_plan(img, S, S, photo_->features, photo_->h, photo_->w, class_index, &e.message);
  if (kind == "rise")
    p = make_rise_plan(img, S, S, class_index, get("n").get<int>(), get("cells").get<int>(), get("p").get<double>(),
                       get("seed").get<uint64_t>(), &e.message);
  if (kind == "occlusion")
    p = make_occlusion_plan(img, S, S, class_index, get("window").get<int>(), get("stride").get<int>(), &e.message);
  if (kind == "deletion" || kind == "insertion")
    p = make_curve_plan(kind == "deletion" ? CurveKind::Deletion : CurveKind::Insertion, img, S, S, *saliency, class_index,
                        get("steps").get<int>(), &e.message);
  if (kind == "explanationMask") p = make_explanation_mask_plan(img, S, S, *saliency, class_index, &e.message);
  return made(std::move(p), e.message);
}

// ---- localisation metrics, rank correlation, erasing ----

val pointing_game_js(const val& map, const val& mask, int positive_label, double tolerance_px) {
  Err e;
  std::vector<float> m;
  std::vector<uint8_t> k;
  if (!(tolerance_px >= 0)) e.fail("tolerancePx must be >= 0");
  map224(map, "map", &m, e);
  if (!mask224(mask, &k, e)) return error_val(e.message);
  return val(pointing_game(m, k, kImageSize, kImageSize, positive_label, tolerance_px));
}

val energy_in_mask_js(const val& map, const val& mask, int positive_label) {
  Err e;
  std::vector<float> m;
  std::vector<uint8_t> k;
  map224(map, "map", &m, e);
  if (!mask224(mask, &k, e)) return error_val(e.message);
  return val(energy_in_mask(m, k, positive_label));
}

val mask_iou_js(const val& map, const val& mask, int positive_label, double threshold) {
  Err e;
  std::vector<float> m;
  std::vector<uint8_t> k;
  map224(map, "map", &m, e);
  if (!mask224(mask, &k, e)) return error_val(e.message);
  return val(mask_iou(m, k, positive_label, threshold));
}

val spearman_maps_js(const val& a, const val& b) {
  Err e;
  std::vector<float> x, y;
  if (f32(a, "a", &x, e)) f32(b, "b", &y, e, x.size(), "the same number of values as a (" + num(x.size()) + ")");
  if (!e.ok()) return error_val(e.message);
  return val(spearman_maps(x, y));
}

val erase_region_js(const val& image, const val& map01, double threshold, const val& fill) {
  Err e;
  std::string name;
  EraseFill f = EraseFill::Grey;
  std::vector<float> img, m;
  if (string_arg(fill, "fill", &name, e) && !parse_erase_fill(name, &f))
    e.fail("unknown fill '" + name + "' (mean, blur, grey)");
  image224(image, &img, e);
  if (!map224(map01, "map01", &m, e)) return error_val(e.message);
  return out_f32(erase_region(img, m, kImageSize, kImageSize, threshold, f));
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_image) {
  emscripten::function("_raw_preprocessImage", &preprocess_image);
  emscripten::function("_raw_preprocessMask", &preprocess_mask_js);
  emscripten::function("_raw_upsampleMap", &upsample_map);
  emscripten::function("_raw_normalizeMap", &normalize_map);
  emscripten::function("_raw_colorizeMap", &colorize_map);
  emscripten::function("_raw_overlayMap", &overlay_map);
  emscripten::function("_raw_imageMethodNames", &image_method_names_json);
  emscripten::class_<ImageLab>("_raw_ImageLab")
      .constructor<const val&, const val&, int, int>()
      .function("setPhoto", &ImageLab::set_photo)
      .function("setMask", &ImageLab::set_mask)
      .function("renderMap", &ImageLab::render_map)
      .function("putMap", &ImageLab::put_map)
      .function("recolor", &ImageLab::recolor)
      .function("plan", &ImageLab::plan)
      .function("error", &ImageLab::error)
      .function("classes", &ImageLab::classes)
      .function("channels", &ImageLab::channels)
      .function("logits", &ImageLab::logits)
      .function("softmax", &ImageLab::softmax)
      .function("map", &ImageLab::map)
      .function("randomized", &ImageLab::randomized);
  emscripten::class_<PlanHandle>("_raw_ImagePlan")
      .function("error", &PlanHandle::error)
      .function("count", &PlanHandle::count)
      .function("done", &PlanHandle::done)
      .function("accepted", &PlanHandle::accepted)
      .function("inputs", &PlanHandle::inputs)
      .function("accept", &PlanHandle::accept)
      .function("acceptN", &PlanHandle::accept_n)
      .function("result", &PlanHandle::result)
      .function("resultJson", &PlanHandle::result_json);
  emscripten::function("_raw_planScoreCam", &plan_score_cam);
  emscripten::function("_raw_planRise", &plan_rise);
  emscripten::function("_raw_planOcclusion", &plan_occlusion);
  emscripten::function("_raw_planDeletion", &plan_deletion);
  emscripten::function("_raw_planInsertion", &plan_insertion);
  emscripten::function("_raw_planExplanationMask", &plan_explanation_mask);
  emscripten::function("_raw_planRoad", &plan_road);
  emscripten::function("_raw_pointingGame", &pointing_game_js);
  emscripten::function("_raw_energyInMask", &energy_in_mask_js);
  emscripten::function("_raw_maskIoU", &mask_iou_js);
  emscripten::function("_raw_spearmanMaps", &spearman_maps_js);
  emscripten::function("_raw_eraseRegion", &erase_region_js);
}
