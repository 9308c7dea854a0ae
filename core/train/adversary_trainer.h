// Wiegreffe & Pinter 2019 §4, the model-consistent adversary: a second model of the same architecture,
// trained from scratch to reproduce a base model's predictions while its attention moves away from the
// base model's, per instance:
//   loss = TVD(y_adv, y_base) - lambda * KL(alpha_adv || alpha_base)
// summed over the batch (Adam as in TrainOptions; no dev selection: the last epoch is kept). Sweeping lambda
// traces W&P's TVD-vs-JSD curve. The base model only provides targets (frozen).
#pragma once
#include <functional>
#include <vector>

#include "model/text_checkpoint.h"
#include "train/text_trainer.h"

namespace attnlab {

// Base model outputs on one batch, the adversary's targets.
template <class T>
struct AdversaryTargets {
  Mat<T> probs;  // [C x B] class probabilities
  Mat<T> alpha;  // [T x B] attention (zero on padding)
};

// Loss of one batch and its gradients (accumulated into grads, embedding included).
template <class T>
T adversary_loss_and_gradients(const TextConfig& cfg, const TextParams<T>& params, const TextBatch& batch,
                               const AdversaryTargets<T>& target, double lambda, TextParams<T>& grads);

struct AdversaryComparison {
  int n = 0;
  double tvd_mean = 0;  // outputs vs the base model's
  double jsd_mean = 0;  // attention vs the base model's
  double kl_mean = 0;
  ClassificationMetrics vs_gold;  // the adversary's own accuracy / F1 on the gold labels
};

// Trains params (initialised by the caller) on the examples' token ids (labels unused).
TrainResult train_adversary(const TextModel& base, TextParams<float>& params, const std::vector<EncodedExample>& train,
                            double lambda, const TrainOptions& options,
                            const std::function<bool(const TrainProgress&)>& progress = nullptr);

AdversaryComparison compare_with_base(const TextModel& base, const TextParams<float>& adversary,
                                      const std::vector<EncodedExample>& data);

}  // namespace attnlab
