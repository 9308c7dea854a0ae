// Jain & Wallace 2019, "Attention is not Explanation", §4.1: per instance, Kendall tau-b (with its
// asymptotic two-sided p-value, metrics/kendall.h) between the model's attention weights and
//   (a) J&W gradient importance (attention detached, |grad . embedding|), and
//   (b) leave-one-out importance |p(x) - p(x without t)|,
// both explaining the model's predicted class.
// Row: {tau_gradient, p_gradient, tau_loo, p_loo, predicted, num_tokens}.
// Summary: mean/std of each tau, the fraction significant (p < 0.05, among the defined taus), and the same
// per class ("0", "1", ...: the gold label when known, else the predicted class), each with "n". A tau is
// undefined (NaN, written as null) when a vector is constant (e.g. a uniform-attention model) or the instance
// has one token; undefined taus are left out of the statistics and counted in "n_undefined"
// ({"gradient", "loo"}). Instances with no tokens or out-of-range ids get {"skipped": reason}.
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "experiments/all.h"
#include "experiments/attention_measures.h"

namespace attnlab {
namespace {

using nlohmann::json;

json run_kendall(const AttentionModel& model, const Instance& inst, const ExperimentOptions&, Rng&, const void*) {
  json row = json::object();
  const std::unique_ptr<AttentionInstance> fi = freeze_or_skip(model, inst, 1, row);
  if (!fi) return row;
  const auto [g, l] = kendall_vs_importances(*fi);
  row["tau_gradient"] = g.tau;
  row["p_gradient"] = g.p;
  row["tau_loo"] = l.tau;
  row["p_loo"] = l.p;
  row["predicted"] = fi->predicted();
  row["num_tokens"] = fi->size();
  return row;
}

json tau_statistics(const std::vector<const json*>& rows) {
  std::vector<double> tg, tl;
  int sig_g = 0, sig_l = 0;
  for (const json* r : rows) {
    const double a = row_number(*r, "tau_gradient"), b = row_number(*r, "tau_loo");
    if (std::isfinite(a)) {
      tg.push_back(a);
      if (row_number(*r, "p_gradient") < 0.05) ++sig_g;
    }
    if (std::isfinite(b)) {
      tl.push_back(b);
      if (row_number(*r, "p_loo") < 0.05) ++sig_l;
    }
  }
  json out;
  out["tau_gradient_mean"] = mean_of(tg);
  out["tau_gradient_std"] = std_of(tg);
  out["tau_loo_mean"] = mean_of(tl);
  out["tau_loo_std"] = std_of(tl);
  out["fraction_significant"] = {{"gradient", tg.empty() ? kNaN : double(sig_g) / tg.size()},
                                 {"loo", tl.empty() ? kNaN : double(sig_l) / tl.size()}};
  out["n_undefined"] = {{"gradient", rows.size() - tg.size()}, {"loo", rows.size() - tl.size()}};
  out["n"] = rows.size();
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
      "Kendall tau between attention and gradient / leave-one-out importance, per instance (Jain & Wallace 4.1)";
  e.run = run_kendall;
  e.summarize = summarize_kendall;
  return e;
}

}  // namespace attnlab
