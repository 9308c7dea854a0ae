// Every text explanation on a user's ONNX transformer, through the shared self-attention methods
// (explain/self_attention_maps.h) — what `attnlab explain-onnx-text` prints and the page will show.
//   onnx_text_explain(model, request, out): one forward + one backward (+ T forwards for leave-one-out) on
//   request.ids; out = {causal, explained_token, target, logits, probabilities (of the explained position),
//   attention_found [{layer, softmax, heads, positions}], attention_layers [layer][head][query][key] (the graph's
//   position order), and rows of one value per token (null where a method has none: the explained position and,
//   for the attention methods, a position the graph adds itself):
//     attention       the last layer's explained row, mean over heads
//     rollout, flow   Abnar & Zuidema (mean head fusion), relevance (Chefer et al. 2021), grad_attention
//                     (mean_h A ⊙ ∂logit/∂A of the last layer) — the same functions as the core's transformer
//     gradient        ‖∂logit/∂x_t‖₂ on the token embeddings; gradient_x_input Σ_e x_te ∂logit/∂x_te
//     leave_one_out   |p_target(x) − p_target(x without token t)| (the token deleted, the rest re-run)}.
//   target −1 = the arg-max of the explained position (a causal LM: the greedy next token).
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/onnx_text/onnx_text_model.h"

namespace attnlab {

struct OnnxTextExplainRequest {
  std::vector<int> ids;
  int target = -1;
  bool leave_one_out = true;
};

bool onnx_text_explain(OnnxTextModel& model, const OnnxTextExplainRequest& request, nlohmann::json* out, std::string* error);

}  // namespace attnlab
