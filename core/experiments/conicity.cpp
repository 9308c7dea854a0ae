// Mohankumar et al. 2020, "Towards Transparent and Explainable Attention Models", §3–4: the conicity of a
// recurrent encoder's states (nn/conicity.h) per instance — near 1 means the states are nearly parallel, so
// permuting or erasing attention over them changes little (their diagnosis of Jain & Wallace's results); their
// Orthogonal and Diversity LSTMs lower it.
// Row: {conicity, num_tokens, predicted}; a transformer's row is {"skipped": ...} (its states are not one
// recurrent sequence the attention reads). Summary: {conicity_mean, conicity_std, conicity_median, n_used,
// n_skipped}.
#include <cmath>
#include <vector>

#include "experiments/all.h"
#include "nn/conicity.h"

namespace attnlab {
namespace {

using nlohmann::json;

json run_conicity(const TextModel& model, const Instance& inst, const ExperimentOptions&, Rng&, const void*) {
  json row = json::object();
  if (const char* why = instance_skip_reason(model, inst, 1)) {
    row["skipped"] = why;
    return row;
  }
  if (model.config.encoder == EncoderKind::Transformer) {
    row["skipped"] = "conicity is measured on a BiLSTM's (or MLP's) states, not a transformer's";
    return row;
  }
  TextCache<float> cache;
  text_forward_ids(model.config, model.params, TextBatch::from_sequences({inst.ids}), cache);
  const Mat<float> p = class_probabilities(model.config, cache.logits);
  Eigen::Index predicted = 0;
  p.col(0).maxCoeff(&predicted);
  row["conicity"] = conicity_forward(cache.encoder.out, cache.lengths)[0];
  row["num_tokens"] = inst.ids.size();
  row["predicted"] = predicted;
  return row;
}

json summarize_conicity(const TextModel&, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<double> c;
  int skipped = 0;
  for (const json& r : rows) {
    const double v = row_number(r, "conicity");
    if (std::isfinite(v)) c.push_back(v);
    else ++skipped;
  }
  json out;
  out["conicity_mean"] = mean_of(c);
  out["conicity_std"] = std_of(c);
  out["conicity_median"] = median_of(c);
  out["n_used"] = c.size();
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

Experiment conicity_experiment() {
  Experiment e;
  e.name = "conicity";
  e.description = "conicity of the encoder's hidden states per instance (Mohankumar et al. 2020)";
  e.run = on_text_model(TextExperimentRun(run_conicity));
  e.summarize = on_text_model(TextExperimentSummary(summarize_conicity));
  e.needs_text_model = true;
  return e;
}

}  // namespace attnlab
