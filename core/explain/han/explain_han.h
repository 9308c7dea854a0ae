// Everything `attnlab explain-text` shows for a HAN model and one text (and what a page binding returns, as
// the same JSON): the sentences (tokens, unknown flags, the splitter's notes and cuts), the prediction, every
// importance at both levels (han_importance.h) and Kendall tau between them per level. Word-level tau is
// over all words of the document with the word attention weighted by its sentence's weight (beta_i alpha_it:
// the word's share of the document vector); integrated gradients enter tau as |value|.
// No exceptions: a model-less call or bad ids give "error"; a text without tokens gives empty lists.
// Bounded like the flat models' explanation (explain/explain_text.h): whatever the model's splitting limits, at most
// kMaxHanExplainSentences sentences and kMaxHanExplainTokens tokens are explained; a longer document is cut there
// (the splitter's cut: `truncated`, `num_sentences_total`, `num_tokens_total`) and a note says where, e.g.
// "explained: the first 1000 tokens (12 of 40 sentences, the last one cut after 7 of its 20 tokens; the
// explanation's limit is 100 sentences and 1000 tokens)". The prediction is that of the explained part. The batched
// methods run in chunks (han_importance.h), so memory stays near 100 MB at the cap (it was 3.7 GB at 1,005 tokens).
#pragma once
#include <string>
#include <vector>

#include "explain/han/han_importance.h"
#include "metrics/kendall.h"
#include "model/han_checkpoint.h"

namespace attnlab {

constexpr int kMaxHanExplainTokens = 1000;   // = kMaxExplainTokens of the flat models
constexpr int kMaxHanExplainSentences = 100;

struct HanExplainOptions {
  int ig_steps = 50;
};

struct HanExplanation {
  HanInput input;
  std::vector<double> probabilities;
  double probability = 0;  // binary: p(positive); multi-class: p(predicted)
  int predicted_class = 0;
  HanImportance attention, gradient, leave_one_out, integrated_gradients;
  struct Pair {
    std::string level, name;
    KendallResult result;
  };
  std::vector<Pair> kendall;
  std::string error;
};

HanExplanation explain_han(const HanModel& model, const std::string& text, const HanExplainOptions& options = {});

// explain_han in stages, for a caller that reports progress and may stop between them (the page's Documents view:
// a 100-sentence document takes ~2 s in wasm). The constructor splits, encodes and predicts (one forward); each
// step() then computes one importance — attention, gradient, leave-one-out, integrated gradients (not when ig_steps
// is 0) — and the last one the Kendall pairs. A text without tokens, or no model, has no stages. result() is
// explain_han's once finished(). Holds a reference to the model, which must outlive the job.
class HanExplainJob {
 public:
  HanExplainJob(const HanModel& model, const std::string& text, const HanExplainOptions& options = {});
  bool finished() const { return done_ >= total_; }
  int done() const { return done_; }    // stages computed
  int total() const { return total_; }  // 0, 3 or 4
  const char* stage() const;            // the stage step() computes next ("" when finished)
  void step();
  const HanExplanation& result() const { return e_; }

 private:
  const HanModel& model_;
  HanExplainOptions options_;
  HanExplanation e_;
  int done_ = 0, total_ = 0;
};

// Class probabilities of one text.
std::vector<double> predict_han(const HanModel& model, const std::string& text);

// The JSON object of docs/DESIGN.md "HAN explain" (NaN as null, invalid UTF-8 replaced).
std::string han_explanation_json(const HanExplanation& e);

// Flattened words of a document-level importance, and the effective word attention beta_i * alpha_it.
std::vector<double> han_flat_words(const HanImportance& imp);
std::vector<double> han_effective_word_attention(const HanImportance& attention);

}  // namespace attnlab
