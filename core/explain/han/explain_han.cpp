#include "explain/han/explain_han.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace attnlab {

using nlohmann::json;

std::vector<double> han_flat_words(const HanImportance& imp) {
  std::vector<double> out;
  for (const auto& w : imp.word) out.insert(out.end(), w.begin(), w.end());
  return out;
}

std::vector<double> han_effective_word_attention(const HanImportance& a) {
  std::vector<double> out;
  for (size_t i = 0; i < a.word.size(); ++i)
    for (double v : a.word[i]) out.push_back(v * (i < a.sentence.size() ? a.sentence[i] : 0.0));
  return out;
}

std::vector<double> predict_han(const HanModel& model, const std::string& text) {
  const HanInput in = han_encode(model, text);
  HanCache<float> c;
  han_forward(model.config, model.params, {in.ids}, c);
  const Mat<float> p = han_class_probabilities(model.config, c.logits);
  std::vector<double> out;
  for (Eigen::Index k = 0; k < p.rows(); ++k) out.push_back(p(k, 0));
  return out;
}

HanExplainJob::HanExplainJob(const HanModel& model, const std::string& text, const HanExplainOptions& options)
    : model_(model), options_(options) {
  HanExplanation& e = e_;
  if (model.params.embedding.cols() != model.config.vocab_size || model.config.vocab_size < 2) {
    e.error = "no model loaded";
    return;
  }
  // The model's splitting limits, capped to the explanation's (explain_han.h).
  SentenceSplitOptions split = model.split;
  split.max_sentences = std::min(std::max(1, split.max_sentences), kMaxHanExplainSentences);
  split.max_tokens = split.max_tokens > 0 ? std::min(split.max_tokens, kMaxHanExplainTokens) : kMaxHanExplainTokens;
  e.input.split = split_document(text, split);
  for (const auto& s : e.input.split.sentences) {
    e.input.ids.push_back(model.vocab.ids(s));
    std::vector<bool> unk;
    for (int id : e.input.ids.back()) unk.push_back(id == Vocab::kUnk);
    e.input.unknown.push_back(std::move(unk));
  }
  const SplitDocument& sd = e.input.split;
  int kept = 0;
  for (const auto& s : sd.sentences) kept += static_cast<int>(s.size());
  const bool by_model = (model.split.max_tokens > 0 && model.split.max_tokens <= kMaxHanExplainTokens &&
                         kept >= model.split.max_tokens) ||
                        (model.split.max_sentences <= kMaxHanExplainSentences &&
                         static_cast<int>(sd.sentences.size()) >= model.split.max_sentences);
  if (sd.truncated && !by_model)
    e.input.split.notes.push_back("explained: the first " + std::to_string(sd.sentences.size()) + " sentences, " +
                                  std::to_string(kept) + " of " + std::to_string(sd.num_tokens_total) +
                                  " tokens (an explanation covers at most " + std::to_string(kMaxHanExplainSentences) +
                                  " sentences and " + std::to_string(kMaxHanExplainTokens) +
                                  " tokens; the prediction is that of this part)");
  if (e.input.ids.empty()) {
    e.probabilities = predict_han(model, text);
  } else {
    HanCache<float> c;
    han_forward(model.config, model.params, {e.input.ids}, c);
    const Mat<float> p = han_class_probabilities(model.config, c.logits);
    for (Eigen::Index k = 0; k < p.rows(); ++k) e.probabilities.push_back(p(k, 0));
  }
  int best = 0;
  for (size_t k = 1; k < e.probabilities.size(); ++k)
    if (e.probabilities[k] > e.probabilities[best]) best = static_cast<int>(k);
  e.predicted_class = best;
  e.probability = model.config.num_classes == 2 ? e.probabilities[1] : e.probabilities[best];
  if (!e.input.ids.empty()) total_ = options.ig_steps > 0 ? 4 : 3;
}

const char* HanExplainJob::stage() const {
  static const char* const kStages[] = {"attention", "gradient", "leave-one-out", "integrated gradients"};
  return finished() ? "" : kStages[done_];
}

