#include "train/text_trainer.h"

#include <algorithm>
#include <numeric>

#include "nn/embedding.h"
#include "nn/loss.h"

namespace attnlab {

namespace {

// Indices grouped into batches of similar length; batch order shuffled by rng (nullptr: keep order).
std::vector<std::vector<int>> length_batches(const std::vector<EncodedExample>& data, int batch_size, Rng* rng) {
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(data.size()); ++i)
    if (!data[i].ids.empty()) order.push_back(i);
  if (rng) rng->shuffle(order);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return data[a].ids.size() < data[b].ids.size(); });
  std::vector<std::vector<int>> batches;
  for (size_t i = 0; i < order.size(); i += batch_size)
    batches.emplace_back(order.begin() + i, order.begin() + std::min(order.size(), i + batch_size));
  if (rng) rng->shuffle(batches);
  return batches;
}

TextBatch make_batch(const std::vector<EncodedExample>& data, const std::vector<int>& idx) {
  std::vector<std::vector<int>> seqs;
  for (int i : idx) seqs.push_back(data[i].ids);
  return TextBatch::from_sequences(seqs);
}

int argmax_class(const TextConfig& cfg, const Mat<float>& logits, Eigen::Index b) {
  if (cfg.outputs() == 1) return logits(0, b) >= 0.f ? 1 : 0;
  Eigen::Index k;
  logits.col(b).maxCoeff(&k);
  return static_cast<int>(k);
}

}  // namespace

float text_loss_and_gradients(const TextConfig& cfg, const TextParams<float>& params, const TextBatch& batch,
                              const std::vector<int>& labels, float pos_weight,
                              const std::vector<float>& class_weights, TextParams<float>& grads) {
  TextCache<float> cache;
  text_forward_ids(cfg, params, batch, cache);
  Mat<float> d_logits, d_x;
  const float loss = cfg.outputs() == 1
                         ? weighted_bce_with_logits<float>(cache.logits, labels, pos_weight, d_logits)
                         : weighted_cross_entropy<float>(cache.logits, labels, class_weights, d_logits);
  text_backward(cfg, params, cache, d_logits, {}, &grads, &d_x);
  embedding_backward(batch.ids, d_x, grads.embedding);
  return loss;
}

ClassificationMetrics classification_metrics(const std::vector<int>& pred, const std::vector<int>& gold,
                                             int num_classes) {
  ClassificationMetrics m;
  m.n = static_cast<int>(gold.size());
  if (m.n == 0) return m;
  int correct = 0;
  for (int i = 0; i < m.n; ++i) correct += pred[i] == gold[i];
  m.accuracy = double(correct) / m.n;
  auto f1_of = [&](int c, double* prec, double* rec) {
    int tp = 0, fp = 0, fn = 0;
    for (int i = 0; i < m.n; ++i) {
      tp += pred[i] == c && gold[i] == c;
      fp += pred[i] == c && gold[i] != c;
      fn += pred[i] != c && gold[i] == c;
    }
    *prec = tp + fp ? double(tp) / (tp + fp) : 0.0;
    *rec = tp + fn ? double(tp) / (tp + fn) : 0.0;
    return *prec + *rec > 0 ? 2 * *prec * *rec / (*prec + *rec) : 0.0;
  };
  if (num_classes == 2) {
    m.f1 = f1_of(1, &m.precision, &m.recall);
  } else {
    double p, r, sum = 0, sp = 0, sr = 0;
    for (int c = 0; c < num_classes; ++c) {
      sum += f1_of(c, &p, &r);
      sp += p;
      sr += r;
    }
    m.f1 = sum / num_classes;
    m.precision = sp / num_classes;
    m.recall = sr / num_classes;
  }
  return m;
}

