#include "train/text_trainer.h"

#include <algorithm>
#include <numeric>

#include "nn/embedding.h"
#include "nn/loss.h"
#include "parallel/parallel_for.h"
#include "train/data_parallel.h"

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
  bool any_marked = false;
  for (int i : idx) {
    seqs.push_back(data[i].ids);
    any_marked = any_marked || !data[i].marked.empty();
  }
  TextBatch batch = TextBatch::from_sequences(seqs);
  if (any_marked) {
    const size_t B = idx.size();
    batch.marked.assign(batch.ids.size(), 0);
    for (size_t b = 0; b < B; ++b) {
      const auto& m = data[idx[b]].marked;
      for (size_t t = 0; t < m.size() && t < data[idx[b]].ids.size(); ++t) batch.marked[t * B + b] = m[t];
    }
  }
  return batch;
}

int argmax_class(const TextConfig& cfg, const Mat<float>& logits, Eigen::Index b) {
  if (cfg.outputs() == 1) return logits(0, b) >= 0.f ? 1 : 0;
  Eigen::Index k;
  logits.col(b).maxCoeff(&k);
  return static_cast<int>(k);
}

}  // namespace

float text_loss_and_input_gradients(const TextConfig& cfg, const TextParams<float>& params, const TextBatch& batch,
                                    const std::vector<int>& labels, float pos_weight,
                                    const std::vector<float>& class_weights, TextParams<float>& grads, Mat<float>* d_x,
                                    const Mat<float>* alpha_override, TransformerRun run,
                                    const ExplanationPenalties* penalties) {
  TextCache<float> cache;
  cache.run = run;
  text_forward_ids(cfg, params, batch, cache, alpha_override);
  Mat<float> d_logits;
  float loss = cfg.outputs() == 1 ? weighted_bce_with_logits<float>(cache.logits, labels, pos_weight, d_logits)
                                  : weighted_cross_entropy<float>(cache.logits, labels, class_weights, d_logits);
  if (penalties && penalties->any() && cfg.encoder != EncoderKind::Transformer) {
    Mat<float> d_alpha, d_states;
    loss += explanation_penalties(*penalties, batch, cache, &d_alpha, &d_states);
    text_backward<float>(cfg, params, cache, d_logits, {}, &grads, d_x, nullptr, &d_alpha, &d_states);
  } else {
    text_backward(cfg, params, cache, d_logits, {}, &grads, d_x);
  }
  return loss;
}

float text_loss_and_gradients(const TextConfig& cfg, const TextParams<float>& params, const TextBatch& batch,
                              const std::vector<int>& labels, float pos_weight,
                              const std::vector<float>& class_weights, TextParams<float>& grads,
                              const Mat<float>* alpha_override, TransformerRun run,
                              const ExplanationPenalties* penalties) {
  Mat<float> d_x;
  const float loss = text_loss_and_input_gradients(cfg, params, batch, labels, pos_weight, class_weights, grads, &d_x,
                                                   alpha_override, run, penalties);
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
                                 const std::vector<EncodedExample>& data, int batch_size,
                                 const AttentionImposer& impose) {
  std::vector<int> pred(data.size(), 0);
  TextCache<float> cache;
  for (const auto& idx : length_batches(data, batch_size, nullptr)) {
    const TextBatch batch = make_batch(data, idx);
    if (impose) {
      const Mat<float> alpha = impose(batch);
      text_forward_ids(cfg, params, batch, cache, &alpha);
    } else {
      text_forward_ids(cfg, params, batch, cache);
    }
    for (size_t k = 0; k < idx.size(); ++k) pred[idx[k]] = argmax_class(cfg, cache.logits, static_cast<Eigen::Index>(k));
  }
  // Token-less examples: decoder on a zero context.
  for (size_t i = 0; i < data.size(); ++i)
    if (data[i].ids.empty()) {
      Mat<float> logits = empty_input_logits(cfg, params);
      pred[i] = argmax_class(cfg, logits, 0);
    }
  return pred;
}

float text_batch_gradients(const TextConfig& cfg, const TextParams<float>& params,
                           const std::vector<EncodedExample>& data, const std::vector<int>& idx, const BatchLoss& bl,
                           TextParams<float>& grads, std::vector<TextParams<float>>& scratch) {
  static const std::vector<float> kNoWeights;
  const std::vector<float>& class_weights = bl.class_weights ? *bl.class_weights : kNoWeights;
  const size_t parts = std::max<size_t>(1, std::min(bl.parts, idx.size()));
  // One part's loss and gradients (its examples idx[i0, i1)); the embedding's into the table only when whole.
  auto part = [&](size_t i0, size_t i1, TextParams<float>& g, Mat<float>* d_x, TextBatch* batch_out,
                  uint64_t seed) {
    const std::vector<int> sub(idx.begin() + static_cast<long>(i0), idx.begin() + static_cast<long>(i1));
    TextBatch batch = make_batch(data, sub);
    std::vector<int> labels;
    for (int i : sub) labels.push_back(data[i].label);
    TransformerRun run;
    run.dropout = bl.dropout;
    run.seed = seed;
    Mat<float> alpha;
    if (bl.impose) alpha = (*bl.impose)(batch);
    const Mat<float>* imposed = bl.impose ? &alpha : nullptr;
    const float loss = d_x ? text_loss_and_input_gradients(cfg, params, batch, labels, bl.pos_weight, class_weights, g,
                                                           d_x, imposed, run, bl.penalties)
                           : text_loss_and_gradients(cfg, params, batch, labels, bl.pos_weight, class_weights, g,
                                                     imposed, run, bl.penalties);
    if (batch_out) *batch_out = std::move(batch);
    return loss;
  };
  if (parts == 1) {
    grads.set_zero();
    return part(0, idx.size(), grads, nullptr, nullptr, bl.seed);
  }
  // train/data_parallel.h: the parts side by side, their gradients summed in part order; the embedding's columns
  // added token by token (a dense table per part would cost more than the work it shares).
  if (scratch.size() < parts) scratch.resize(parts);
  std::vector<Mat<float>> d_x(parts);
  std::vector<TextBatch> batches(parts);
  std::vector<float> losses(parts, 0.f);
  parallel_for(parts, [&](size_t p) {
    TextParams<float>& g = scratch[p];
    if (g.decoder.w.size() == 0) {
      g.resize(cfg);
      g.embedding = Mat<float>();
    }
    g.set_zero();
    losses[p] = part(split_begin(idx.size(), parts, p), split_begin(idx.size(), parts, p + 1), g, &d_x[p], &batches[p],
                     bl.seed * kTrainParts + p);
  });
  std::vector<std::vector<Mat<float>*>> lists;
  for (size_t p = 0; p < parts; ++p) lists.push_back(scratch[p].list());
  sum_part_gradients(grads.list(), lists);
  float loss = 0;
  for (size_t p = 0; p < parts; ++p) {
    embedding_backward(batches[p].ids, d_x[p], grads.embedding);
    loss += losses[p];
  }
  return loss;
}

