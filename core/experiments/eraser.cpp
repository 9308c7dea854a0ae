// ERASER faithfulness metrics (DeYoung et al. 2020, "ERASER: A Benchmark to Evaluate Rationalized NLP
// Models", §4.2): for each token-importance measure and each k in {1, 5, 10, 20, 50} %, the rationale r is
// the n_k = min(T, max(1, ceil(k T / 100))) highest-ranked tokens (computed in integers:
// (k T + 99) / 100). With c the class predicted on the full input x and p_c the model's probability of c:
//   comprehensiveness_k = p_c(x) - p_c(x without r)   (higher = more faithful: removing r hurts)
//   sufficiency_k       = p_c(x) - p_c(r alone)       (lower = more faithful: r alone keeps the decision)
// "Removing" deletes the tokens and re-runs the model on the rest, in their original order (not masking);
// an empty input gives the decoder-bias prediction (zero context, as leave_one_out_importance). AOPC is the
// mean over the five k (ERASER's aggregate).
// Written once against the attention-model interface (AttentionModel::token_measures / sequence_probabilities):
// the measures of a model attnlab trained (experiments/measure_scores.h: four for every model, nine more for a
// transformer, and "random", the baseline) or of a user's ONNX transformer (explain/onnx_text/onnx_attention_model.h),
// each explaining p_c and ranked by |value| (ties: earlier position first), or, with --param ranking=signed, by the
// signed value (most positive first; only the signed measures change). The model's fixed positions (a template's
// special tokens, a causal LM's explained last token) are never ranked nor removed: T above is then the count of the
// others (the row's num_units), and every perturbed input keeps them.
// All perturbed inputs of one instance (deduplicated) run as one call (a batch for a model attnlab trained).
// Row: {"measures": {NAME: {"comprehensiveness": [5], "sufficiency": [5], "aopc_comprehensiveness",
//        "aopc_sufficiency"}}, "rationale_size": [5] (the n_k), "num_tokens", "num_units" (when some are fixed),
//        "predicted"};
//      instances with no tokens or out-of-range ids give {"skipped": reason}.
// Summary: {"k_percent": [1, 5, 10, 20, 50], "measures": {NAME: {"aopc_comprehensiveness_mean",
//           "aopc_sufficiency_mean", "aopc_comprehensiveness_sem", "aopc_sufficiency_sem", "comprehensiveness_mean": [5],
//           "sufficiency_mean": [5]}}, "n_used", "n_skipped"}; means over the rows used (null when there are none);
//           _sem: the standard error of that mean over the instances, s / √n with s the sample standard deviation
//           (n − 1; null below two instances) — the error bar of one model on one data set.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "experiments/all.h"
#include "experiments/frozen_encoder.h"
#include "experiments/measure_scores.h"
#include "explain/importance.h"
#include "metrics/ranking.h"

