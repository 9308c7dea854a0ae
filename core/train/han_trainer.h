// Training loop for HAN (core/model/han_model), the text trainer's recipe (core/train/text_trainer.h):
// batches of documents of similar size (total tokens) in shuffled order, class-balanced loss summed over
// the batch, Adam (amsgrad, weight decay), dev evaluation after every epoch, the best epoch (dev accuracy,
// then F1) kept. Advances in steps (a caller without threads reports progress and cancels between steps).
// Seeded and deterministic.
#pragma once
#include <functional>
#include <vector>

#include "model/han_model.h"
#include "nn/adam.h"
#include "train/text_trainer.h"  // ClassificationMetrics, TrainOptions, TrainProgress, TrainResult

namespace attnlab {

struct HanExample {
  int label = 0;
  HanDocument doc;
};

class HanTrainingRun {
 public:
  // options.impose_attention is not used (HAN has no imposed-attention training).
  HanTrainingRun(const HanConfig& cfg, HanParams<float> initial, std::vector<HanExample> train,
                 std::vector<HanExample> dev, const TrainOptions& options);
  TrainProgress step(int max_batches);
  bool done() const { return epoch_ > o_.epochs; }
  const HanParams<float>& best() const { return best_; }
  const HanParams<float>& current() const { return params_; }
  const TrainResult& result() const { return result_; }

 private:
  HanConfig cfg_;
  TrainOptions o_;
  std::vector<HanExample> train_, dev_;
  std::vector<int> dev_gold_;
  HanParams<float> params_, best_, grads_;
  std::vector<HanParams<float>> part_grads_;  // one per data-parallel part (train/data_parallel.h)
  Adam<float> adam_;
  Rng rng_;
  float pos_weight_ = 1.f;
  std::vector<float> class_weights_;
  TrainResult result_;
  double best_acc_ = -1, best_f1_ = -1;
  int epoch_ = 1;
  std::vector<std::vector<int>> batches_;
  size_t next_batch_ = 0;
  double loss_sum_ = 0;
  long seen_ = 0;
};

TrainResult train_han_model(const HanConfig& cfg, HanParams<float>& params, const std::vector<HanExample>& train,
                            const std::vector<HanExample>& dev, const TrainOptions& options,
                            const std::function<bool(const TrainProgress&)>& progress = nullptr);

// One forward + backward on a batch: the summed class-weighted loss; gradients accumulate into grads.
float han_loss_and_gradients(const HanConfig& cfg, const HanParams<float>& params, const std::vector<HanDocument>& docs,
                             const std::vector<int>& labels, float pos_weight, const std::vector<float>& class_weights,
                             HanParams<float>& grads);

// Predicted class per example, and p(class 1) (binary) or p(predicted) per example if probs is given.
std::vector<int> han_predict_classes(const HanConfig& cfg, const HanParams<float>& params,
                                     const std::vector<HanExample>& data, int batch_size = 64,
                                     std::vector<double>* probs = nullptr);

}  // namespace attnlab
