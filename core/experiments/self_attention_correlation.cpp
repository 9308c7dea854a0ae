// Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers", Table 1 on our transformer: per instance,
// the Spearman correlation (metrics/spearman.h) of three attention-based scores — raw (the [CLS] row of layer l,
// head-averaged), rollout up to layer l, flow up to layer l (head fusion mean; explain/self_attention_maps.h) —
// with (a) blank-out: |p(x) - p(x without t)| (explain/importance.h leave_one_out_importance; removal, as J&W's
// leave-one-out) and (b) input gradients: |sum_e x_te · d p_pred / d x_te| with the full gradient (attention not
// detached), for every layer l = 1..L, explaining the predicted class.
// Row: {raw_blankout: [L], rollout_blankout: [L], flow_blankout: [L], raw_gradient: [L], rollout_gradient: [L],
//       flow_gradient: [L], predicted, num_tokens} (NaN = undefined, e.g. a constant vector).
// Summary: {layers, per_layer: [{layer, raw_blankout, rollout_blankout, flow_blankout, raw_gradient,
//   rollout_gradient, flow_gradient}] (means over the defined values), last_layer: the same for layer L,
//   paper: A&Z's numbers, n_used, n_skipped}. Instances with fewer than 2 tokens are skipped ("single token");
// non-transformer models are skipped ("needs a transformer").
#include <cmath>
#include <limits>

#include "experiments/all.h"
#include "explain/self_attention_maps.h"
#include "metrics/spearman.h"

namespace attnlab {
namespace {

using nlohmann::json;

const char* const kKeys[] = {"raw_blankout", "rollout_blankout", "flow_blankout",
                             "raw_gradient", "rollout_gradient", "flow_gradient"};

std::vector<double> full_gradient_times_input(const ExplainInput& in) {
  TextCache<float> cache;
  text_forward_ids(*in.cfg, *in.params, TextBatch::from_sequences({in.ids}), cache);
  const Mat<float> d_logits = d_class_probability(*in.cfg, cache.logits, in.target);
  Mat<float> d_x;
  text_backward<float>(*in.cfg, *in.params, cache, d_logits, {}, nullptr, &d_x);
  std::vector<double> out;
  const int kept = cache.transformer.n[0] - 1;
  for (int t = 0; t < kept; ++t)
    out.push_back(std::abs(static_cast<double>(d_x.col(t).cast<double>().dot(cache.x.col(t).cast<double>()))));
  return out;
}

json run_correlation(const TextModel& model, const Instance& inst, const ExperimentOptions&, Rng&, const void*) {
  json row = json::object();
  if (model.config.encoder != EncoderKind::Transformer) {
    row["skipped"] = "needs a transformer";
    return row;
  }
  if (const char* why = instance_skip_reason(model, inst, 2)) {
    row["skipped"] = why;
    return row;
  }
  ExplainInput in;
  in.cfg = &model.config;
  in.params = &model.params;
  in.ids = inst.ids;
  if (static_cast<int>(in.ids.size()) > model.config.max_len) in.ids.resize(model.config.max_len);
  const SelfAttentionMaps maps = self_attention_maps(in, false);
  in.target = static_cast<int>(std::max_element(maps.probabilities.begin(), maps.probabilities.end()) -
                               maps.probabilities.begin());
  const std::vector<double> blank = leave_one_out_importance(in), grad = full_gradient_times_input(in);
  json cols[6];
  for (auto& c : cols) c = json::array();
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  for (int l = 1; l <= maps.layers; ++l) {
    const std::vector<double> raw = raw_attention_from_maps(maps, l - 1);
    const std::vector<double> roll = rollout_from_maps(maps, HeadFusion::Mean, l);
    const std::vector<double> flow = flow_from_maps(maps, HeadFusion::Mean, l);
    cols[0].push_back(num(spearman_rho(raw, blank)));
    cols[1].push_back(num(spearman_rho(roll, blank)));
    cols[2].push_back(num(spearman_rho(flow, blank)));
    cols[3].push_back(num(spearman_rho(raw, grad)));
    cols[4].push_back(num(spearman_rho(roll, grad)));
    cols[5].push_back(num(spearman_rho(flow, grad)));
  }
  for (int k = 0; k < 6; ++k) row[kKeys[k]] = cols[k];
  row["predicted"] = in.target;
  row["num_tokens"] = in.ids.size();
  return row;
}

json summarize_correlation(const TextModel& model, const std::vector<json>& rows, const ExperimentOptions&) {
  const int L = model.config.encoder == EncoderKind::Transformer ? model.config.layers : 0;
  json out;
  json per_layer = json::array();
  int used = 0, skipped = 0;
  for (const json& r : rows) (r.contains("skipped") ? skipped : used)++;
  for (int l = 0; l < L; ++l) {
    json entry = {{"layer", l + 1}};
    for (const char* key : kKeys) {
      std::vector<double> v;
      for (const json& r : rows) {
        if (r.contains("skipped") || !r.contains(key) || !(*r.find(key)).is_array()) continue;
        const json& a = r[key];
        if (l < static_cast<int>(a.size()) && a[l].is_number()) v.push_back(a[l].get<double>());
      }
      entry[key] = mean_of(v);
      entry[std::string(key) + "_std"] = std_of(v);
    }
    per_layer.push_back(entry);
  }
  out["layers"] = L;
  out["per_layer"] = per_layer;
  if (L > 0) out["last_layer"] = per_layer.back();
  out["paper"] = {{"source", "Abnar & Zuidema 2020, Table 1 (Spearman, last layer)"},
                  {"subject_verb_agreement_6_layer",
                   {{"raw_blankout", 0.29}, {"rollout_blankout", 0.71}, {"flow_blankout", 0.70},
                    {"raw_gradient", 0.46}, {"rollout_gradient", 0.54}, {"flow_gradient", 0.61}}},
                  {"distilbert_sst2_gradient", {{"raw_gradient", 0.09}, {"rollout_gradient", 0.13}, {"flow_gradient", 0.14}}}};
  out["n_used"] = used;
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

Experiment self_attention_correlation_experiment() {
  Experiment e;
  e.name = "attention-flow";
  e.description =
      "Spearman of raw attention / rollout / flow (per layer) with blank-out and input gradients (Abnar & Zuidema)";
  e.run = on_text_model(TextExperimentRun(run_correlation));
  e.summarize = on_text_model(TextExperimentSummary(summarize_correlation));
  e.needs_text_model = true;
  return e;
}

}  // namespace attnlab
