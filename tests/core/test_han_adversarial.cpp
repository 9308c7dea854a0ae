// The adversarial attention search on HAN (core/experiments/han_adversarial.h): the objective's gradient
// against central finite differences in double at both levels; closed forms (a one-sentence document has
// only beta = [1], so the sentence-level JSD is 0; one-word sentences likewise at the word level; a
// two-sentence document whose output is sigmoid(a (beta_0 - beta_1)) has the largest JSD within eps in
// closed form, which an unconstrained search exceeds); on the shipped imdb-han the adversary finds JSD > 0
// with its output within eps at both levels.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "experiments/frozen_encoder.h"
#include "experiments/han_adversarial.h"

namespace attnlab {
namespace {

HanModel adv_small_han() {
  HanModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "the", "film", "is", "good", "bad", "not", ".", "plot", "great", "dull"});
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 6;
  m.config.word_hidden = 4;
  m.config.sentence_hidden = 3;
  m.class_names = {"negative", "positive"};
  Rng rng(5);
  m.params.init(m.config, rng);
  for (Mat<float>* p : m.params.list()) *p *= 2.0f;
  return m;
}

const HanDocument kAdvDoc = {{2, 3, 4, 5, 8}, {7, 6}, {9, 4, 11, 8}, {10}};

std::vector<std::vector<std::vector<double>>> random_theta(const HanAdversary& adv, int K, Rng& rng) {
  std::vector<std::vector<std::vector<double>>> th(K);
  for (auto& t : th)
    for (const auto& a : adv.attention) {
      std::vector<double> g(a.size());
      for (double& x : g) x = 2.0 * rng.normal();
      t.push_back(g);
    }
  return th;
}

TEST(HanAdversarial, ObjectiveGradientMatchesFiniteDifferences) {
  const HanModel m = adv_small_han();
  for (const char* level : {"sentence", "word"}) {
    const HanAdversary adv = han_adversary(m, kAdvDoc, level);
    Rng rng(3);
    auto theta = random_theta(adv, 3, rng);
    AdversarialOptions o;
    o.epsilon = 1e-4;  // most candidates pay the penalty, so its gradient is checked too
    std::vector<std::vector<std::vector<double>>> grad;
    han_adversarial_objective(m, adv, theta, o, &grad);
    int checked = 0;
    for (size_t k = 0; k < theta.size(); ++k)
      for (size_t g = 0; g < theta[k].size(); ++g)
        for (size_t t = 0; t < theta[k][g].size(); ++t) {
          const double h = 1e-6, x = theta[k][g][t];
          theta[k][g][t] = x + h;
          const double lp = han_adversarial_objective(m, adv, theta, o, nullptr);
          theta[k][g][t] = x - h;
          const double lm = han_adversarial_objective(m, adv, theta, o, nullptr);
          theta[k][g][t] = x;
          const double num = (lp - lm) / (2 * h);
          EXPECT_NEAR(grad[k][g][t], num, 1e-5 * (1 + std::abs(num))) << level << " " << k << " " << g << " " << t;
          ++checked;
        }
    EXPECT_GT(checked, 10);
  }
}

TEST(HanAdversarial, OneSentenceOrOneWordGivesZero) {
  const HanModel m = adv_small_han();
  Rng rng(1);
  AdversarialOptions o;
  o.steps = 50;
  const HanAdversarialResult s = han_adversarial_search(m, han_adversary(m, {{2, 3, 4, 5}}, "sentence"), o, rng);
  EXPECT_TRUE(s.found);
  EXPECT_EQ(s.max_jsd, 0.0);
  EXPECT_EQ(s.attention, std::vector<std::vector<double>>({{1.0}}));
  const HanAdversarialResult w = han_adversarial_search(m, han_adversary(m, {{2}, {5}, {8}}, "word"), o, rng);
  EXPECT_TRUE(w.found);
  EXPECT_EQ(w.max_jsd, 0.0);
}

