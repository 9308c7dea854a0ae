// Contract: see adversary_trainer.h.
#include "train/adversary_trainer.h"

#include <algorithm>
#include <cmath>

#include "experiments/frozen_encoder.h"
#include "nn/embedding.h"

namespace attnlab {

namespace {

template <class T>
AdversaryTargets<T> base_targets(const TextModel& base, const TextBatch& batch) {
  TextCache<float> cache;
  text_forward_ids(base.config, base.params, batch, cache);
  return {class_probabilities(base.config, cache.logits).template cast<T>(), cache.attention.alpha.template cast<T>()};
}

}  // namespace

template <class T>
T adversary_loss_and_gradients(const TextConfig& cfg, const TextParams<T>& params, const TextBatch& batch,
                               const AdversaryTargets<T>& target, double lambda, TextParams<T>& grads) {
  TextCache<T> cache;
  text_forward_ids(cfg, params, batch, cache);
  const Mat<T> probs = class_probabilities(cfg, cache.logits);  // [C x B]
  const int B = batch.size(), C = static_cast<int>(probs.rows());
  Mat<T> d_logits = Mat<T>::Zero(cache.logits.rows(), B);
  Mat<T> d_alpha = Mat<T>::Zero(cache.attention.alpha.rows(), B);
  T loss = 0;
  const T floor = T(1e-12);
  for (int b = 0; b < B; ++b) {
    // TVD = 1/2 sum_c |p_c - q_c|; d/dp_c = sign / 2.
    for (int c = 0; c < C; ++c) {
      const T diff = probs(c, b) - target.probs(c, b);
      loss += T(0.5) * std::abs(diff);
      const T sign = diff > 0 ? T(0.5) : (diff < 0 ? T(-0.5) : T(0));
      if (cfg.outputs() == 1) {
        // p_1 = sigmoid(z), p_0 = 1 - p_1
        const T dp1 = probs(1, b) * (T(1) - probs(1, b));
        d_logits(0, b) += sign * (c == 1 ? dp1 : -dp1);
      } else {
        for (int k = 0; k < C; ++k) d_logits(k, b) += sign * probs(c, b) * ((k == c ? T(1) : T(0)) - probs(k, b));
      }
    }
    // -lambda * KL(a || q) over the real tokens; d/da_t = -lambda (log(a_t / q_t) + 1).
    if (cfg.attention != AttentionKind::Uniform && lambda != 0) {
      for (int t = 0; t < batch.lengths[b]; ++t) {
        const T a = std::max(cache.attention.alpha(t, b), floor), q = std::max(target.alpha(t, b), floor);
        loss -= T(lambda) * a * std::log(a / q);
        d_alpha(t, b) = -T(lambda) * (std::log(a / q) + T(1));
      }
    }
  }
  Mat<T> d_x;
  text_backward<T>(cfg, params, cache, d_logits, {}, &grads, &d_x, nullptr, &d_alpha);
  embedding_backward(batch.ids, d_x, grads.embedding);
  return loss;
}

AdversaryTrainingRun::AdversaryTrainingRun(const TextModel& base, TextParams<float> initial,
                                           std::vector<EncodedExample> train, std::vector<EncodedExample> dev,
                                           double lambda, const TrainOptions& o)
    : base_(base),
      o_(o),
      lambda_(lambda),
      train_(std::move(train)),
      dev_(std::move(dev)),
      params_(std::move(initial)),
      adam_(o.adam, params_.list()),
      rng_(o.seed * 0x9E3779B97F4A7C15ULL + 29) {
  grads_.resize(base_.config);
  kept_ = params_;
  for (int i = 0; i < static_cast<int>(train_.size()); ++i)
    if (!train_[i].ids.empty()) order_.push_back(i);
}

AdversaryProgress AdversaryTrainingRun::step(int max_batches) {
  AdversaryProgress pr;
  pr.epochs = o_.epochs;
  pr.epochs_done = epochs_done();
  if (done()) {
    pr.epoch = o_.epochs;
    return pr;
  }
  if (next_batch_ == 0 && seen_ == 0) {
    // The epoch's batches: a fresh shuffle, sorted by length (stable), cut into batches, batch order shuffled.
    rng_.shuffle(order_);
    std::vector<int> sorted = order_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](int a, int b) { return train_[a].ids.size() < train_[b].ids.size(); });
    batches_.clear();
    for (size_t i = 0; i < sorted.size(); i += o_.batch_size)
      batches_.emplace_back(sorted.begin() + i, sorted.begin() + std::min(sorted.size(), i + o_.batch_size));
    rng_.shuffle(batches_);
  }
  for (int k = 0; k < std::max(1, max_batches) && next_batch_ < batches_.size(); ++k, ++next_batch_) {
    std::vector<std::vector<int>> seqs;
    for (int i : batches_[next_batch_]) seqs.push_back(train_[i].ids);
    const TextBatch batch = TextBatch::from_sequences(seqs);
    grads_.set_zero();
    loss_sum_ += adversary_loss_and_gradients<float>(base_.config, params_, batch, base_targets<float>(base_, batch),
                                                     lambda_, grads_);
    adam_.step(params_.list(), grads_.list());
    seen_ += static_cast<long>(seqs.size());
  }
  pr.epoch = epoch_;
  pr.batch = static_cast<int>(next_batch_);
  pr.batches = static_cast<int>(batches_.size());
  pr.train_loss = loss_sum_ / std::max(1L, seen_);
  if (next_batch_ < batches_.size()) return pr;
  // End of the epoch: keep it, compare with the base on dev.
  result_.train_loss_per_epoch.push_back(pr.train_loss);
  result_.best_epoch = epoch_;
  kept_ = params_;
  if (!dev_.empty()) {
    pr.dev = compare_with_base(base_, params_, dev_);
    pr.has_dev = true;
    dev_per_epoch_.push_back(pr.dev);
    result_.dev_per_epoch.push_back(pr.dev.vs_gold);
    result_.best_dev = pr.dev.vs_gold;
  }
  pr.epoch_done = true;
  ++epoch_;
  pr.epochs_done = epochs_done();
  next_batch_ = 0;
  loss_sum_ = 0;
  seen_ = 0;
  return pr;
}

