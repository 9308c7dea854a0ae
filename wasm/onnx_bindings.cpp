// The only Embind code for "Your model" (issue 11): a user's ONNX image classifier run forward and backward by
// the core's executor (core/onnx, core/explain/onnx). Owns no math: the graph summary and every map come from
// core/explain/onnx/onnx_explain.h (shared with `attnlab onnx-info` / `explain-onnx`), the input scaling from
// core/image/model_input.h. Errors as docs/DESIGN.md "Binding convention"; wasm/facade.js exposes:
//   Module.onnxInfo(bytes Uint8Array, inputSize = 0) → the onnx-info object (summary, runnable, error,
//       input_shape, classes, spatial_layers, auto_layer); an unreadable file → Error.
//   new Module.OnnxLab(bytes, inputSize = 0) → throws when the model cannot run (unsupported operators, not an
//       image classifier …). inputSize fixes a symbolic H = W (0: the model's, else 224).
//   lab.info() → {input_shape [1, C, H, W], classes, spatial_layers [{name, op, shape}], auto_layer}
//   lab.setPhoto(planar Float32Array [3·224·224] 0–255, scaling 'imagenet'|'unit'|'raw'|'signed')
//       → logits Float32Array [classes]; the photo's model input is kept for explain / layerActivation.
//   lab.explain(method, layer = 'auto', classIndex = -1, options = {samples, noise, steps, seed})
//       → {class, logits, layer, map_shape [h, w], map Float32Array [h·w] (before upsampling), …extras}
//   lab.sanity(method, layer = 'auto', classIndex = -1, seed = 1, options = {}) → {class, layer, map_shape, map,
//       randomized_map, spearman, shuffled, randomized_class}: the map again with the weights after the layer shuffled
//   lab.layerActivation(layer) → {k, h, w, data Float32Array [k·h·w]} of the kept photo (Score-CAM's features)
//   lab.logitsOf(images Float32Array [n·3·224·224] 0–255, n) → logits Float32Array [n·classes] (plans), with
//       the scaling of the last setPhoto.
//   new Module.OnnxRunner(bytes) → an image classifier loaded for forward passes only (nothing run yet);
//   runner.run(input Float32Array [C·H·W] in the model's own units, names [value names]) → {name: {dims, data
//       Float32Array}}: one inference pass that keeps only the graph outputs and those names (the Images tab's first
//       photo while ONNX Runtime Web starts: labs/image-model.js).
//   Module.modelInput(images Float32Array [n·3·224·224] 0–255, n, scaling, size, channels = 3)
//       → Float32Array [n·channels·size·size]: what setPhoto / logitsOf feed the model (core/image/model_input.h),
//       for a model the core cannot run and ONNX Runtime Web runs instead (labs/own-model.js, engine 'ort').
//   Module.exposeAttention(bytes) → {bytes Uint8Array, outputs [names]}: the model with the attention distributions
//       the core finds made graph outputs (core/onnx/graph_outputs.h), for ONNX Runtime Web to return them.
//   Module.vitMapFromAttention(method 'attention'|'rollout', [{name, dims, data Float32Array}] in layer order)
//       → {map Float32Array, map_shape [h, w], tokens, class_tokens, layers, heads, note?} (core/explain/onnx/
//       vit_maps.h: the same map the core computes from its own forward pass).
#include <memory>
#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <nlohmann/json.hpp>

#include "boundary.h"
#include "explain/onnx/attention_layers.h"
#include "explain/onnx/method_catalogue.h"
#include "explain/onnx/vit_maps.h"
#include "onnx/graph_outputs.h"
#include "explain/onnx/onnx_explain.h"
#include "image/model_input.h"
#include "image/preprocess.h"