TextTrainingRun::TextTrainingRun(const TextConfig& cfg, TextParams<float> initial, std::vector<EncodedExample> train,
                                 std::vector<EncodedExample> dev, const TrainOptions& o)
    : cfg_(cfg),
      o_(o),
      train_(std::move(train)),
      dev_(std::move(dev)),
      params_(std::move(initial)),
      adam_(o.use_adamw ? AdamOptions{} : o.adam, o.use_adamw ? std::vector<Mat<float>*>{} : params_.list()),
      rng_(o.seed * 0x9E3779B97F4A7C15ULL + 17) {
  std::vector<double> counts(cfg_.num_classes, 0.0);
  for (const auto& ex : train_) counts[ex.label] += 1;
  pos_weight_ = o_.balance_classes && counts[1] > 0 ? float(counts[0] / counts[1]) : 1.f;
  if (o_.balance_classes)
    for (int c = 0; c < cfg_.num_classes; ++c)
      class_weights_.push_back(counts[c] > 0 ? float(train_.size() / (cfg_.num_classes * counts[c])) : 1.f);
  grads_.resize(cfg_);
  best_ = params_;
  if (o_.use_adamw) {
    long nonempty = 0;
    for (const auto& ex : train_) nonempty += !ex.ids.empty();
    AdamWOptions ao = o_.adamw_options;
    ao.total = static_cast<long>(o_.epochs) * ((nonempty + o_.batch_size - 1) / o_.batch_size);
    ao.warmup = static_cast<long>(o_.warmup_fraction * double(ao.total));
    std::vector<bool> decay;
    for (auto& [name, m] : params_.named())
      decay.push_back(m->rows() > 1 && m->cols() > 1 && name.find(".ln") == std::string::npos);
    adamw_ = std::make_unique<AdamW<float>>(ao, params_.list(), decay);
  }
  for (const auto& ex : dev_) dev_gold_.push_back(ex.label);
}

TrainProgress TextTrainingRun::step(int max_batches) {
  TrainProgress pr;
  pr.epochs = o_.epochs;
  pr.best_epoch = result_.best_epoch;
  if (done()) {
    pr.epoch = o_.epochs;
    return pr;
  }
  if (next_batch_ == 0 && seen_ == 0) batches_ = length_batches(train_, o_.batch_size, &rng_);
  for (int k = 0; k < max_batches && next_batch_ < batches_.size(); ++k, ++next_batch_) {
    const std::vector<int>& idx = batches_[next_batch_];
    BatchLoss bl;
    bl.parts = train_parts(idx.size(), o_.parts);
    bl.pos_weight = pos_weight_;
    bl.class_weights = &class_weights_;
    bl.impose = o_.impose_attention ? &o_.impose_attention : nullptr;
    bl.dropout = o_.dropout;
    bl.seed = o_.seed * 1000003ULL + static_cast<uint64_t>(++step_count_);
    bl.penalties = &o_.penalties;
    loss_sum_ += text_batch_gradients(cfg_, params_, train_, idx, bl, grads_, part_grads_);
    if (adamw_) adamw_->step(params_.list(), grads_.list());
    else adam_.step(params_.list(), grads_.list());
    seen_ += static_cast<long>(idx.size());
  }
  pr.epoch = epoch_;
  pr.batch = static_cast<int>(next_batch_);
  pr.batches = static_cast<int>(batches_.size());
  pr.train_loss = loss_sum_ / std::max(1L, seen_);
  if (next_batch_ < batches_.size()) return pr;
  // End of the epoch: evaluate on dev, keep the best.
  const ClassificationMetrics m = classification_metrics(
      predict_classes(cfg_, params_, dev_, 64, o_.impose_attention), dev_gold_, cfg_.num_classes);
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

TrainResult train_text_model(const TextConfig& cfg, TextParams<float>& params,
                             const std::vector<EncodedExample>& train, const std::vector<EncodedExample>& dev,
                             const TrainOptions& o, const std::function<bool(const TrainProgress&)>& progress) {
  TextTrainingRun run(cfg, params, train, dev, o);
  bool cancelled = false;
  while (!run.done()) {
    const TrainProgress pr = run.step(50);
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
