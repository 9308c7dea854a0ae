// Faithfulness experiments: Spearman rho (metrics/spearman), ERASER comprehensiveness / sufficiency / AOPC
// (experiments/eraser.cpp, DeYoung et al. 2020) and cascading randomisation (experiments/randomization.cpp,
// Adebayo et al. 2018). ERASER is checked on a hand-built model whose output depends only on whether the
// token "good" is present, so every expected number is a closed form; randomisation on small random models.
#include <gtest/gtest.h>

#include "experiments/text_attention_model.h"

#include <cmath>
#include <limits>
#include <vector>

#include "experiments/all.h"
#include "experiments/frozen_encoder.h"
#include "explain/importance.h"
#include "metrics/spearman.h"

namespace attnlab {
namespace {

using nlohmann::json;
using V = std::vector<double>;

// ---------------------------------------------------------------------------------------------- Spearman

TEST(Spearman, AverageRanksForTies) {
  EXPECT_EQ(average_ranks({10, 20, 20, 30}), V({1, 2.5, 2.5, 4}));
  EXPECT_EQ(average_ranks({3, 1, 3, 3, 0}), V({4, 2, 4, 4, 1}));  // three tied at ranks 3,4,5 -> 4
  EXPECT_EQ(average_ranks({7, 7}), V({1.5, 1.5}));
}

TEST(Spearman, HandComputedTieCase) {
  // scipy docs: spearmanr([1,2,3,4,5], [5,6,7,8,7]) = 0.8207826816681233.
  // y ranks = 1 2 3.5 5 3.5; centred x = -2 -1 0 1 2, y = -2 -1 .5 2 .5: sxy = 8, sxx = 10, syy = 9.5,
  // rho = 8 / sqrt(95).
  EXPECT_NEAR(spearman_rho({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}), 8.0 / std::sqrt(95.0), 1e-15);
  EXPECT_NEAR(spearman_rho({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}), 0.8207826816681233, 1e-15);
}

TEST(Spearman, MonotoneTransformsGiveOneAndMinusOne) {
  EXPECT_DOUBLE_EQ(spearman_rho({0.1, 0.5, 0.2, 9}, {1, 125, 8, 1e6}), 1.0);  // y = (10 x)^3-ish, same order
  EXPECT_DOUBLE_EQ(spearman_rho({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
}

TEST(Spearman, UndefinedCasesAreNaN) {
  EXPECT_TRUE(std::isnan(spearman_rho({1, 1, 1}, {1, 2, 3})));  // constant input
  EXPECT_TRUE(std::isnan(spearman_rho({1, 2, 3}, {0.25, 0.25, 0.25})));
  EXPECT_TRUE(std::isnan(spearman_rho({1}, {2})));  // n < 2
  EXPECT_TRUE(std::isnan(spearman_rho({}, {})));
  EXPECT_TRUE(std::isnan(spearman_rho({1, 2}, {1, 2, 3})));  // sizes differ
  EXPECT_TRUE(std::isnan(spearman_rho({1, std::nan(""), 3}, {1, 2, 3})));
  EXPECT_DOUBLE_EQ(spearman_rho({1, 2}, {3, 4}), 1.0);  // n = 2 is defined
}

// Brute force: rank_i = 1 + #{v_j < v_i} + #{j != i, v_j == v_i} / 2, then Pearson with explicit means.
double brute_spearman(const V& x, const V& y) {
  const size_t n = x.size();
  const auto ranks = [n](const V& v) {
    V r(n);
    for (size_t i = 0; i < n; ++i) {
      double less = 0, equal = 0;
      for (size_t j = 0; j < n; ++j) {
        if (v[j] < v[i]) less += 1;
        if (j != i && v[j] == v[i]) equal += 1;
      }
      r[i] = 1 + less + equal / 2;
    }
    return r;
  };
  const V rx = ranks(x), ry = ranks(y);
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += rx[i] / n, my += ry[i] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

TEST(Spearman, MatchesBruteForcePearsonOnRanksWithManyTies) {
  Rng rng(5);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 2 + rng.below(14);
    V x(n), y(n);
    for (size_t i = 0; i < n; ++i) {
      x[i] = static_cast<double>(rng.below(5));  // values 0..4: many ties
      y[i] = static_cast<double>(rng.below(4)) * 0.5;
    }
    const double got = spearman_rho(x, y), want = brute_spearman(x, y);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got));
      continue;
    }
    EXPECT_NEAR(got, want, 1e-12) << "trial " << trial;
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

// ---------------------------------------------------------------------------------------------- models

// Output depends only on whether "good" (id 5) is present. E = H = 1; only "good" has a non-zero embedding
// (2). The LSTM cell has i = o = 1, f = 0 (biases +-100), g = tanh(x), no recurrence, so h_t = tanh(tanh(2))
// on "good" and exactly 0 elsewhere, in both directions. Dot attention with v = (50, 50) puts all the weight
// on "good" (scores ~ 52.8 vs 0), equal weights when it appears several times. Decoder w = (3, 3), b = -1:
// logit = 6 h - 1 with "good", -1 without (also for the empty input: the decoder bias).
TextModel key_model() {
  TextModel m;
  m.config.attention = AttentionKind::Dot;
  m.config.vocab_size = 6;
  m.config.embedding_dim = 1;
  m.config.hidden_dim = 1;
  m.config.num_classes = 2;
  m.vocab = Vocab({"<pad>", "<unk>", "a", "b", "c", "good"});
  m.class_names = {"negative", "positive"};
  Rng rng(1);
  m.params.init(m.config, rng);
  m.params.set_zero();
  m.params.embedding(0, 5) = 2.0f;
  for (LstmParams<float>* l : {&m.params.encoder.fwd, &m.params.encoder.bwd}) {
    l->w_ih(2, 0) = 1.0f;  // gate order i, f, g, o: g reads the input
    l->bias(0, 0) = 100.0f;
    l->bias(1, 0) = -100.0f;
    l->bias(3, 0) = 100.0f;
  }
  m.params.attention.v << 50.0f, 50.0f;
  m.params.decoder.w << 3.0f, 3.0f;
  m.params.decoder.b(0, 0) = -1.0f;
  return m;
}

double sigmoid_d(double z) { return 1.0 / (1.0 + std::exp(-z)); }
const double kHGood = std::tanh(std::tanh(2.0));
const double kPGood = sigmoid_d(6.0 * kHGood - 1.0);  // p(positive) with "good": 0.9701..
const double kPNone = sigmoid_d(-1.0);                 // without it (and empty input): 0.2689..
const double kDrop = kPGood - kPNone;

// Random model as in test_explain (scaled so that attention is far from uniform).
TextModel faithfulness_random_model(AttentionKind kind, uint64_t seed = 11) {
  TextModel m;
  m.config.attention = kind;
  m.config.vocab_size = 20;
  m.config.embedding_dim = 6;
  m.config.hidden_dim = 5;
  m.config.num_classes = 2;
  std::vector<std::string> words = {"<pad>", "<unk>"};
  for (int i = 2; i < 20; ++i) words.push_back("w" + std::to_string(i));
  m.vocab = Vocab(words);
  Rng rng(seed);
  m.params.init(m.config, rng);
  for (Mat<float>* p : m.params.list()) *p *= 1.5f;
  return m;
}

Instance faithfulness_instance(int index, std::vector<int> ids, int label = -1) {
  Instance inst;
  inst.index = index;
  inst.label = label;
  inst.ids = std::move(ids);
  for (int id : inst.ids) inst.tokens.push_back("t" + std::to_string(id));
  return inst;
}

std::vector<Instance> random_instances(int n, int length, uint64_t seed) {
  Rng rng(seed);
  std::vector<Instance> out;
  for (int i = 0; i < n; ++i) {
    std::vector<int> ids;
    for (int t = 0; t < length; ++t) ids.push_back(2 + static_cast<int>(rng.below(18)));
    out.push_back(faithfulness_instance(i, ids));
  }
  return out;
}

V doubles(const json& a) {
  V out;
  for (const json& v : a) out.push_back(v.get<double>());
  return out;
}

const char* const kExplained[] = {"attention", "gradient", "leave_one_out", "integrated_gradients"};

// ---------------------------------------------------------------------------------------------- ERASER

TEST(Eraser, KeyModelClosedFormsHold) {
  // The model itself: p with "good" and without it, as the comments of key_model say.
  const TextModel m = key_model();
  TextCache<float> c;
  text_forward_ids(m.config, m.params, TextBatch::from_sequences({{2, 5, 3}, {2, 3, 4}}), c);
  EXPECT_NEAR(class_probability(m.config, c.logits, 0, 1), kPGood, 1e-5);
  EXPECT_NEAR(class_probability(m.config, c.logits, 1, 1), kPNone, 1e-6);
  EXPECT_NEAR(c.attention.alpha(1, 0), 1.0, 1e-6);
}

TEST(Eraser, TheOneTokenThatMattersGivesTheFullDropWhenInTheRationale) {
  // T = 10, "good" at position 2. Every explaining measure ranks it first (fillers have attention ~e^-53,
  // zero embedding -> zero gradient and IG, zero leave-one-out), so at every k it is in r:
  // comprehensiveness = p(x) - p(x without good) = kDrop, sufficiency = p(x) - p(r) = 0.
  const TextModel m = key_model();
  const json out = run_experiment(eraser_experiment(), m, {faithfulness_instance(0, {2, 3, 5, 4, 2, 3, 4, 2, 3, 4}, 1)},
                                  ExperimentOptions{});
  ASSERT_EQ(out["rows"].size(), 1u);
  const json& row = out["rows"][0];
  EXPECT_EQ(row["predicted"], 1);
  EXPECT_EQ(row["num_tokens"], 10);
  EXPECT_EQ(row["rationale_size"], json({1, 1, 1, 2, 5}));
  for (const char* name : kExplained) {
    SCOPED_TRACE(name);
    const json& r = row["measures"][name];
    for (int k = 0; k < 5; ++k) {
      EXPECT_NEAR(r["comprehensiveness"][k].get<double>(), kDrop, 1e-5);
      EXPECT_NEAR(r["sufficiency"][k].get<double>(), 0.0, 1e-6);
    }
    EXPECT_NEAR(r["aopc_comprehensiveness"].get<double>(), kDrop, 1e-5);
    EXPECT_NEAR(r["aopc_sufficiency"].get<double>(), 0.0, 1e-6);
  }
  // Random: "good" is in r or in x without r, never both, so at each k one of the two is the full drop
  // and the other 0; AOPC is the mean of the five values.
  const json& r = row["measures"]["random"];
  const V comp = doubles(r["comprehensiveness"]), suff = doubles(r["sufficiency"]);
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(comp[k] + suff[k], kDrop, 1e-5);
    EXPECT_TRUE(std::fabs(comp[k]) < 1e-5 || std::fabs(comp[k] - kDrop) < 1e-5) << comp[k];
  }
  EXPECT_NEAR(r["aopc_comprehensiveness"].get<double>(), (comp[0] + comp[1] + comp[2] + comp[3] + comp[4]) / 5, 1e-12);
  EXPECT_NEAR(r["aopc_sufficiency"].get<double>(), (suff[0] + suff[1] + suff[2] + suff[3] + suff[4]) / 5, 1e-12);
}

TEST(Eraser, HandComputedAopcWithThreeCopiesOfTheKeyToken) {
  // "good" at positions 0, 2, 4 of T = 10 share the attention (1/3 each) and rank first for attention,
  // gradient and IG. n_k = 1, 1, 1, 2, 5 (k = 1, 5, 10, 20, 50 %): one or two removed copies leave one behind
  // (no change); at 50 % all three are removed. So comprehensiveness = [0, 0, 0, 0, kDrop] and
  // AOPC = (0 + 0 + 0 + 0 + kDrop) / 5; r always holds a copy, so sufficiency = 0 everywhere.
  // (Leave-one-out is 0 for every token here — removing one copy changes nothing — so its ranking is
  // all ties and is not checked.)
  const TextModel m = key_model();
  const json out =
      run_experiment(eraser_experiment(), m, {faithfulness_instance(0, {5, 2, 5, 3, 5, 4, 2, 3, 4, 2})}, ExperimentOptions{});
  const json& row = out["rows"][0];
  for (const char* name : {"attention", "gradient", "integrated_gradients"}) {
    SCOPED_TRACE(name);
    const json& r = row["measures"][name];
    const V comp = doubles(r["comprehensiveness"]);
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(comp[k], 0.0, 1e-6);
    EXPECT_NEAR(comp[4], kDrop, 1e-5);
    EXPECT_NEAR(r["aopc_comprehensiveness"].get<double>(), kDrop / 5, 1e-5);
    for (int k = 0; k < 5; ++k) EXPECT_NEAR(r["sufficiency"][k].get<double>(), 0.0, 1e-6);
  }
}

TEST(Eraser, SingleTokenInputComparesWithTheDecoderBias) {
  // T = 1: r is the whole input at every k, x without r is empty -> decoder bias alone.
  const TextModel m = key_model();
  const json out = run_experiment(eraser_experiment(), m, {faithfulness_instance(0, {5}), faithfulness_instance(1, {3})},
                                  ExperimentOptions{});
  const json& good = out["rows"][0];
  EXPECT_EQ(good["predicted"], 1);
  for (int k = 0; k < 5; ++k) {
    EXPECT_NEAR(good["measures"]["attention"]["comprehensiveness"][k].get<double>(), kDrop, 1e-5);
    EXPECT_NEAR(good["measures"]["random"]["sufficiency"][k].get<double>(), 0.0, 1e-7);
  }
  // A filler alone predicts class 0 with p0 = 1 - sigmoid(-1), the same as the empty input: nothing to drop.
  const json& filler = out["rows"][1];
  EXPECT_EQ(filler["predicted"], 0);
  for (int k = 0; k < 5; ++k)
    EXPECT_NEAR(filler["measures"]["leave_one_out"]["comprehensiveness"][k].get<double>(), 0.0, 1e-7);
}

TEST(Eraser, SummaryAveragesRowsAndSkipsEmptyInstances) {
  const TextModel m = key_model();
  Instance empty = faithfulness_instance(2, {});
  const json out = run_experiment(eraser_experiment(), m,
                                  {faithfulness_instance(0, {2, 3, 5, 4, 2, 3, 4, 2, 3, 4}),
                                   faithfulness_instance(1, {5, 2, 5, 3, 5, 4, 2, 3, 4, 2}), empty},
                                  ExperimentOptions{});
  const json& s = out["summary"];
  EXPECT_EQ(s["k_percent"], json({1, 5, 10, 20, 50}));
  EXPECT_EQ(s["n_used"], 2);
  EXPECT_EQ(s["n_skipped"], 1);
  EXPECT_EQ(out["rows"][2]["skipped"], "no tokens");
  const json& a = s["measures"]["attention"];
  // Row 0: AOPC kDrop; row 1: kDrop / 5.
  EXPECT_NEAR(a["aopc_comprehensiveness_mean"].get<double>(), (kDrop + kDrop / 5) / 2, 1e-5);
  EXPECT_NEAR(a["aopc_sufficiency_mean"].get<double>(), 0.0, 1e-6);
  EXPECT_NEAR(a["comprehensiveness_mean"][0].get<double>(), kDrop / 2, 1e-5);
  EXPECT_NEAR(a["comprehensiveness_mean"][4].get<double>(), kDrop, 1e-5);
  // The error bar over the two instances: s / sqrt(2) with s = |kDrop - kDrop / 5| / sqrt(2) (n - 1), i.e. half the
  // difference — not the population value (that would be half of it again divided by sqrt(2)).
  EXPECT_NEAR(a["aopc_comprehensiveness_sem"].get<double>(), (kDrop - kDrop / 5) / 2, 1e-5);
  EXPECT_NEAR(a["aopc_sufficiency_sem"].get<double>(), 0.0, 1e-6);
  for (const char* name : {"attention", "gradient", "leave_one_out", "integrated_gradients", "random"})
    EXPECT_TRUE(s["measures"].contains(name)) << name;
  // One instance has no error bar: null, not 0.
  const json one = run_experiment(eraser_experiment(), m, {faithfulness_instance(0, {2, 3, 5, 4, 2, 3, 4, 2, 3, 4})},
                                  ExperimentOptions{})["summary"];
  EXPECT_TRUE(one["measures"]["attention"]["aopc_comprehensiveness_sem"].is_null());
}

TEST(Eraser, RationaleSizesRoundUp) {
  // T = 30: max(1, ceil(k * 30 / 100)) = 1 (0.3), 2 (1.5), 3 (exactly 3), 6, 15 — rounding up, not down.
  const TextModel m = faithfulness_random_model(AttentionKind::Tanh);
  const json out = run_experiment(eraser_experiment(), m, random_instances(1, 30, 3), ExperimentOptions{});
  EXPECT_EQ(out["rows"][0]["rationale_size"], json({1, 2, 3, 6, 15}));
}

TEST(Eraser, BatchedRerunsMatchSeparateForwardsInOrder) {
  // On a random tanh model: recompute the attention measure's comprehensiveness and sufficiency at 20 %
  // (n = 2 of T = 9) with one forward per input, tokens kept in their original order.
  const TextModel m = faithfulness_random_model(AttentionKind::Tanh);
  const Instance inst = random_instances(1, 9, 4)[0];
  const json row = run_experiment(eraser_experiment(), m, {inst}, ExperimentOptions{})["rows"][0];
  ExplainInput in;
  in.cfg = &m.config;
  in.params = &m.params;
  in.ids = inst.ids;
  const V alpha = attention_importance(in);
  int first = 0, second = -1;
  for (int t = 1; t < 9; ++t)
    if (alpha[t] > alpha[first]) first = t;
  for (int t = 0; t < 9; ++t)
    if (t != first && (second < 0 || alpha[t] > alpha[second])) second = t;
  std::vector<int> rest, rationale;
  for (int t = 0; t < 9; ++t) (t == first || t == second ? rationale : rest).push_back(inst.ids[t]);
  const auto p = [&](const std::vector<int>& ids, int c) {
    TextCache<float> cache;
    text_forward_ids(m.config, m.params, TextBatch::from_sequences({ids}), cache);
    return static_cast<double>(class_probability(m.config, cache.logits, 0, c));
  };
  const int c = row["predicted"].get<int>();
  EXPECT_EQ(c, p(inst.ids, 1) >= 0.5 ? 1 : 0);
  const double full = p(inst.ids, c);
  EXPECT_NEAR(row["measures"]["attention"]["comprehensiveness"][3].get<double>(), full - p(rest, c), 2e-6);
  EXPECT_NEAR(row["measures"]["attention"]["sufficiency"][3].get<double>(), full - p(rationale, c), 2e-6);
  // A sanity bound on the numbers themselves: differences of probabilities.
  EXPECT_GT(std::fabs(full - p(rest, c)) + std::fabs(full - p(rationale, c)), 1e-4);
}

TEST(Eraser, RandomMeasureFollowsTheSeed) {
  const TextModel m = faithfulness_random_model(AttentionKind::Tanh);
  const std::vector<Instance> data = random_instances(4, 12, 7);
  ExperimentOptions a, b;
  a.seed = 1;
  b.seed = 2;
  const json ra = run_experiment(eraser_experiment(), m, data, a);
  const json ra2 = run_experiment(eraser_experiment(), m, data, a);
  const json rb = run_experiment(eraser_experiment(), m, data, b);
  EXPECT_EQ(ra["rows"], ra2["rows"]);  // same seed, same numbers
  bool random_differs = false;
  for (size_t i = 0; i < data.size(); ++i) {
    if (ra["rows"][i]["measures"]["random"] != rb["rows"][i]["measures"]["random"]) random_differs = true;
    EXPECT_EQ(ra["rows"][i]["measures"]["attention"], rb["rows"][i]["measures"]["attention"]);  // no rng
  }
  EXPECT_TRUE(random_differs);
}

// ---------------------------------------------------------------------------------------------- randomisation

const std::vector<TextModel>& copies_of(const std::shared_ptr<const void>& prepared) {
  return *static_cast<const std::vector<TextModel>*>(prepared.get());
}

TEST(Randomization, PreparedCopiesCascadeAndAreDeterministicForASeed) {
  const TextModel m = faithfulness_random_model(AttentionKind::Tanh);
  const Experiment e = randomization_experiment();
  ASSERT_TRUE(e.prepare);
  ExperimentOptions o3, o4;
  o3.seed = 3;
  o4.seed = 4;
  const auto p1 = e.prepare(TextAttentionModel(m), o3), p2 = e.prepare(TextAttentionModel(m), o3),
             p3 = e.prepare(TextAttentionModel(m), o4);
  const auto& c1 = copies_of(p1);
  const auto& c2 = copies_of(p2);
  const auto& c3 = copies_of(p3);
  ASSERT_EQ(c1.size(), 4u);
  ASSERT_EQ(c3.size(), 4u);
  for (size_t s = 0; s < 4; ++s) {
    const auto n1 = c1[s].params.named(), n2 = c2[s].params.named(), n3 = c3[s].params.named();
    bool any_differs_from_other_seed = false;
    for (size_t j = 0; j < n1.size(); ++j) {
      EXPECT_EQ(*n1[j].second, *n2[j].second) << s << " " << n1[j].first;
      if (*n1[j].second != *n3[j].second) any_differs_from_other_seed = true;
    }
    EXPECT_TRUE(any_differs_from_other_seed) << s;
  }
  // Cascade: stage s changes its layer and keeps the earlier stages' random layers; later layers original.
  const auto same = [](const Mat<float>& a, const Mat<float>& b) { return a == b; };
  const TextParams<float>& o = m.params;
  EXPECT_FALSE(same(c1[0].params.decoder.w, o.decoder.w));
  EXPECT_TRUE(same(c1[0].params.attention.w1, o.attention.w1));
  EXPECT_TRUE(same(c1[0].params.attention.v, o.attention.v));
  EXPECT_TRUE(same(c1[0].params.encoder.fwd.w_ih, o.encoder.fwd.w_ih));
  EXPECT_TRUE(same(c1[0].params.embedding, o.embedding));
  EXPECT_TRUE(same(c1[1].params.decoder.w, c1[0].params.decoder.w));
  EXPECT_FALSE(same(c1[1].params.attention.w1, o.attention.w1));
  EXPECT_TRUE(same(c1[1].params.encoder.bwd.w_hh, o.encoder.bwd.w_hh));
  EXPECT_TRUE(same(c1[2].params.attention.w1, c1[1].params.attention.w1));
  EXPECT_FALSE(same(c1[2].params.encoder.bwd.w_hh, o.encoder.bwd.w_hh));
  EXPECT_TRUE(same(c1[2].params.embedding, o.embedding));
  EXPECT_TRUE(same(c1[3].params.encoder.bwd.w_hh, c1[2].params.encoder.bwd.w_hh));
  EXPECT_FALSE(same(c1[3].params.embedding, o.embedding));
  // The model's own init distributions: decoder U(+-1/sqrt(2H)), <pad> embedding column zero.
  const float kd = 1.0f / std::sqrt(10.0f);
  EXPECT_LE(c1[0].params.decoder.w.cwiseAbs().maxCoeff(), kd);
  EXPECT_TRUE(c1[3].params.embedding.col(0).isZero(0));
}

TEST(Randomization, DecoderStageKeepsAttentionAttentionStageChangesIt) {
  const TextModel m = faithfulness_random_model(AttentionKind::Tanh);
  const std::vector<Instance> data = random_instances(4, 8, 9);
  ExperimentOptions opt;
  opt.params = {{"ig_steps", 8}};
  const json out = run_experiment(randomization_experiment(), m, data, opt);
  int changed = 0;
  for (const json& row : out["rows"]) {
    ASSERT_EQ(row["stages"].size(), 4u);
    EXPECT_EQ(row["stages"][0]["stage"], "decoder");
    EXPECT_EQ(row["stages"][1]["stage"], "attention");
    EXPECT_EQ(row["stages"][2]["stage"], "encoder");
    EXPECT_EQ(row["stages"][3]["stage"], "embedding");
    EXPECT_EQ(row["num_tokens"], 8);
    // Same encoder and attention parameters -> identical weights -> rank correlation exactly 1.
    EXPECT_DOUBLE_EQ(row["stages"][0]["measures"]["attention"]["spearman"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(row["stages"][0]["measures"]["attention"]["kendall"].get<double>(), 1.0);
    // The fully random model (last stage) still gives non-constant measures: defined correlations.
    for (const char* name : kExplained)
      EXPECT_TRUE(row["stages"][3]["measures"][name]["spearman"].is_number()) << name;
    if (row["stages"][1]["measures"]["attention"]["spearman"].get<double>() < 0.999) ++changed;
  }
  EXPECT_GE(changed, 3);
  const json& s = out["summary"]["stages"];
  EXPECT_DOUBLE_EQ(s[0]["measures"]["attention"]["spearman_mean"].get<double>(), 1.0);
  EXPECT_EQ(s[0]["measures"]["attention"]["n_defined"], 4);
  EXPECT_LT(s[1]["measures"]["attention"]["spearman_mean"].get<double>(), 0.999);
}

TEST(Randomization, RunWithoutPrepareMatchesPreparedRun) {
  const TextModel m = faithfulness_random_model(AttentionKind::Dot);
  const Instance inst = random_instances(1, 6, 10)[0];
  const Experiment e = randomization_experiment();
  ExperimentOptions opt;
  opt.seed = 5;
  opt.params = {{"ig_steps", 6}};
  const auto prepared = e.prepare(TextAttentionModel(m), opt);
  Rng r1 = instance_rng(5, 0), r2 = instance_rng(5, 0);
  EXPECT_EQ(e.run(TextAttentionModel(m), inst, opt, r1, prepared.get()),
            e.run(TextAttentionModel(m), inst, opt, r2, nullptr));
}

TEST(Randomization, RowsCompareTheSameMeasuresByHandWithAbsoluteIntegratedGradients) {
  // Recompute every stage's correlations from the prepared copies: both models explain the class the
  // original predicts, IG compared by |value|, ig_steps from the options.
  const TextModel m = faithfulness_random_model(AttentionKind::Tanh, 21);
  const Instance inst = random_instances(1, 9, 22)[0];
  const Experiment e = randomization_experiment();
  ExperimentOptions opt;
  opt.seed = 8;
  opt.params = {{"ig_steps", 7}};
  const auto prepared = e.prepare(TextAttentionModel(m), opt);
  Rng rng = instance_rng(8, 0);
  const json row = e.run(TextAttentionModel(m), inst, opt, rng, prepared.get());
  ExplainInput in;
  in.cfg = &m.config;
  in.ids = inst.ids;
  in.target = freeze_encoder(m, inst.ids).predicted;
  in.ig_steps = 7;
  EXPECT_EQ(row["predicted"], in.target);
  const auto all = [&](const TextParams<float>& p) {
    in.params = &p;
    return std::vector<V>{attention_importance(in), gradient_importance(in), leave_one_out_importance(in),
                          integrated_gradients_importance(in)};
  };
  const std::vector<V> orig = all(m.params);
  int signed_differs = 0;
  for (int s = 0; s < 4; ++s) {
    const std::vector<V> rnd = all(copies_of(prepared)[s].params);
    for (int k = 0; k < 3; ++k) {
      const json& got = row["stages"][s]["measures"][kExplained[k]];
      EXPECT_NEAR(got["spearman"].get<double>(), spearman_rho(orig[k], rnd[k]), 1e-12) << s << k;
    }
    V a = orig[3], b = rnd[3];
    for (double& v : a) v = std::fabs(v);
    for (double& v : b) v = std::fabs(v);
    const double rho_abs = spearman_rho(a, b);
    EXPECT_NEAR(row["stages"][s]["measures"]["integrated_gradients"]["spearman"].get<double>(), rho_abs, 1e-12) << s;
    if (std::fabs(spearman_rho(orig[3], rnd[3]) - rho_abs) > 1e-6) ++signed_differs;
  }
  EXPECT_GE(signed_differs, 1);  // the check above can tell |IG| from signed IG
}

TEST(Randomization, UniformAttentionIsNeverDefined) {
  // A constant attention vector has no ranking: spearman/kendall null, left out of the means.
  const TextModel m = faithfulness_random_model(AttentionKind::Uniform);
  ExperimentOptions opt;
  opt.params = {{"ig_steps", 6}};
  const json out = run_experiment(randomization_experiment(), m, random_instances(2, 5, 12), opt);
  for (const json& row : out["rows"])
    for (const json& st : row["stages"]) {
      EXPECT_TRUE(st["measures"]["attention"]["spearman"].is_null());
      EXPECT_TRUE(st["measures"]["attention"]["kendall"].is_null());
      EXPECT_TRUE(st["measures"]["gradient"]["spearman"].is_number());
    }
  const json& s0 = out["summary"]["stages"][0]["measures"];
  EXPECT_TRUE(s0["attention"]["spearman_mean"].is_null());
  EXPECT_EQ(s0["attention"]["n_defined"], 0);
  EXPECT_EQ(s0["leave_one_out"]["n_defined"], 2);
}

TEST(Randomization, KeyModelAttentionSurvivesTheDecoderStage) {
  // Key model: attention ~1 on "good", equal tiny weights on the fillers (ranks defined, with ties). The
  // decoder stage leaves encoder and attention as they were: attention rank correlation exactly 1.
  const TextModel m = key_model();
  const json out = run_experiment(randomization_experiment(), m, {faithfulness_instance(0, {2, 5, 3, 4})}, ExperimentOptions{});
  const json& st0 = out["rows"][0]["stages"][0];
  EXPECT_EQ(st0["stage"], "decoder");
  EXPECT_DOUBLE_EQ(st0["measures"]["attention"]["spearman"].get<double>(), 1.0);
}

}  // namespace
}  // namespace attnlab