void HanExplainJob::step() {
  if (finished()) return;
  HanExplanation& e = e_;
  HanExplainInput in;
  in.cfg = &model_.config;
  in.params = &model_.params;
  in.doc = e.input.ids;
  in.target = e.predicted_class;
  in.ig_steps = options_.ig_steps;
  switch (done_) {
    case 0: e.attention = han_attention_importance(in); break;
    case 1: e.gradient = han_gradient_importance(in); break;
    case 2: e.leave_one_out = han_leave_one_out_importance(in); break;
    default: e.integrated_gradients = han_integrated_gradients_importance(in); break;
  }
  if (++done_ < total_) return;
  auto absv = [](std::vector<double> v) {
    for (double& x : v) x = std::abs(x);
    return v;
  };
  const std::vector<double> wa = han_effective_word_attention(e.attention);
  e.kendall.push_back({"sentence", "attention_gradient", kendall_tau(e.attention.sentence, e.gradient.sentence)});
  e.kendall.push_back({"sentence", "attention_leave_one_out", kendall_tau(e.attention.sentence, e.leave_one_out.sentence)});
  e.kendall.push_back({"sentence", "gradient_leave_one_out", kendall_tau(e.gradient.sentence, e.leave_one_out.sentence)});
  e.kendall.push_back({"word", "attention_gradient", kendall_tau(wa, han_flat_words(e.gradient))});
  e.kendall.push_back({"word", "attention_leave_one_out", kendall_tau(wa, han_flat_words(e.leave_one_out))});
  e.kendall.push_back({"word", "gradient_leave_one_out", kendall_tau(han_flat_words(e.gradient), han_flat_words(e.leave_one_out))});
  if (options_.ig_steps > 0) {
    e.kendall.push_back({"sentence", "attention_integrated_gradients",
                         kendall_tau(e.attention.sentence, absv(e.integrated_gradients.sentence))});
    e.kendall.push_back({"word", "attention_integrated_gradients",
                         kendall_tau(wa, absv(han_flat_words(e.integrated_gradients)))});
  }
}

HanExplanation explain_han(const HanModel& model, const std::string& text, const HanExplainOptions& options) {
  HanExplainJob job(model, text, options);
  while (!job.finished()) job.step();
  return job.result();
}

namespace {

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json nums(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(num(x));
  return a;
}
json nested(const std::vector<std::vector<double>>& v) {
  json a = json::array();
  for (const auto& w : v) a.push_back(nums(w));
  return a;
}

}  // namespace

std::string han_explanation_json(const HanExplanation& e) {
  json j;
  j["model_kind"] = "han";
  j["sentences"] = e.input.split.sentences;
  json unk = json::array();
  for (const auto& u : e.input.unknown) {
    json row = json::array();
    for (bool b : u) row.push_back(b);
    unk.push_back(row);
  }
  j["unknown"] = unk;
  j["truncated"] = e.input.split.truncated;
  j["num_sentences_total"] = e.input.split.num_sentences_total;
  j["num_tokens_total"] = e.input.split.num_tokens_total;
  j["notes"] = e.input.split.notes;
  j["probability"] = num(e.probability);
  j["probabilities"] = nums(e.probabilities);
  j["predicted_class"] = e.predicted_class;
  j["sentence_attention"] = nums(e.attention.sentence);
  j["word_attention"] = nested(e.attention.word);
  j["sentence_gradient"] = nums(e.gradient.sentence);
  j["word_gradient"] = nested(e.gradient.word);
  j["sentence_leave_one_out"] = nums(e.leave_one_out.sentence);
  j["word_leave_one_out"] = nested(e.leave_one_out.word);
  j["sentence_integrated_gradients"] = nums(e.integrated_gradients.sentence);
  j["word_integrated_gradients"] = nested(e.integrated_gradients.word);
  j["integrated_gradients_completeness"] = {
      {"word", {{"sum", num(e.integrated_gradients.word_sum)}, {"target", num(e.integrated_gradients.word_target)}}},
      {"sentence",
       {{"sum", num(e.integrated_gradients.sentence_sum)}, {"target", num(e.integrated_gradients.sentence_target)}}}};
  json k = {{"sentence", json::object()}, {"word", json::object()}};
  for (const auto& p : e.kendall) k[p.level][p.name] = {{"tau", num(p.result.tau)}, {"p", num(p.result.p)}, {"n", p.result.n}};
  j["kendall"] = k;
  j["error"] = e.error;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace attnlab
