// Plausibility: agreement of token importances with a human rationale (Jacovi & Goldberg 2020 separate it
// from faithfulness), scored with ERASER's metrics (DeYoung et al. 2020, §4.1; core/metrics/rationale_metrics.h).
// The human rationale is Instance::rationale (one 0/1 per token); the CLI fills it for SST from the PTB trees
// by the rule in core/text/sst_tree.h (words and phrases of <= 3 words labelled with the sentence's polarity).
// Measures, each explaining p_c for the predicted class c and ranked by |value| (ties: earlier position first),
// as in eraser.cpp: "attention", "gradient" (J&W), "leave_one_out", "integrated_gradients" (ig_steps, default
// 50), "random" (a shuffle of the positions from the instance's random stream — the baseline).
// Per instance, with k = the number of human rationale tokens:
//   token_f1  = F1 of the top-k tokens against the human tokens (with k = |human|, precision = recall = F1);
//   auprc     = area under the precision-recall curve of |value| against the mask (trapezoidal, ERASER);
//   iou_*     = span match of the top-k tokens' maximal runs against the human mask's runs at IOU >= 0.5.
// Row: {"measures": {NAME: {"token_f1", "auprc", "iou_precision", "iou_recall", "iou_f1"}}, "rationale_size" (k),
//       "human_spans", "num_tokens", "predicted"}; instances without a rationale give {"skipped": "no human
//       rationale"}, one of another length {"skipped": "human rationale does not match the tokens"}, one with
//       no 1s {"skipped": "empty human rationale"} (and no tokens / bad ids as instance_skip_reason).
// Summary: {NAME: {"token_f1", "auprc", "iou_f1", "iou_precision", "iou_recall"}, "n_used", "n_skipped",
//           "skipped_reasons": {reason: count}, "rationale_size_mean", "rationale_fraction_mean",
//           "iou_threshold"}: token_f1, auprc and the IOU precision / recall are means over the rows used;
//           iou_f1 is the F1 of those mean IOU precision and recall (ERASER's macro IOU F1). Null without rows.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "experiments/all.h"
#include "experiments/measure_scores.h"
#include "metrics/rationale_metrics.h"

namespace attnlab {
namespace {

using nlohmann::json;
constexpr double kIouThreshold = 0.5;


const char* rationale_skip_reason(const Instance& inst) {
  if (inst.rationale.empty()) return "no human rationale";
  if (inst.rationale.size() != inst.ids.size()) return "human rationale does not match the tokens";
  for (int v : inst.rationale)
    if (v != 0) return nullptr;
  return "empty human rationale";
}

json run_plausibility(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
                      const void*) {
  json row = json::object();
  const char* why = instance_skip_reason(model, inst, 1);
  if (!why) why = rationale_skip_reason(inst);
  if (why) {
    row["skipped"] = why;
    return row;
  }
  const int T = static_cast<int>(inst.ids.size());
  std::vector<int> human(T);
  for (int t = 0; t < T; ++t) human[t] = inst.rationale[t] != 0;
  const int k = std::accumulate(human.begin(), human.end(), 0);

  const MeasureScores ms = measure_scores(model, inst, options, rng);
  const std::vector<std::vector<double>>& scores = ms.scores;
  const std::vector<std::string> names = importance_measures(model);

  json measures = json::object();
  for (size_t m = 0; m < scores.size(); ++m) {
    std::vector<double> magnitude(T);
    for (int t = 0; t < T; ++t) magnitude[t] = std::fabs(scores[m][t]);
    const std::vector<int> top = top_k_mask(magnitude, k);
    const PrecisionRecall tok = token_prf(top, human);
    const PrecisionRecall iou = iou_span_match(top, human, kIouThreshold);
    measures[names[m]] = {{"token_f1", tok.f1},
                              {"auprc", number_or_null(auprc(magnitude, human))},
                              {"iou_precision", iou.precision},
                              {"iou_recall", iou.recall},
                              {"iou_f1", iou.f1}};
  }
  row["measures"] = measures;
  row["rationale_size"] = k;
  row["human_spans"] = mask_spans(human).size();
  row["num_tokens"] = T;
  row["predicted"] = ms.predicted;
  return row;
}

double measure_value(const json& row, const char* name, const char* key) {
  const auto ms = row.find("measures");
  if (ms == row.end() || !ms->is_object() || !ms->contains(name)) return std::numeric_limits<double>::quiet_NaN();
  return row_number((*ms)[name], key);
}

json summarize_plausibility(const TextModel& model, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<const json*> used;
  std::map<std::string, int> reasons;
  for (const json& r : rows) {
    const auto s = r.find("skipped");
    if (s == r.end()) used.push_back(&r);
    else ++reasons[s->is_string() ? s->get<std::string>() : "skipped"];
  }
  const auto mean = [&](const char* name, const char* key) {
    std::vector<double> v;
    for (const json* r : used) {
      const double x = measure_value(*r, name, key);
      if (std::isfinite(x)) v.push_back(x);
    }
    return mean_of(v);
  };
  json out = json::object();
  for (const std::string& measure : importance_measures(model)) {
    const char* name = measure.c_str();
    const double p = mean(name, "iou_precision"), r = mean(name, "iou_recall");
    out[measure] = {{"token_f1", number_or_null(mean(name, "token_f1"))},
                 {"auprc", number_or_null(mean(name, "auprc"))},
                 {"iou_f1", number_or_null(std::isfinite(p) && std::isfinite(r) ? f1_of(p, r) : p)},
                 {"iou_precision", number_or_null(p)},
                 {"iou_recall", number_or_null(r)}};
  }
  std::vector<double> size, fraction;
  for (const json* r : used) {
    size.push_back(row_number(*r, "rationale_size"));
    fraction.push_back(row_number(*r, "rationale_size") / row_number(*r, "num_tokens"));
  }
  int skipped = 0;
  for (const auto& kv : reasons) skipped += kv.second;
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  out["skipped_reasons"] = reasons;
  out["rationale_size_mean"] = number_or_null(mean_of(size));
  out["rationale_fraction_mean"] = number_or_null(mean_of(fraction));
  out["iou_threshold"] = kIouThreshold;
  return out;
}

}  // namespace

Experiment plausibility_experiment() {
  Experiment e;
  e.name = "plausibility";
  e.description =
      "plausibility vs a human rationale (SST: words / short phrases labelled with the sentence's polarity): "
      "ERASER token F1 at top-k, AUPRC and IOU F1 of attention, gradient, leave-one-out, integrated gradients "
      "(a transformer: also its attention readings, AttnLRP, CP-LRP, value zeroing and ALTI) and random "
      "(DeYoung et al. 2020)";
  e.run = on_text_model(TextExperimentRun(run_plausibility));
  e.summarize = on_text_model(TextExperimentSummary(summarize_plausibility));
  e.needs_text_model = true;
  return e;
}

}  // namespace attnlab
