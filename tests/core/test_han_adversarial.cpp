// The adversarial attention search (core/experiments/adversarial.h) on HAN through HanAttentionModel: the
// objective's gradient against central finite differences in double at both levels (the word level's groups weighted
// by beta); the word level's frozen outputs equal the whole model's forward with the word attention imposed; closed
// forms (a one-sentence document has only beta = [1], so the sentence-level JSD is 0; one-word sentences likewise at
// the word level; a two-state instance whose output is sigmoid(a (w_0 - w_1)) has the largest JSD within eps in
// closed form, which an unconstrained search exceeds); on the shipped imdb-han the adversary finds JSD > 0 with its
// output within eps at both levels.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "experiments/adversarial.h"
#include "experiments/frozen_encoder.h"
#include "experiments/han_attention_model.h"
#include "experiments/han_frozen.h"

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

std::unique_ptr<AttentionInstance> han_adv_frozen_at(const HanModel& m, const HanDocument& doc, const char* level) {
  return HanAttentionModel(m, std::string(level) == "word").freeze(han_instance_of(0, -1, doc), nullptr);
}

TEST(HanAdversarial, ObjectiveGradientMatchesFiniteDifferences) {
  const HanModel m = adv_small_han();
  for (const char* level : {"sentence", "word"}) {
    const std::unique_ptr<AttentionInstance> fi = han_adv_frozen_at(m, kAdvDoc, level);
    if (std::string(level) == "word") {
      EXPECT_EQ(fi->num_groups(), 4) << level;
      EXPECT_EQ(fi->group_weights(), han_adv_frozen_at(m, kAdvDoc, "sentence")->attention());  // beta
    }
    Rng rng(3);
    std::vector<std::vector<double>> theta(3, std::vector<double>(static_cast<size_t>(fi->size())));
    for (auto& t : theta)
      for (double& x : t) x = 2.0 * rng.normal();
    AdversarialOptions o;
    o.epsilon = 1e-4;  // most candidates pay the penalty, so its gradient is checked too
    std::vector<std::vector<double>> grad;
    adversarial_objective(*fi, theta, o, &grad);
    int checked = 0;
    for (size_t k = 0; k < theta.size(); ++k)
      for (size_t t = 0; t < theta[k].size(); ++t) {
        const double h = 1e-6, x = theta[k][t];
        theta[k][t] = x + h;
        const double lp = adversarial_objective(*fi, theta, o, nullptr);
        theta[k][t] = x - h;
        const double lm = adversarial_objective(*fi, theta, o, nullptr);
        theta[k][t] = x;
        const double num = (lp - lm) / (2 * h);
        EXPECT_NEAR(grad[k][t], num, 1e-5 * (1 + std::abs(num))) << level << " " << k << " " << t;
        ++checked;
      }
    EXPECT_GT(checked, 10);
  }
}

// The word level runs the sentence level alone on frozen word states (double): the same outputs as the whole model
// with the word attention imposed (han_outputs_with_word_attention, float) — and a different attention gives others.
TEST(HanAdversarial, WordLevelOutputsEqualTheWholeModelsForward) {
  const HanModel m = adv_small_han();
  const std::unique_ptr<AttentionInstance> fi = han_adv_frozen_at(m, kAdvDoc, "word");
  std::vector<double> w = fi->attention();
  w[0] = 0.9, w[1] = 0.02, w[2] = 0.02, w[3] = 0.02, w[4] = 0.04;  // the first sentence's five words
  const std::vector<std::vector<double>> frozen = fi->outputs({fi->attention(), w});
  const std::vector<std::vector<double>> whole = han_outputs_with_word_attention(
      m, kAdvDoc, {{{fi->attention().begin(), fi->attention().begin() + 5}, {fi->attention()[5], fi->attention()[6]},
                    {fi->attention().begin() + 7, fi->attention().begin() + 11}, {1.0}},
                   {{w.begin(), w.begin() + 5}, {w[5], w[6]}, {w.begin() + 7, w.begin() + 11}, {1.0}}});
  for (size_t k = 0; k < 2; ++k)
    for (size_t c = 0; c < 2; ++c) EXPECT_NEAR(frozen[k][c], whole[k][c], 1e-5) << k << " " << c;
  EXPECT_NEAR(frozen[0][1], fi->probs()[1], 1e-12);
  EXPECT_GT(std::abs(frozen[1][1] - frozen[0][1]), 1e-3);  // negative control: the change is seen
}

TEST(HanAdversarial, OneSentenceOrOneWordGivesZero) {
  const HanModel m = adv_small_han();
  Rng rng(1);
  AdversarialOptions o;
  o.steps = 50;
  const AdversarialResult s = adversarial_search(*han_adv_frozen_at(m, {{2, 3, 4, 5}}, "sentence"), o, rng);
  EXPECT_TRUE(s.found);
  EXPECT_EQ(s.max_jsd, 0.0);
  EXPECT_EQ(s.attention, std::vector<double>({1.0}));
  const AdversarialResult w = adversarial_search(*han_adv_frozen_at(m, {{2}, {5}, {8}}, "word"), o, rng);
  EXPECT_TRUE(w.found);
  EXPECT_EQ(w.max_jsd, 0.0);
}

