// The token-importance measures that the ERASER (eraser.cpp) and plausibility (plausibility.cpp) experiments
// score, computed once per instance, each explaining the class c the model predicts on the full input:
// "attention", "gradient" (J&W), "leave_one_out", "integrated_gradients" (ig_steps from options, default 50);
// for a transformer also its readings of the attention and the propagation / context-mixing methods ("rollout",
// "flow", "relevance" (Chefer), "grad_attention", "attention_norm", "attnlrp", "cp_lrp", "value_zeroing",
// "alti"); last "random", the baseline: one shuffle of the positions from the instance's random stream, as scores
// T, T-1, ..., 1 in shuffled order (so ranking by |score| gives the shuffle itself).
#pragma once
#include <string>
#include <vector>

#include "experiments/experiment.h"

namespace attnlab {

// The measures of a model, in order (the scores' order).
std::vector<std::string> importance_measures(const TextModel& model);

struct MeasureScores {
  int predicted = -1;                       // c: the class explained (the predicted one unless a target is given)
  double p_predicted = 0;                   // p_c(x) on the full input
  std::vector<std::vector<double>> scores;  // [measure][position], in importance_measures(model) order
};

// inst must be usable (instance_skip_reason(model, inst) == nullptr). target: the class explained (−1: the predicted
// one; else within the model's classes).
MeasureScores measure_scores(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
                             int target = -1);

}  // namespace attnlab
