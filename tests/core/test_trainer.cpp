// Training: deterministic for a seed, learns a simple rule, Adam matches PyTorch's update formula.
#include <gtest/gtest.h>

#include "counting_task.h"
#include "train/text_trainer.h"

namespace attnlab {
namespace {


TextConfig tiny(AttentionKind kind) {
  TextConfig cfg;
  cfg.attention = kind;
  cfg.vocab_size = 12;
  cfg.embedding_dim = 8;
  cfg.hidden_dim = 8;
  return cfg;
}

TEST(Trainer, SameSeedSameWeightsDifferentSeedDifferentWeights) {
  const auto train = test::counting_task(200, 1), dev = test::counting_task(50, 2);
  auto run = [&](uint64_t seed) {
    TextParams<float> p;
    Rng rng(seed);
    p.init(tiny(AttentionKind::Tanh), rng);
    TrainOptions o;
    o.epochs = 2;
    o.seed = seed;
    train_text_model(tiny(AttentionKind::Tanh), p, train, dev, o);
    return p;
  };
  const auto a = run(3), b = run(3), c = run(4);
  EXPECT_EQ(a.decoder.w, b.decoder.w);
  EXPECT_EQ(a.encoder.fwd.w_hh, b.encoder.fwd.w_hh);
  EXPECT_NE(a.decoder.w, c.decoder.w);
}

TEST(Trainer, LearnsTheCountingRuleAndKeepsTheBestDevEpoch) {
  for (AttentionKind kind : {AttentionKind::Tanh, AttentionKind::Dot, AttentionKind::Uniform}) {
    const auto train = test::counting_task(1500, 5), dev = test::counting_task(300, 6);
    TextParams<float> p;
    Rng rng(1);
    p.init(tiny(kind), rng);
    TrainOptions o;
    o.epochs = 6;
    int epochs_seen = 0;
    const TrainResult r = train_text_model(tiny(kind), p, train, dev, o, [&](const TrainProgress& pr) {
      epochs_seen += pr.epoch_done;
      return true;
    });
    EXPECT_EQ(epochs_seen, 6);
    EXPECT_GE(r.best_dev.accuracy, 0.9) << attention_name(kind);
    double best = 0;
    for (const auto& m : r.dev_per_epoch) best = std::max(best, m.accuracy);
    EXPECT_EQ(r.best_dev.accuracy, best);
    // The returned weights are the best epoch's: re-evaluating gives the recorded accuracy.
    std::vector<int> gold;
    for (const auto& ex : dev) gold.push_back(ex.label);
    EXPECT_EQ(classification_metrics(predict_classes(tiny(kind), p, dev), gold, 2).accuracy, r.best_dev.accuracy);
  }
}

TEST(Trainer, ProgressCallbackCancels) {
  const auto train = test::counting_task(300, 1), dev = test::counting_task(30, 2);
  TextParams<float> p;
  Rng rng(1);
  p.init(tiny(AttentionKind::Dot), rng);
  TrainOptions o;
  o.epochs = 5;
  const TrainResult r = train_text_model(tiny(AttentionKind::Dot), p, train, dev, o, [](const TrainProgress& pr) {
    return pr.epoch < 2;
  });
  EXPECT_TRUE(r.cancelled);
  EXPECT_LE(r.dev_per_epoch.size(), 2u);
}

TEST(Adam, OneAmsgradStepWithWeightDecayMatchesTheFormula) {
  Mat<double> theta(1, 2), grad(1, 2);
  theta << 0.5, -1.0;
  AdamOptions o{0.1, 0.9, 0.999, 1e-8, 0.01, true};
  Adam<double> adam(o, {&theta});
  // Step 1 by hand: g = grad + wd*theta; m = 0.1 g; v = 0.001 g^2; bias-corrected m/sqrt(v) = sign(g).
  grad << 0.2, 0.3;
  const double g0 = 0.2 + 0.01 * 0.5, g1 = 0.3 + 0.01 * -1.0;
  const double e0 = 0.5 - 0.1 * (0.1 * g0 / 0.1) / (std::sqrt(0.001 * g0 * g0) / std::sqrt(0.001) + 1e-8);
  const double e1 = -1.0 - 0.1 * (0.1 * g1 / 0.1) / (std::sqrt(0.001 * g1 * g1) / std::sqrt(0.001) + 1e-8);
  adam.step({&theta}, {&grad});
  EXPECT_NEAR(theta(0, 0), e0, 1e-12);
  EXPECT_NEAR(theta(0, 1), e1, 1e-12);
}

TEST(Metrics, PositiveClassF1) {
  // tp=2, fp=1, fn=1 -> precision 2/3, recall 2/3, f1 2/3; accuracy 4/6.
  const auto m = classification_metrics({1, 1, 1, 0, 0, 0}, {1, 1, 0, 1, 0, 0}, 2);
  EXPECT_NEAR(m.f1, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(m.accuracy, 4.0 / 6.0, 1e-12);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// W&P's diagnostic setting: an MLP encoder trained with imposed (here uniform) attention learns the rule,
// and the imposed weights are what it uses: its own attention parameters never move.
TEST(Trainer, MlpEncoderWithImposedAttention) {
  TextConfig cfg = tiny(AttentionKind::Tanh);
  cfg.encoder = EncoderKind::Mlp;
  const auto train = test::counting_task(1500, 5), dev = test::counting_task(300, 6);
  TextParams<float> p;
  Rng rng(2);
  p.init(cfg, rng);
  const Mat<float> w1_before = p.attention.w1;
  TrainOptions o;
  o.epochs = 6;
  o.adam.weight_decay = 0;  // with decay, parameters without gradient would still shrink (as in PyTorch's Adam)
  int calls = 0;
  o.impose_attention = [&calls](const TextBatch& batch) {
    ++calls;
    Mat<float> alpha = Mat<float>::Zero(batch.steps, batch.size());
    for (int b = 0; b < batch.size(); ++b) alpha.col(b).head(batch.lengths[b]).setConstant(1.f / batch.lengths[b]);
    return alpha;
  };
  const TrainResult r = train_text_model(cfg, p, train, dev, o);
  EXPECT_GT(calls, 0);
  EXPECT_EQ(p.attention.w1, w1_before);
  EXPECT_GE(r.best_dev.accuracy, 0.9);
}

}  // namespace
}  // namespace attnlab
