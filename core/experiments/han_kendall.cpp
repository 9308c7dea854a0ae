// Jain & Wallace 2019 §4.1 on HAN, at both levels (the flat experiment's measure, attention_measures.h, on each level
// of HanAttentionModel): Kendall tau between attention and (a) gradient importance,
// (b) leave-one-out importance, per document (core/explain/han). Sentence level: beta vs the sentence
// importances; word level: all words of the document, attention as beta_i * alpha_it.
// Row: {sentence: {gradient: {tau, p}, leave_one_out: {tau, p}}, word: {...}, num_sentences, num_words,
// predicted}. Summary per level and measure: {mean, std, fraction_significant (p < 0.05), n (finite tau),
// per_class: {c: {mean, n}}} (class = gold label when known, else predicted).
#include <cmath>
#include <map>

#include "experiments/attention_measures.h"
#include "experiments/han_attention_model.h"
#include "experiments/han_experiment.h"

namespace attnlab {
// Named, not anonymous: the unity build compiles the HAN experiments together, each with its own run / summarize.
namespace han_kendall_impl {

using nlohmann::json;

json tau_json(const KendallResult& k) {
  return {{"tau", std::isfinite(k.tau) ? json(k.tau) : json(nullptr)}, {"p", std::isfinite(k.p) ? json(k.p) : json(nullptr)}};
}

json run(const HanModel& model, const HanInstance& inst, const ExperimentOptions&, Rng&) {
  if (inst.doc.empty()) return {{"skipped", "no tokens"}};
  const Instance in = han_instance_of(inst.index, inst.label, inst.doc);
  if (const char* why = HanAttentionModel(model, false).skip_reason(in, 1)) return {{"skipped", why}};
  json row;
  int predicted = 0, words = 0;
  for (const bool word : {false, true}) {
    const std::unique_ptr<AttentionInstance> fi = HanAttentionModel(model, word).freeze(in, nullptr);
    const AttentionTaus t = kendall_vs_importances(*fi);
    row[word ? "word" : "sentence"] = {{"gradient", tau_json(t.vs_gradient)}, {"leave_one_out", tau_json(t.vs_loo)}};
    predicted = fi->predicted();
    if (word) words = fi->size();
  }
  row["num_sentences"] = inst.doc.size();
  row["num_words"] = words;
  row["predicted"] = predicted;
  return row;
}

json summarize(const HanModel&, const std::vector<json>& rows, const ExperimentOptions&) {
  json out;
  for (const char* level : {"sentence", "word"})
    for (const char* m : {"gradient", "leave_one_out"}) {
      std::vector<double> taus;
      std::map<std::string, std::vector<double>> per_class;
      int sig = 0;
      for (const json& r : rows) {
        if (r.contains("skipped")) continue;
        const json& k = r[level][m];
        if (!k["tau"].is_number()) continue;
        taus.push_back(k["tau"].get<double>());
        sig += k["p"].is_number() && k["p"].get<double>() < 0.05;
        const int cls = r.contains("label") ? r["label"].get<int>() : r["predicted"].get<int>();
        per_class[std::to_string(cls)].push_back(taus.back());
      }
      json pc = json::object();
      for (const auto& [cls, v] : per_class) pc[cls] = {{"mean", mean_of(v)}, {"n", v.size()}};
      out[level][m] = {{"mean", mean_of(taus)}, {"std", std_of(taus)},
                       {"fraction_significant", taus.empty() ? std::nan("") : double(sig) / taus.size()},
                       {"n", taus.size()}, {"per_class", pc}};
    }
  return out;
}

}  // namespace han_kendall_impl

HanExperiment han_kendall_experiment() {
  return {"kendall", "HAN: Kendall tau of attention vs gradient and leave-one-out at both levels (Jain & Wallace 4.1)",
          han_kendall_impl::run, han_kendall_impl::summarize};
}

}  // namespace attnlab
