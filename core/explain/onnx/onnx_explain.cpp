// onnx-info / explain-onnx, shared by the CLI and the wasm OnnxLab (see onnx_explain.h).
#include "explain/onnx/onnx_explain.h"

#include <algorithm>
#include <cmath>

#include "explain/onnx/layer_method.h"
#include "explain/onnx/method_catalogue.h"
#include "explain/onnx/vit_maps.h"
#include "explain/onnx_text/onnx_text_model.h"
#include "metrics/spearman.h"
#include "onnx/reader.h"

namespace attnlab {

using nlohmann::json;

json spatial_layers_json(const OnnxClassifier& clf) {
  json layers = json::array();
  for (const auto& l : clf.spatial_layers())
    layers.push_back({{"name", l.name}, {"op", l.op}, {"shape", {l.channels, l.height, l.width}},
                      {"class_tokens", l.class_tokens}});
  return layers;
}

bool onnx_info(const uint8_t* bytes, size_t size, int input_size, json* out, std::string* error) {
  onnx::Model m;
  if (!onnx::read_model(bytes, size, &m, error)) return false;
  *out = OnnxClassifier::summarize(m);
  OnnxClassifier clf;
  std::string load_err;
  if (clf.load(bytes, size, &load_err)) {
    if (input_size > 0) clf.set_input_size(input_size);
    const auto shape = clf.input_shape();
    std::vector<float> zeros(static_cast<size_t>(shape[1] * shape[2] * shape[3]), 0.f);
    json layers = json::array();
    if (clf.forward(zeros.data(), zeros.size(), &load_err)) {
      layers = spatial_layers_json(clf);
      (*out)["classes"] = clf.num_classes();
      (*out)["auto_layer"] = clf.auto_layer();
    }
    (*out)["input_shape"] = shape;
    (*out)["spatial_layers"] = layers;
  }
  (*out)["kind"] = "image";
  (*out)["runnable"] = load_err.empty();
  (*out)["error"] = load_err;
  // A graph that reads integer token ids is not an image classifier: when the text path (explain-onnx-text, the Text
  // tab's "Your model") runs it on one token (id 0), it is described as a text model (kind "text", runnable, and
  // what that path found) instead of the image path's refusal; else text_error says why that path refused it too.
  const bool token_ids = std::any_of(m.inputs.begin(), m.inputs.end(), [](const onnx::ValueInfo& vi) {
    return vi.dtype == onnx::kInt64 || vi.dtype == onnx::kInt32;
  });
  if (!load_err.empty() && token_ids) {
    OnnxTextModel text;
    std::string text_err;
    if (text.load(bytes, size, "", &text_err) && text.run({0}, &text_err)) {
      (*out)["kind"] = "text";
      (*out)["runnable"] = true;
      (*out)["error"] = "";
      (*out)["text"] = {{"causal", text.causal()},
                        {"output", text.output_name()},
                        {"outputs", text.logits().size()},
                        {"token_embedding", text.embedding_value()},
                        {"attention_layers", text.attention().size()},
                        {"use", "a text model: explain it with `attnlab explain-onnx-text` or on the page's Text tab (Your model)"}};
    } else {
      (*out)["text_error"] = text_err;  // why the text path refused it (kind stays "image", with the image path's error)
    }
  }
  return true;
}

bool onnx_explain(OnnxClassifier& clf, const std::vector<float>& x, const OnnxExplainRequest& r, json* out,
                  std::string* error) {
  if (!clf.forward(x.data(), x.size(), error)) return false;
  const std::vector<float> logits = clf.logits();
  int cls = r.class_index;
  if (cls < 0) cls = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  if (cls >= clf.num_classes()) {
    *error = "class " + std::to_string(cls) + " is out of range (" + std::to_string(clf.num_classes()) + " classes)";
    return false;
  }
  *out = {{"class", cls}, {"logits", logits}};
  const std::string layer = r.layer == "auto" || r.layer.empty() ? clf.auto_layer() : r.layer;
  // Not a LayerMethodFn (layer_method.h): AblationCAM runs forward passes, the random baseline none.
  const bool ablation = r.method == "ablationcam", random = r.method == "random";
  if (LayerMethodFn fn = ablation || random ? nullptr : find_layer_method(r.method); fn || ablation || random) {
    if (layer.empty()) {
      *error = "the model has no layer with spatial extent";
      return false;
    }
    LayerMapResult res;
    if (ablation) {
      if (!onnx_ablation_cam(clf, x, layer, cls, &res, error)) return false;
    } else if (random) {
      if (!onnx_random_layer_map(clf, layer, r.options.seed, &res, error)) return false;
    } else {
      if (!clf.backward_class(cls, error, layer)) return false;  // nothing upstream of the layer is needed
      LayerTensors L;
      if (!clf.layer(layer, &L, error)) return false;
      res.map = fn(L);
      res.h = L.h;
      res.w = L.w;
      if (res.map.empty()) {
        const std::string why = layer_method_no_map_reason(r.method);
        *error = why.empty() ? "the method returned no map" : why + " (layer '" + layer + "')";
        return false;
      }
    }
    (*out)["layer"] = layer;
    (*out)["map_shape"] = {res.h, res.w};
    (*out)["map"] = res.map;
    return true;
  }
  // Input methods (input_method.h) and the attention methods of image transformers (vit_maps.h) give one map each.
  const bool attention = is_vit_method(r.method);
  if (InputMethodFn in_fn = attention ? nullptr : find_input_method(r.method); in_fn || attention) {
    InputMapResult res;
    if (!(attention ? onnx_vit_map(clf, x, cls, r.method, &res, error) : in_fn(clf, x, cls, r.options, &res, error)))
      return false;
    (*out)["layer"] = attention ? "attention" : "input";
    (*out)["map_shape"] = {res.h, res.w};
    (*out)["map"] = res.map;
    for (auto& kv : res.extra.items()) (*out)[kv.key()] = kv.value();
    return true;
  }
  std::string names;
  for (const auto& n : onnx_method_names()) names += (names.empty() ? "" : ", ") + n;
  *error = "unknown method '" + r.method + "' (" + names + ")";
  return false;
}

bool onnx_sanity(OnnxClassifier& clf, const std::vector<float>& x, const OnnxExplainRequest& r, uint64_t seed, json* out,
                 std::string* error) {
  json a;
  if (!onnx_explain(clf, x, r, &a, error)) return false;
  const std::string layer = a["layer"];
  OnnxClassifier rnd;
  int shuffled = 0;
  // A map at the input or from the attention of every layer: every weight is shuffled.
  const bool whole = layer == "input" || layer == "attention";
  if (!clf.randomized_after(whole ? "" : layer, seed, &rnd, &shuffled, error)) return false;
  OnnxExplainRequest rr = r;
  rr.class_index = a["class"];
  rr.layer = whole ? "auto" : layer;
  json b;
  if (!onnx_explain(rnd, x, rr, &b, error)) return false;
  const std::vector<float> m1 = a["map"], m2 = b["map"];
  const double rho = spearman_rho(std::vector<double>(m1.begin(), m1.end()), std::vector<double>(m2.begin(), m2.end()));
  const std::vector<float> logits = b["logits"];
  *out = {{"class", a["class"]}, {"layer", layer}, {"map_shape", a["map_shape"]}, {"map", a["map"]},
          {"randomized_map", b["map"]}, {"spearman", std::isfinite(rho) ? json(rho) : json(nullptr)},
          {"shuffled", shuffled},
          {"randomized_class", std::max_element(logits.begin(), logits.end()) - logits.begin()}};
  return true;
}

std::vector<std::string> onnx_method_names() {
  std::vector<std::string> v;
  for (const auto& m : onnx_method_catalogue()) v.push_back(m.name);
  return v;
}

}  // namespace attnlab
