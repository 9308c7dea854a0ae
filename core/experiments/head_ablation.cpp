// Michel, Levy & Neubig 2019, "Are Sixteen Heads Really Better than One?", on our transformer: switch attention
// heads off (their output ctx_h = 0 before the output projection; model/transformer.h TransformerRun::head_off).
// Per instance: the prediction with every single head off, and — for a pruning order (param "order": heads as
// "layer.head" 1-based, comma-separated, e.g. "2.3,1.1,..."; default: the single-ablation order of a first run is
// not known here, so index order) — the prediction after switching off the first k heads of the order, k = 1..LH.
// Row: {predicted, p_predicted, single: [{layer, head, predicted, p}], pruned: [predicted after k heads]}.
// Summary: {accuracy (gold labels), single: [{layer, head, accuracy, accuracy_change, agreement}] (agreement =
//   fraction with the unchanged prediction), order: the order used, pruning_curve: [{heads_removed, accuracy,
//   accuracy_change}], suggested_order: heads sorted by the accuracy change of their single ablation (least harmful
//   first; run again with --param order=... for Michel's greedy curve), heads_removable_within_1_point}.
// Non-transformer models are skipped ("needs a transformer").
#include <algorithm>
#include <limits>
#include <sstream>

#include "experiments/all.h"

namespace attnlab {
namespace {

using nlohmann::json;

std::vector<int> parse_order(const ExperimentOptions& o, int L, int H) {
  std::vector<int> order;
  auto it = o.params.find("order");
  if (it != o.params.end() && it->is_string()) {
    std::stringstream ss(it->get<std::string>());
    std::string item;
    while (std::getline(ss, item, ',')) {
      int l = 0, h = 0;
      char dot = 0;
      std::stringstream is(item);
      if (is >> l >> dot >> h && dot == '.' && l >= 1 && l <= L && h >= 1 && h <= H) {
        const int k = (l - 1) * H + (h - 1);
        if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
      }
    }
  }
  for (int k = 0; k < L * H; ++k)  // heads not named follow in index order
    if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
  return order;
}

std::vector<double> probs_with(const TextModel& model, const std::vector<int>& ids, const std::vector<char>& off) {
  TextCache<float> cache;
  cache.run.head_off = off;
  text_forward_ids(model.config, model.params, TextBatch::from_sequences({ids}), cache);
  const Mat<float> p = class_probabilities(model.config, cache.logits);
  return std::vector<double>(p.data(), p.data() + p.rows());
}

int argmax_of(const std::vector<double>& v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

json run_ablation(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng&, const void*) {
  json row = json::object();
  if (model.config.encoder != EncoderKind::Transformer) {
    row["skipped"] = "needs a transformer";
    return row;
  }
  if (const char* why = instance_skip_reason(model, inst, 1)) {
    row["skipped"] = why;
    return row;
  }
  const int L = model.config.layers, H = model.config.heads;
  const std::vector<double> base = probs_with(model, inst.ids, {});
  const int pred = argmax_of(base);
  row["predicted"] = pred;
  row["p_predicted"] = base[pred];
  json single = json::array();
  for (int k = 0; k < L * H; ++k) {
    std::vector<char> off(L * H, 0);
    off[k] = 1;
    const std::vector<double> p = probs_with(model, inst.ids, off);
    single.push_back({{"layer", k / H + 1}, {"head", k % H + 1}, {"predicted", argmax_of(p)}, {"p", p[pred]}});
  }
  row["single"] = single;
  json pruned = json::array();
  std::vector<char> off(L * H, 0);
  for (int k : parse_order(options, L, H)) {
    off[k] = 1;
    pruned.push_back(argmax_of(probs_with(model, inst.ids, off)));
  }
  row["pruned"] = pruned;
  return row;
}

json summarize_ablation(const TextModel& model, const std::vector<json>& rows, const ExperimentOptions& options) {
  json out;
  if (model.config.encoder != EncoderKind::Transformer) {
    out["skipped"] = "needs a transformer";
    return out;
  }
  const int L = model.config.layers, H = model.config.heads;
  std::vector<const json*> used;
  for (const json& r : rows)
    if (!r.contains("skipped") && r.contains("label")) used.push_back(&r);
  const double n = static_cast<double>(used.size());
  auto accuracy = [&](auto&& predicted_of) {
    if (used.empty()) return std::numeric_limits<double>::quiet_NaN();
    int correct = 0;
    for (const json* r : used) correct += predicted_of(*r) == (*r)["label"].get<int>();
    return correct / n;
  };
  const double base = accuracy([](const json& r) { return r["predicted"].get<int>(); });
  out["accuracy"] = base;
  json single = json::array();
  std::vector<std::pair<double, int>> changes;
  for (int k = 0; k < L * H; ++k) {
    const double acc = accuracy([k](const json& r) { return r["single"][k]["predicted"].get<int>(); });
    int same = 0;
    for (const json* r : used) same += (*r)["single"][k]["predicted"] == (*r)["predicted"];
    single.push_back({{"layer", k / H + 1}, {"head", k % H + 1}, {"accuracy", acc}, {"accuracy_change", acc - base},
                      {"agreement", used.empty() ? 0.0 : same / n}});
    changes.push_back({-(acc - base), k});
  }
  out["single"] = single;
  std::stable_sort(changes.begin(), changes.end());
  std::string suggested;
  for (const auto& [c, k] : changes) suggested += (suggested.empty() ? "" : ",") + std::to_string(k / H + 1) + "." + std::to_string(k % H + 1);
  out["suggested_order"] = suggested;
  const std::vector<int> order = parse_order(options, L, H);
  std::string order_str;
  for (int k : order) order_str += (order_str.empty() ? "" : ",") + std::to_string(k / H + 1) + "." + std::to_string(k % H + 1);
  out["order"] = order_str;
  json curve = json::array();
  curve.push_back({{"heads_removed", 0}, {"accuracy", base}, {"accuracy_change", 0.0}});
  int removable = 0;
  bool within = true;
  for (int k = 0; k < L * H; ++k) {
    const double acc = accuracy([k](const json& r) { return r["pruned"][k].get<int>(); });
    curve.push_back({{"heads_removed", k + 1}, {"accuracy", acc}, {"accuracy_change", acc - base}});
    within = within && acc >= base - 0.01;
    if (within) removable = k + 1;
  }
  out["pruning_curve"] = curve;
  out["heads_removable_within_1_point"] = removable;
  out["n_used"] = used.size();
  out["paper"] = "Michel et al. 2019: many heads can be removed at test time with little accuracy loss";
  return out;
}

}  // namespace

Experiment head_ablation_experiment() {
  Experiment e;
  e.name = "head-ablation";
  e.description = "Accuracy with each attention head switched off, and a pruning curve (Michel et al.)";
  e.run = on_text_model(TextExperimentRun(run_ablation));
  e.summarize = on_text_model(TextExperimentSummary(summarize_ablation));
  e.needs_text_model = true;
  return e;
}

}  // namespace attnlab
