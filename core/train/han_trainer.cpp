#include "train/han_trainer.h"

#include <algorithm>
#include <numeric>

#include "nn/loss.h"
#include "parallel/parallel_for.h"
#include "train/data_parallel.h"

namespace attnlab {

namespace {

int doc_tokens(const HanDocument& d) {
  int n = 0;
  for (const auto& s : d) n += static_cast<int>(s.size());
  return n;
}

// Batches of documents of similar size; batch order shuffled by rng (nullptr: keep order).
std::vector<std::vector<int>> size_batches(const std::vector<HanExample>& data, int batch_size, Rng* rng) {
  std::vector<int> order(data.size());
  std::iota(order.begin(), order.end(), 0);
  if (rng) rng->shuffle(order);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return doc_tokens(data[a].doc) < doc_tokens(data[b].doc); });
  std::vector<std::vector<int>> batches;
  for (size_t i = 0; i < order.size(); i += batch_size)
    batches.emplace_back(order.begin() + i, order.begin() + std::min(order.size(), i + batch_size));
  if (rng) rng->shuffle(batches);
  return batches;
}

int argmax_class(const HanConfig& cfg, const Mat<float>& logits, Eigen::Index b) {
  if (cfg.outputs() == 1) return logits(0, b) >= 0.f ? 1 : 0;
  Eigen::Index k;
  logits.col(b).maxCoeff(&k);
  return static_cast<int>(k);
}

}  // namespace

float han_loss_and_gradients(const HanConfig& cfg, const HanParams<float>& params, const std::vector<HanDocument>& docs,
                             const std::vector<int>& labels, float pos_weight, const std::vector<float>& class_weights,
                             HanParams<float>& grads) {
  HanCache<float> cache;
  han_forward(cfg, params, docs, cache);
  Mat<float> d_logits;
  const float loss = cfg.outputs() == 1 ? weighted_bce_with_logits<float>(cache.logits, labels, pos_weight, d_logits)
                                        : weighted_cross_entropy<float>(cache.logits, labels, class_weights, d_logits);
  han_backward<float>(cfg, params, cache, d_logits, {}, &grads, nullptr);
  return loss;
}

std::vector<int> han_predict_classes(const HanConfig& cfg, const HanParams<float>& params,
                                     const std::vector<HanExample>& data, int batch_size, std::vector<double>* probs) {
  std::vector<int> pred(data.size(), 0);
  if (probs) probs->assign(data.size(), 0.0);
  HanCache<float> cache;
  for (const auto& idx : size_batches(data, batch_size, nullptr)) {
    std::vector<HanDocument> docs;
    for (int i : idx) docs.push_back(data[i].doc);
    han_forward(cfg, params, docs, cache);
    const Mat<float> pr = han_class_probabilities(cfg, cache.logits);
    for (size_t k = 0; k < idx.size(); ++k) {
      pred[idx[k]] = argmax_class(cfg, cache.logits, static_cast<Eigen::Index>(k));
      if (probs) (*probs)[idx[k]] = cfg.outputs() == 1 ? pr(1, k) : pr(pred[idx[k]], k);
    }
  }
  return pred;
}

HanTrainingRun::HanTrainingRun(const HanConfig& cfg, HanParams<float> initial, std::vector<HanExample> train,
                               std::vector<HanExample> dev, const TrainOptions& o)
    : cfg_(cfg),
      o_(o),
      train_(std::move(train)),
      dev_(std::move(dev)),
      params_(std::move(initial)),
      adam_(o.adam, params_.list()),
      rng_(o.seed * 0x9E3779B97F4A7C15ULL + 29) {
  std::vector<double> counts(cfg_.num_classes, 0.0);
  for (const auto& ex : train_) counts[ex.label] += 1;
  pos_weight_ = o_.balance_classes && counts[1] > 0 ? float(counts[0] / counts[1]) : 1.f;
  if (o_.balance_classes)
    for (int c = 0; c < cfg_.num_classes; ++c)
      class_weights_.push_back(counts[c] > 0 ? float(train_.size() / (cfg_.num_classes * counts[c])) : 1.f);
  grads_.resize(cfg_);
  best_ = params_;
  for (const auto& ex : dev_) dev_gold_.push_back(ex.label);
}

