// Training on the core's threads: a batch's data-parallel parts (core/train/data_parallel.h) give the same weights
// on 1, 2 and 3 threads (BiLSTM, transformer with dropout, HAN), their summed gradients equal the one-pass
// gradient of the batch (negative control: a part left out), the element-wise optimisers give the same update in
// blocks on several threads, and the CNN (its convolutions' images in parts, nn/conv2d.h) trains to the same weights.
#include <gtest/gtest.h>

#include "counting_task.h"
#include "model/transformer_config.h"
#include "train/cnn_trainer.h"
#include "nn/adamw.h"
#include "parallel/parallel_for.h"
#include "train/data_parallel.h"
#include "train/han_trainer.h"
#include "train/text_trainer.h"

namespace attnlab {
namespace {

struct Threads {
  explicit Threads(int n) { set_thread_count(n); }
  ~Threads() { set_thread_count(1); }
};

TextConfig bilstm() {
  TextConfig cfg;
  cfg.attention = AttentionKind::Tanh;
  cfg.vocab_size = 12;
  cfg.embedding_dim = 8;
  cfg.hidden_dim = 8;
  return cfg;
}

TextConfig transformer() {
  TextConfig cfg;
  cfg.vocab_size = 12;
  cfg.embedding_dim = 8;
  cfg.attention = AttentionKind::Dot;
  int max_tokens = 0;
  EXPECT_EQ(make_transformer_config(2, 2, 12, 16, &cfg, &max_tokens), "");
  return cfg;
}

TextParams<float> train_on(const TextConfig& cfg, int threads, int parts, double dropout = 0) {
  Threads t(threads);
  const auto train = test::counting_task(200, 1), dev = test::counting_task(40, 2);
  TextParams<float> p;
  Rng rng(3);
  p.init(cfg, rng);
  TrainOptions o;
  o.epochs = 2;
  o.seed = 3;
  o.parts = parts;
  o.dropout = dropout;
  train_text_model(cfg, p, train, dev, o);
  return p;
}

void expect_same(TextParams<float>& a, TextParams<float>& b) {
  const auto la = a.named(), lb = b.named();
  ASSERT_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size(); ++i) EXPECT_EQ(*la[i].second, *lb[i].second) << la[i].first;
}

TEST(DataParallelTraining, PartsRule) {
  EXPECT_EQ(train_parts(32, 0), 4u);
  EXPECT_EQ(train_parts(20, 0), 2u);
  EXPECT_EQ(train_parts(7, 0), 1u);
  EXPECT_EQ(train_parts(1000, 0), kTrainParts);
  EXPECT_EQ(train_parts(3, 8), 3u);
  EXPECT_EQ(train_parts(32, 1), 1u);
  EXPECT_EQ(train_parts(0, 0), 1u);
}

TEST(DataParallelTraining, BiLstmWeightsDoNotDependOnTheThreads) {
  TextParams<float> one = train_on(bilstm(), 1, 0), two = train_on(bilstm(), 2, 0), three = train_on(bilstm(), 3, 0);
  expect_same(one, two);
  expect_same(one, three);
  // Negative control: the whole batch in one pass is another rounding of the same training.
  TextParams<float> whole = train_on(bilstm(), 2, 1);
  EXPECT_NE(one.decoder.w, whole.decoder.w);
}

TEST(DataParallelTraining, TransformerWithDropoutDoesNotDependOnTheThreads) {
  TextParams<float> one = train_on(transformer(), 1, 0, 0.1), two = train_on(transformer(), 2, 0, 0.1);
  expect_same(one, two);
}

TEST(DataParallelTraining, PartsSumToTheBatchGradient) {
  const TextConfig cfg = bilstm();
  const auto data = test::counting_task(32, 5);
  TextParams<float> p;
  Rng rng(7);
  p.init(cfg, rng);
  std::vector<int> idx(data.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  const std::vector<float> weights = {0.8f, 1.3f};
  BatchLoss bl;
  bl.pos_weight = 0.7f;
  bl.class_weights = &weights;
  TextParams<float> whole, split, short_one;
  whole.resize(cfg);
  split.resize(cfg);
  short_one.resize(cfg);
  std::vector<TextParams<float>> scratch;
  Threads t(2);
  const float lw = text_batch_gradients(cfg, p, data, idx, bl, whole, scratch);
  bl.parts = 4;
  const float ls = text_batch_gradients(cfg, p, data, idx, bl, split, scratch);
  EXPECT_NEAR(ls, lw, 1e-5 * std::abs(lw));
  const auto nw = whole.named(), ns = split.named();
  for (size_t i = 0; i < nw.size(); ++i) {
    const double scale = std::max(1e-3, double(nw[i].second->cwiseAbs().maxCoeff()));
    EXPECT_LT((*nw[i].second - *ns[i].second).cwiseAbs().maxCoeff() / scale, 1e-5) << nw[i].first;
  }
  // Negative control: the batch without its last example (one part's share missing) is another gradient.
  std::vector<int> fewer(idx.begin(), idx.end() - 1);
  text_batch_gradients(cfg, p, data, fewer, bl, short_one, scratch);
  EXPECT_GT((whole.decoder.w - short_one.decoder.w).cwiseAbs().maxCoeff(), 1e-4);
}

TEST(DataParallelTraining, HanWeightsDoNotDependOnTheThreads) {
  HanConfig cfg;
  cfg.vocab_size = 12;
  cfg.embedding_dim = 6;
  cfg.word_hidden = 4;
  cfg.sentence_hidden = 3;
  const auto sentences = test::counting_task(240, 9);
  std::vector<HanExample> train, dev;
  for (size_t k = 0; k + 1 < sentences.size(); k += 2) {
    HanExample ex;
    ex.label = sentences[k].label;
    ex.doc = {sentences[k].ids, sentences[k + 1].ids};
    (k % 10 == 8 ? dev : train).push_back(ex);
  }
  auto run = [&](int threads) {
    Threads t(threads);
    HanParams<float> p;
    Rng rng(2);
    p.init(cfg, rng);
    TrainOptions o;
    o.epochs = 2;
    o.batch_size = 32;
    train_han_model(cfg, p, train, dev, o);
    return p;
  };
  HanParams<float> one = run(1), two = run(2);
  const auto la = one.named(), lb = two.named();
  for (size_t i = 0; i < la.size(); ++i) EXPECT_EQ(*la[i].second, *lb[i].second) << la[i].first;
}

TEST(DataParallelTraining, OptimiserBlocksGiveTheSameUpdateOnSeveralThreads) {
  // Two matrices, one over several kParamBlock blocks with a ragged end.
  auto run = [](int threads, bool adamw) {
    Threads t(threads);
    Rng rng(11);
    Mat<float> a(301, 257), b(3, 5), ga(301, 257), gb(3, 5);
    for (Mat<float>* m : {&a, &b, &ga, &gb})
      for (Eigen::Index i = 0; i < m->size(); ++i) m->data()[i] = float(rng.normal());
    std::vector<Mat<float>*> params = {&a, &b}, grads = {&ga, &gb};
    if (adamw) {
      AdamWOptions o;
      o.total = 10;
      AdamW<float> opt(o, params, {true, false});
      for (int s = 0; s < 3; ++s) opt.step(params, grads);
    } else {
      Adam<float> opt(AdamOptions{1e-2, 0.9, 0.999, 1e-8, 1e-3, true}, params);
      for (int s = 0; s < 3; ++s) opt.step(params, grads);
    }
    return std::make_pair(a, b);
  };
  for (bool adamw : {false, true}) {
    const auto one = run(1, adamw), two = run(2, adamw);
    EXPECT_EQ(one.first, two.first);
    EXPECT_EQ(one.second, two.second);
  }
}

TEST(DataParallelTraining, CnnWeightsDoNotDependOnTheThreads) {
  CnnConfig cfg;
  cfg.image_size = 32;
  cfg.num_classes = 3;
  CnnTrainOptions o;
  o.epochs = 1;
  o.train_size = 40;
  o.val_size = 8;
  o.batch_size = 10;  // parts of 4, 4 and 2 images
  o.seed = 4;
  auto run = [&](int threads) {
    Threads t(threads);
    Rng rng(o.seed);
    CnnParams<float> p;
    p.init(cfg, rng);
    CnnTrainingRun r(cfg, p, o);
    while (!r.done()) r.step(100);
    EXPECT_EQ(r.error(), "");
    return r.params();
  };
  CnnParams<float> one = run(1), two = run(2);
  const auto la = one.list(), lb = two.list();
  ASSERT_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size(); ++i) EXPECT_EQ(*la[i], *lb[i]) << i;
}

}  // namespace
}  // namespace attnlab
