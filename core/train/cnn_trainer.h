// Training and evaluation of the localisation lab's CNN (model/cnn_model.h) on the procedural shapes data
// (data/shapes_dataset.h). Seeded and deterministic: the seed fixes the initial weights (given by the
// caller), the training / validation images and the batch order. Each epoch: the training indices shuffled,
// mini-batches of softmax cross-entropy (mean over the batch) with SGD + momentum or Adam, BN in training
// mode; then the BN running statistics recomputed for the epoch's final weights ("precise BN": the plain
// average of batch statistics over bn_batches training batches, since the momentum estimates lag behind
// fast-moving weights and made eval-mode accuracy swing by tens of points), then validation accuracy with BN
// in eval mode. The last epoch's weights are the result.
// CnnTrainingRun advances in steps so a caller without threads (the page's worker) can report progress and
// cancel between steps; train_cnn runs it to the end with a progress callback that may stop it.
// evaluate_cnn: accuracy and the localisation metrics (metrics/localization.h) of each image's class map
// for its true class, upsampled bilinearly to the image, against the object mask.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/shapes_dataset.h"
#include "model/cnn_model.h"
#include "nn/adam.h"
#include "nn/sgd.h"

namespace attnlab {

struct CnnTrainOptions {
  int epochs = 8, batch_size = 32, train_size = 8000, val_size = 500;
  uint64_t seed = 1;                 // data and batch order (the caller seeds the initial weights)
  std::string optimizer = "sgd";     // "sgd" (momentum) | "adam"
  double lr = 0.05, momentum = 0.9, weight_decay = 5e-4;
  int bn_batches = 16;               // precise-BN batches at each epoch end (0: keep the momentum estimates)
  // GAIN-style attention mining (experiments/cnn_attention_mining.h): weight of the mean true-class
  // probability on the batch with its attended region softly erased (0 = off; mask treated as constant).
  double attention_mining = 0.0, am_sigma = 0.5, am_omega = 10.0;
  // GAIN_ext (train/gain_ext_loss.h): weight of the pixel-level loss between the soft mask of the true class's
  // map (the same sigma / omega) and the object mask, on the ext_fraction of the training images that carry
  // their mask (chosen by gain_ext_mask_carriers from the seed). 0 = off; > 0 needs ext_fraction > 0.
  double ext_weight = 0.0, ext_fraction = 0.0;
  ShapesConfig data;                 // image_size / num_classes must match the model; confounder applies
                                     // to the training and validation splits
};

struct CnnEpochStats {
  int epoch = 0;
  double train_loss = 0, train_accuracy = 0;  // running over the epoch, training mode
  double val_loss = 0, val_accuracy = 0;      // eval mode
};

struct CnnTrainProgress {
  int epoch = 0, epochs = 0, batch = 0, batches = 0;
  double train_loss = 0, train_accuracy = 0;  // running mean in this epoch
  bool epoch_done = false;                    // once per epoch, after validation
  CnnEpochStats stats;                        // valid when epoch_done
  long images = 0;                            // training images processed so far (all epochs)
};

// "" when the options fit the model, else a message.
std::string check_cnn_train_options(const CnnConfig& cfg, const CnnTrainOptions& o);

class CnnTrainingRun {
 public:
  // Options must pass check_cnn_train_options (else error() is set and done() is true at once).
  CnnTrainingRun(const CnnConfig& cfg, CnnParams<float> initial, const CnnTrainOptions& options);
  CnnTrainingRun(const CnnTrainingRun&) = delete;
  CnnTrainingRun& operator=(const CnnTrainingRun&) = delete;
  // Runs up to max_batches batches; stops early at the end of an epoch (after validation; epoch_done set).
  CnnTrainProgress step(int max_batches);
  bool done() const { return !error_.empty() || epoch_ > o_.epochs; }
  const std::string& error() const { return error_; }
  const CnnParams<float>& params() const { return params_; }
  const std::vector<CnnEpochStats>& history() const { return history_; }
  const CnnConfig& config() const { return cfg_; }
  const CnnTrainOptions& options() const { return o_; }
  long images() const { return images_; }  // training images processed so far
  int mask_carriers() const;                 // training images whose mask GAIN_ext uses

