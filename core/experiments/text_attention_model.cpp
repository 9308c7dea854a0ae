// TextAttentionModel (text_attention_model.h): the flat text models through the attention-model interface.
#include "experiments/text_attention_model.h"

#include "experiments/frozen_encoder.h"
#include "explain/importance.h"
#include "experiments/measure_scores.h"

namespace attnlab {
namespace {

class TextAttentionInstance : public AttentionInstance {
 public:
  TextAttentionInstance(const TextModel& model, const std::vector<int>& ids)
      : model_(model), ids_(ids), fe_(freeze_encoder(model, ids)) {
    attention_ = fe_.alpha;
    probs_ = fe_.probs;
    predicted_ = fe_.predicted;
    group_.assign(attention_.size(), 0);
    for (int t = 0; t < size(); ++t) unit_token_.push_back(t);
  }
  std::vector<std::vector<double>> outputs(const std::vector<std::vector<double>>& variants) const override {
    std::vector<std::vector<double>> out;
    out.reserve(variants.size());
    for (const auto& w : variants) out.push_back(output_with_attention(model_, fe_, w));
    return out;
  }
  std::vector<double> d_output(const std::vector<double>& weights, int cls) const override {
    return d_output_d_attention(model_, fe_, weights, cls);
  }
  std::vector<double> importance(Importance kind, int cls) const override {
    ExplainInput in;
    in.cfg = &model_.config;
    in.params = &model_.params;
    in.ids = ids_;
    in.target = cls;
    return kind == Importance::Gradient ? gradient_importance(in) : leave_one_out_importance(in);
  }

 private:
  const TextModel& model_;
  std::vector<int> ids_;
  FrozenEncoder fe_;
};

}  // namespace

int TextAttentionModel::num_classes() const { return model_.config.num_classes; }

const char* TextAttentionModel::skip_reason(const Instance& instance, int min_units) const {
  if (instance.ids.empty()) return "no tokens";
  for (int id : instance.ids)
    if (id < 0 || id >= model_.config.vocab_size) return "token id out of range";
  if (static_cast<int>(instance.ids.size()) < min_units) return "single token";
  return nullptr;
}

std::unique_ptr<AttentionInstance> TextAttentionModel::freeze(const Instance& instance, std::string*) const {
  return std::make_unique<TextAttentionInstance>(model_, instance.ids);
}

std::vector<std::string> TextAttentionModel::token_measure_names() const { return importance_measures(model_); }

bool TextAttentionModel::token_measures(const Instance& instance, int ig_steps, int target, Rng& rng,
                                        TokenMeasures* out, std::string* error) const {
  if (const char* why = skip_reason(instance, 1)) {
    *error = why;
    return false;
  }
  ExperimentOptions options;
  options.params["ig_steps"] = ig_steps;
  MeasureScores ms = measure_scores(model_, instance, options, rng, target);
  *out = TokenMeasures();
  out->predicted = ms.predicted;
  out->p_predicted = ms.p_predicted;
  out->names = importance_measures(model_);
  out->scores = std::move(ms.scores);
  return true;
}

bool TextAttentionModel::sequence_probabilities(const std::vector<std::vector<int>>& seqs, int c,
                                                std::vector<double>* out, std::string*) const {
  const TextConfig& cfg = model_.config;
  std::vector<std::vector<int>> run;
  for (const auto& s : seqs)
    if (!s.empty()) run.push_back(s);
  TextCache<float> batch;
  if (!run.empty()) text_forward_ids(cfg, model_.params, TextBatch::from_sequences(run), batch);
  const double p_empty = class_probability(cfg, empty_input_logits(cfg, model_.params), 0, c);
  out->clear();
  Eigen::Index col = 0;
  for (const auto& s : seqs) out->push_back(s.empty() ? p_empty : static_cast<double>(class_probability(cfg, batch.logits, col++, c)));
  return true;
}

}  // namespace attnlab
