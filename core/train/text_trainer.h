// Training loop for the text classifier (Jain & Wallace recipe): length-sorted batches in shuffled order,
// class-balanced loss summed over the batch, Adam (amsgrad, weight decay), evaluation on the dev set after
// every epoch, the best epoch (dev accuracy, then dev F1) kept. Seeded and deterministic. A progress
// callback may stop training early by returning false.
#pragma once
#include <functional>
#include <vector>

#include "model/text_model.h"
#include "nn/adam.h"
#include "nn/adamw.h"
#include "train/explanation_penalties.h"
#include <memory>

namespace attnlab {

struct EncodedExample {
  int label = 0;
  std::vector<int> ids;
  std::vector<char> marked = {};  // per token: 1 = impermissible by position (TextBatch::marked); empty = none
};

struct ClassificationMetrics {
  int n = 0;
  double accuracy = 0, f1 = 0;  // f1: positive class (label 1) for binary, macro-F1 otherwise
  double precision = 0, recall = 0;
  double loss = 0;  // mean weighted loss per example
};

// Attention weights to impose on a batch ([T x B], zero on padding) instead of the model's own — the
// Wiegreffe & Pinter diagnostic setting. Empty function: the model's own attention.
using AttentionImposer = std::function<Mat<float>(const TextBatch&)>;

struct TrainOptions {
  int epochs = 8;
  int batch_size = 32;
  uint64_t seed = 1;
  AdamOptions adam{1e-3, 0.9, 0.999, 1e-8, 1e-5, true};
  bool balance_classes = true;
  AttentionImposer impose_attention;  // used in training and in the dev evaluation
  // AdamW (decoupled decay on weight matrices) with linear warm-up over warmup_fraction of all steps and
  // linear decay to 0 (the transformer recipe) instead of Adam; lr / betas / eps / decay from adamw_options
  // (warmup / total are computed from the data).
  bool use_adamw = false;
  AdamWOptions adamw_options;
  double warmup_fraction = 0.1;
  double dropout = 0.0;  // transformer only: dropout rate in training (seeded from seed and the step)
  ExplanationPenalties penalties;  // diversity / deception losses (train/explanation_penalties.h)
  // Data-parallel parts of each batch (train/data_parallel.h): 0 = the batch's rule (a batch of 32 in 4 parts of 8,
  // on the core's threads; the weights do not depend on the thread count), 1 = the whole batch in one pass.
  int parts = 0;
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

// A training run that advances in steps, so a caller without threads (the page's worker) can report
// progress and cancel between steps. Same schedule and numbers as train_text_model.
class TextTrainingRun {
 public:
  TextTrainingRun(const TextConfig& cfg, TextParams<float> initial, std::vector<EncodedExample> train,
                  std::vector<EncodedExample> dev, const TrainOptions& options);
  // Runs up to max_batches batches; stops early at the end of an epoch (after the dev evaluation, then
  // epoch_done is set). Nothing happens once done().
  TrainProgress step(int max_batches);
  bool done() const { return epoch_ > o_.epochs; }
  const TextParams<float>& best() const { return best_; }   // best epoch so far (the initial weights before)
  const TextParams<float>& current() const { return params_; }
  const TrainResult& result() const { return result_; }

 private:
  TextConfig cfg_;
  TrainOptions o_;
  std::vector<EncodedExample> train_, dev_;
  std::vector<int> dev_gold_;
  TextParams<float> params_, best_, grads_;
  Adam<float> adam_;
  std::unique_ptr<AdamW<float>> adamw_;
  long step_count_ = 0;
  Rng rng_;
  float pos_weight_ = 1.f;
  std::vector<float> class_weights_;
  TrainResult result_;
  double best_acc_ = -1, best_f1_ = -1;
  int epoch_ = 1;
  std::vector<TextParams<float>> part_grads_;  // one per data-parallel part (embedding empty)
  std::vector<std::vector<int>> batches_;  // this epoch's, made at its first step
  size_t next_batch_ = 0;
  double loss_sum_ = 0;
  long seen_ = 0;
};

// Trains params in place (they must be initialised); on return params hold the best epoch's weights.
TrainResult train_text_model(const TextConfig& cfg, TextParams<float>& params,
                             const std::vector<EncodedExample>& train, const std::vector<EncodedExample>& dev,
                             const TrainOptions& options,
                             const std::function<bool(const TrainProgress&)>& progress = nullptr);

// One forward + backward on a batch: returns the summed class-weighted loss and accumulates parameter
// gradients (embedding included) into grads. pos_weight applies to binary models, class_weights to
// multi-class ones (empty: all 1). penalties (nullable): added to the loss (train/explanation_penalties.h).
float text_loss_and_gradients(const TextConfig& cfg, const TextParams<float>& params, const TextBatch& batch,
                              const std::vector<int>& labels, float pos_weight,
                              const std::vector<float>& class_weights, TextParams<float>& grads,
                              const Mat<float>* alpha_override = nullptr, TransformerRun run = {},
                              const ExplanationPenalties* penalties = nullptr);
// The same without the embedding: the gradient w.r.t. the embedded inputs goes to *d_x ([E x T*B], batch.ids'
// order) for the caller to add into the table (embedding_backward); grads.embedding is not touched (may be empty).
float text_loss_and_input_gradients(const TextConfig& cfg, const TextParams<float>& params, const TextBatch& batch,
                                    const std::vector<int>& labels, float pos_weight,
                                    const std::vector<float>& class_weights, TextParams<float>& grads, Mat<float>* d_x,
                                    const Mat<float>* alpha_override = nullptr, TransformerRun run = {},
                                    const ExplanationPenalties* penalties = nullptr);

// How one training batch's loss is made (TextTrainingRun's step): `parts` data-parallel parts (train/data_parallel.h;
// 1 = one pass over the batch), the class weights, the imposed attention, the transformer's dropout and its seed
// (part p of several uses seed * kTrainParts + p), the explanation penalties.
struct BatchLoss {
  size_t parts = 1;
  float pos_weight = 1.f;
  const std::vector<float>* class_weights = nullptr;  // nullptr: all 1
  const AttentionImposer* impose = nullptr;
  double dropout = 0;
  uint64_t seed = 0;
  const ExplanationPenalties* penalties = nullptr;
};

// The summed loss of the examples idx of data; grads is set (not accumulated) to its parameter gradients. The parts
// run on the core's threads (scratch: their gradients, kept between calls) and are summed in part order, so grads do
// not depend on the thread count; they equal the one-pass gradient up to float rounding.
float text_batch_gradients(const TextConfig& cfg, const TextParams<float>& params,
                           const std::vector<EncodedExample>& data, const std::vector<int>& idx, const BatchLoss& loss,
                           TextParams<float>& grads, std::vector<TextParams<float>>& scratch);

// Predicted class per example (batched forward).
std::vector<int> predict_classes(const TextConfig& cfg, const TextParams<float>& params,
                                 const std::vector<EncodedExample>& data, int batch_size = 64,
                                 const AttentionImposer& impose = nullptr);

ClassificationMetrics classification_metrics(const std::vector<int>& predicted, const std::vector<int>& gold,
                                             int num_classes);

}  // namespace attnlab
