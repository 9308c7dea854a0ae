// Pruthi et al. 2020, "Learning to Deceive with Attention-Based Explanations": does attention show the tokens the
// model uses? For a set of impermissible words (parameter "words", whitespace-separated, tokenised as the texts)
// and / or the tokens a positions file marks in each instance (Instance::marked: `experiment impermissible
// --impermissible-positions FILE`, as train-text reads it): the attention mass on them, and the prediction with them deleted (the rest re-run in order, as ERASER's
// removal). A deceptive model puts almost no attention on them yet its predictions still change when they go:
// attention hides what the model reads.
// Row: {attention_mass, impermissible_tokens, num_tokens, predicted, predicted_without, changed, correct,
//       correct_without} (correct* only with a gold label); an instance without impermissible tokens is used too
//       (mass 0, nothing removed). Summary: {attention_mass_mean, instances_with_impermissible,
//       attention_mass_mean_where_present, accuracy, accuracy_without, changed_fraction,
//       changed_fraction_where_present, words_in_vocab, n_used, n_skipped}.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "experiments/all.h"
#include "explain/explain_text.h"
#include "train/explanation_penalties.h"

namespace attnlab {
namespace {

using nlohmann::json;

std::vector<char> flags_of(const TextModel& model, const ExperimentOptions& o, int* in_vocab) {
  auto it = o.params.find("words");
  const std::string words = it != o.params.end() && it->is_string() ? it->get<std::string>() : "";
  return impermissible_flags(model.vocab, words, in_vocab);
}

// The word list as vocabulary flags, made once per run (prepare) rather than per instance.
std::shared_ptr<const void> prepare_impermissible(const TextModel& model, const ExperimentOptions& options) {
  auto p = std::make_shared<ExplanationPenalties>();
  p->impermissible = flags_of(model, options, nullptr);
  return p;
}

int predict_ids(const TextModel& model, const std::vector<int>& ids) {
  const std::vector<double> p = text_probabilities(model, ids);
  return static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
}

json run_impermissible(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng&,
                       const void* prepared) {
  json row = json::object();
  if (const char* why = instance_skip_reason(model, inst, 1)) {
    row["skipped"] = why;
    return row;
  }
  if (model.config.encoder == EncoderKind::Transformer) {
    row["skipped"] = "the attention mass is read from a BiLSTM model's one attention distribution";
    return row;
  }
  ExplanationPenalties own;  // a caller without prepare (run_instance on its own) gets the flags made here
  if (!prepared) own.impermissible = flags_of(model, options, nullptr);
  const ExplanationPenalties& p = prepared ? *static_cast<const ExplanationPenalties*>(prepared) : own;
  TextBatch batch = TextBatch::from_sequences({inst.ids});
  if (!inst.marked.empty()) {  // one sequence: the batch's layout is the token's position
    batch.marked = inst.marked;
    batch.marked.resize(inst.ids.size(), 0);
  }
  TextCache<float> cache;
  text_forward_ids(model.config, model.params, batch, cache);
  std::vector<int> kept;
  int count = 0;
  for (int t = 0; t < static_cast<int>(inst.ids.size()); ++t) {
    const bool bad = impermissible_at(p, batch, t, 0);
    count += bad;
    if (!bad) kept.push_back(inst.ids[t]);
  }
  const int predicted = predict_ids(model, inst.ids);
  const int without = count ? predict_ids(model, kept) : predicted;
  row["attention_mass"] = impermissible_mass(p, batch, cache.attention.alpha, 0);
  row["impermissible_tokens"] = count;
  row["num_tokens"] = inst.ids.size();
  row["predicted"] = predicted;
  row["predicted_without"] = without;
  row["changed"] = predicted != without;
  if (inst.label >= 0) {
    row["correct"] = predicted == inst.label;
    row["correct_without"] = without == inst.label;
  }
  return row;
}

json summarize_impermissible(const TextModel& model, const std::vector<json>& rows, const ExperimentOptions& options) {
  std::vector<double> mass, mass_present, correct, correct_without, changed, changed_present;
  int skipped = 0;
  for (const json& r : rows) {
    const double m = row_number(r, "attention_mass");
    if (!std::isfinite(m)) {
      ++skipped;
      continue;
    }
    const bool present = row_number(r, "impermissible_tokens") > 0;
    mass.push_back(m);
    changed.push_back(row_flag(r, "changed"));
    if (present) {
      mass_present.push_back(m);
      changed_present.push_back(row_flag(r, "changed"));
    }
    if (r.contains("correct")) {
      correct.push_back(row_flag(r, "correct"));
      correct_without.push_back(row_flag(r, "correct_without"));
    }
  }
  int in_vocab = 0;
  flags_of(model, options, &in_vocab);
  json out;
  out["attention_mass_mean"] = mean_of(mass);
  out["instances_with_impermissible"] = mass_present.size();
  out["attention_mass_mean_where_present"] = mean_of(mass_present);
  out["accuracy"] = mean_of(correct);
  out["accuracy_without"] = mean_of(correct_without);
  out["changed_fraction"] = mean_of(changed);
  out["changed_fraction_where_present"] = mean_of(changed_present);
  out["words_in_vocab"] = in_vocab;
  out["n_used"] = mass.size();
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

Experiment impermissible_experiment() {
  Experiment e;
  e.name = "impermissible";
  e.description =
      "attention mass on impermissible words and the prediction without them (Pruthi et al. 2020's deception test)";
  e.prepare = on_text_model(TextExperimentPrepare(prepare_impermissible));
  e.run = on_text_model(TextExperimentRun(run_impermissible));
  e.summarize = on_text_model(TextExperimentSummary(summarize_impermissible));
  e.needs_text_model = true;
  return e;
}

}  // namespace attnlab
