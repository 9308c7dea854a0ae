// The debate experiments (Jain & Wallace 2019, Serrano & Smith 2019, Wiegreffe & Pinter 2019, ERASER):
// one experiment per file, each behind the same two functions — run on one instance (a row of numbers,
// as JSON) and summarise the rows of a data set. The registry lists them by CLI name. Every instance gets
// its own random stream derived from (seed, instance index), so results do not depend on order, --limit
// or threads.
#pragma once
#include <cstdint>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalogue/param_spec.h"
#include "model/attention_model.h"  // Instance, AttentionModel
#include "model/text_checkpoint.h"
#include "nn/rng.h"

namespace attnlab {

// Shared by the experiments' rows and summaries: the NaN of "not defined here", and a number as JSON with
// NaN / ±inf written as null (JSON has no NaN).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

struct ExperimentOptions {
  uint64_t seed = 1;
  nlohmann::json params = nlohmann::json::object();  // experiment-specific overrides (e.g. {"steps": 500})
  // Further models for experiments that compare models (e.g. the same recipe trained with other seeds);
  // they must share the main model's vocabulary.
  std::vector<const TextModel*> other_models;
  // Integer/double parameter with a default.
  int get_int(const char* key, int fallback) const;
  double get_double(const char* key, double fallback) const;
};

struct Experiment {
  std::string name;         // CLI name, e.g. "adversarial"
  std::string description;  // one line
  // Experiments run on the attention-model interface (model/attention_model.h), so every model kind gets them;
  // those marked needs_text_model read the parameters of a model attnlab trained (model.text_model()) and refuse
  // other kinds (check_experiment_model).
  // Optional: state built once per (model, options) and shared by all instances (e.g. randomised model
  // copies). Null when the experiment needs none.
  std::function<std::shared_ptr<const void>(const AttentionModel&, const ExperimentOptions&)> prepare;
  // One instance -> one row (JSON object; may hold arrays for the page's per-sentence views). `prepared` is
  // what prepare returned (nullptr without prepare).
  std::function<nlohmann::json(const AttentionModel&, const Instance&, const ExperimentOptions&, Rng&,
                               const void* prepared)>
      run;
  // Rows of a data set -> summary numbers (JSON object).
  std::function<nlohmann::json(const AttentionModel&, const std::vector<nlohmann::json>&, const ExperimentOptions&)>
      summarize;
  // For the catalogue (filled in registry.cpp): parameters with defaults / ranges, and what an instance needs.
  std::vector<ParamSpec> params;
  int min_tokens = 1;             // shorter instances give {"skipped": ...}
  bool needs_other_models = false;  // compares with ExperimentOptions::other_models (CLI --with-model)
  bool needs_human_rationales = false;  // reads Instance::rationale (CLI --trees; wasm loadDataset's trees)
  bool needs_text_model = false;
  bool needs_token_measures = false;  // ranks and deletes tokens (AttentionModel::token_measures): not on a HAN  // reads a model attnlab trained (AttentionModel::text_model()), not any kind
};

// The experiments that read a trained flat model's parameters are written on TextModel and registered through these
// (needs_text_model): they run on model.text_model(); for another model kind a row is {"skipped": why} and a summary
// {"error": why} (the CLI and the bindings refuse such a pair first, check_experiment_model).
using TextExperimentRun = std::function<nlohmann::json(const TextModel&, const Instance&, const ExperimentOptions&,
                                                       Rng&, const void*)>;
using TextExperimentSummary =
    std::function<nlohmann::json(const TextModel&, const std::vector<nlohmann::json>&, const ExperimentOptions&)>;
using TextExperimentPrepare = std::function<std::shared_ptr<const void>(const TextModel&, const ExperimentOptions&)>;
decltype(Experiment::run) on_text_model(TextExperimentRun run);
decltype(Experiment::summarize) on_text_model(TextExperimentSummary summarize);
decltype(Experiment::prepare) on_text_model(TextExperimentPrepare prepare);

const std::vector<Experiment>& experiment_registry();
const Experiment* find_experiment(const std::string& name);
// The experiments that train models (CLI only, `attnlab experiment NAME`): name, description, parameters.
struct TrainingExperimentInfo {
  std::string name, description;
  std::vector<ParamSpec> params;
  bool needs_learned_attention = false;
};
const std::vector<TrainingExperimentInfo>& training_experiments();
// "" when params fit e.params (checked by the CLI and the wasm bindings alike), else a message.
std::string check_experiment_params(const Experiment& e, const nlohmann::json& params);
// "" when the experiment runs on this model kind, else a message naming the experiments that do.
std::string check_experiment_model(const Experiment& e, const AttentionModel& model);

// The random stream of one instance.
Rng instance_rng(uint64_t seed, int index);

// One instance (adds "index" and, when known, "label" to the row). `prepared` as from e.prepare.
nlohmann::json run_instance(const Experiment& e, const AttentionModel& model, const Instance& instance,
                            const ExperimentOptions& options, const void* prepared);
// Summary of rows (adds "n").
nlohmann::json summarize_rows(const Experiment& e, const AttentionModel& model, const std::vector<nlohmann::json>& rows,
                              const ExperimentOptions& options);
// The same for a flat model attnlab trained (wrapped in experiments/text_attention_model.h).
nlohmann::json run_instance(const Experiment& e, const TextModel& model, const Instance& instance,
                            const ExperimentOptions& options, const void* prepared);
nlohmann::json summarize_rows(const Experiment& e, const TextModel& model, const std::vector<nlohmann::json>& rows,
                              const ExperimentOptions& options);

// The rows of instances 0 .. total − 1, run_one(i) each: side by side on the core's threads when `concurrent` (a row
// depends on its instance alone, each with its own random stream), else one after the other. progress(done, total)
// is asked after each block of instances (after each one when serial); false before the end cancels: the rows done
// so far (the first `done`) are returned and *cancelled is set.
std::vector<nlohmann::json> run_rows(int total, bool concurrent, const std::function<nlohmann::json(int)>& run_one,
                                     const std::function<bool(int, int)>& progress, bool* cancelled);

// Runs over instances (skipping none; instances must have ids). progress(done, total) may return false to
// cancel; then the summary covers the rows done so far and has "cancelled": true.
// Result: {"experiment", "n", "summary": {...}, "rows": [...]}.
nlohmann::json run_experiment(const Experiment& e, const AttentionModel& model, const std::vector<Instance>& data,
                              const ExperimentOptions& options,
                              const std::function<bool(int, int)>& progress = nullptr);
nlohmann::json run_experiment(const Experiment& e, const TextModel& model, const std::vector<Instance>& data,
                              const ExperimentOptions& options,
                              const std::function<bool(int, int)>& progress = nullptr);

// Helpers shared by the experiments' run / summarize.
// Why an instance cannot be used ("no tokens", "token id out of range", "single token" when min_tokens is
// 2), or nullptr when it can (model.skip_reason).
const char* instance_skip_reason(const AttentionModel& model, const Instance& instance, int min_tokens = 1);
const char* instance_skip_reason(const TextModel& model, const Instance& instance, int min_tokens = 1);
// The frozen instance, or null with row["skipped"] set to why not (skip reason or the model's error).
std::unique_ptr<AttentionInstance> freeze_or_skip(const AttentionModel& model, const Instance& instance, int min_units,
                                                  nlohmann::json& row);
// A number field of a row (NaN when missing or not a number); a boolean field (false when missing).
double row_number(const nlohmann::json& row, const char* key);
bool row_flag(const nlohmann::json& row, const char* key);
// How many classes a per-class summary lists even when no row has them: every class of a classifier (up to 64),
// none of a language model's vocabulary (its classes appear where rows have them).
int listed_classes(const AttentionModel& model);
// Class of a row for per-class breakdowns: the gold label when known, else "predicted" (-1 when neither).
int row_class(const nlohmann::json& row);

// Jain & Wallace plot per-instance results against the largest attention weight in quartile bins
// [0,.25) [.25,.5) [.5,.75) [.75,1]: the bin of a value (-1 when not finite), and the JSON list
// [{bin, n, <mean_key>: mean}] of the values collected per bin.
constexpr int kMaxAttentionBins = 4;
int max_attention_bin(double max_attention);
nlohmann::json max_attention_bins_json(const std::vector<std::vector<double>>& bins, const char* mean_key);

// Summary statistics helpers shared by the experiments.
double mean_of(const std::vector<double>& v);
double std_of(const std::vector<double>& v);  // population standard deviation
double median_of(std::vector<double> v);

}  // namespace attnlab
