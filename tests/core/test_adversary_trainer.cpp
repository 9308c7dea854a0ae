// W&P model-consistent adversary: the loss gradient (TVD + attention KL through the attention backward)
// against finite differences, and training behaviour (lambda = 0 imitates the base; a large lambda moves the
// attention further away). The stepping AdversaryTrainingRun against the epoch loop it replaced (kept here
// verbatim as the reference): the same weights whatever the step size; its per-epoch dev comparison; what
// the kept model is; lambda = 0 is the TVD alone; the KL term alone pushes the attention away.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "experiments/frozen_encoder.h"
#include "gradcheck.h"
#include "train/adversary_trainer.h"

namespace attnlab {
namespace {

TEST(AdversaryLoss, GradientMatchesFiniteDifferences) {
  for (int classes : {2, 3}) {
    TextConfig cfg;
    cfg.vocab_size = 7;
    cfg.embedding_dim = 3;
    cfg.hidden_dim = 4;
    cfg.num_classes = classes;
    Rng rng(4);
    TextParams<double> p, base;
    p.init(cfg, rng);
    base.init(cfg, rng);
    for (Mat<double>* m : p.list()) *m *= 2.0;
    for (Mat<double>* m : base.list()) *m *= 2.0;
    const TextBatch batch = TextBatch::from_sequences({{2, 3, 4, 5}, {6, 1}, {3, 3, 2}});
    TextCache<double> bc;
    text_forward_ids(cfg, base, batch, bc);
    const AdversaryTargets<double> target{class_probabilities(cfg, bc.logits), bc.attention.alpha};
    TextParams<double> g;
    g.resize(cfg);
    adversary_loss_and_gradients<double>(cfg, p, batch, target, 0.7, g);
    TextParams<double> scratch;
    scratch.resize(cfg);
    auto loss = [&] {
      scratch.set_zero();
      return adversary_loss_and_gradients<double>(cfg, p, batch, target, 0.7, scratch);
    };
    auto pn = p.named();
    auto gn = g.named();
    for (size_t i = 0; i < pn.size(); ++i) test::expect_gradient(pn[i].first, *pn[i].second, *gn[i].second, loss);
  }
}

std::vector<EncodedExample> counting_data(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<EncodedExample> out;
  while (static_cast<int>(out.size()) < n) {
    EncodedExample ex;
    int good = 0, bad = 0;
    const int len = 4 + static_cast<int>(rng.below(6));
    for (int t = 0; t < len; ++t) {
      const int id = 2 + static_cast<int>(rng.below(8));
      good += id == 2;
      bad += id == 3;
      ex.ids.push_back(id);
    }
    if (good == bad) continue;
    ex.label = good > bad;
    out.push_back(ex);
  }
  return out;
}

TEST(AdversaryTraining, LambdaTradesOutputAgreementForAttentionDistance) {
  TextModel base;
  base.config.vocab_size = 10;
  base.config.embedding_dim = 8;
  base.config.hidden_dim = 8;
  const auto train = counting_data(800, 1), test = counting_data(200, 2);
  Rng rng(1);
  base.params.init(base.config, rng);
  TrainOptions o;
  o.epochs = 5;
  train_text_model(base.config, base.params, train, test, o);
  auto adversary = [&](double lambda) {
    TextParams<float> p;
    Rng r(7);
    p.init(base.config, r);
    TrainOptions ao;
    ao.epochs = 5;
    train_adversary(base, p, train, lambda, ao);
    return compare_with_base(base, p, test);
  };
  const AdversaryComparison imitate = adversary(0.0), push = adversary(2.0);
  EXPECT_LT(imitate.tvd_mean, 0.1) << "with lambda = 0 the adversary should imitate the base outputs";
  EXPECT_GT(push.jsd_mean, imitate.jsd_mean + 0.05) << "a large lambda should move attention away";
  EXPECT_LE(push.jsd_mean, std::log(2.0));
  EXPECT_GT(imitate.vs_gold.accuracy, 0.8);
}


// The epoch loop train_adversary was before it became a loop over AdversaryTrainingRun (verbatim, minus the
// progress callback): the reference the stepping run must reproduce bit for bit.
void reference_train_adversary(const TextModel& base, TextParams<float>& params, const std::vector<EncodedExample>& train,
                               double lambda, const TrainOptions& o) {
  Rng rng(o.seed * 0x9E3779B97F4A7C15ULL + 29);
  TextParams<float> grads;
  grads.resize(base.config);
  Adam<float> adam(o.adam, params.list());
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
    for (size_t bi = 0; bi < batches.size(); ++bi) {
      std::vector<std::vector<int>> seqs;
      for (int i : batches[bi]) seqs.push_back(train[i].ids);
      const TextBatch batch = TextBatch::from_sequences(seqs);
      TextCache<float> bc;
      text_forward_ids(base.config, base.params, batch, bc);
      const AdversaryTargets<float> target{class_probabilities(base.config, bc.logits), bc.attention.alpha};
      grads.set_zero();
      adversary_loss_and_gradients<float>(base.config, params, batch, target, lambda, grads);
      adam.step(params.list(), grads.list());
    }
  }
}

// A small trained base model (tanh attention) on the counting task.
TextModel small_base() {
  TextModel base;
  base.config.vocab_size = 10;
  base.config.embedding_dim = 6;
  base.config.hidden_dim = 5;
  Rng rng(3);
  base.params.init(base.config, rng);
  TrainOptions o;
  o.epochs = 2;
  train_text_model(base.config, base.params, counting_data(300, 5), counting_data(60, 6), o);
  return base;
}

TextParams<float> fresh(const TextConfig& cfg, uint64_t seed) {
  TextParams<float> p;
  Rng r(seed);
  p.init(cfg, r);
  return p;
}

double max_abs_diff(const TextParams<float>& a, const TextParams<float>& b) {
  double m = 0;
  const auto la = a.named(), lb = b.named();
  for (size_t i = 0; i < la.size(); ++i) m = std::max(m, double((*la[i].second - *lb[i].second).cwiseAbs().maxCoeff()));
  return m;
}

TEST(AdversaryTrainingRun, SameWeightsAsTheEpochLoopWhateverTheStepSize) {
  const TextModel base = small_base();
  auto train = counting_data(150, 8);
  train.push_back({1, {}});  // a token-less example is skipped, as before
  TrainOptions o;
  o.epochs = 2;
  o.batch_size = 16;
  o.seed = 11;
  TextParams<float> reference = fresh(base.config, 7);
  reference_train_adversary(base, reference, train, 0.5, o);
  ASSERT_GT(max_abs_diff(reference, fresh(base.config, 7)), 1e-3) << "training changed nothing: the check is void";
  for (int step : {1, 3, 1000}) {
    AdversaryTrainingRun run(base, fresh(base.config, 7), train, {}, 0.5, o);
    int steps = 0, epoch_ends = 0;
    while (!run.done()) {
      const AdversaryProgress p = run.step(step);
      ++steps;
      epoch_ends += p.epoch_done;
      EXPECT_LE(p.batch, p.batches);
      EXPECT_FALSE(p.has_dev) << "no dev set given";
    }
    EXPECT_EQ(epoch_ends, 2);
    EXPECT_EQ(run.epochs_done(), 2);
    EXPECT_EQ(max_abs_diff(run.current(), reference), 0.0) << "step " << step;
    EXPECT_EQ(max_abs_diff(run.kept(), reference), 0.0) << "the last epoch is the kept model";
    if (step == 1) {
      EXPECT_EQ(steps, 2 * 10) << "150 examples in batches of 16: 10 batches an epoch";
    }
  }
  // train_adversary (the CLI's call) is a loop over the run: the same weights.
  TextParams<float> looped = fresh(base.config, 7);
  const TrainResult r = train_adversary(base, looped, train, 0.5, o);
  EXPECT_EQ(max_abs_diff(looped, reference), 0.0);
  EXPECT_EQ(r.train_loss_per_epoch.size(), 2u);
  EXPECT_EQ(r.best_epoch, 2);
}

TEST(AdversaryTrainingRun, ComparesWithTheBaseOnDevAfterEachEpochAndKeepsTheLastFinishedEpoch) {
  const TextModel base = small_base();
  const auto train = counting_data(120, 9), dev = counting_data(40, 10);
  TrainOptions o;
  o.epochs = 3;
  o.batch_size = 16;
  AdversaryTrainingRun run(base, fresh(base.config, 2), train, dev, 1.0, o);
  EXPECT_EQ(run.epochs_done(), 0);
  TextParams<float> after_epoch1;
  AdversaryProgress p;
  do p = run.step(4);
  while (!p.epoch_done);
  ASSERT_TRUE(p.has_dev);
  EXPECT_EQ(p.epoch, 1);
  EXPECT_EQ(p.epochs_done, 1);
  EXPECT_EQ(p.batch, p.batches);
  after_epoch1 = run.current();
  const AdversaryComparison direct = compare_with_base(base, after_epoch1, dev);
  EXPECT_EQ(p.dev.n, 40);
  EXPECT_DOUBLE_EQ(p.dev.tvd_mean, direct.tvd_mean);
  EXPECT_DOUBLE_EQ(p.dev.jsd_mean, direct.jsd_mean);
  EXPECT_DOUBLE_EQ(p.dev.vs_gold.f1, direct.vs_gold.f1);
  EXPECT_GT(p.dev.tvd_mean, 0.0);
  EXPECT_LE(p.dev.jsd_mean, std::log(2.0));
  // Mid-epoch 2 (a cancel would stop here): the kept model is still epoch 1's.
  const AdversaryProgress mid = run.step(2);
  EXPECT_FALSE(mid.epoch_done);
  EXPECT_EQ(mid.epoch, 2);
  EXPECT_EQ(mid.epochs_done, 1);
  EXPECT_GT(max_abs_diff(run.current(), after_epoch1), 0.0);
  EXPECT_EQ(max_abs_diff(run.kept(), after_epoch1), 0.0);
  while (!run.done()) run.step(5);
  EXPECT_EQ(run.dev_per_epoch().size(), 3u);
  EXPECT_EQ(run.result().best_epoch, 3);
  EXPECT_EQ(run.step(5).batch, 0) << "nothing happens once done";
}

TEST(AdversaryLoss, LambdaZeroIsTheTotalVariationAlone) {
  // Binary, two sentences: loss = sum_b TVD = sum_b |p_b - q_b| (for two classes TVD = |p1 - q1|), and the
  // base attention does not enter: another target attention changes neither the loss nor the gradients.
  TextConfig cfg;
  cfg.vocab_size = 6;
  cfg.embedding_dim = 3;
  cfg.hidden_dim = 3;
  Rng rng(5);
  TextParams<double> p;
  p.init(cfg, rng);
  const TextBatch batch = TextBatch::from_sequences({{2, 3, 4}, {5, 2}});
  TextCache<double> cache;
  text_forward_ids(cfg, p, batch, cache);
  const Mat<double> probs = class_probabilities(cfg, cache.logits);
  Mat<double> q(2, 2);
  q << 0.9, 0.2, 0.1, 0.8;  // [C x B]: sentence 0 mostly negative, sentence 1 mostly positive
  Mat<double> alpha_a = Mat<double>::Zero(3, 2), alpha_b = Mat<double>::Zero(3, 2);
  alpha_a << 0.2, 0.5, 0.3, 0.5, 0.5, 0.0;
  alpha_b << 0.9, 0.1, 0.05, 0.9, 0.05, 0.0;
  TextParams<double> ga, gb;
  ga.resize(cfg);
  gb.resize(cfg);
  const double la = adversary_loss_and_gradients<double>(cfg, p, batch, {q, alpha_a}, 0.0, ga);
  const double lb = adversary_loss_and_gradients<double>(cfg, p, batch, {q, alpha_b}, 0.0, gb);
  const double by_hand = std::abs(probs(1, 0) - 0.1) + std::abs(probs(1, 1) - 0.8);
  EXPECT_NEAR(la, by_hand, 1e-12);
  EXPECT_EQ(la, lb);
  const auto na = ga.named(), nb = gb.named();
  for (size_t i = 0; i < na.size(); ++i) EXPECT_EQ((*na[i].second - *nb[i].second).cwiseAbs().maxCoeff(), 0.0) << na[i].first;
  // With lambda = 1 the loss is lower by exactly KL(alpha || alpha_target), summed by hand.
  TextParams<double> g1;
  g1.resize(cfg);
  const double l1 = adversary_loss_and_gradients<double>(cfg, p, batch, {q, alpha_a}, 1.0, g1);
  double kl = 0;
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < batch.lengths[b]; ++t) kl += cache.attention.alpha(t, b) * std::log(cache.attention.alpha(t, b) / alpha_a(t, b));
  EXPECT_NEAR(la - l1, kl, 1e-12);
}

