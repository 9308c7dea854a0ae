// Training loop for the text classifier (Jain & Wallace recipe): length-sorted batches in shuffled order,
// class-balanced loss summed over the batch, Adam (amsgrad, weight decay), evaluation on the dev set after
// every epoch, the best epoch (dev accuracy, then dev F1) kept. Seeded and deterministic. A progress
// callback may stop training early by returning false.
#pragma once
#include <functional>
#include <vector>

#include "model/text_model.h"
#include "nn/adam.h"

namespace attnlab {

struct EncodedExample {
  int label = 0;
  std::vector<int> ids;
};

struct ClassificationMetrics {
  int n = 0;
  double accuracy = 0, f1 = 0;  // f1: positive class (label 1) for binary, macro-F1 otherwise
  double precision = 0, recall = 0;
  double loss = 0;  // mean weighted loss per example
};

struct TrainOptions {
  int epochs = 8;
  int batch_size = 32;
  uint64_t seed = 1;
  AdamOptions adam{1e-3, 0.9, 0.999, 1e-8, 1e-5, true};
  bool balance_classes = true;
};

struct TrainProgress {
  int epoch = 0, epochs = 0;
  int batch = 0, batches = 0;
  double train_loss = 0;          // running mean per example in this epoch
  bool epoch_done = false;        // true once per epoch, after dev evaluation
  ClassificationMetrics dev;      // valid when epoch_done
  int best_epoch = 0;
};

struct TrainResult {
  int best_epoch = 0;
  ClassificationMetrics best_dev;
  std::vector<ClassificationMetrics> dev_per_epoch;
  std::vector<double> train_loss_per_epoch;
  bool cancelled = false;
};

// Trains params in place (they must be initialised); on return params hold the best epoch's weights.
TrainResult train_text_model(const TextConfig& cfg, TextParams<float>& params,
                             const std::vector<EncodedExample>& train, const std::vector<EncodedExample>& dev,
                             const TrainOptions& options,
                             const std::function<bool(const TrainProgress&)>& progress = nullptr);

// One forward + backward on a batch: returns the summed class-weighted loss and accumulates parameter
// gradients (embedding included) into grads. pos_weight applies to binary models, class_weights to
// multi-class ones (empty: all 1).
float text_loss_and_gradients(const TextConfig& cfg, const TextParams<float>& params, const TextBatch& batch,
                              const std::vector<int>& labels, float pos_weight,
                              const std::vector<float>& class_weights, TextParams<float>& grads);

// Predicted class per example (batched forward).
std::vector<int> predict_classes(const TextConfig& cfg, const TextParams<float>& params,
                                 const std::vector<EncodedExample>& data, int batch_size = 64);

ClassificationMetrics classification_metrics(const std::vector<int>& predicted, const std::vector<int>& gold,
                                             int num_classes);

}  // namespace attnlab
