#include "experiments/experiment.h"

#include <algorithm>
#include <cmath>

#include "experiments/text_attention_model.h"
#include "parallel/parallel_for.h"

namespace attnlab {

int ExperimentOptions::get_int(const char* key, int fallback) const {
  auto it = params.find(key);
  return it != params.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

double ExperimentOptions::get_double(const char* key, double fallback) const {
  auto it = params.find(key);
  return it != params.end() && it->is_number() ? it->get<double>() : fallback;
}

Rng instance_rng(uint64_t seed, int index) {
  // splitmix64 of (seed, index): independent streams per instance.
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(index) + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return Rng(z ^ (z >> 31));
}

nlohmann::json run_instance(const Experiment& e, const AttentionModel& model, const Instance& instance,
                            const ExperimentOptions& options, const void* prepared) {
  Rng rng = instance_rng(options.seed, instance.index);
  nlohmann::json row = e.run(model, instance, options, rng, prepared);
  row["index"] = instance.index;
  if (instance.label >= 0) row["label"] = instance.label;
  return row;
}

nlohmann::json summarize_rows(const Experiment& e, const AttentionModel& model, const std::vector<nlohmann::json>& rows,
                              const ExperimentOptions& options) {
  nlohmann::json s = e.summarize(model, rows, options);
  s["n"] = rows.size();
  return s;
}

nlohmann::json run_instance(const Experiment& e, const TextModel& model, const Instance& instance,
                            const ExperimentOptions& options, const void* prepared) {
  return run_instance(e, TextAttentionModel(model), instance, options, prepared);
}

nlohmann::json summarize_rows(const Experiment& e, const TextModel& model, const std::vector<nlohmann::json>& rows,
                              const ExperimentOptions& options) {
  return summarize_rows(e, TextAttentionModel(model), rows, options);
}

nlohmann::json run_experiment(const Experiment& e, const TextModel& model, const std::vector<Instance>& data,
                              const ExperimentOptions& options, const std::function<bool(int, int)>& progress) {
  return run_experiment(e, TextAttentionModel(model), data, options, progress);
}

namespace {
const char kNeedsTextModel[] = "this experiment reads the parameters of a model attnlab trained";
}  // namespace

decltype(Experiment::run) on_text_model(TextExperimentRun run) {
  return [run](const AttentionModel& m, const Instance& i, const ExperimentOptions& o, Rng& r, const void* p) {
    if (const TextModel* t = m.text_model()) return run(*t, i, o, r, p);
    return nlohmann::json{{"skipped", kNeedsTextModel}};
  };
}

decltype(Experiment::summarize) on_text_model(TextExperimentSummary summarize) {
  return [summarize](const AttentionModel& m, const std::vector<nlohmann::json>& rows, const ExperimentOptions& o) {
    if (const TextModel* t = m.text_model()) return summarize(*t, rows, o);
    return nlohmann::json{{"error", kNeedsTextModel}};
  };
}

decltype(Experiment::prepare) on_text_model(TextExperimentPrepare prepare) {
  return [prepare](const AttentionModel& m, const ExperimentOptions& o) -> std::shared_ptr<const void> {
    if (const TextModel* t = m.text_model()) return prepare(*t, o);
    return nullptr;
  };
}

std::string check_experiment_model(const Experiment& e, const AttentionModel& model) {
  const bool token_ok = !e.needs_token_measures || !model.token_measure_names().empty();
  if ((!e.needs_text_model || model.text_model()) && token_ok) return "";
  std::string any;
  for (const Experiment& x : experiment_registry())
    if (!x.needs_text_model && (!x.needs_token_measures || !model.token_measure_names().empty()))
      any += (any.empty() ? "" : ", ") + x.name;
  if (!token_ok) return e.name + " ranks and deletes single tokens, which this kind of model does not offer; on it run " + any;
  return e.name + " reads the parameters of a model attnlab trained; on this model run " + any;
}

std::vector<nlohmann::json> run_rows(int total, bool concurrent, const std::function<nlohmann::json(int)>& run_one,
                                     const std::function<bool(int, int)>& progress, bool* cancelled) {
  std::vector<nlohmann::json> rows;
  *cancelled = false;
  // Blocks of a few instances per thread: long and short instances even out, and progress / Cancel stay prompt.
  const int block = concurrent ? 4 * thread_count() : 1;
  for (int i = 0; i < total; i += block) {
    const int n = std::min(block, total - i);
    std::vector<nlohmann::json> part(static_cast<size_t>(n));
    if (concurrent)
      parallel_for(part.size(), [&](size_t k) { part[k] = run_one(i + static_cast<int>(k)); });
    else
      part[0] = run_one(i);
    for (auto& r : part) rows.push_back(std::move(r));
    if (progress && !progress(i + n, total) && i + n < total) {
      *cancelled = true;
      break;
    }
  }
  return rows;
}

nlohmann::json run_experiment(const Experiment& e, const AttentionModel& model, const std::vector<Instance>& data,
                              const ExperimentOptions& options, const std::function<bool(int, int)>& progress) {
  bool cancelled = false;
  const std::shared_ptr<const void> prepared = e.prepare ? e.prepare(model, options) : nullptr;
  const std::vector<nlohmann::json> rows = run_rows(
      static_cast<int>(data.size()), model.concurrent(),
      [&](int i) { return run_instance(e, model, data[i], options, prepared.get()); }, progress, &cancelled);
  nlohmann::json out;
  out["experiment"] = e.name;
  out["n"] = rows.size();
  out["summary"] = summarize_rows(e, model, rows, options);
  if (cancelled) out["summary"]["cancelled"] = true;
  out["rows"] = rows;
  return out;
}

const char* instance_skip_reason(const AttentionModel& model, const Instance& instance, int min_tokens) {
  return model.skip_reason(instance, min_tokens);
}

const char* instance_skip_reason(const TextModel& model, const Instance& instance, int min_tokens) {
  return TextAttentionModel(model).skip_reason(instance, min_tokens);
}

std::unique_ptr<AttentionInstance> freeze_or_skip(const AttentionModel& model, const Instance& instance, int min_units,
                                                  nlohmann::json& row) {
  if (const char* why = model.skip_reason(instance, min_units)) {
    row["skipped"] = why;
    return nullptr;
  }
  std::string error;
  std::unique_ptr<AttentionInstance> frozen = model.freeze(instance, &error);
  if (!frozen) row["skipped"] = error.empty() ? "the model could not run this instance" : error;
  else if (frozen->size() < min_units) {
    row["skipped"] = std::string("fewer than ") + std::to_string(min_units) + " " + model.unit_name() + "s to weigh";
    frozen.reset();
  }
  return frozen;
}

double row_number(const nlohmann::json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : std::nan("");
}

bool row_flag(const nlohmann::json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_boolean() && it->get<bool>();
}

int listed_classes(const AttentionModel& model) { return model.num_classes() <= 64 ? model.num_classes() : 0; }

int row_class(const nlohmann::json& row) {
  auto it = row.find("label");
  if (it != row.end() && it->is_number_integer() && it->get<int>() >= 0) return it->get<int>();
  const double p = row_number(row, "predicted");
  return std::isfinite(p) ? static_cast<int>(p) : -1;
}

int max_attention_bin(double max_attention) {
  if (!std::isfinite(max_attention)) return -1;
  return std::clamp(static_cast<int>(std::floor(max_attention * kMaxAttentionBins)), 0, kMaxAttentionBins - 1);
}

nlohmann::json max_attention_bins_json(const std::vector<std::vector<double>>& bins, const char* mean_key) {
  static const char* const names[kMaxAttentionBins] = {"[0,0.25)", "[0.25,0.5)", "[0.5,0.75)", "[0.75,1]"};
  nlohmann::json out = nlohmann::json::array();
  for (int b = 0; b < kMaxAttentionBins; ++b)
    out.push_back({{"bin", names[b]}, {"n", bins[b].size()}, {mean_key, mean_of(bins[b])}});
  return out;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

double std_of(const std::vector<double>& v) {
  if (v.empty()) return std::nan("");
  const double m = mean_of(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / v.size());
}

double median_of(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace attnlab