namespace {

using nlohmann::json;
using namespace attnlab;
using namespace attnlab::wasm;

constexpr size_t kPlanar = 3ull * kImageSize * kImageSize;

bool model_bytes(const val& bytes, std::vector<uint8_t>* out, Err& e) { return u8(bytes, "model", out, e); }

bool input_size_arg(int size, Err& e) {
  if (size == 0) return true;
  return dim(size, "inputSize", e, 4096);
}

val onnx_info_js(const val& bytes, int input_size) {
  Err e;
  std::vector<uint8_t> b;
  if (!model_bytes(bytes, &b, e) || !input_size_arg(input_size, e)) return error_val(e.message);
  json out;
  std::string err;
  if (!onnx_info(b.data(), b.size(), input_size, &out, &err)) return error_val(err);
  return out_json(out);
}

val expose_attention_js(const val& bytes) {
  Err e;
  std::vector<uint8_t> b, out;
  std::vector<std::string> names;
  std::string err;
  if (!model_bytes(bytes, &b, e)) return error_val(e.message);
  if (!onnx::expose_attention(b.data(), b.size(), &out, &names, &err)) return error_val(err);
  val v = val::object();
  v.set("bytes", out_array(out));
  v.set("outputs", out_json(names));
  return v;
}

val vit_map_from_attention_js(const val& method, const val& tensors) {
  Err e;
  std::string m;
  string_arg(method, "method", &m, e);
  std::vector<AttentionValues> values;
  if (e.ok() && !tensors.isArray()) e.fail("tensors must be an array of {name, dims, data}");
  const size_t n = e.ok() ? tensors["length"].as<size_t>() : 0;
  if (n > 4096) e.fail("more than 4096 attention layers");
  for (size_t i = 0; e.ok() && i < n; ++i) {
    const val t = tensors[i];
    AttentionValues a;
    if (!t["name"].isString() || !t["dims"].isArray()) {
      e.fail("tensor " + num(i) + " must have a name and dims");
      break;
    }
    a.name = t["name"].as<std::string>();
    const size_t rank = t["dims"]["length"].as<size_t>();
    size_t count = 1;
    for (size_t k = 0; k < rank && k < 8; ++k) {
      const double d = t["dims"][k].as<double>();
      if (!(d >= 0 && d <= 65536 && d == std::floor(d))) e.fail("tensor '" + a.name + "' has a bad dimension");
      a.shape.push_back(static_cast<int64_t>(d));
      count *= static_cast<size_t>(d);  // ≤ 2^26 · 2^16 before the check below: no overflow
      if (count > (size_t{1} << 26)) {
        e.fail("tensor '" + a.name + "' is larger than 2^26 values");
        break;
      }
    }
    if (rank > 8) e.fail("tensor '" + a.name + "' has rank " + num(rank));
    f32(t["data"], "data", &a.data, e, count, "the dims' product = " + num(count));
    values.push_back(std::move(a));
  }
  std::vector<std::vector<Mat<double>>> A;
  std::string err;
  InputMapResult r;
  if (e.ok() && !(attention_layers_of(values, &A, &err) && vit_map_from_layers(m, std::move(A), &r, &err))) e.fail(err);
  if (!e.ok()) return error_val(e.message);
  json out = r.extra;
  out["map_shape"] = {r.h, r.w};
  val v = out_json(out);
  v.set("map", out_array(r.map));
  return v;
}

val model_input_js(const val& images, int n, const val& scaling, int size, int channels) {
  Err e;
  std::vector<float> all;
  std::string name, err;
  InputScaling s = InputScaling::Imagenet;
  if (dim(n, "n", e, 4096)) f32(images, "images", &all, e, n * kPlanar, "n·3·224·224 = " + num(n * kPlanar));
  if (string_arg(scaling, "scaling", &name, e) && !parse_input_scaling(name, &s, &err)) e.fail(err);
  if (dim(size, "size", e, 4096) && channels != 1 && channels != 3) e.fail("channels must be 1 or 3, got " + std::to_string(channels));
  std::vector<float> out, x;
  for (int i = 0; e.ok() && i < n; ++i) {
    if (!model_input_from_planar(all.data() + i * kPlanar, kImageSize, channels, size, size, s, &x, &err)) e.fail(err);
    else out.insert(out.end(), x.begin(), x.end());
  }
  if (!e.ok()) return error_val(e.message);
  return out_array(out);
}

class OnnxLab {
 public:
  OnnxLab(const val& bytes, int input_size) {
    Err e;
    std::vector<uint8_t> b;
    std::string err;
    if (model_bytes(bytes, &b, e) && input_size_arg(input_size, e)) {
      if (!clf_.load(b.data(), b.size(), &err)) {
        e.fail(err);
      } else {
        if (input_size > 0) clf_.set_input_size(input_size);
        const auto s = clf_.input_shape();
        std::vector<float> zeros(static_cast<size_t>(s[1] * s[2] * s[3]), 0.f);
        if (!clf_.forward(zeros.data(), zeros.size(), &err)) e.fail(err);
        else info_ = {{"input_shape", s}, {"classes", clf_.num_classes()}, {"spatial_layers", spatial_layers_json(clf_)},
                      {"auto_layer", clf_.auto_layer()}};
      }
    }
    error_ = e.message;
  }
  std::string error() const { return error_; }
  val info() const { return out_json(info_); }

