// The only Embind code for the image lab (contract: docs/DESIGN.md "Image core API"). Owns no math: it
// checks types and sizes, copies typed arrays into the wasm heap, calls core/, and copies results out
// (fresh typed arrays, never views of the heap).
// Errors: nothing is thrown inside wasm (a JS exception unwinding through wasm frames would skip C++
// destructors and leave the stack pointer lowered, leaking memory on every error). The raw Embind
// functions (names starting "_img_") return a JS Error object instead of their result, or a handle whose
// error() is non-empty; the small JS facade installed at start-up (install_image_facade below) exposes
// the public names (preprocessImage, ImageLab, planRise, …) and throws those Errors from JS.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/em_macros.h>
#include <emscripten/val.h>

#include "explain/image/image_method.h"
#include "explain/image/plan.h"
#include "image/colormap.h"
#include "image/erase.h"
#include "image/map_ops.h"
#include "image/preprocess.h"
#include "metrics/deletion_insertion.h"
#include "metrics/localization.h"
#include "nn/gap_linear_head.h"

namespace {

using emscripten::val;
using namespace attnlab;

const size_t kPlane = static_cast<size_t>(kImageSize) * kImageSize;
const int kModelClasses = 1001;  // MobileNetV2 (index 0 = background): accept(start, logits) assumes it

std::string num(size_t n) { return std::to_string(n); }

// The first error of a call (later checks keep it).
struct Err {
  std::string message;
  bool fail(const std::string& m) {
    if (message.empty()) message = m;
    return false;
  }
  bool ok() const { return message.empty(); }
};

val error_val(const std::string& message) { return val::global("Error").new_(val(message)); }

// Copies a typed array (JS type names in `types`) with exactly `expected` elements (SIZE_MAX: any);
// `what` names the size in the message, e.g. "K·h·w = 62720".
template <class T>
bool copy_array(const val& v, const char* name, std::initializer_list<const char*> types, size_t expected,
                const std::string& what, std::vector<T>* out, Err& e) {
  if (!e.ok()) return false;
  bool typed = false;
  for (const char* t : types) typed = typed || v.instanceof(val::global(t));
  if (!typed) {
    std::string list;
    for (const char* t : types) list += (list.empty() ? "" : " or ") + std::string(t);
    return e.fail(std::string(name) + " must be a " + list);
  }
  const size_t n = v["length"].as<size_t>();
  if (expected != SIZE_MAX && n != expected)
    return e.fail(std::string(name) + " must have " + what + " values, got " + num(n));
  out->resize(n);
  if (n) val(emscripten::typed_memory_view(n, out->data())).call<void>("set", v);
  return true;
}

bool f32(const val& v, const char* name, std::vector<float>* out, Err& e, size_t expected = SIZE_MAX,
         const std::string& what = "") {
  return copy_array<float>(v, name, {"Float32Array"}, expected, what.empty() ? num(expected) : what, out, e);
}
bool u8(const val& v, const char* name, std::vector<uint8_t>* out, Err& e, size_t expected = SIZE_MAX,
        const std::string& what = "") {
  return copy_array<uint8_t>(v, name, {"Uint8Array", "Uint8ClampedArray"}, expected,
                             what.empty() ? num(expected) : what, out, e);
}
bool image224(const val& v, std::vector<float>* out, Err& e) {
  return f32(v, "image", out, e, 3 * kPlane, "3·224·224 = " + num(3 * kPlane));
}
bool map224(const val& v, const char* name, std::vector<float>* out, Err& e) {
  return f32(v, name, out, e, kPlane, "224·224 = " + num(kPlane));
}
bool mask224(const val& v, std::vector<uint8_t>* out, Err& e) {
  return u8(v, "mask", out, e, kPlane, "224·224 = " + num(kPlane));
}

bool dim(int v, const char* name, Err& e, int max = 16384) {
  if (!e.ok()) return false;
  if (v < 1 || v > max)
    return e.fail(std::string(name) + " must be an integer in 1.." + std::to_string(max) + ", got " + std::to_string(v));
  return true;
}

bool seed_arg(double seed, uint64_t* out, Err& e) {
  if (!e.ok()) return false;
  if (!(seed >= 0) || seed != std::floor(seed) || seed > 9007199254740991.0)
    return e.fail("seed must be a non-negative integer");
  *out = static_cast<uint64_t>(seed);
  return true;
}

bool string_arg(const val& v, const char* name, std::string* out, Err& e) {
  if (!e.ok()) return false;
  if (!v.isString()) return e.fail(std::string(name) + " must be a string");
  *out = v.as<std::string>();
  return true;
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

val out_f32(const std::vector<float>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}
val out_u8(const std::vector<uint8_t>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}
val out_rgba(const std::vector<uint8_t>& v) {
  return val::global("Uint8ClampedArray").new_(val(emscripten::typed_memory_view(v.size(), v.data())));
}

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

// ---- the GAP + linear head ----

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
  int classes() const { return head_ ? head_->classes : 0; }
  int channels() const { return head_ ? head_->channels : 0; }

  val logits(const val& features, int n, int h, int w) const {
    Err e;
    std::vector<float> f;
    if (!head_) return error_val("ImageLab was not constructed: " + error_);
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
    if (!head_) return error_val("ImageLab was not constructed: " + error_);
    dim(n, "N", e, 1 << 16);
    const size_t size = static_cast<size_t>(n) * head_->classes;
    if (!f32(logits, "logits", &l, e, size, "N·C = " + num(size))) return error_val(e.message);
    return out_f32(softmax_rows(l.data(), n, head_->classes));
  }

  val map(const val& method, const val& features, int h, int w, int class_index, double seed) const {
    Err e;
    std::string name;
    std::vector<float> f;
    MapOptions options;
    if (!head_) return error_val("ImageLab was not constructed: " + error_);
    ImageMethodFn fn = nullptr;
    if (string_arg(method, "method", &name, e) && !(fn = find_image_method(name)))
      e.fail("unknown map method '" + name + "' (cam, gradcam, gradcampp, random)");
    dim(h, "h", e, 4096), dim(w, "w", e, 4096), seed_arg(seed, &options.seed, e);
    if (e.ok() && (class_index < 0 || class_index >= head_->classes))
      e.fail("classIndex must be in 0.." + std::to_string(head_->classes - 1) + ", got " + std::to_string(class_index));
    const size_t size = static_cast<size_t>(head_->channels) * h * w;
    if (!f32(features, "features", &f, e, size, "K·h·w = " + num(size))) return error_val(e.message);
    const FeatureMapsView view{f.data(), head_->channels, h, w};
    return out_f32(fn(view, *head_, class_index, options));
  }

  // A new lab with redrawn weights; error() set on a bad seed.
  ImageLab randomized(double seed) const {
    Err e;
    uint64_t s = 0;
    if (!head_) return ImageLab(nullptr, "ImageLab was not constructed: " + error_);
    if (!seed_arg(seed, &s, e)) return ImageLab(nullptr, e.message);
    return ImageLab(std::make_shared<GapLinearHead<float>>(randomized_head(*head_, s)), "");
  }

 private:
  ImageLab(std::shared_ptr<const GapLinearHead<float>> head, std::string error)
      : head_(std::move(head)), error_(std::move(error)) {}
  std::shared_ptr<const GapLinearHead<float>> head_;
  std::string error_;
};

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

PlanHandle plan_explanation_mask(const val& image, const val& saliency, int class_index) {
  Err e;
  std::vector<float> img, sal;
  class_arg(class_index, e), image224(image, &img, e);
  if (!map224(saliency, "saliency", &sal, e)) return failed(e.message);
  return made(make_explanation_mask_plan(img, kImageSize, kImageSize, sal, class_index, &e.message), e.message);
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

// The public JS names: thin wrappers over the raw "_img_" bindings that throw the returned Errors.
// Runs once while the module starts (from the EMSCRIPTEN_BINDINGS block below); looks the raw bindings up
// at call time, so the order in which Embind registers them does not matter.
EM_JS(void, install_image_facade, (), {
  var M = Module;
  function check(r) {
    if (r instanceof Error) throw r;
    return r;
  }
  function checkHandle(raw) {
    var e = raw.error();
    if (e) {
      raw.delete();
      throw new Error(e);
    }
    return raw;
  }
  ["preprocessImage", "preprocessMask", "upsampleMap", "normalizeMap", "colorizeMap", "overlayMap",
   "pointingGame", "energyInMask", "maskIoU", "spearmanMaps", "eraseRegion", "imageMethodNames"].forEach(function(name) {
    M[name] = function() { return check(M["_img_" + name].apply(null, arguments)); };
  });
  function ImageLab(weight, bias, C, K) {
    if (!(this instanceof ImageLab)) throw new Error("ImageLab must be called with new");
    this._raw = weight && weight._imgRaw ? weight._imgRaw : checkHandle(new M._img_ImageLab(weight, bias, C, K));
  }
  ["logits", "softmax", "map", "classes", "channels"].forEach(function(name) {
    ImageLab.prototype[name] = function() { return check(this._raw[name].apply(this._raw, arguments)); };
  });
  ImageLab.prototype.randomized = function(seed) {
    return new ImageLab({ _imgRaw: checkHandle(this._raw.randomized(seed)) });
  };
  ImageLab.prototype.delete = function() { this._raw.delete(); };
  M.ImageLab = ImageLab;
  function ImagePlan(raw) { this._raw = raw; }
  ["count", "done", "accepted", "inputs", "accept", "acceptN", "result", "resultJson"].forEach(function(name) {
    ImagePlan.prototype[name] = function() { return check(this._raw[name].apply(this._raw, arguments)); };
  });
  ImagePlan.prototype.delete = function() { this._raw.delete(); };
  M.ImagePlan = ImagePlan;
  ["planScoreCam", "planRise", "planOcclusion", "planDeletion", "planInsertion", "planExplanationMask"].forEach(function(name) {
    M[name] = function() { return new ImagePlan(checkHandle(M["_img_" + name].apply(null, arguments))); };
  });
});

EMSCRIPTEN_BINDINGS(attnlab_image) {
  emscripten::function("_img_preprocessImage", &preprocess_image);
  emscripten::function("_img_preprocessMask", &preprocess_mask_js);
  emscripten::function("_img_upsampleMap", &upsample_map);
  emscripten::function("_img_normalizeMap", &normalize_map);
  emscripten::function("_img_colorizeMap", &colorize_map);
  emscripten::function("_img_overlayMap", &overlay_map);
  emscripten::function("_img_imageMethodNames", &image_method_names_json);
  emscripten::class_<ImageLab>("_img_ImageLab")
      .constructor<const val&, const val&, int, int>()
      .function("error", &ImageLab::error)
      .function("classes", &ImageLab::classes)
      .function("channels", &ImageLab::channels)
      .function("logits", &ImageLab::logits)
      .function("softmax", &ImageLab::softmax)
      .function("map", &ImageLab::map)
      .function("randomized", &ImageLab::randomized);
  emscripten::class_<PlanHandle>("_img_ImagePlan")
      .function("error", &PlanHandle::error)
      .function("count", &PlanHandle::count)
      .function("done", &PlanHandle::done)
      .function("accepted", &PlanHandle::accepted)
      .function("inputs", &PlanHandle::inputs)
      .function("accept", &PlanHandle::accept)
      .function("acceptN", &PlanHandle::accept_n)
      .function("result", &PlanHandle::result)
      .function("resultJson", &PlanHandle::result_json);
  emscripten::function("_img_planScoreCam", &plan_score_cam);
  emscripten::function("_img_planRise", &plan_rise);
  emscripten::function("_img_planOcclusion", &plan_occlusion);
  emscripten::function("_img_planDeletion", &plan_deletion);
  emscripten::function("_img_planInsertion", &plan_insertion);
  emscripten::function("_img_planExplanationMask", &plan_explanation_mask);
  emscripten::function("_img_pointingGame", &pointing_game_js);
  emscripten::function("_img_energyInMask", &energy_in_mask_js);
  emscripten::function("_img_maskIoU", &mask_iou_js);
  emscripten::function("_img_spearmanMaps", &spearman_maps_js);
  emscripten::function("_img_eraseRegion", &erase_region_js);
  install_image_facade();
}