TrainResult train_adversary(const TextModel& base, TextParams<float>& params, const std::vector<EncodedExample>& train,
                            double lambda, const TrainOptions& o,
                            const std::function<bool(const TrainProgress&)>& progress) {
  AdversaryTrainingRun run(base, params, train, {}, lambda, o);
  bool cancelled = false;
  while (!run.done()) {
    const AdversaryProgress a = run.step(50);
    if (!progress) continue;
    TrainProgress p;
    p.epoch = a.epoch;
    p.epochs = a.epochs;
    p.batch = a.batch;
    p.batches = a.batches;
    p.train_loss = a.train_loss;
    p.epoch_done = a.epoch_done;
    p.best_epoch = a.epochs_done;
    if (!progress(p)) {
      cancelled = true;
      break;
    }
  }
  params = run.current();
  TrainResult result = run.result();
  result.cancelled = cancelled;
  return result;
}

AdversaryComparison compare_with_base(const TextModel& base, const TextParams<float>& adversary,
                                      const std::vector<EncodedExample>& data) {
  AdversaryComparison r;
  TextModel adv_model;
  adv_model.config = base.config;
  adv_model.params = adversary;
  std::vector<int> gold;
  double tvd = 0, jsd = 0, kl = 0;
  for (const auto& ex : data) {
    if (ex.ids.empty()) continue;
    const FrozenEncoder b = freeze_encoder(base, ex.ids), a = freeze_encoder(adv_model, ex.ids);
    tvd += total_variation(a.probs, b.probs);
    jsd += jensen_shannon(a.alpha, b.alpha);
    for (size_t t = 0; t < a.alpha.size(); ++t)
      if (a.alpha[t] > 0) kl += a.alpha[t] * std::log(a.alpha[t] / std::max(b.alpha[t], 1e-12));
    ++r.n;
  }
  if (r.n) {
    r.tvd_mean = tvd / r.n;
    r.jsd_mean = jsd / r.n;
    r.kl_mean = kl / r.n;
  }
  for (const auto& ex : data) gold.push_back(ex.label);
  r.vs_gold = classification_metrics(predict_classes(base.config, adversary, data), gold, base.config.num_classes);
  return r;
}

template float adversary_loss_and_gradients<float>(const TextConfig&, const TextParams<float>&, const TextBatch&,
                                                   const AdversaryTargets<float>&, double, TextParams<float>&);
template double adversary_loss_and_gradients<double>(const TextConfig&, const TextParams<double>&, const TextBatch&,
                                                     const AdversaryTargets<double>&, double, TextParams<double>&);

}  // namespace attnlab