namespace attnlab {
namespace {

using nlohmann::json;
constexpr int kPercents[] = {1, 5, 10, 20, 50};
constexpr int kNumK = 5;

int rationale_size(int percent, int T) { return std::min(T, std::max(1, (percent * T + 99) / 100)); }

// Positions from most to least important: by |score| (param ranking=magnitude, the default), or by the signed score
// (ranking=signed: the most positive first — the same for the non-negative measures); ties keep the earlier position.
std::vector<int> ranking(const std::vector<double>& score, bool is_signed) {
  return is_signed ? ranking_by_value(score) : ranking_by_magnitude(score);
}


json run_eraser(const AttentionModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
                const void*) {
  json row = json::object();
  TokenMeasures ms;
  std::string error;
  if (const char* why = model.skip_reason(inst, 1)) {
    row["skipped"] = why;
    return row;
  }
  if (!model.token_measures(inst, std::max(1, options.get_int("ig_steps", 50)), -1, rng, &ms, &error)) {
    row["skipped"] = error;
    return row;
  }
  const int T = static_cast<int>(inst.ids.size());
  // The units: the positions a rationale may take and a removal may remove (all but the fixed ones).
  std::vector<int> units;
  for (int t = 0; t < T; ++t)
    if (ms.fixed.empty() || !ms.fixed[static_cast<size_t>(t)]) units.push_back(t);
  const int U = static_cast<int>(units.size());
  if (U == 0) {
    row["skipped"] = "no token that may be removed";
    return row;
  }
  const int c = ms.predicted;
  const auto r = options.params.find("ranking");
  const bool is_signed = r != options.params.end() && r->is_string() && r->get<std::string>() == "signed";
  std::vector<std::vector<int>> orders;  // [measure]: the units, most important first
  for (const auto& score : ms.scores) {
    std::vector<double> over_units;
    for (int t : units) over_units.push_back(score[static_cast<size_t>(t)]);
    std::vector<int> order;
    for (int k : ranking(over_units, is_signed)) order.push_back(units[static_cast<size_t>(k)]);
    orders.push_back(order);
  }
  const size_t M = orders.size();

  // Perturbed inputs, deduplicated: slot -2 = the full input, >= 0 = index into seqs.
  std::map<std::vector<int>, int> column_of;
  std::vector<std::vector<int>> seqs;
  const auto slot = [&](const std::vector<int>& seq) {
    if (seq == inst.ids) return -2;
    auto it = column_of.find(seq);
    if (it != column_of.end()) return it->second;
    const int col = static_cast<int>(seqs.size());
    column_of.emplace(seq, col);
    seqs.push_back(seq);
    return col;
  };
  std::vector<int> sizes(kNumK);
  std::vector<std::vector<int>> comp_slot(M, std::vector<int>(kNumK)), suff_slot(M, std::vector<int>(kNumK));
  for (size_t m = 0; m < M; ++m) {
    for (int k = 0; k < kNumK; ++k) {
      sizes[k] = rationale_size(kPercents[k], U);
      std::vector<char> in_r(T, 0);
      for (int j = 0; j < sizes[k]; ++j) in_r[orders[m][j]] = 1;
      std::vector<int> rest, rationale;
      for (int t = 0; t < T; ++t) {
        const bool fixed = !ms.fixed.empty() && ms.fixed[static_cast<size_t>(t)];
        if (fixed || !in_r[t]) rest.push_back(inst.ids[t]);
        if (fixed || in_r[t]) rationale.push_back(inst.ids[t]);
      }
      comp_slot[m][k] = slot(rest);
      suff_slot[m][k] = slot(rationale);
    }
  }
  std::vector<double> p;
  if (!seqs.empty() && !model.sequence_probabilities(seqs, c, &p, &error)) {
    row["skipped"] = error;
    return row;
  }
  const double p_full = ms.p_predicted;
  const auto prob = [&](int s) { return s == -2 ? p_full : p[static_cast<size_t>(s)]; };

  json measures = json::object();
  for (size_t m = 0; m < M; ++m) {
    std::vector<double> comp(kNumK), suff(kNumK);
    for (int k = 0; k < kNumK; ++k) {
      comp[k] = p_full - prob(comp_slot[m][k]);
      suff[k] = p_full - prob(suff_slot[m][k]);
    }
    measures[ms.names[m]] = {{"comprehensiveness", comp},
                             {"sufficiency", suff},
                             {"aopc_comprehensiveness", mean_of(comp)},
                             {"aopc_sufficiency", mean_of(suff)}};
  }
  row["measures"] = measures;
  row["rationale_size"] = sizes;
  row["num_tokens"] = T;
  if (U != T) row["num_units"] = U;
  row["predicted"] = c;
  return row;
}

// Entry `key` of measure `name` in a row: a number (index < 0) or element `index` of an array; NaN if absent.
double row_value(const json& row, const char* name, const char* key, int index) {
  auto ms = row.find("measures");
  if (ms == row.end() || !ms->is_object()) return kNaN;
  auto m = ms->find(name);
  if (m == ms->end() || !m->is_object()) return kNaN;
  auto v = m->find(key);
  if (v == m->end()) return kNaN;
  if (index < 0) return v->is_number() ? v->get<double>() : kNaN;
  if (!v->is_array() || static_cast<int>(v->size()) <= index || !(*v)[index].is_number()) return kNaN;
  return (*v)[index].get<double>();
}

std::vector<double> defined_values(const std::vector<const json*>& rows, const char* name, const char* key, int index) {
  std::vector<double> vals;
  for (const json* r : rows) {
    const double v = row_value(*r, name, key, index);
    if (std::isfinite(v)) vals.push_back(v);
  }
  return vals;
}

double mean_defined(const std::vector<const json*>& rows, const char* name, const char* key, int index) {
  return mean_of(defined_values(rows, name, key, index));
}

// The standard error of the mean of the defined values: s / sqrt(n) with s the n - 1 standard deviation, which is
// the population one (std_of) / sqrt(n - 1); NaN below two values.
double sem_defined(const std::vector<const json*>& rows, const char* name, const char* key) {
  const std::vector<double> v = defined_values(rows, name, key, -1);
  if (v.size() < 2) return kNaN;
  return std_of(v) / std::sqrt(static_cast<double>(v.size() - 1));
}

json summarize_eraser(const AttentionModel& model, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<const json*> used;
  int skipped = 0;
  for (const json& r : rows) {
    if (r.contains("skipped")) ++skipped;
    else used.push_back(&r);
  }
  json measures = json::object();
  for (const std::string& measure : model.token_measure_names()) {
    const char* name = measure.c_str();
    json comp = json::array(), suff = json::array();
    for (int k = 0; k < kNumK; ++k) {
      comp.push_back(number_or_null(mean_defined(used, name, "comprehensiveness", k)));
      suff.push_back(number_or_null(mean_defined(used, name, "sufficiency", k)));
    }
    measures[measure] = {{"aopc_comprehensiveness_mean", number_or_null(mean_defined(used, name, "aopc_comprehensiveness", -1))},
                      {"aopc_sufficiency_mean", number_or_null(mean_defined(used, name, "aopc_sufficiency", -1))},
                      {"aopc_comprehensiveness_sem", number_or_null(sem_defined(used, name, "aopc_comprehensiveness"))},
                      {"aopc_sufficiency_sem", number_or_null(sem_defined(used, name, "aopc_sufficiency"))},
                      {"comprehensiveness_mean", comp},
                      {"sufficiency_mean", suff}};
  }
  json out;
  out["k_percent"] = std::vector<int>(std::begin(kPercents), std::end(kPercents));
  out["measures"] = measures;
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

Experiment eraser_experiment() {
  Experiment e;
  e.name = "eraser";
  e.description =
      "ERASER comprehensiveness (higher = more faithful) and sufficiency (lower = more faithful) of the top "
      "1/5/10/20/50 % tokens by attention, gradient, leave-one-out, integrated gradients (a transformer: also rollout, "
      "flow, Chefer relevance, attention x gradient, attention norm, AttnLRP, CP-LRP, value zeroing, ALTI) and random, "
      "with AOPC (DeYoung et al. 2020)";
  e.run = run_eraser;
  e.summarize = summarize_eraser;
  e.needs_token_measures = true;
  return e;
}

}  // namespace attnlab