TEST(AdversaryLoss, TheKlTermPushesTheAttentionAwayFromTheBase) {
  // The target outputs are the adversary's own (TVD = 0, no output gradient), the target attention is the
  // adversary's attention nudged: gradient descent on -lambda * KL alone must raise KL step after step.
  TextConfig cfg;
  cfg.vocab_size = 6;
  cfg.embedding_dim = 3;
  cfg.hidden_dim = 3;
  Rng rng(12);
  TextParams<double> p;
  p.init(cfg, rng);
  const TextBatch batch = TextBatch::from_sequences({{2, 3, 4, 5}});
  TextCache<double> c0;
  text_forward_ids(cfg, p, batch, c0);
  Mat<double> q = c0.attention.alpha;
  q(0, 0) += 0.05;
  q /= q.sum();
  auto kl_of = [&](const Mat<double>& a) {
    double s = 0;
    for (int t = 0; t < 4; ++t) s += a(t, 0) * std::log(a(t, 0) / q(t, 0));
    return s;
  };
  double previous = kl_of(c0.attention.alpha);
  for (int it = 0; it < 20; ++it) {
    TextCache<double> c;
    text_forward_ids(cfg, p, batch, c);
    TextParams<double> g;
    g.resize(cfg);
    adversary_loss_and_gradients<double>(cfg, p, batch, {class_probabilities(cfg, c.logits), q}, 1.0, g);
    const auto pn = p.named(), gn = g.named();
    for (size_t i = 0; i < pn.size(); ++i) *pn[i].second -= 5.0 * *gn[i].second;
    TextCache<double> after;
    text_forward_ids(cfg, p, batch, after);
    const double kl = kl_of(after.attention.alpha);
    EXPECT_GT(kl, previous) << "step " << it;
    previous = kl;
  }
  EXPECT_GT(previous, 2 * kl_of(c0.attention.alpha));
}

