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

TrainResult train_adversary(const TextModel& base, TextParams<float>& params, const std::vector<EncodedExample>& train,
                            double lambda, const TrainOptions& o,
                            const std::function<bool(const TrainProgress&)>& progress) {
  Rng rng(o.seed * 0x9E3779B97F4A7C15ULL + 29);
  TextParams<float> grads;
  grads.resize(base.config);
  Adam<float> adam(o.adam, params.list());
  TrainResult result;
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(train.size()); ++i)
    if (!train[i].ids.empty()) order.push_back(i);
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    rng.shuffle(order);
    std::vector<int> sorted = order;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](int a, int b) { return train[a].ids.size() < train[b].ids.size(); });
    std::vector<std::vector<int>> batches;
    for (size_t i = 0; i < sorted.size(); i += o.batch_size)
      batches.emplace_back(sorted.begin() + i, sorted.begin() + std::min(sorted.size(), i + o.batch_size));
    rng.shuffle(batches);
    double loss_sum = 0;
    for (size_t bi = 0; bi < batches.size(); ++bi) {
      std::vector<std::vector<int>> seqs;
      for (int i : batches[bi]) seqs.push_back(train[i].ids);
      const TextBatch batch = TextBatch::from_sequences(seqs);
      grads.set_zero();
      loss_sum += adversary_loss_and_gradients<float>(base.config, params, batch, base_targets<float>(base, batch),
                                                      lambda, grads);
      adam.step(params.list(), grads.list());
      if (progress && bi % 50 == 0) {
        TrainProgress p;
        p.epoch = epoch;
        p.epochs = o.epochs;
        p.batch = static_cast<int>(bi + 1);
        p.batches = static_cast<int>(batches.size());
        p.train_loss = loss_sum / std::max<size_t>(1, bi + 1);
        if (!progress(p)) {
          result.cancelled = true;
          return result;
        }
      }
    }
    result.train_loss_per_epoch.push_back(loss_sum / std::max<size_t>(1, order.size()));
    result.best_epoch = epoch;
    if (progress) {
      TrainProgress p;
      p.epoch = epoch;
      p.epochs = o.epochs;
      p.epoch_done = true;
      p.train_loss = result.train_loss_per_epoch.back();
      if (!progress(p)) {
        result.cancelled = true;
        break;
      }
    }
  }
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
