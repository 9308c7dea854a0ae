// Jain & Wallace 2019 §4.2 (adversarial attention) on HAN at either level: the one search of
// experiments/adversarial.h (K = 5 candidates, Adam lr 0.01, 500 steps, penalty 500, eps = 0.01 in total variation,
// init log(1/n) + N(0, 3^2); params candidates / steps / lr / epsilon) on the level's HanAttentionModel
// (han_attention_model.h). At the word level a candidate is one distribution per sentence, its divergence the
// beta-weighted sum of the per-sentence JSDs (in [0, ln 2] as the flat JSD), and the sentence attention is recomputed
// by the model from the new sentence vectors, not held; at the sentence level the output is the classifier on the
// frozen sentence states. This file only shapes the rows the page's HAN debate view reads.
// Row: {level, num_units, num_sentences, predicted, max_jsd, found, tvd, max_attention (sentence: max beta;
// word: max beta_i alpha_it), attention, adversarial_attention (sentence: one list; word: per sentence),
// probabilities, adversarial_probabilities, candidate_jsd, candidate_tvd[, mean_sentence_jsd: the unweighted mean over
// sentences of >= 2 words]}; skipped when fewer than 2 sentences (sentence) or no sentence of >= 2 words (word).
// Summary: the flat one's {mean_max_jsd, median_max_jsd, fraction_jsd_above_0.4, fraction_found, n_used,
// jsd_upper_bound, by_max_attention, per_class} and {level, n_skipped}.
#include "experiments/adversarial.h"
#include "experiments/han_attention_model.h"
#include "experiments/han_experiment.h"

namespace attnlab {

using nlohmann::json;

// Named, not anonymous: the unity build compiles the HAN experiments together, each with its own run / summarize.
namespace han_adversarial_impl {

json run(const HanModel& model, const HanInstance& inst, const ExperimentOptions& opt, Rng& rng) {
  const std::string level = han_level(opt);
  if (level.empty()) return {{"skipped", "param level must be \"sentence\" or \"word\""}};
  if (inst.doc.empty()) return {{"skipped", "no tokens"}};
  if (level == "sentence" && inst.doc.size() < 2) return {{"level", level}, {"skipped", "single sentence"}};
  const HanAttentionModel m(model, level == "word");
  const std::unique_ptr<AttentionInstance> fi = m.freeze(han_instance_of(inst.index, inst.label, inst.doc), nullptr);
  const AttentionGroups groups(*fi);
  if (!groups.any_choice()) return {{"level", level}, {"skipped", "no sentence of two words"}};
  const AdversarialResult r = adversarial_search(*fi, adversarial_options(opt), rng);
  json row;
  adversarial_row(*fi, r, row);
  row["level"] = level;
  row["num_sentences"] = inst.doc.size();
  row["num_units"] = fi->size();
  if (level == "word") {
    json attention = json::array(), adversarial = json::array();
    for (size_t g = 0; g < groups.members.size(); ++g) {
      attention.push_back(groups.gather(fi->attention(), g));
      adversarial.push_back(groups.gather(r.attention, g));
    }
    row["attention"] = attention;
    row["adversarial_attention"] = adversarial;
    row["mean_sentence_jsd"] = mean_of(groups.group_divergences(r.attention, fi->attention()));
  }
  return row;
}

json summarize(const HanModel& model, const std::vector<json>& rows, const ExperimentOptions& opt) {
  json s = adversarial_summary(rows, model.config.num_classes);
  int skipped = 0;
  for (const json& row : rows) skipped += row.contains("skipped") || !std::isfinite(row_number(row, "max_jsd"));
  s["level"] = han_level(opt);
  s["n_skipped"] = skipped;
  return s;
}

}  // namespace han_adversarial_impl

HanExperiment han_adversarial_experiment() {
  return {"adversarial",
          "HAN: Jain & Wallace adversarial attention, max JSD from the model's attention with the output within eps; "
          "level=sentence|word",
          han_adversarial_impl::run, han_adversarial_impl::summarize};
}

}  // namespace attnlab