  val set_photo(const val& planar, const val& scaling) {
    Err e;
    std::vector<float> rgb;
    std::string name;
    if (f32(planar, "photo", &rgb, e, kPlanar, "3·224·224 = " + num(kPlanar)) && string_arg(scaling, "scaling", &name, e)) {
      std::string err;
      InputScaling s;
      std::vector<float> x;
      if (!parse_input_scaling(name, &s, &err) || !to_input(rgb.data(), s, &x, &err) ||
          !clf_.forward(x.data(), x.size(), &err))
        e.fail(err);
      else {
        scaling_ = s;
        x_ = std::move(x);
      }
    }
    if (!e.ok()) return error_val(e.message);
    return out_array(clf_.logits());
  }

  val explain(const val& method, const val& layer, int class_index, const val& options) {
    return run(method, layer, class_index, options, false, 0);
  }

  // The sanity check (onnx_explain.h onnx_sanity): the map and the map of the network with its weights after the
  // layer shuffled → {…, map, randomized_map (Float32Arrays), spearman, shuffled, randomized_class}.
  val sanity(const val& method, const val& layer, int class_index, double seed, const val& options) {
    Err e;
    uint64_t s = 0;
    if (!seed_arg(seed, &s, e)) return error_val(e.message);
    return run(method, layer, class_index, options, true, s);
  }

  val layer_activation(const val& layer) {
    Err e;
    std::string name, err;
    LayerTensors L;
    if (x_.empty()) e.fail("no photo: call setPhoto first");
    if (string_arg(layer, "layer", &name, e) && (!clf_.forward(x_.data(), x_.size(), &err) || !clf_.layer(name, &L, &err)))
      e.fail(err);
    if (!e.ok()) return error_val(e.message);
    val v = val::object();
    v.set("k", L.k);
    v.set("h", L.h);
    v.set("w", L.w);
    v.set("data", out_array(L.activation));
    return v;
  }

  val logits_of(const val& images, int n) {
    Err e;
    std::vector<float> all;
    if (dim(n, "n", e, 4096)) f32(images, "images", &all, e, n * kPlanar, "n·3·224·224 = " + num(n * kPlanar));
    std::vector<float> logits, x;
    std::string err;
    for (int i = 0; e.ok() && i < n; ++i) {
      if (!to_input(all.data() + i * kPlanar, scaling_, &x, &err) || !clf_.forward(x.data(), x.size(), &err)) e.fail(err);
      else logits.insert(logits.end(), clf_.logits().begin(), clf_.logits().end());
    }
    if (!e.ok()) return error_val(e.message);
    return out_array(logits);
  }

