// The registry of experiments, in the order of core/experiments/all.h.
#include "experiments/all.h"

namespace attnlab {

const std::vector<Experiment>& experiment_registry() {
  static const std::vector<Experiment> all = {
      kendall_experiment(),          permutation_experiment(), adversarial_experiment(),
      erase_max_experiment(),        erase_until_flip_experiment(), eraser_experiment(),
      randomization_experiment(),    seeds_experiment(),       self_attention_correlation_experiment(),
      head_ablation_experiment(),
  };
  return all;
}

const Experiment* find_experiment(const std::string& name) {
  for (const Experiment& e : experiment_registry())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace attnlab
