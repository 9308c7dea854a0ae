// The registry of experiments, in the order of core/experiments/all.h, with what the catalogue says about each
// (core/catalogue): parameters with defaults and ranges (the defaults are the ones the experiment files use;
// tests/core/test_catalogue.cpp runs each experiment with {} and with the listed defaults and compares rows),
// the minimum number of tokens, and whether it needs other models or human rationales.
#include "experiments/all.h"

namespace attnlab {
namespace {

ParamSpec int_param(const char* name, int def, int lo, int hi, const char* what) {
  return {name, "int", def, double(lo), double(hi), {}, what};
}
ParamSpec number_param(const char* name, double def, double lo, double hi, const char* what) {
  return {name, "number", def, lo, hi, {}, what};
}

Experiment with(Experiment e, std::vector<ParamSpec> params, int min_tokens, bool other_models = false,
                bool human_rationales = false) {
  e.params = std::move(params);
  e.min_tokens = min_tokens;
  e.needs_other_models = other_models;
  e.needs_human_rationales = human_rationales;
  return e;
}

// The readings that kendall and erase-until-flip set beside attention (experiments/attention_measures.h unit_readings).
std::vector<ParamSpec> readings_params() {
  return {int_param("readings", 1, 0, 1,
                    "also the model's further readings (integrated gradients; a transformer's rollout, flow, relevance, "
                    "AttnLRP, CP-LRP, value zeroing, ALTI, ...) in attention's place (1) or attention alone (0)"),
          int_param("ig_steps", 50, 1, 10000, "integrated-gradients steps")};
}

std::vector<ParamSpec> adversary_search_params() {
  return {int_param("candidates", 5, 1, 50, "adversarial attention distributions searched together (K)"),
          int_param("steps", 500, 1, 100000, "Adam steps of the search"),
          number_param("lr", 0.01, 1e-6, 10, "Adam learning rate of the search"),
          number_param("epsilon", 0.01, 0, 1, "largest allowed output change (TVD)")};
}

}  // namespace

const std::vector<Experiment>& experiment_registry() {
  static const std::vector<Experiment> all = {
      with(kendall_experiment(), readings_params(), 1),
      with(permutation_experiment(), {int_param("permutations", 100, 1, 10000, "random permutations of the attention")}, 2),
      with(adversarial_experiment(), adversary_search_params(), 2),
      with(erase_max_experiment(), {}, 2),
      with(erase_until_flip_experiment(), readings_params(), 2),
      with(eraser_experiment(),
           {int_param("ig_steps", 50, 1, 10000, "integrated-gradients steps"),
            {"ranking", "string", "magnitude", 0, -1, {"magnitude", "signed"},
             "how a signed measure (integrated gradients, AttnLRP, CP-LRP) ranks the tokens: by |value|, or most "
             "positive first (evidence for the predicted class first; AttnLRP's perturbation order)"}},
           1),
      with(randomization_experiment(), {int_param("ig_steps", 20, 1, 10000, "integrated-gradients steps")}, 1),
      with(seeds_experiment(),
           {int_param("adversarial", 1, 0, 1, "also run the adversarial search on the base model (1) or not (0)"),
            int_param("steps", 500, 1, 100000, "Adam steps of that search")},
           1, true),
      with(self_attention_correlation_experiment(), {}, 2),
      with(head_ablation_experiment(),
           {{"order", "string", "", 0, -1, {},
             "pruning order: heads as layer.head (1-based), comma-separated; heads not named follow in index order"}},
           1),
      with(plausibility_experiment(), {int_param("ig_steps", 50, 1, 10000, "integrated-gradients steps")}, 1, false, true),
      with(conicity_experiment(), {}, 1),
      with(impermissible_experiment(),
           {{"words", "string", "", 0, -1, {}, "impermissible words, whitespace-separated (e.g. a sentiment lexicon)"}},
           1),
  };
  return all;
}

const Experiment* find_experiment(const std::string& name) {
  for (const Experiment& e : experiment_registry())
    if (e.name == name) return &e;
  return nullptr;
}

const std::vector<TrainingExperimentInfo>& training_experiments() {
  static const std::vector<TrainingExperimentInfo> all = {
      {"adversarial-training",
       "Wiegreffe & Pinter model-consistent adversaries for a sweep of lambda: TVD / JSD to the base, accuracy",
       {{"train", "string", nullptr, 0, -1, {}, "the adversaries' training TSV (required)"},
        {"lambdas", "number_list", {0, 0.1, 0.5, 1, 2, 5}, 0, 1e6, {}, "lambda values of the sweep"},
        int_param("epochs", 8, 1, 1000, "training epochs per adversary")},
       true},
      {"diagnostic",
       "Wiegreffe & Pinter diagnostic: an MLP encoder with learned, uniform or the base model's imposed attention",
       {{"train", "string", nullptr, 0, -1, {}, "training TSV (required)"},
        {"dev", "string", nullptr, 0, -1, {}, "dev TSV (required)"},
        int_param("epochs", 8, 1, 1000, "training epochs per variant")},
       false},
  };
  return all;
}

std::string check_experiment_params(const Experiment& e, const nlohmann::json& params) {
  if (params.is_object()) {
    // A key the experiment does not read is a typo (--param stpes=500) that would silently run the defaults.
    for (auto it = params.begin(); it != params.end(); ++it) {
      if (find_param(e.params, it.key())) continue;
      std::string known;
      for (const ParamSpec& s : e.params) known += (known.empty() ? "" : ", ") + s.name;
      return "unknown parameter '" + it.key() + "' for " + e.name +
             (known.empty() ? " (it takes none)" : " (it takes: " + known + ")");
    }
  }
  return check_params(e.params, params);
}

}  // namespace attnlab
