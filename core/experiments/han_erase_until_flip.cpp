// Serrano & Smith 2019 §5 on HAN: rank the units of a document once (highest first, ties by position) by
//   "attention"             sentence: beta_i; word: beta_i * alpha_it (the word's share of the document),
//   "gradient"              d p_pred / d beta_i, resp. d p_pred / d alpha_it (signed, at the model's weights),
//   "attention_x_gradient"  beta_i * d p / d beta_i, resp. alpha_it * d p / d alpha_it,
//   "random"                a shuffle from the instance's stream,
// then erase them cumulatively in that order (renormalising each softmax group; see han_erase_max.cpp for the
// levels) until the argmax class changes. Word-level prefixes are evaluated in batches of 32.
// Row: {level, num_units, predicted, <ranking>: {removed k, fraction k/N, flipped}}; no flip: removed N,
// fraction 1, flipped false. Fewer than 2 units: {"skipped"}.
// Summary: {level, <ranking>: {fraction_mean, fraction_median, flip_rate}, fraction_mean_flipped_by_all,
// n_flipped_by_all, order (rankings by fraction_mean, fewest removals first), n_used, n_skipped}.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "experiments/frozen_encoder.h"
#include "experiments/han_experiment.h"

namespace attnlab {
namespace {

using nlohmann::json;
const char* const kRankings[] = {"attention", "gradient", "attention_x_gradient", "random"};

json result(int removed, int n, bool flipped) {
  return {{"removed", removed}, {"fraction", double(removed) / n}, {"flipped", flipped}};
}

json erase_sentences(const HanModel& model, const HanFrozen& f, const std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  std::vector<int> erased;
  for (int k = 1; k <= n; ++k) {
    erased.push_back(order[k - 1]);
    if (argmax(han_output_with_sentence_attention(model, f, erase_and_renormalise(f.beta, erased))) != f.predicted)
      return result(k, n, true);
  }
  return result(n, n, false);
}

json erase_words(const HanModel& model, const HanDocument& doc, const HanFrozen& f, const std::vector<int>& order) {
  const int n = static_cast<int>(order.size());
  constexpr int kBlock = 32;
  for (int k0 = 1; k0 <= n; k0 += kBlock) {
    std::vector<std::vector<std::vector<double>>> variants;
    const int k1 = std::min(n, k0 + kBlock - 1);
    for (int k = k0; k <= k1; ++k) variants.push_back(han_erase_words(f.alpha, std::vector<int>(order.begin(), order.begin() + k)));
    const auto probs = han_outputs_with_word_attention(model, doc, variants);
    for (int k = k0; k <= k1; ++k)
      if (argmax(probs[k - k0]) != f.predicted) return result(k, n, true);
  }
  return result(n, n, false);
}

json run(const HanModel& model, const HanInstance& inst, const ExperimentOptions& o, Rng& rng) {
  const std::string level = han_level(o);
  if (level.empty()) return {{"skipped", "param level must be \"sentence\" or \"word\""}};
  if (inst.doc.empty()) return {{"skipped", "no tokens"}};
  const HanFrozen f = han_freeze(model, inst.doc);
  std::vector<double> att, grad, axg;
  if (level == "sentence") {
    att = f.beta;
    grad = f.d_beta;
    for (size_t i = 0; i < att.size(); ++i) axg.push_back(f.beta[i] * f.d_beta[i]);
  } else {
    for (size_t i = 0; i < f.alpha.size(); ++i)
      for (size_t t = 0; t < f.alpha[i].size(); ++t) {
        att.push_back(f.beta[i] * f.alpha[i][t]);
        grad.push_back(f.d_alpha[i][t]);
        axg.push_back(f.alpha[i][t] * f.d_alpha[i][t]);
      }
  }
  const int n = static_cast<int>(att.size());
  if (n < 2) return {{"skipped", level == "sentence" ? "single sentence" : "single word"}};
  std::vector<int> random(n);
  std::iota(random.begin(), random.end(), 0);
  rng.shuffle(random);
  auto erase = [&](const std::vector<int>& order) {
    return level == "sentence" ? erase_sentences(model, f, order) : erase_words(model, inst.doc, f, order);
  };
  json row = {{"level", level}, {"num_units", n}, {"predicted", f.predicted}};
  row["attention"] = erase(han_order_by(att));
  row["gradient"] = erase(han_order_by(grad));
  row["attention_x_gradient"] = erase(han_order_by(axg));
  row["random"] = erase(random);
  return row;
}

json summarize(const HanModel&, const std::vector<json>& rows, const ExperimentOptions& o) {
  std::vector<const json*> used, all_flip;
  int skipped = 0;
  for (const json& r : rows) (r.contains("skipped") ? (void)++skipped : used.push_back(&r));
  for (const json* r : used) {
    bool all = true;
    for (const char* name : kRankings) all = all && (*r)[name]["flipped"].get<bool>();
    if (all) all_flip.push_back(r);
  }
  json out = {{"level", han_level(o)}};
  json by_all = json::object();
  std::vector<std::pair<double, std::string>> means;
  for (const char* name : kRankings) {
    std::vector<double> fr, fr_all;
    int flips = 0;
    for (const json* r : used) {
      fr.push_back((*r)[name]["fraction"].get<double>());
      flips += (*r)[name]["flipped"].get<bool>();
    }
    for (const json* r : all_flip) fr_all.push_back((*r)[name]["fraction"].get<double>());
    out[name] = {{"fraction_mean", mean_of(fr)}, {"fraction_median", median_of(fr)},
                 {"flip_rate", used.empty() ? std::nan("") : double(flips) / used.size()}};
    by_all[name] = mean_of(fr_all);
    means.push_back({std::isnan(mean_of(fr)) ? std::numeric_limits<double>::infinity() : mean_of(fr), name});
  }
  std::stable_sort(means.begin(), means.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  json order = json::array();
  for (const auto& m : means) order.push_back(m.second);
  out["fraction_mean_flipped_by_all"] = by_all;
  out["n_flipped_by_all"] = all_flip.size();
  out["order"] = order;
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

HanExperiment han_erase_until_flip_experiment() {
  return {"erase-until-flip",
          "HAN: fraction of attention weights erased, by ranking, until the decision flips (Serrano & Smith 5); "
          "level=sentence|word",
          run, summarize};
}

}  // namespace attnlab
