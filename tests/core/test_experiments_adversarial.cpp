// Jain & Wallace adversarial attention: the objective's gradient against finite differences, and the
// search's guarantees (within epsilon, JSD <= ln 2, deterministic for a seed).
#include <gtest/gtest.h>

#include <cmath>

#include "experiments/adversarial.h"
#include "experiments/all.h"
#include "experiments/text_attention_model.h"
#include "tiny_text_model.h"

namespace attnlab {
namespace {

TextModel tiny_model(AttentionKind kind, uint64_t seed) {
  return test::tiny_text_model({{"a", "b", "c", "d", "e", "f"}, kind, 6, 5, seed, 2.f});
}

// The instance through the attention-model interface, as the experiment runs it.
std::unique_ptr<AttentionInstance> frozen(const TextModel& m, const std::vector<int>& ids) {
  Instance in;
  in.ids = ids;
  return TextAttentionModel(m).freeze(in, nullptr);
}

TEST(Adversarial, ObjectiveGradientMatchesFiniteDifferences) {
  const TextModel m = tiny_model(AttentionKind::Tanh, 3);
  const auto fi = frozen(m, {2, 3, 4, 5, 6});
  Rng rng(1);
  std::vector<std::vector<double>> theta(3, std::vector<double>(5));
  for (auto& th : theta)
    for (double& x : th) x = rng.normal();
  AdversarialOptions o;
  o.candidates = 3;
  o.epsilon = 0.001;  // make the penalty active for some candidates
  std::vector<std::vector<double>> grad;
  adversarial_objective(*fi, theta, o, &grad);
  double max_abs = 0;
  for (size_t k = 0; k < theta.size(); ++k)
    for (size_t t = 0; t < theta[k].size(); ++t) {
      const double h = 1e-6, orig = theta[k][t];
      theta[k][t] = orig + h;
      const double fp = adversarial_objective(*fi, theta, o, nullptr);
      theta[k][t] = orig - h;
      const double fm = adversarial_objective(*fi, theta, o, nullptr);
      theta[k][t] = orig;
      const double numeric = (fp - fm) / (2 * h);
      EXPECT_NEAR(grad[k][t], numeric, 1e-5 * std::max(1.0, std::abs(numeric))) << k << "," << t;
      max_abs = std::max(max_abs, std::abs(grad[k][t]));
    }
  EXPECT_GT(max_abs, 1e-4);
}

TEST(Adversarial, JsdAgreesWithItsDefinitionAndItsBound) {
  EXPECT_NEAR(jensen_shannon({1, 0}, {0, 1}), std::log(2.0), 1e-12);
  EXPECT_NEAR(jensen_shannon({0.5, 0.5}, {0.5, 0.5}), 0.0, 1e-15);
  // By hand: p = (0.8, 0.2), q = (0.4, 0.6), m = (0.6, 0.4).
  const double expect = 0.5 * (0.8 * std::log(0.8 / 0.6) + 0.2 * std::log(0.2 / 0.4)) +
                        0.5 * (0.4 * std::log(0.4 / 0.6) + 0.6 * std::log(0.6 / 0.4));
  EXPECT_NEAR(jensen_shannon({0.8, 0.2}, {0.4, 0.6}), expect, 1e-15);
}

TEST(Adversarial, SearchStaysWithinEpsilonAndBelowLn2AndIsDeterministic) {
  for (AttentionKind kind : {AttentionKind::Tanh, AttentionKind::Dot}) {
    const TextModel m = tiny_model(kind, 5);
    const auto fi = frozen(m, {2, 3, 4, 5, 6, 7, 2, 3});
    AdversarialOptions o;
    Rng r1(9), r2(9);
    const AdversarialResult a = adversarial_search(*fi, o, r1), b = adversarial_search(*fi, o, r2);
    EXPECT_EQ(a.candidate_jsd, b.candidate_jsd);
    ASSERT_EQ(a.candidate_jsd.size(), 5u);
    EXPECT_TRUE(a.found);
    EXPECT_LE(a.tvd, o.epsilon);
    EXPECT_LE(a.max_jsd, std::log(2.0));
    EXPECT_GT(a.max_jsd, 0.1) << "the search found nothing far from the original attention";
    double sum = 0;
    for (double v : a.attention) sum += v;
    EXPECT_NEAR(sum, 1.0, 1e-12);
    EXPECT_LE(total_variation(fi->output(a.attention), fi->probs()), o.epsilon);
    for (size_t k = 0; k < a.candidate_jsd.size(); ++k)
      if (a.candidate_tvd[k] <= o.epsilon) EXPECT_LE(a.candidate_jsd[k], a.max_jsd);
  }
}

TEST(Adversarial, ExperimentRowsAndSummary) {
  const TextModel m = tiny_model(AttentionKind::Tanh, 7);
  std::vector<Instance> data;
  data.push_back({0, 1, {"a", "b", "c"}, {2, 3, 4}});
  data.push_back({1, 0, {"d"}, {5}});
  data.push_back({2, 1, {"e", "f", "a", "b"}, {6, 7, 2, 3}});
  ExperimentOptions opt;
  opt.params = {{"steps", 100}};
  const nlohmann::json out = run_experiment(adversarial_experiment(), m, data, opt);
  EXPECT_EQ(out["n"], 3);
  EXPECT_TRUE(out["rows"][1].contains("skipped"));
  EXPECT_EQ(out["summary"]["n_used"], 2);
  const double mean = (out["rows"][0]["max_jsd"].get<double>() + out["rows"][2]["max_jsd"].get<double>()) / 2;
  EXPECT_NEAR(out["summary"]["mean_max_jsd"].get<double>(), mean, 1e-12);
  // Same seed, same numbers; the per-instance stream does not depend on which instances run.
  const nlohmann::json again = run_experiment(adversarial_experiment(), m, {data[2]}, opt);
  EXPECT_EQ(again["rows"][0]["max_jsd"], out["rows"][2]["max_jsd"]);
}

}  // namespace
}  // namespace attnlab
