// The debate experiments on HAN documents (Serrano & Smith 2019 ran theirs on HAN as well as flat models):
// a registry of its own, because the text registry (experiment.h) runs on the flat TextModel. Same shape:
// one experiment per file (han_*.cpp), run on one instance -> a JSON row, summarise rows -> a JSON object;
// each instance gets the random stream instance_rng(seed, index). Names match the flat experiments
// (`kendall`, `erase-max`, `erase-until-flip`, `adversarial`), so `attnlab experiment NAME --model HAN_DIR` dispatches here.
// Parameter `level` = "sentence" (default) | "word" for the erasure experiments.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/experiment.h"  // ExperimentOptions, instance_rng, mean_of, ...
#include "model/han_checkpoint.h"

namespace attnlab {

struct HanInstance {
  int index = 0;
  int label = -1;
  HanDocument doc;
};

struct HanExperiment {
  std::string name, description;
  std::function<nlohmann::json(const HanModel&, const HanInstance&, const ExperimentOptions&, Rng&)> run;
  std::function<nlohmann::json(const HanModel&, const std::vector<nlohmann::json>&, const ExperimentOptions&)> summarize;
};

const std::vector<HanExperiment>& han_experiment_registry();
const HanExperiment* find_han_experiment(const std::string& name);

// One instance's row with "index" and "label" (its random stream instance_rng(options.seed, index)), and the
// summary of rows with "n" — what run_han_experiment does per instance and at the end (the wasm HanLab runs
// index ranges with these, so its rows and summary equal the CLI's).
nlohmann::json run_han_instance(const HanExperiment& e, const HanModel& model, const HanInstance& instance,
                                const ExperimentOptions& options);
nlohmann::json summarize_han_rows(const HanExperiment& e, const HanModel& model, const std::vector<nlohmann::json>& rows,
                                  const ExperimentOptions& options);

// True when `row` has what the experiment's summary reads, with the right types (a "skipped" row always has):
// the wasm binding checks rows that come from the page with it before summarising (no exceptions in wasm).
bool han_row_well_formed(const std::string& experiment, const nlohmann::json& row);

// {"experiment", "n", "summary", "rows"}; rows get "index" and "label". progress(done, total) may cancel.
nlohmann::json run_han_experiment(const HanExperiment& e, const HanModel& model, const std::vector<HanInstance>& data,
                                  const ExperimentOptions& options,
                                  const std::function<bool(int, int)>& progress = nullptr);

HanExperiment han_kendall_experiment();
HanExperiment han_erase_max_experiment();
HanExperiment han_erase_until_flip_experiment();
HanExperiment han_adversarial_experiment();  // han_adversarial.cpp

// ---- shared by the HAN experiments (han_frozen.cpp) ----
// One document's forward with what the interventions need. The sentence encoder states are frozen for
// sentence-level interventions (the output for any beta is one classifier evaluation); word-level
// interventions re-run the sentence level on the new sentence vectors (batched).
struct HanFrozen {
  std::vector<double> probs;
  int predicted = 0;
  Mat<double> h;                          // [2Hs x S] sentence encoder states
  std::vector<double> beta;               // sentence attention
  std::vector<std::vector<double>> alpha; // word attention per sentence
  std::vector<double> d_beta;             // d p_pred / d beta_i
  std::vector<std::vector<double>> d_alpha;  // d p_pred / d alpha_it (sentence level live)
  std::vector<Mat<double>> word_states;     // per sentence [2Hw x n_i]: the word encoder's states (the word
                                            // attention does not reach them)
  int num_words() const;
};
HanFrozen han_freeze(const HanModel& model, const HanDocument& doc);
std::vector<double> han_output_with_sentence_attention(const HanModel& model, const HanFrozen& f,
                                                       const std::vector<double>& beta);
// Class probabilities for each variant of the word attention (each: per sentence, per token), one batch.
std::vector<std::vector<double>> han_outputs_with_word_attention(
    const HanModel& model, const HanDocument& doc, const std::vector<std::vector<std::vector<double>>>& variants);
// "sentence" or "word" from options.params["level"] (default sentence); "" when invalid.
std::string han_level(const ExperimentOptions& options);

}  // namespace attnlab
