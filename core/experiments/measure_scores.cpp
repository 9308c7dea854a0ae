// See measure_scores.h.
#include "experiments/measure_scores.h"

#include <algorithm>
#include <numeric>

#include "experiments/frozen_encoder.h"  // argmax
#include "explain/importance.h"

namespace attnlab {

const char* const kImportanceMeasures[kNumImportanceMeasures] = {"attention", "gradient", "leave_one_out",
                                                                 "integrated_gradients", "random"};

MeasureScores measure_scores(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng) {
  const TextConfig& cfg = model.config;
  const int T = static_cast<int>(inst.ids.size());
  TextCache<float> full;
  text_forward_ids(cfg, model.params, TextBatch::from_sequences({inst.ids}), full);
  const Mat<float> probs = class_probabilities(cfg, full.logits);
  MeasureScores out;
  out.predicted = argmax(std::vector<double>(probs.data(), probs.data() + probs.size()));
  out.p_predicted = class_probability(cfg, full.logits, 0, out.predicted);

  ExplainInput in;
  in.cfg = &cfg;
  in.params = &model.params;
  in.ids = inst.ids;
  in.target = out.predicted;
  in.ig_steps = std::max(1, options.get_int("ig_steps", 50));
  out.scores = {attention_importance(in), gradient_importance(in), leave_one_out_importance(in),
                integrated_gradients_importance(in)};
  std::vector<int> shuffled(T);
  std::iota(shuffled.begin(), shuffled.end(), 0);
  rng.shuffle(shuffled);
  std::vector<double> random_score(T);
  for (int j = 0; j < T; ++j) random_score[shuffled[j]] = T - j;
  out.scores.push_back(random_score);
  return out;
}

}  // namespace attnlab
