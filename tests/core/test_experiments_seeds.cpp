// Wiegreffe & Pinter seed variance: identical models have zero JSD, different seeds do not, and the summary
// averages what the rows hold.
#include <gtest/gtest.h>

#include "experiments/all.h"

namespace attnlab {
namespace {

TextModel seeded_model(uint64_t seed) {
  TextModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "a", "b", "c", "d"});
  m.config.attention = AttentionKind::Tanh;
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 4;
  m.config.hidden_dim = 3;
  Rng rng(seed);
  m.params.init(m.config, rng);
  for (Mat<float>* p : m.params.list()) *p *= 2.f;
  return m;
}

TEST(Seeds, SameModelGivesZeroJsdOtherSeedsDoNot) {
  const TextModel base = seeded_model(1), same = seeded_model(1), other = seeded_model(2);
  ExperimentOptions opt;
  opt.other_models = {&same, &other};
  opt.params = {{"steps", 50}};
  const Instance in{0, 1, {"a", "b", "c", "d"}, {2, 3, 4, 5}};
  const nlohmann::json out = run_experiment(seeds_experiment(), base, {in}, opt);
  const auto& row = out["rows"][0];
  ASSERT_EQ(row["seed_jsd"].size(), 2u);
  EXPECT_EQ(row["seed_jsd"][0].get<double>(), 0.0);
  EXPECT_EQ(row["seed_tvd"][0].get<double>(), 0.0);
  EXPECT_GT(row["seed_jsd"][1].get<double>(), 1e-4);
  EXPECT_NEAR(row["mean_seed_jsd"].get<double>(), row["seed_jsd"][1].get<double>() / 2, 1e-15);
  EXPECT_LE(row["adversarial_jsd"].get<double>(), std::log(2.0));
  EXPECT_EQ(out["summary"]["n_used"], 1);
  EXPECT_EQ(out["summary"]["other_models"], 2);
}

TEST(Seeds, WithoutOtherModelsRowsAreSkippedNotWrong) {
  const TextModel base = seeded_model(1);
  const nlohmann::json out = run_experiment(seeds_experiment(), base, {{0, 0, {"a"}, {2}}}, {});
  EXPECT_TRUE(out["rows"][0].contains("skipped"));
  EXPECT_EQ(out["summary"]["n_used"], 0);
}

}  // namespace
}  // namespace attnlab
