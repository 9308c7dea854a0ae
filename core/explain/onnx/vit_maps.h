// The attention methods on an image transformer ("Your model", `explain-onnx`): a ViT's attention, found in its
// graph (onnx/attention_finder.h: a Softmax over the keys that multiplies the values), read after one forward pass
// (and one backward pass of the class's logit for the gradient-weighted method), turned into a map over the patch
// grid by the self-attention methods the text transformers use (self_attention_maps.h):
//   attention  the last layer's attention of the class token, heads averaged      (raw_attention_from_maps)
//   rollout    Abnar & Zuidema 2020, heads averaged, every layer                    (rollout_from_maps)
//   chefer     Chefer, Gur & Wolf 2021, the gradient-weighted relevance rule        (relevance_from_maps)
//   attnlrp    AttnLRP (Achtibat et al. 2024) and CP-LRP (Ali et al. 2022): one backward of the class's logit under
//   cp-lrp     the rules found in the graph (onnx/propagation.h); relevance x · r summed over the colour channels
//              and over each patch (signed); extra {conservation {logit, pixels, unexplained: what the biases, the
//              class token and the position embeddings carry}, rules, signed}; per pixel when the image does not
//              split into the grid
// The class token is position 0 (torchvision, timm, Hugging Face ViTs); the patch grid is read from the token
// count n: n − 1 = g² (one class token) or n − 2 = g² (a distillation token after it, DeiT). Otherwise the map is
// over the token sequence, 1 × (n − 1), and `note` says why. Models without attention, or with attention that is
// not one square map per layer, get a message; nothing is guessed.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/onnx/input_method.h"
#include "explain/onnx/onnx_classifier.h"
#include "explain/onnx/patch_grid.h"  // the rule above
#include "nn/tensor.h"  // Mat

namespace attnlab {

// The methods' names, in the catalogue's order; whether a name is one of them.
std::vector<std::string> vit_method_names();
bool is_vit_method(const std::string& name);

// Forward at x (+ backward of logits[class_index] for a gradient method) and the method's map: out->map
// [grid_h·grid_w], out->h / w the grid; out->extra {tokens, class_tokens, layers, heads, note?}.
bool onnx_vit_map(OnnxClassifier& clf, const std::vector<float>& x, int class_index, const std::string& method,
                  InputMapResult* out, std::string* error);

// A method that reads one forward pass's attention and nothing else ("attention", "rollout"): what ONNX Runtime's
// outputs can give for a vision transformer the core cannot run (web/runtime/labs/own-model.js).
bool vit_method_is_forward_only(const std::string& name);
// Such a method's map from the distributions [layer][head] (n × n, as read_attention_layers / attention_layers_of
// give them), with out->extra as onnx_vit_map's.
bool vit_map_from_layers(const std::string& method, std::vector<std::vector<Mat<double>>> A, InputMapResult* out,
                         std::string* error);

}  // namespace attnlab