// Two sentence states e_0, e_1 and one logit a (beta_0 - beta_1): from beta = (1/2, 1/2), p_1 = 1/2, the output
// stays within eps exactly when |2 beta_0 - 1| <= logit(1/2 + eps) / a, so the largest JSD within eps is
// JSD((1 + x) / 2, (1 - x) / 2 ; 1/2, 1/2) with x = logit(1/2 + eps) / a.
TEST(HanAdversarial, TwoSentencesClosedFormAndTheConstraintBinds) {
  HanModel m;
  m.config.sentence_hidden = 1;
  const double a = 1.0;
  m.params.classifier.w = Mat<float>(1, 2);
  m.params.classifier.w << float(a), float(-a);
  m.params.classifier.b = Mat<float>::Zero(1, 1);
  HanAdversary adv;
  adv.level = "sentence";
  adv.frozen.h = Mat<double>::Identity(2, 2);
  adv.frozen.beta = {0.5, 0.5};
  adv.probs = adv.frozen.probs = {0.5, 0.5};
  adv.attention = {{0.5, 0.5}};
  adv.weights = {1.0};
  AdversarialOptions o;
  o.epsilon = 0.05;
  const double x = std::log((0.5 + o.epsilon) / (0.5 - o.epsilon)) / a;
  const double bound = jensen_shannon({(1 + x) / 2, (1 - x) / 2}, {0.5, 0.5});
  Rng rng(7);
  const HanAdversarialResult r = han_adversarial_search(m, adv, o, rng);
  ASSERT_TRUE(r.found);
  EXPECT_LE(r.tvd, o.epsilon);
  EXPECT_LE(r.max_jsd, bound + 1e-12);
  // Adam's second moment remembers the penalty's large gradient, so the iterate settles inside the feasible
  // interval rather than on its edge (here at about half the bound); it still gets a good part of the way.
  EXPECT_GE(r.max_jsd, 0.25 * bound);
  // Without the constraint the same search goes far beyond the bound (it is what the penalty prevents).
  AdversarialOptions free = o;
  free.penalty = 0;
  free.epsilon = 1.0;
  Rng rng2(7);
  EXPECT_GT(han_adversarial_search(m, adv, free, rng2).max_jsd, 10 * bound);
}

std::string adv_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(HanAdversarial, FindsDivergentAttentionWithinEpsilonOnImdbHan) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/imdb-han/";
  const std::string config = adv_slurp(dir + "config.json"), weights = adv_slurp(dir + "model.safetensors");
  HanModel m;
  std::string error;
  ASSERT_TRUE(load_han_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &m, &error))
      << error;
  const HanDocument doc =
      han_encode(m, "I rented this movie because the cover looked fun. The acting is wooden and the plot makes no "
                    "sense at all. Still, the music is lovely and one scene near the end made me laugh. I would not "
                    "watch it again.")
          .ids;
  ASSERT_EQ(doc.size(), 4u);
  const HanExperiment* e = find_han_experiment("adversarial");
  ASSERT_NE(e, nullptr);
  for (const char* level : {"sentence", "word"}) {
    ExperimentOptions o;
    o.params = {{"level", level}, {"steps", 200}};
    const nlohmann::json r = run_han_experiment(*e, m, {{0, 0, doc}}, o);
    const nlohmann::json& row = r["rows"][0];
    ASSERT_FALSE(row.contains("skipped")) << level;
    EXPECT_TRUE(row["found"].get<bool>()) << level;
    EXPECT_GT(row["max_jsd"].get<double>(), 0.01) << level;
    EXPECT_LE(row["max_jsd"].get<double>(), std::log(2.0)) << level;
    EXPECT_LE(total_variation(row["adversarial_probabilities"].get<std::vector<double>>(),
                              row["probabilities"].get<std::vector<double>>()),
              0.01)
        << level;
    for (size_t k = 0; k < row["candidate_tvd"].size(); ++k)
      if (row["candidate_jsd"][k].get<double>() > row["max_jsd"].get<double>())
        EXPECT_GT(row["candidate_tvd"][k].get<double>(), 0.01) << level;  // a larger JSD was left for its output
    EXPECT_EQ(r["summary"]["level"], level);
    EXPECT_EQ(r["summary"]["n_used"], 1);
  }
}

// The rows the HAN experiments write are well formed; rows missing or mistyping what a summary reads are not
// (the wasm binding refuses them before summarising: no exceptions in wasm).
TEST(HanAdversarial, RowsFromThePageAreCheckedBeforeSummarising) {
  HanModel m = adv_small_han();
  ExperimentOptions o;
  o.params = {{"level", "sentence"}, {"steps", 20}};
  const std::vector<HanInstance> data = {{0, 1, kAdvDoc}, {1, 0, {}}};
  for (const HanExperiment& e : han_experiment_registry()) {
    // a named result: a range-for over a member of the temporary would read it after it is destroyed (ASan saw it)
    const nlohmann::json result = run_han_experiment(e, m, data, o);
    for (const nlohmann::json& row : result["rows"]) EXPECT_TRUE(han_row_well_formed(e.name, row)) << e.name;
  }
  EXPECT_FALSE(han_row_well_formed("erase-max", nlohmann::json{{"top", {{"jsd", 0.1}}}}));
  EXPECT_FALSE(han_row_well_formed("erase-max", nlohmann::json{{"top", {{"jsd", "x"}, {"flipped", false}}},
                                                               {"random", {{"jsd", 0.1}, {"flipped", false}}}}));
  EXPECT_FALSE(han_row_well_formed("kendall", nlohmann::json{{"label", 1}, {"sentence", 3}}));
  EXPECT_FALSE(han_row_well_formed("erase-until-flip", nlohmann::json{{"label", "a"}}));
  EXPECT_FALSE(han_row_well_formed("adversarial", nlohmann::json::array()));
  EXPECT_TRUE(han_row_well_formed("kendall", nlohmann::json{{"skipped", "no tokens"}}));
}

}  // namespace
}  // namespace attnlab
