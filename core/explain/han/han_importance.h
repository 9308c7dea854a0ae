// The importance methods of a HAN at both levels, one method per file in core/explain/han/, all behind one
// signature: a model, one document (token ids per sentence, each sentence non-empty, >= 1 sentence), the
// class to explain; returns one score per sentence and one per word (per sentence).
//   attention.cpp              sentence: beta_i; word: alpha_it (within its sentence, sums to 1 there)
//   gradient.cpp               J&W gradient importance at each level, attention held constant (detached):
//                              word |sum_e x_ite * d p / d x_ite|, sentence |sum_k s_ik * d p / d s_ik| (s_i the
//                              sentence vector fed to the sentence encoder); each level normalised to sum 1
//   leave_one_out.cpp          word: |p(doc) - p(doc without word t)| (a one-word sentence: without the
//                              sentence); sentence: |p(doc) - p(doc without sentence i)| (a one-sentence
//                              document: the empty document, logits = classifier bias)
//   integrated_gradients.cpp   signed IG from the zero baseline on the shared adaptive path
//                              (explain/integrated_gradients_path.h: ig_steps trapezoid segments to start, the
//                              ones that miss completeness bisected): word level on the embedded words,
//                              sentence level on the sentence vectors; completeness sums
// p is the probability of `target` (binary: class 1 is sigmoid(logit)). No exceptions; bad input (an empty
// document, an empty sentence, an id out of range) gives empty results.
#pragma once
#include <vector>

#include "model/han_model.h"

namespace attnlab {

// The batched methods (leave-one-out's T word-deleted sentences and S + T sentence-level variants, integrated
// gradients' path points) run in chunks of at most this many tokens / sentence vectors (at least one item a
// chunk), as the flat models' (explain/importance.h): their memory stays bounded by the chunk instead of growing
// with T² or steps × T; the values do not depend on it beyond float rounding.
constexpr long kHanExplainBatchTokens = 8192;

struct HanExplainInput {
  const HanConfig* cfg = nullptr;
  const HanParams<float>* params = nullptr;
  HanDocument doc;
  int target = 1;
  int ig_steps = 50;
};

struct HanImportance {
  std::vector<double> sentence;            // one per sentence
  std::vector<std::vector<double>> word;   // per sentence, one per token
  // Integrated gradients only: sum of the attributions and p(x) - p(baseline), per level.
  double word_sum = 0, word_target = 0, sentence_sum = 0, sentence_target = 0;
};

using HanImportanceMethod = HanImportance (*)(const HanExplainInput&);

HanImportance han_attention_importance(const HanExplainInput& in);
HanImportance han_gradient_importance(const HanExplainInput& in);
HanImportance han_leave_one_out_importance(const HanExplainInput& in);
HanImportance han_integrated_gradients_importance(const HanExplainInput& in);

// Shared helpers (han_probability.cpp).
// True when the document can be explained (>= 1 sentence, no empty sentence, ids in range).
bool han_input_ok(const HanExplainInput& in);
// Tokens of a document (all its sentences).
size_t han_document_tokens(const HanDocument& doc);
// p_target of each logits column; d p_target / d logits [C' x D].
double han_probability(const HanConfig& cfg, const Mat<float>& logits, Eigen::Index d, int target);
Mat<float> han_d_probability(const HanConfig& cfg, const Mat<float>& logits, int target);

}  // namespace attnlab
