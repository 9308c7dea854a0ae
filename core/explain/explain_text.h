// Everything the text view and `attnlab explain-text` show for one input: tokens (with unknown-word
// flags), the prediction, every importance measure, and Kendall tau between them. Inputs longer than
// max_tokens are cut to their first max_tokens tokens (truncated = true, num_tokens_total = the full count).
// Whatever is asked (max_tokens <= 0 means "no cut"), at most kMaxExplainTokens tokens are explained: the
// explanation's time grows with the square of the length (leave-one-out: T passes of T tokens), so a longer
// text is cut there, the same way (truncated, num_tokens_total), in the CLI and in the page.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "metrics/kendall.h"
#include "model/text_checkpoint.h"

namespace attnlab {

// The most tokens one explanation (or live experiment, or attention map) covers; memory stays bounded below
// it (the batched methods run in chunks of at most kExplainBatchTokens tokens: importance.h).
constexpr int kMaxExplainTokens = 1000;

// The defaults are the catalogue's (core/catalogue: text.explain), shared by the CLI and the page.
struct ExplainOptions {
  int max_tokens = 200;
  int ig_steps = 50;
};

// A text tokenized for one model, cut to max_tokens tokens (max_tokens <= 0 or over kMaxExplainTokens: to
// kMaxExplainTokens; transformers: to their position table): what every explanation and live experiment of one
// request reads, so a session tokenizes a text once however many panels use it.
struct PreparedText {
  std::vector<std::string> tokens;
  std::vector<int> ids;
  std::vector<bool> unknown;
  bool truncated = false;
  int num_tokens_total = 0;
};
PreparedText prepare_text(const TextModel& model, const std::string& text, int max_tokens);

struct TokenExplanation {
  std::vector<std::string> tokens;
  std::vector<bool> unknown;
  std::vector<int> ids;
  bool truncated = false;
  int num_tokens_total = 0;
  std::vector<double> probabilities;  // per class
  double probability = 0;             // binary: p(positive); multi-class: p(predicted)
  int predicted_class = 0;
  std::vector<double> attention, gradient, leave_one_out, integrated_gradients;
  // Integrated-gradients completeness: sum of the attributions vs p(x) - p(zero-embedding baseline) of the
  // explained class. A large gap means too few steps for this input.
  double ig_sum = 0, ig_target = 0;
  // BiLSTM / MLP encoders: the conicity of the encoder's states on this text (nn/conicity.h; Mohankumar et al.:
  // near 1 = nearly parallel states, so permuting attention changes little). NaN for a transformer.
  double conicity = std::numeric_limits<double>::quiet_NaN();
  struct Pair {
    std::string name;
    KendallResult result;
  };
  std::vector<Pair> kendall;
  // Transformer models only (empty otherwise): every layer's and head's attention over all positions
  // ([layer][head], [T+1 x T+1], [CLS] first), and the self-attention importances (one value per token).
  bool self_attention = false;
  std::vector<std::vector<Mat<double>>> attention_layers;
  std::vector<double> rollout, flow, relevance, grad_attention, attention_norm;
  // Propagation rules and context mixing (transformers only; explain/lrp_relevance.h, explain/context_mixing.h):
  // AttnLRP and CP-LRP relevances of the explained class's logit (signed), value zeroing and ALTI rolled out.
  std::vector<double> attnlrp, cp_lrp, value_zeroing, alti;
  // Conservation of each rule: the logit, the token relevances' sum, the [CLS] and position embeddings' share, and
  // what biases (and, for AttnLRP, the softmax rule's bias terms) absorbed.
  struct Conservation {
    double logit = 0, tokens = 0, embeddings = 0, unexplained = 0;
  };
  Conservation attnlrp_conservation, cp_lrp_conservation;
};

TokenExplanation explain_text(const TextModel& model, const std::string& text, const ExplainOptions& options);
// The same for a prepared text (options.max_tokens is not used: the text was cut when prepared).
TokenExplanation explain_prepared(const TextModel& model, const PreparedText& text, const ExplainOptions& options);

// Class probabilities for token ids (one forward pass; no tokens: the empty input, as leave-one-out's).
std::vector<double> text_probabilities(const TextModel& model, const std::vector<int>& ids);

// Class probabilities for one text (no importances; one forward pass, so max_tokens <= 0 keeps every token).
std::vector<double> predict_text(const TextModel& model, const std::string& text, int max_tokens);

// The JSON object documented in docs/DESIGN.md (invalid UTF-8 replaced, NaN written as null). Without
// with_attention_layers (the page's form: its head view asks for the maps as typed arrays), a transformer's
// attention_layers — (L·H·(T+1)² numbers, 460 KB of text for 50 tokens and 2 × 2 heads) — are left out and
// attention_layers_shape [L, H, T+1, T+1] says what they would have held.
std::string explanation_json(const TokenExplanation& e, bool with_attention_layers = true);

}  // namespace attnlab