TEST(AdversaryTrainingRun, LambdaZeroApproachesTheBaseOutputsAndLargeLambdaMovesAttention) {
  const TextModel base = small_base();
  const auto train = counting_data(300, 21), dev = counting_data(80, 22);
  TrainOptions o;
  o.epochs = 4;
  auto run_with = [&](double lambda) {
    AdversaryTrainingRun run(base, fresh(base.config, 4), train, dev, lambda, o);
    while (!run.done()) run.step(8);
    return run.dev_per_epoch();
  };
  const AdversaryComparison before = compare_with_base(base, fresh(base.config, 4), dev);
  const auto zero = run_with(0.0), pushed = run_with(3.0);
  ASSERT_EQ(zero.size(), 4u);
  EXPECT_LT(zero.back().tvd_mean, 0.5 * before.tvd_mean) << "lambda = 0 trains toward the base outputs";
  // The base (trained briefly) attends almost uniformly, so the distances are small; the KL term doubles the
  // distance in four epochs and it grows every epoch.
  EXPECT_GT(pushed.back().jsd_mean, 1.5 * zero.back().jsd_mean) << "the KL term moves attention away";
  for (size_t e = 1; e < pushed.size(); ++e) EXPECT_GT(pushed[e].jsd_mean, pushed[e - 1].jsd_mean) << "epoch " << e + 1;
}

}  // namespace
}  // namespace attnlab
