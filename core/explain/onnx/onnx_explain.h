// What `attnlab onnx-info` / `explain-onnx` and the page's "Your model" (wasm OnnxLab) compute, in one place:
//   onnx_info(bytes, size, input_size) → the graph summary (OnnxClassifier::summarize: its `attention` lists the
//     attention found in the graph, which the attention methods need), plus, when the model
//     loads as an image classifier: input_shape, classes, spatial_layers [{name, op, shape [K, h, w], class_tokens
//     (> 0: a vision transformer's token layer, read as [D, g, g])}] (a forward pass on zeros), auto_layer; always kind ("image", or "text": a graph of integer token ids that the text path
//     runs, with text {causal, output, outputs, token_embedding, attention_layers, use}), runnable (bool: as that
//     kind) and error ("" or why it cannot run); text_error when integer inputs neither path runs. false + message
//     only for bytes that are not a readable ONNX model.
//   onnx_explain(clf, x, request, out) → {class, logits, layer, map_shape [h, w], map (row-major, before
//     upsampling), …method extras (integrated gradients: completeness)}; class −1 = the top-1.
//     Layer methods (layer_method.h) read `layer` ("auto" = clf.auto_layer()); input methods (input_method.h)
//     report layer "input"; the attention methods of image transformers (vit_maps.h) report layer "attention",
//     their map over the patch grid, and {tokens, class_tokens, layers, heads, note?}.
//   onnx_method_names(): the layer methods, then the input methods.
//   onnx_sanity(clf, x, request, seed, out): the map before and after shuffling the weights (see below).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/onnx/input_method.h"
#include "explain/onnx/onnx_classifier.h"

namespace attnlab {

bool onnx_info(const uint8_t* bytes, size_t size, int input_size, nlohmann::json* out, std::string* error);

// After a forward pass: [{name, op, shape}] of clf.spatial_layers().
nlohmann::json spatial_layers_json(const OnnxClassifier& clf);

struct OnnxExplainRequest {
  std::string method = "gradcam";
  std::string layer = "auto";
  int class_index = -1;
  InputMethodOptions options;
};

bool onnx_explain(OnnxClassifier& clf, const std::vector<float>& x, const OnnxExplainRequest& request,
                  nlohmann::json* out, std::string* error);

std::vector<std::string> onnx_method_names();

// The sanity check of Adebayo et al. 2018 on any model: the map of `request` on clf and on
// clf.randomized_after(L, seed) — L = the map's layer for a layer method (everything after it shuffled), "" for an
// input or attention method (every weight) — for the same class; → {class, layer, map_shape, map, randomized_map, spearman
// (null when undefined), shuffled (tensors), randomized_class (the top-1 of the shuffled network)}.
bool onnx_sanity(OnnxClassifier& clf, const std::vector<float>& x, const OnnxExplainRequest& request, uint64_t seed,
                 nlohmann::json* out, std::string* error);

}  // namespace attnlab