std::vector<int> predict_classes(const TextConfig& cfg, const TextParams<float>& params,
                                 const std::vector<EncodedExample>& data, int batch_size) {
  std::vector<int> pred(data.size(), 0);
  TextCache<float> cache;
  for (const auto& idx : length_batches(data, batch_size, nullptr)) {
    text_forward_ids(cfg, params, make_batch(data, idx), cache);
    for (size_t k = 0; k < idx.size(); ++k) pred[idx[k]] = argmax_class(cfg, cache.logits, static_cast<Eigen::Index>(k));
  }
  // Token-less examples: decoder on a zero context.
  for (size_t i = 0; i < data.size(); ++i)
    if (data[i].ids.empty()) {
      Mat<float> logits = params.decoder.b;
      pred[i] = argmax_class(cfg, logits, 0);
    }
  return pred;
}

TrainResult train_text_model(const TextConfig& cfg, TextParams<float>& params,
                             const std::vector<EncodedExample>& train, const std::vector<EncodedExample>& dev,
                             const TrainOptions& o, const std::function<bool(const TrainProgress&)>& progress) {
  Rng rng(o.seed * 0x9E3779B97F4A7C15ULL + 17);
  std::vector<double> counts(cfg.num_classes, 0.0);
  for (const auto& ex : train) counts[ex.label] += 1;
  const float pos_weight = o.balance_classes && counts[1] > 0 ? float(counts[0] / counts[1]) : 1.f;
  std::vector<float> class_weights;
  if (o.balance_classes)
    for (int c = 0; c < cfg.num_classes; ++c)
      class_weights.push_back(counts[c] > 0 ? float(train.size() / (cfg.num_classes * counts[c])) : 1.f);

  TextParams<float> grads;
  grads.resize(cfg);
  Adam<float> adam(o.adam, params.list());
  TextParams<float> best = params;
  TrainResult result;
  std::vector<int> dev_gold;
  for (const auto& ex : dev) dev_gold.push_back(ex.label);
  double best_acc = -1, best_f1 = -1;
  std::vector<int> labels;

  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto batches = length_batches(train, o.batch_size, &rng);
    double loss_sum = 0;
    long seen = 0;
    for (size_t bi = 0; bi < batches.size(); ++bi) {
      const TextBatch batch = make_batch(train, batches[bi]);
      labels.clear();
      for (int i : batches[bi]) labels.push_back(train[i].label);
      grads.set_zero();
      const float loss = text_loss_and_gradients(cfg, params, batch, labels, pos_weight, class_weights, grads);
      adam.step(params.list(), grads.list());
      loss_sum += loss;
      seen += static_cast<long>(labels.size());
      if (progress && (bi % 50 == 0 || bi + 1 == batches.size())) {
        TrainProgress pr;
        pr.epoch = epoch;
        pr.epochs = o.epochs;
        pr.batch = static_cast<int>(bi + 1);
        pr.batches = static_cast<int>(batches.size());
        pr.train_loss = loss_sum / std::max(1L, seen);
        pr.best_epoch = result.best_epoch;
        if (!progress(pr)) {
          result.cancelled = true;
          params = best;
          return result;
        }
      }
    }
    const ClassificationMetrics m = classification_metrics(predict_classes(cfg, params, dev), dev_gold, cfg.num_classes);
    result.dev_per_epoch.push_back(m);
    result.train_loss_per_epoch.push_back(loss_sum / std::max(1L, seen));
    if (m.accuracy > best_acc || (m.accuracy == best_acc && m.f1 > best_f1)) {
      best_acc = m.accuracy;
      best_f1 = m.f1;
      best = params;
      result.best_epoch = epoch;
      result.best_dev = m;
    }
    if (progress) {
      TrainProgress pr;
      pr.epoch = epoch;
      pr.epochs = o.epochs;
      pr.batch = pr.batches = static_cast<int>(batches.size());
      pr.train_loss = result.train_loss_per_epoch.back();
      pr.epoch_done = true;
      pr.dev = m;
      pr.best_epoch = result.best_epoch;
      if (!progress(pr)) {
        result.cancelled = true;
        break;
      }
    }
  }
  params = best;
  return result;
}

}  // namespace attnlab
