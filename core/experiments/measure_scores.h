// The five token-importance measures that the ERASER (eraser.cpp) and plausibility (plausibility.cpp)
// experiments score, computed once per instance: "attention", "gradient" (J&W), "leave_one_out",
// "integrated_gradients" (ig_steps from options, default 50), each explaining p_c for the class c the model
// predicts on the full input, and "random", the baseline: one shuffle of the positions from the instance's
// random stream, as scores T, T-1, ..., 1 in shuffled order (so ranking by |score| gives the shuffle itself).
#pragma once
#include <vector>

#include "experiments/experiment.h"

namespace attnlab {

constexpr int kNumImportanceMeasures = 5;
extern const char* const kImportanceMeasures[kNumImportanceMeasures];

struct MeasureScores {
  int predicted = -1;                       // c
  double p_predicted = 0;                   // p_c(x) on the full input
  std::vector<std::vector<double>> scores;  // [measure][position], in kImportanceMeasures order
};

// inst must be usable (instance_skip_reason(model, inst) == nullptr).
MeasureScores measure_scores(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng);

}  // namespace attnlab