TrainProgress HanTrainingRun::step(int max_batches) {
  TrainProgress pr;
  pr.epochs = o_.epochs;
  pr.best_epoch = result_.best_epoch;
  if (done()) {
    pr.epoch = o_.epochs;
    return pr;
  }
  if (next_batch_ == 0 && seen_ == 0) batches_ = size_batches(train_, o_.batch_size, &rng_);
  for (int k = 0; k < max_batches && next_batch_ < batches_.size(); ++k, ++next_batch_) {
    const std::vector<int>& idx = batches_[next_batch_];
    const size_t parts = train_parts(idx.size(), o_.parts);
    // One part's loss and gradients (its documents idx[i0, i1)).
    auto part = [&](size_t i0, size_t i1, HanParams<float>& grads) {
      std::vector<int> labels;
      std::vector<HanDocument> docs;
      for (size_t j = i0; j < i1; ++j) {
        labels.push_back(train_[idx[j]].label);
        docs.push_back(train_[idx[j]].doc);
      }
      return han_loss_and_gradients(cfg_, params_, docs, labels, pos_weight_, class_weights_, grads);
    };
    if (parts == 1) {
      grads_.set_zero();
      loss_sum_ += part(0, idx.size(), grads_);
    } else {
      // train/data_parallel.h: the parts side by side, their gradients (the embedding's too: a HAN's vocabulary is
      // small beside its documents' work) summed in part order.
      if (part_grads_.size() < parts) part_grads_.resize(parts);
      std::vector<float> losses(parts, 0.f);
      parallel_for(parts, [&](size_t p) {
        HanParams<float>& g = part_grads_[p];
        if (g.embedding.size() == 0) g.resize(cfg_);
        g.set_zero();
        losses[p] = part(split_begin(idx.size(), parts, p), split_begin(idx.size(), parts, p + 1), g);
      });
      std::vector<std::vector<Mat<float>*>> lists;
      for (size_t p = 0; p < parts; ++p) lists.push_back(part_grads_[p].list());
      sum_part_gradients(grads_.list(), lists);
      for (float l : losses) loss_sum_ += l;
    }
    adam_.step(params_.list(), grads_.list());
    seen_ += static_cast<long>(idx.size());
  }
  pr.epoch = epoch_;
  pr.batch = static_cast<int>(next_batch_);
  pr.batches = static_cast<int>(batches_.size());
  pr.train_loss = loss_sum_ / std::max(1L, seen_);
  if (next_batch_ < batches_.size()) return pr;
  const ClassificationMetrics m =
      classification_metrics(han_predict_classes(cfg_, params_, dev_), dev_gold_, cfg_.num_classes);
  result_.dev_per_epoch.push_back(m);
  result_.train_loss_per_epoch.push_back(pr.train_loss);
  if (m.accuracy > best_acc_ || (m.accuracy == best_acc_ && m.f1 > best_f1_)) {
    best_acc_ = m.accuracy;
    best_f1_ = m.f1;
    best_ = params_;
    result_.best_epoch = epoch_;
    result_.best_dev = m;
  }
  pr.epoch_done = true;
  pr.dev = m;
  pr.best_epoch = result_.best_epoch;
  ++epoch_;
  next_batch_ = 0;
  loss_sum_ = 0;
  seen_ = 0;
  return pr;
}

TrainResult train_han_model(const HanConfig& cfg, HanParams<float>& params, const std::vector<HanExample>& train,
                            const std::vector<HanExample>& dev, const TrainOptions& o,
                            const std::function<bool(const TrainProgress&)>& progress) {
  HanTrainingRun run(cfg, params, train, dev, o);
  bool cancelled = false;
  while (!run.done()) {
    const TrainProgress pr = run.step(10);
    if (progress && !progress(pr)) {
      cancelled = true;
      break;
    }
  }
  params = run.best();
  TrainResult result = run.result();
  result.cancelled = cancelled;
  return result;
}

}  // namespace attnlab
