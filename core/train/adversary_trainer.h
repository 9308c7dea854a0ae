// Wiegreffe & Pinter 2019 §4, the model-consistent adversary: a second model of the same architecture,
// trained from scratch to reproduce a base model's predictions while its attention moves away from the
// base model's, per instance:
//   loss = TVD(y_adv, y_base) - lambda * KL(alpha_adv || alpha_base)
// summed over the batch (Adam as in TrainOptions; no dev selection: the last finished epoch is kept).
// Sweeping lambda traces W&P's TVD-vs-JSD curve. The base model only provides targets (frozen).
// AdversaryTrainingRun advances in bounded steps (the page's worker reports progress and cancels between
// them) and, at each epoch end, compares the adversary with the base on the dev set (mean TVD of the
// outputs, mean JSD / KL of the attention, accuracy / F1 against the gold labels); train_adversary is a
// loop over it. Seeded and deterministic: same seed, data and lambda → the same weights.
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
  int n = 0;            // instances with at least one token (the divergences' denominator)
  double tvd_mean = 0;  // outputs vs the base model's
  double jsd_mean = 0;  // attention vs the base model's
  double kl_mean = 0;   // KL(alpha_adv || alpha_base)
  ClassificationMetrics vs_gold;  // the adversary's own accuracy / F1 on the gold labels (all instances)
};

struct AdversaryProgress {
  int epoch = 0, epochs = 0;   // epoch is 1-based; the one this step worked on
  int batch = 0, batches = 0;  // batches of this epoch done / in all
  double train_loss = 0;       // running mean loss per example in this epoch
  bool epoch_done = false;     // true once per epoch, after the dev comparison
  bool has_dev = false;        // dev is valid (epoch_done and a non-empty dev set)
  AdversaryComparison dev;
  int epochs_done = 0;         // finished epochs (the last of them is the kept model)
};

class AdversaryTrainingRun {
 public:
  // base: copied (the run does not refer to the caller's model). initial: the adversary's initial weights
  // (same config as the base). train: token ids (labels unused). dev: may be empty (no comparison).
  AdversaryTrainingRun(const TextModel& base, TextParams<float> initial, std::vector<EncodedExample> train,
                       std::vector<EncodedExample> dev, double lambda, const TrainOptions& options);
  // Runs up to max_batches (>= 1) batches; stops early at the end of an epoch (after the dev comparison,
  // then epoch_done is set). Nothing happens once done().
  AdversaryProgress step(int max_batches);
  bool done() const { return epoch_ > o_.epochs; }
  const TextParams<float>& current() const { return params_; }
  const TextParams<float>& kept() const { return kept_; }  // end of the last finished epoch (initial before)
  int epochs_done() const { return epoch_ - 1; }
  const TrainResult& result() const { return result_; }   // best_epoch = the last finished epoch
  const std::vector<AdversaryComparison>& dev_per_epoch() const { return dev_per_epoch_; }
  const TextModel& base() const { return base_; }
  double lambda() const { return lambda_; }
  const TrainOptions& options() const { return o_; }

 private:
  TextModel base_;
  TrainOptions o_;
  double lambda_;
  std::vector<EncodedExample> train_, dev_;
  TextParams<float> params_, kept_, grads_;
  Adam<float> adam_;
  Rng rng_;
  std::vector<int> order_;  // non-empty training examples, reshuffled in place every epoch
  TrainResult result_;
  std::vector<AdversaryComparison> dev_per_epoch_;
  int epoch_ = 1;
  std::vector<std::vector<int>> batches_;  // this epoch's, made at its first step
  size_t next_batch_ = 0;
  double loss_sum_ = 0;
  long seen_ = 0;
};

// Trains params (initialised by the caller) on the examples' token ids (labels unused); a loop over
// AdversaryTrainingRun without a dev set. On return params hold the last finished epoch's weights (the
// current ones when cancelled). The progress callback (may stop training by returning false) is called
// every 50 batches and at each epoch end.
TrainResult train_adversary(const TextModel& base, TextParams<float>& params, const std::vector<EncodedExample>& train,
                            double lambda, const TrainOptions& options,
                            const std::function<bool(const TrainProgress&)>& progress = nullptr);

AdversaryComparison compare_with_base(const TextModel& base, const TextParams<float>& adversary,
                                      const std::vector<EncodedExample>& data);

}  // namespace attnlab
