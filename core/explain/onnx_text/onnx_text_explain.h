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
//     integrated_gradients  IG of p_target along the token embeddings (positions and token types kept), signed, with
//                     integrated_gradients_completeness {sum, target = p(x) − p(baseline)} and
//                     integrated_gradients_baseline {kind zero | token, token?, zero_completeness?} (ig_steps 0: none).
//                     The baseline (request.ig_baseline): zero = every token's embedding (special ones too) scaled
//                     from 0; token = each token's embedding but the template's special ones replaced by a neutral
//                     token's (neutral_token: padding, else unknown), the special ones kept (so they get 0); auto (the
//                     default) = zero, unless its sum misses p(x) − p(0) by more than kIgCompletenessTolerance and a
//                     neutral token exists: then token, with the zero baseline's sums as zero_completeness. Why: a
//                     model whose only position signal is rotary (Llama: nothing is added to the token embeddings)
//                     sees α·x near α = 0 through RMSNorms that each multiply it by up to 1/√ε, so p(α) swings wildly
//                     for α below ~1e-5 and no quadrature resolves the path (stories260K: Σ −3.91 vs 0.354 at any
//                     step count); from a token's embedding the path keeps its norm.
//     leave_one_out   |p_target(x) − p_target(x without token t)| (the token deleted, the rest re-run)
//     attnlrp, cp_lrp the propagation rules found from the graph (onnx/propagation.h), Σ_e x_te · r_te of the
//                     explained logit, signed, each with *_conservation {logit, tokens, unexplained} (what the
//                     positions, token types and biases carry) and *_rules (what was found, and the nonlinear
//                     operators without a rule); *_note instead when they cannot run
//     value_zeroing, alti  Mohebbi et al. 2023 and Ferrando et al. 2022 rolled out from the explained position
//                     (onnx_text/onnx_context_mixing.h), with context_mixing_found {post_norm, layer_outputs: the block
//                     outputs found}; or value_zeroing_note / alti_note}.
//   target −1 = the arg-max of the explained position (a causal LM: the greedy next token).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/onnx_text/onnx_text_model.h"
#include "onnx/propagation.h"
#include "text/subword_tokenizer.h"

namespace attnlab {

// Integrated gradients' baseline (see integrated_gradients above).
struct OnnxIgBaseline {
  std::string mode = "auto";  // "auto" | "zero" | "token"
  int token = -1;             // the neutral token (text/subword_tokenizer.h neutral_token); −1: none (auto stays zero)
  std::string piece;          // its vocabulary entry, for the JSON ("" when unknown)
  std::vector<int> special;   // 1 where the template added the token: kept in the token baseline; empty: none
};
// Mode auto with tok's neutral token and its piece (tok null: none, so the zero baseline only).
OnnxIgBaseline onnx_ig_baseline_of(const SubwordTokenizer* tok);
constexpr double kIgCompletenessTolerance = 0.05;  // of max(|p(x) − p(baseline)|, 0.01), as the page's check
bool onnx_text_ig_complete(double sum, double target);

struct OnnxIgResult {
  std::vector<double> values;        // one per token
  double sum = 0, target = 0;        // Σ values and p(x) − p(baseline)
  int token = -1;                    // the baseline's token (−1: the zero baseline)
  bool switched = false;             // auto went from zero to token: zero_sum / zero_target are the zero baseline's
  double zero_sum = 0, zero_target = 0;
};
// {kind: "zero" | "token", token?, piece?, zero_completeness? {sum, target}} (piece: b's, when the token was used)
nlohmann::json onnx_ig_baseline_json(const OnnxIgResult& r, const OnnxIgBaseline& b);

struct OnnxTextExplainRequest {
  std::vector<int> ids;
  int target = -1;
  bool leave_one_out = true;
  int ig_steps = 50;  // integrated gradients' uniform segments to start (adaptive: integrated_gradients_path.h)
  bool context_mixing = true;  // value zeroing and ALTI: L × n forwards each (onnx_context_mixing.h)
  bool attention_layers = true;  // the attention_layers key (L × H × n² numbers; the page reads them elsewhere)
  // Also the flow through the first 1, 2, …, L layers (where flow_affordable(n, L(L+1)/2)): key flow_layers, [L][n − 1]
  // in flow_from_maps' order (permuted positions 1..n−1), the last the flow row's values — for the page's per-layer
  // curves (wasm's explainStep), computed with the rows (beside leave-one-out's passes) rather than after them.
  bool flow_layers = false;
  OnnxIgBaseline ig_baseline;
};

bool onnx_text_explain(OnnxTextModel& model, const OnnxTextExplainRequest& request, nlohmann::json* out, std::string* error);

// The pieces of onnx_text_explain that the page also runs on their own (wasm/onnx_text_bindings.cpp: the top-5 next
// tokens, leave-one-out in steps with progress), so both compute them the same way:
//   onnx_text_probability(logits, target): p_target of the explained position (one logit: the sigmoid, target 0 =
//     1 − σ; else the softmax).
//   onnx_text_top_k(logits, k): the indices of the k largest logits, largest first, ties by the lower index (so
//     top_k(·, 1) is the first maximum: the greedy next token, as llama2.c's argmax); k is clipped to the count.
//   onnx_text_leave_one_out(model, ids, target, p, begin, end, out): out[t − begin] = |p − p_target(ids without
//     token t)| for t in [begin, end) (T = 1: NaN), by inference passes: with a free batch dimension many deletions
//     a pass (OnnxTextModel::run_batch; the batches follow from T and the output size alone; the first deletion's
//     value checked against a pass of its own, 1e-5), else one each (also when a batched pass fails or that check
//     does); the passes run side by side on copies of the model (OnnxTextModel::lanes, the
//     core's threads), the values independent of the thread count. The model is left holding the outputs of one of
//     those passes only: run it again before reading anything else.
//   onnx_text_probabilities(logits): every class's probability (one logit: [1 − σ, σ]); onnx_text_d_probability(logits,
//     target): d p_target / d logits.
//   onnx_text_integrated_gradients(model, ids, target, steps, baseline, r): the integrated_gradients row (the token
//     embeddings moved along the path by Executor::forward_from, one backward per path point) from the baseline
//     (OnnxIgBaseline; auto may run the path twice); the model is left on ids.
//   onnx_text_relevance(model, target, rule, tokens, notes): one backward of the explained logit under the rule
//     (after a run on the explained input); tokens = Σ_e x·r per token, notes = the plan's. The executor then holds
//     the rule's propagated quantities, not gradients: run backward again before reading gradients.
bool onnx_text_relevance(OnnxTextModel& model, int target, onnx::RelevanceRule rule, std::vector<double>* tokens,
                         std::vector<std::string>* notes, std::string* error);
double onnx_text_probability(const std::vector<float>& logits, int target);
std::vector<double> onnx_text_probabilities(const std::vector<float>& logits);
std::vector<float> onnx_text_d_probability(const std::vector<float>& logits, int target);
bool onnx_text_integrated_gradients(OnnxTextModel& model, const std::vector<int>& ids, int target, int steps,
                                    const OnnxIgBaseline& baseline, OnnxIgResult* r, std::string* error);
std::vector<int> onnx_text_top_k(const std::vector<float>& logits, int k);
bool onnx_text_leave_one_out(OnnxTextModel& model, const std::vector<int>& ids, int target, double p, int begin, int end,
                             std::vector<double>* out, std::string* error);

}  // namespace attnlab