 private:
  CnnConfig cfg_;
  CnnTrainOptions o_;
  std::string error_;
  CnnParams<float> params_, grads_;
  std::unique_ptr<Sgd<float>> sgd_;
  std::unique_ptr<Adam<float>> adam_;
  ShapesDataset train_, val_;
  Rng rng_;
  std::vector<int> order_;
  int epoch_ = 1;
  size_t next_batch_ = 0;
  double loss_sum_ = 0;
  long correct_ = 0, seen_ = 0, images_ = 0;
  CnnCache<float> cache_;
  std::vector<CnnEpochStats> history_;
  std::vector<uint8_t> carriers_;  // GAIN_ext: per training image, 1 = its mask is used
  Mat<float> upsample_;            // GAIN_ext: the bilinear upsampling matrix of the class maps
};

// Trains to the end (or until progress returns false); returns the run's history. params receives the
// final weights.
std::vector<CnnEpochStats> train_cnn(const CnnConfig& cfg, CnnParams<float>& params, const CnnTrainOptions& o,
                                     const std::function<bool(const CnnTrainProgress&)>& progress = nullptr,
                                     std::string* error = nullptr);

struct CnnEvalOptions {
  int batch_size = 64;
  double iou_threshold = 0.5;       // on the min-max normalised map
  double pointing_tolerance = 0.0;  // pixels
};

struct CnnEvalResult {
  int n = 0;
  double accuracy = 0, loss = 0;
  // Class map of the true class, upsampled to the image, against the object mask (means over images):
  double pointing_game = 0, energy_in_mask = 0, mask_iou = 0;
  // The pointing game read other ways (metrics/localization.h): at Zhang et al.'s standard tolerance (15 px at
  // 224 px, scaled: pointing_standard_tolerance px); the centre-point baseline (a map whose maximum is always
  // the image centre) at 0 px and at the standard tolerance; the argmax of the map at feature resolution (a hit
  // when its cell's image block touches the object); the upsampled map's positive centre of mass (0 px).
  double pointing_standard_tolerance = 0, pointing_game_standard = 0;
  double pointing_centre_baseline = 0, pointing_centre_baseline_standard = 0;
  double pointing_feature_cell = 0, pointing_centre_of_mass = 0;
  double pointing_miss_distance = 0;  // mean distance (px) from the maximum to the object over the 0-px misses
  // Per true class (NaN for a class without test images): the 0-px hit rate, at the standard tolerance, and
  // the centre baseline's 0-px hit rate.
  std::vector<double> pointing_by_class, pointing_by_class_standard, pointing_centre_by_class;
  double background_energy = 0;  // share of the map's positive energy outside the object
  double mask_fraction = 0;      // mean object area / image area (the chance level of energy_in_mask)
  // Share of images whose prediction is the class tied to their background kind in confounder mode
  // (background kind k <-> class k; kinds >= num_classes never count): the shortcut's signature on
  // de-correlated data, where an object-based classifier gets 1/kinds-ish by chance.
  double background_class_rate = 0;
  // CBAM spatial attention maps per stage (NaN for stages without one): energy in mask, pointing game.
  std::vector<double> cbam_energy_in_mask, cbam_pointing_game;
};

CnnEvalResult evaluate_cnn(const CnnConfig& cfg, const CnnParams<float>& params, const ShapesDataset& data,
                           const CnnEvalOptions& o = {});

// Replaces the BN running statistics of params by the average batch statistics of the given batches of
// data (training-mode forward passes, no weight change).
void recalibrate_batch_norm(const CnnConfig& cfg, CnnParams<float>& params, const ShapesDataset& data,
                            const std::vector<std::vector<int>>& batches);

// Predicted class per image of x [3*S*S x N] (eval mode).
std::vector<int> predict_cnn(const CnnConfig& cfg, const CnnParams<float>& params, const Mat<float>& x);

}  // namespace attnlab