// Two units with states e_0, e_1 and one logit a (w_0 - w_1), one softmax group.
class AdvTwoStates : public AttentionInstance {
 public:
  explicit AdvTwoStates(double a) : a_(a) {
    attention_ = {0.5, 0.5};
    probs_ = {0.5, 0.5};
    group_ = {0, 0};
    unit_token_ = {0, 1};
  }
  std::vector<std::vector<double>> outputs(const std::vector<std::vector<double>>& variants) const override {
    std::vector<std::vector<double>> out;
    for (const auto& w : variants) {
      const double p1 = 1 / (1 + std::exp(-a_ * (w[0] - w[1])));
      out.push_back({1 - p1, p1});
    }
    return out;
  }
  std::vector<double> d_output(const std::vector<double>& w, int cls) const override {
    const double p1 = output(w)[1], d = (cls == 1 ? 1 : -1) * p1 * (1 - p1) * a_;
    return {d, -d};
  }
  std::vector<double> importance(Importance, int) const override { return {0.5, 0.5}; }

 private:
  double a_;
};

// From w = (1/2, 1/2), p_1 = 1/2, the output stays within eps exactly when |2 w_0 - 1| <= logit(1/2 + eps) / a, so the
// largest JSD within eps is JSD((1 + x) / 2, (1 - x) / 2 ; 1/2, 1/2) with x = logit(1/2 + eps) / a.
TEST(HanAdversarial, TwoSentencesClosedFormAndTheConstraintBinds) {
  const double a = 1.0;
  const AdvTwoStates fi(a);
  AdversarialOptions o;
  o.epsilon = 0.05;
  const double x = std::log((0.5 + o.epsilon) / (0.5 - o.epsilon)) / a;
  const double bound = jensen_shannon({(1 + x) / 2, (1 - x) / 2}, {0.5, 0.5});
  Rng rng(7);
  const AdversarialResult r = adversarial_search(fi, o, rng);
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
  EXPECT_GT(adversarial_search(fi, free, rng2).max_jsd, 10 * bound);
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
  const Experiment* e = find_experiment("adversarial");
  ASSERT_NE(e, nullptr);
  for (const char* level : {"sentence", "word"}) {
    ExperimentOptions o;
    o.params = {{"level", level}, {"steps", 200}};
    bool word = false;
    ASSERT_EQ(check_han_experiment(*e, m, &o.params, &word), "");
    const nlohmann::json r = run_experiment(*e, HanAttentionModel(m, word), {han_instance_of(0, 0, doc)}, o);
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
    // The words: one softmax per sentence, each sentence's JSD reported beside the beta-weighted sum.
    EXPECT_EQ(row.contains("mean_group_jsd"), word) << level;
    if (word) {
      EXPECT_EQ(row["num_groups"], 4);
      EXPECT_GT(row["mean_group_jsd"].get<double>(), 0.0);
      EXPECT_LE(row["mean_group_jsd"].get<double>(), std::log(2.0));
    }
    EXPECT_EQ(r["summary"]["n_used"], 1);
  }
}

// Rows come back from the page (several workers' chunks) to be summarised: every experiment that runs on a HAN
// summarises its own rows, and rows missing or mistyping what a summary reads, without an exception (none in wasm).
TEST(HanAdversarial, SummariesReadRowsFromThePageWithoutThrowing) {
  HanModel m = adv_small_han();
  const std::vector<Instance> data = {han_instance_of(0, 1, kAdvDoc), han_instance_of(1, 0, {})};
  const std::vector<nlohmann::json> odd = {
      nlohmann::json{{"jsd_max", "x"}, {"flip_max", 3}}, nlohmann::json{{"label", "a"}, {"max_jsd", nullptr}},
      nlohmann::json{{"attention", 7}, {"gradient", {{"fraction", "x"}}}}, nlohmann::json{{"skipped", "no tokens"}},
      nlohmann::json::object(), nlohmann::json{{"tau_gradient", nullptr}, {"predicted", 1.5}}};
  int ran = 0;
  for (const Experiment& e : experiment_registry()) {
    ExperimentOptions o;
    o.params = {{"level", "word"}};
    if (e.name == "adversarial") o.params["steps"] = 20;
    bool word = false;
    if (!check_han_experiment(e, m, &o.params, &word).empty()) continue;
    ++ran;
    const HanAttentionModel han(m, word);
    // a named result: a range-for over a member of the temporary would read it after it is destroyed (ASan saw it)
    const nlohmann::json result = run_experiment(e, han, data, o);
    EXPECT_TRUE(result["rows"][1].contains("skipped")) << e.name;  // the empty document
    std::vector<nlohmann::json> rows(result["rows"].begin(), result["rows"].end());
    rows.insert(rows.end(), odd.begin(), odd.end());
    EXPECT_NO_THROW(summarize_rows(e, han, rows, o)) << e.name;
  }
  EXPECT_EQ(ran, 5);
}

}  // namespace
}  // namespace attnlab
