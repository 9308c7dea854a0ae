// W&P model-consistent adversary: the loss gradient (TVD + attention KL through the attention backward)
// against finite differences, and training behaviour (lambda = 0 imitates the base; a large lambda moves the
// attention further away).
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace attnlab
