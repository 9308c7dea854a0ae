#include "train/cnn_trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "experiments/cnn_attention_mining.h"
#include "image/map_ops.h"
#include "metrics/localization.h"
#include "nn/loss.h"
#include "train/gain_ext_loss.h"

namespace attnlab {

namespace {

int argmax_col(const Mat<float>& logits, Eigen::Index b) {
  Eigen::Index k;
  logits.col(b).maxCoeff(&k);
  return static_cast<int>(k);
}

ShapesConfig data_for(const CnnConfig& cfg, ShapesConfig d) {
  d.image_size = cfg.image_size;
  d.num_classes = cfg.num_classes;
  return d;
}

}  // namespace

std::string check_cnn_train_options(const CnnConfig& cfg, const CnnTrainOptions& o) {
  const std::string c = cfg.check();
  if (!c.empty()) return "model: " + c;
  if (cfg.in_channels != 3) return "the shapes data set has 3 input channels";
  const std::string d = check_shapes_config(data_for(cfg, o.data));
  if (!d.empty()) return "data: " + d;
  if (o.epochs < 1 || o.epochs > 10000) return "epochs must be in [1, 10000]";
  if (o.batch_size < 1 || o.batch_size > 4096) return "batch_size must be in [1, 4096]";
  if (o.train_size < 1 || o.val_size < 1) return "train_size and val_size must be >= 1";
  if (o.optimizer != "sgd" && o.optimizer != "adam") return "optimizer must be \"sgd\" or \"adam\"";
  if (!(o.lr > 0 && o.lr < 10)) return "lr must be in (0, 10)";
  if (o.bn_batches < 0) return "bn_batches must be >= 0";
  if (!(o.attention_mining >= 0 && o.attention_mining <= 100)) return "attention_mining must be in [0, 100]";
  if (!(o.am_sigma >= 0 && o.am_sigma <= 1) || !(o.am_omega > 0 && o.am_omega <= 1000))
    return "am_sigma must be in [0, 1] and am_omega in (0, 1000]";
  if (!(o.ext_weight >= 0 && o.ext_weight <= 1000)) return "ext_weight must be in [0, 1000]";
  if (!(o.ext_fraction >= 0 && o.ext_fraction <= 1)) return "ext_fraction must be in [0, 1]";
  if (o.ext_weight > 0 && !(o.ext_fraction > 0)) return "ext_weight > 0 needs ext_fraction > 0 (images with masks)";
  return "";
}

CnnTrainingRun::CnnTrainingRun(const CnnConfig& cfg, CnnParams<float> initial, const CnnTrainOptions& options)
    : cfg_(cfg),
      o_(options),
      error_(check_cnn_train_options(cfg, options)),
      params_(std::move(initial)),
      train_(data_for(cfg, options.data), options.seed, Split::Train, options.train_size),
      val_(data_for(cfg, options.data), options.seed, Split::Validation, options.val_size),
      rng_(options.seed ^ 0x5DEECE66Dull) {
  if (!error_.empty()) return;
  o_.data = data_for(cfg, options.data);
  grads_ = params_;
  grads_.set_zero();
  if (o_.optimizer == "adam")
    adam_ = std::make_unique<Adam<float>>(AdamOptions{o_.lr, 0.9, 0.999, 1e-8, o_.weight_decay, false}, params_.list());
  else
    sgd_ = std::make_unique<Sgd<float>>(SgdOptions{o_.lr, o_.momentum, o_.weight_decay, false}, params_.list());
  if (o_.ext_weight > 0) {
    carriers_ = gain_ext_mask_carriers(o_.train_size, o_.ext_fraction, o_.seed);
    const FeatureShape fs = cfg_.feature_shape();
    upsample_ = bilinear_upsample_matrix<float>(fs.h, fs.w, cfg_.image_size, cfg_.image_size);
  }
}

int CnnTrainingRun::mask_carriers() const {
  int k = 0;
  for (uint8_t c : carriers_) k += c;
  return k;
}

CnnTrainProgress CnnTrainingRun::step(int max_batches) {
  CnnTrainProgress pr;
  pr.epochs = o_.epochs;
  pr.images = images_;
  if (done()) {
    pr.epoch = o_.epochs;
    return pr;
  }
  const int batches = (o_.train_size + o_.batch_size - 1) / o_.batch_size;
  if (next_batch_ == 0 && seen_ == 0) {
    order_.resize(o_.train_size);
    std::iota(order_.begin(), order_.end(), 0);
    rng_.shuffle(order_);
  }
  Mat<float> x, dlogits;
  std::vector<int> labels, idx;
  for (int k = 0; k < max_batches && static_cast<int>(next_batch_) < batches; ++k, ++next_batch_) {
    const size_t start = next_batch_ * o_.batch_size;
    idx.assign(order_.begin() + start, order_.begin() + std::min(order_.size(), start + o_.batch_size));
    std::vector<std::vector<uint8_t>> masks;
    train_.batch(idx, x, labels, o_.ext_weight > 0 ? &masks : nullptr);
    const float n = static_cast<float>(idx.size());
    float loss = 0;
    grads_.set_zero();
    if (o_.ext_weight > 0) {
      for (size_t b = 0; b < idx.size(); ++b)
        if (!carriers_[idx[b]]) masks[b].clear();
      AttentionMiningOptions am;
      am.weight = o_.attention_mining;
      am.sigma = o_.am_sigma;
      am.omega = o_.am_omega;
      GainExtOptions ext;
      ext.weight = o_.ext_weight;
      ext.sigma = o_.am_sigma;
      ext.omega = o_.am_omega;
      const GainLosses l = gain_gradients<float>(cfg_, params_, x, labels, masks, am, ext, upsample_, cache_,
                                                 &params_, &grads_);
      loss = static_cast<float>(l.classification) * n;  // the reported loss stays the cross-entropy
    } else if (o_.attention_mining > 0) {
      AttentionMiningOptions am;
      am.weight = o_.attention_mining;
      am.sigma = o_.am_sigma;
      am.omega = o_.am_omega;
      const AttentionMiningLosses l = attention_mining_gradients<float>(cfg_, params_, x, labels, am, cache_,
                                                                        &params_, &grads_);
      loss = static_cast<float>(l.classification) * n;  // the reported loss stays the cross-entropy
    } else {
      cnn_forward(cfg_, params_, x, true, cache_, &params_);
      loss = weighted_cross_entropy<float>(cache_.logits, labels, {}, dlogits);
      dlogits /= n;  // mean over the batch
      cnn_backward(cfg_, params_, cache_, dlogits, &grads_, static_cast<Mat<float>*>(nullptr));
    }
    for (size_t b = 0; b < idx.size(); ++b) correct_ += argmax_col(cache_.logits, b) == labels[b];
    if (adam_) adam_->step(params_.list(), grads_.list());
    else sgd_->step(params_.list(), grads_.list());
    loss_sum_ += loss;
    seen_ += static_cast<long>(idx.size());
    images_ += static_cast<long>(idx.size());
  }
  pr.epoch = epoch_;
  pr.batch = static_cast<int>(next_batch_);
  pr.batches = batches;
  pr.train_loss = loss_sum_ / std::max(1L, seen_);
  pr.train_accuracy = double(correct_) / std::max(1L, seen_);
  pr.images = images_;
  if (static_cast<int>(next_batch_) < batches) return pr;
  if (o_.bn_batches > 0) {
    std::vector<std::vector<int>> bn;
    for (int k = 0; k < std::min(o_.bn_batches, batches); ++k) {
      const size_t start = static_cast<size_t>(k) * o_.batch_size;
      bn.emplace_back(order_.begin() + start, order_.begin() + std::min(order_.size(), start + o_.batch_size));
    }
    recalibrate_batch_norm(cfg_, params_, train_, bn);
  }
  CnnEvalOptions eo;
  const CnnEvalResult v = evaluate_cnn(cfg_, params_, val_, eo);
  CnnEpochStats st;
  st.epoch = epoch_;
  st.train_loss = pr.train_loss;
  st.train_accuracy = pr.train_accuracy;
  st.val_loss = v.loss;
  st.val_accuracy = v.accuracy;
  history_.push_back(st);
  pr.epoch_done = true;
  pr.stats = st;
  ++epoch_;
  next_batch_ = 0;
  loss_sum_ = 0;
  correct_ = seen_ = 0;
  return pr;
}

std::vector<CnnEpochStats> train_cnn(const CnnConfig& cfg, CnnParams<float>& params, const CnnTrainOptions& o,
                                     const std::function<bool(const CnnTrainProgress&)>& progress,
                                     std::string* error) {
  CnnTrainingRun run(cfg, params, o);
  if (error) *error = run.error();
  while (!run.done()) {
    const CnnTrainProgress pr = run.step(8);
    if (progress && !progress(pr)) break;
  }
  if (run.error().empty()) params = run.params();
  return run.history();
}

void recalibrate_batch_norm(const CnnConfig& cfg, CnnParams<float>& params, const ShapesDataset& data,
                            const std::vector<std::vector<int>>& batches) {
  if (batches.empty()) return;
  for (auto& b : params.buffers()) b.mat->setZero();
  CnnCache<float> cache;
  Mat<float> x;
  std::vector<int> labels;
  for (size_t k = 0; k < batches.size(); ++k) {
    data.batch(batches[k], x, labels);
    BatchNormOptions bn;
    bn.momentum = 1.0 / double(k + 1);  // running = cumulative mean of the batch statistics
    cnn_forward(cfg, params, x, true, cache, &params, bn);
  }
}

std::vector<int> predict_cnn(const CnnConfig& cfg, const CnnParams<float>& params, const Mat<float>& x) {
  CnnCache<float> cache;
  cnn_forward(cfg, params, x, false, cache);
  std::vector<int> out(x.cols());
  for (Eigen::Index b = 0; b < x.cols(); ++b) out[b] = argmax_col(cache.logits, b);
  return out;
}

CnnEvalResult evaluate_cnn(const CnnConfig& cfg, const CnnParams<float>& params, const ShapesDataset& data,
                           const CnnEvalOptions& o) {
  CnnEvalResult r;
  const int S = cfg.image_size, n = data.size();
  const FeatureShape fs = cfg.feature_shape();
  r.cbam_energy_in_mask.assign(cfg.stages(), std::numeric_limits<double>::quiet_NaN());
  r.cbam_pointing_game = r.cbam_energy_in_mask;
  std::vector<double> cbam_e(cfg.stages(), 0), cbam_p(cfg.stages(), 0);
  CnnCache<float> cache;
  Mat<float> x, d;
  std::vector<int> labels;
  std::vector<std::vector<uint8_t>> masks;
  double correct = 0, loss = 0, pg = 0, eim = 0, iou = 0, bg = 0, area = 0, bgc = 0;
  const double tol_std = standard_pointing_tolerance(S);
  const MapPoint centre = centre_point(S, S);
  double pg_std = 0, pc = 0, pc_std = 0, p_cell = 0, p_com = 0, miss_d = 0, misses = 0;
  const int C = cfg.num_classes;
  std::vector<double> cls_n(C, 0), cls_hit(C, 0), cls_std(C, 0), cls_centre(C, 0);
  for (int start = 0; start < n; start += o.batch_size) {
    std::vector<int> idx;
    for (int i = start; i < std::min(n, start + o.batch_size); ++i) idx.push_back(i);
    data.batch(idx, x, labels, &masks);
    cnn_forward(cfg, params, x, false, cache);
    loss += weighted_cross_entropy<float>(cache.logits, labels, {}, d);
    for (size_t b = 0; b < idx.size(); ++b) {
      correct += argmax_col(cache.logits, b) == labels[b];
      bgc += argmax_col(cache.logits, b) == data.spec(idx[b]).background;
      const std::vector<float> cam = cnn_cam(cfg, params, cache, static_cast<int>(b), labels[b]);
      const std::vector<float> up = upsample_bilinear(cam.data(), fs.h, fs.w, S, S);
      const std::vector<uint8_t>& mask = masks[b];
      const bool hit = pointing_game(up, mask, S, S, 1, o.pointing_tolerance);
      const bool hit_std = pointing_game(up, mask, S, S, 1, tol_std);
      const bool hit_centre = pointing_hit_at(mask, S, S, centre.y, centre.x, 1, 0.0);
      pg += hit ? 1 : 0;
      pg_std += hit_std ? 1 : 0;
      pc += hit_centre ? 1 : 0;
      if (labels[b] >= 0 && labels[b] < C) {
        cls_n[labels[b]] += 1;
        cls_hit[labels[b]] += hit;
        cls_std[labels[b]] += hit_std;
        cls_centre[labels[b]] += hit_centre;
      }
      if (!hit) {
        const MapPoint mx = map_argmax(up, S, S);
        const double dist = distance_to_label(mask, S, S, mx.y, mx.x, 1);
        if (std::isfinite(dist)) miss_d += dist, misses += 1;
      }
      pc_std += pointing_hit_at(mask, S, S, centre.y, centre.x, 1, tol_std) ? 1 : 0;
      p_cell += block_pointing_hit(cam, fs.h, fs.w, mask, S, 1) ? 1 : 0;
      const MapPoint com = map_centre_of_mass(up, S, S);
      p_com += pointing_hit_at(mask, S, S, com.y, com.x, 1, 0.0) ? 1 : 0;
      eim += energy_in_mask(up, mask, 1);
      iou += mask_iou(up, mask, 1, o.iou_threshold);
      double pos = 0, out = 0;
      long a = 0;
      for (size_t q = 0; q < up.size(); ++q) {
        const double v = std::max(0.f, up[q]);
        pos += v;
        if (!mask[q]) out += v;
        a += mask[q];
      }
      bg += pos > 0 ? out / pos : 0.0;
      area += double(a) / (S * S);
      for (int s = 0; s < cfg.stages(); ++s) {
        const std::vector<float> ms = cnn_spatial_attention(cfg, cache, s, static_cast<int>(b));
        if (ms.empty()) continue;
        const FeatureShape sh = cfg.stage_cbam_shape(s);
        const std::vector<float> ums = upsample_bilinear(ms.data(), sh.h, sh.w, S, S);
        cbam_e[s] += energy_in_mask(ums, mask, 1);
        cbam_p[s] += pointing_game(ums, mask, S, S, 1, o.pointing_tolerance) ? 1 : 0;
      }
    }
  }
  r.n = n;
  if (n == 0) return r;
  r.accuracy = correct / n;
  r.loss = loss / n;
  r.pointing_game = pg / n;
  r.pointing_standard_tolerance = tol_std;
  r.pointing_game_standard = pg_std / n;
  r.pointing_centre_baseline = pc / n;
  r.pointing_centre_baseline_standard = pc_std / n;
  r.pointing_feature_cell = p_cell / n;
  r.pointing_centre_of_mass = p_com / n;
  r.pointing_miss_distance = misses > 0 ? miss_d / misses : 0.0;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int k = 0; k < C; ++k) {
    r.pointing_by_class.push_back(cls_n[k] > 0 ? cls_hit[k] / cls_n[k] : nan);
    r.pointing_by_class_standard.push_back(cls_n[k] > 0 ? cls_std[k] / cls_n[k] : nan);
    r.pointing_centre_by_class.push_back(cls_n[k] > 0 ? cls_centre[k] / cls_n[k] : nan);
  }
  r.energy_in_mask = eim / n;
  r.mask_iou = iou / n;
  r.background_energy = bg / n;
  r.mask_fraction = area / n;
  r.background_class_rate = bgc / n;
  for (int s = 0; s < cfg.stages(); ++s)
    if (!cnn_spatial_attention(cfg, cache, s, 0).empty()) {
      r.cbam_energy_in_mask[s] = cbam_e[s] / n;
      r.cbam_pointing_game[s] = cbam_p[s] / n;
    }
  return r;
}

}  // namespace attnlab