 private:
  val run(const val& method, const val& layer, int class_index, const val& options, bool sanity, uint64_t seed) {
    Err e;
    OnnxExplainRequest r;
    json o;
    if (x_.empty()) e.fail("no photo: call setPhoto first");
    string_arg(method, "method", &r.method, e);
    string_arg(layer, "layer", &r.layer, e);
    if (object_arg(options, "options", &o, e)) e.fail(onnx_options_from_json(o, &r.options));  // fail(""): no error
    r.class_index = class_index;
    json out;
    std::string err;
    if (e.ok() && !(sanity ? onnx_sanity(clf_, x_, r, seed, &out, &err) : onnx_explain(clf_, x_, r, &out, &err))) e.fail(err);
    if (!e.ok()) return error_val(e.message);
    std::vector<std::pair<std::string, std::vector<float>>> arrays;
    for (const char* key : {"map", "randomized_map"})
      if (out.contains(key)) {
        arrays.emplace_back(key, out[key].get<std::vector<float>>());
        out.erase(key);
      }
    val v = out_json(out);
    for (const auto& [key, a] : arrays) v.set(key, out_array(a));
    return v;
  }

  bool to_input(const float* rgb, InputScaling s, std::vector<float>* x, std::string* err) const {
    const auto shape = clf_.input_shape();
    return model_input_from_planar(rgb, kImageSize, static_cast<int>(shape[1]), static_cast<int>(shape[2]),
                                   static_cast<int>(shape[3]), s, x, err);
  }
  OnnxClassifier clf_;
  json info_ = json::object();
  std::string error_;
  std::vector<float> x_;
  InputScaling scaling_ = InputScaling::Imagenet;
};

// A classifier run forward only (the Images tab's first photo while ONNX Runtime starts): loaded without a pass,
// each run keeps only the graph outputs and the values asked for (Executor::forward's inference pass).
class OnnxRunner {
 public:
  explicit OnnxRunner(const val& bytes) {
    Err e;
    std::vector<uint8_t> b;
    std::string err;
    if (model_bytes(bytes, &b, e) && !clf_.load(b.data(), b.size(), &err)) e.fail(err);
    error_ = e.message;
  }
  std::string error() const { return error_; }

  val run(const val& input, const val& names) {
    Err e;
    std::vector<float> x;
    std::vector<std::string> want;
    const auto s = clf_.input_shape();
    const size_t n = static_cast<size_t>(s[1] * s[2] * s[3]);
    f32(input, "input", &x, e, n, "C·H·W = " + num(n));
    if (e.ok() && !names.isArray()) e.fail("names must be an array of value names");
    for (size_t k = 0; e.ok() && k < names["length"].as<size_t>(); ++k) {
      std::string name;
      if (string_arg(names[k], "each name", &name, e)) want.push_back(name);
    }
    std::string err;
    if (e.ok() && !clf_.forward(x.data(), x.size(), &err, &want)) e.fail(err);
    val out = val::object();
    for (size_t k = 0; e.ok() && k < want.size(); ++k) {
      const onnx::Tensor<float>* t = clf_.executor().value(want[k]);
      if (!t || !t->is_float()) {
        e.fail("the model has no float value named '" + want[k] + "'");
        break;
      }
      val v = val::object();
      v.set("dims", out_json(t->shape));
      v.set("data", out_array(t->f));
      out.set(want[k], v);
    }
    if (!e.ok()) return error_val(e.message);
    return out;
  }

 private:
  OnnxClassifier clf_;
  std::string error_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_onnx) {
  emscripten::class_<OnnxRunner>("_raw_OnnxRunner")
      .constructor<const val&>()
      .function("error", &OnnxRunner::error)
      .function("run", &OnnxRunner::run);
  emscripten::function("_raw_onnxInfo", &onnx_info_js);
  emscripten::function("_raw_modelInput", &model_input_js);
  emscripten::function("_raw_exposeAttention", &expose_attention_js);
  emscripten::function("_raw_vitMapFromAttention", &vit_map_from_attention_js);
  emscripten::class_<OnnxLab>("_raw_OnnxLab")
      .constructor<const val&, int>()
      .function("error", &OnnxLab::error)
      .function("info", &OnnxLab::info)
      .function("setPhoto", &OnnxLab::set_photo)
      .function("explain", &OnnxLab::explain)
      .function("sanity", &OnnxLab::sanity)
      .function("layerActivation", &OnnxLab::layer_activation)
      .function("logitsOf", &OnnxLab::logits_of);
}
