// Jain & Wallace 2019, "Attention is not Explanation", §4.1: per instance, Kendall tau-b (with its
// asymptotic two-sided p-value, metrics/kendall.h) between the model's attention weights and
//   (a) J&W gradient importance (attention detached, |grad . embedding|), and
//   (b) leave-one-out importance |p(x) - p(x without t)|,
// both explaining the model's predicted class.
// The debate's next round asks the same of the readings that came after it: with param readings=1 (the default), each
// further token measure of the model (attention_measures.h unit_readings: integrated gradients; a transformer's
// rollout, flow, Chefer relevance, attention × gradient, attention norm, AttnLRP, CP-LRP, value zeroing, ALTI; a
// user's ONNX transformer's rows) is set beside the same gradient and leave-one-out importances in the reading's
// place of attention, by its magnitude |value| (both importances are magnitudes; ig_steps: integrated gradients'
// path segments), and against attention itself (Mohankumar et al.'s agreement of attention with integrated
// gradients is tau_attention of that reading). A model kind without token measures (a HAN) has no readings.
// Row: {tau_gradient, p_gradient, tau_loo, p_loo, predicted, num_tokens[, readings: {NAME: {tau_gradient, p_gradient,
// tau_loo, p_loo, tau_attention, p_attention}}][, readings_note: why an instance has none]}.
// Summary: mean/std of each tau, the fraction significant (p < 0.05, among the defined taus), and the same
// per class ("0", "1", ...: the gold label when known, else the predicted class), each with "n"; with readings, the
// same statistics of each reading under "readings": {NAME: {...}} (overall and per class; with tau_attention_mean,
// _std, and "attention" in fraction_significant and n_undefined). A tau is
// undefined (NaN, written as null) when a vector is constant (e.g. a uniform-attention model) or the instance
// has one token; undefined taus are left out of the statistics and counted in "n_undefined"
// ({"gradient", "loo"}). Instances with no tokens or out-of-range ids get {"skipped": reason}.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "experiments/all.h"
#include "experiments/attention_measures.h"

namespace attnlab {
namespace {

using nlohmann::json;

json tau_fields(const KendallResult& g, const KendallResult& l) {
  return {{"tau_gradient", g.tau}, {"p_gradient", g.p}, {"tau_loo", l.tau}, {"p_loo", l.p}};
}

json run_kendall(const AttentionModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
                 const void*) {
  json row = json::object();
  const std::unique_ptr<AttentionInstance> fi = freeze_or_skip(model, inst, 1, row);
  if (!fi) return row;
  const AttentionTaus own = kendall_vs_importances(*fi);
  row.update(tau_fields(own.vs_gradient, own.vs_loo));
  row["predicted"] = fi->predicted();
  row["num_tokens"] = fi->size();
  if (options.get_int("readings", 1) == 0) return row;
  UnitReadings readings;
  std::string error;
  if (!unit_readings(model, inst, *fi, options.get_int("ig_steps", 50), rng, &readings, &error)) {
    row["readings_note"] = error;
    return row;
  }
  if (readings.names.empty()) return row;
  json by_name = json::object();
  for (size_t m = 0; m < readings.names.size(); ++m) {
    std::vector<double> magnitude = readings.scores[m];
    for (double& v : magnitude) v = std::fabs(v);
    json fields = tau_fields(kendall_tau(magnitude, own.gradient), kendall_tau(magnitude, own.loo));
    const KendallResult a = kendall_tau(own.attention, magnitude);
    fields["tau_attention"] = a.tau;
    fields["p_attention"] = a.p;
    by_name[readings.names[m]] = fields;
  }
  row["readings"] = by_name;
  return row;
}

// The statistics of one set of taus: part(row) is the object holding tau_K and p_K for each K of `against` (the row
// itself for attention; null when the row has none, counted as undefined).
template <class Part>
json tau_statistics_of(const std::vector<const json*>& rows, Part part, const std::vector<std::string>& against) {
  json out, significant = json::object(), undefined = json::object();
  for (const std::string& k : against) {
    const std::string tau = "tau_" + k, p = "p_" + k;
    std::vector<double> taus;
    int sig = 0;
    for (const json* row : rows) {
      const json* r = part(*row);
      const double t = r ? row_number(*r, tau.c_str()) : kNaN;
      if (!std::isfinite(t)) continue;
      taus.push_back(t);
      if (row_number(*r, p.c_str()) < 0.05) ++sig;
    }
    out[tau + "_mean"] = mean_of(taus);
    out[tau + "_std"] = std_of(taus);
    significant[k] = taus.empty() ? kNaN : double(sig) / taus.size();
    undefined[k] = rows.size() - taus.size();
  }
  out["fraction_significant"] = significant;
  out["n_undefined"] = undefined;
  out["n"] = rows.size();
  return out;
}

json tau_statistics(const std::vector<const json*>& rows) {
  json out = tau_statistics_of(rows, [](const json& r) { return &r; }, {"gradient", "loo"});
  std::vector<std::string> names;  // the readings, in the order the rows list them
  for (const json* r : rows) {
    const auto it = r->find("readings");
    if (it == r->end() || !it->is_object()) continue;
    for (const auto& kv : it->items())
      if (std::find(names.begin(), names.end(), kv.key()) == names.end()) names.push_back(kv.key());
  }
  if (names.empty()) return out;
  json readings = json::object();
  for (const std::string& name : names)
    readings[name] = tau_statistics_of(rows, [&](const json& r) -> const json* {
      const auto it = r.find("readings");
      if (it == r.end() || !it->is_object()) return nullptr;
      const auto m = it->find(name);
      return m != it->end() && m->is_object() ? &*m : nullptr;
    }, {"gradient", "loo", "attention"});
  out["readings"] = readings;
  return out;
}

json summarize_kendall(const AttentionModel& model, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<const json*> used;
  std::map<int, std::vector<const json*>> by_class;
  for (int c = 0; c < listed_classes(model); ++c) by_class[c];
  int skipped = 0;
  for (const json& r : rows) {
    if (r.contains("skipped")) {
      ++skipped;
      continue;
    }
    used.push_back(&r);
    by_class[row_class(r)].push_back(&r);
  }
  json out = tau_statistics(used);
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  json per_class = json::object();
  for (const auto& kv : by_class) per_class[std::to_string(kv.first)] = tau_statistics(kv.second);
  out["per_class"] = per_class;
  return out;
}

}  // namespace

Experiment kendall_experiment() {
  Experiment e;
  e.name = "kendall";
  e.description =
      "Kendall tau between attention (and each further reading of the model) and gradient / leave-one-out importance, "
      "per instance (Jain & Wallace 4.1)";
  e.run = run_kendall;
  e.summarize = summarize_kendall;
  return e;
}

}  // namespace attnlab
