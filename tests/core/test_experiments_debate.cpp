// The debate experiments (kendall, permutation, erase-max, erase-until-flip) and the frozen encoder they
// share: known answers on hand-built models, agreement with the importance functions computed directly,
// summaries and determinism through run_experiment.
#include <gtest/gtest.h>

#include "experiments/text_attention_model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "experiments/all.h"
#include "experiments/frozen_encoder.h"
#include "explain/importance.h"
#include "metrics/kendall.h"

namespace attnlab {
namespace {

using nlohmann::json;

TextModel random_model(AttentionKind kind, int classes = 2, uint64_t seed = 5) {
  TextModel m;
  m.config.attention = kind;
  m.config.vocab_size = 12;
  m.config.embedding_dim = 6;
  m.config.hidden_dim = 5;
  m.config.num_classes = classes;
  std::vector<std::string> words = {"<pad>", "<unk>"};
  for (int i = 2; i < 12; ++i) words.push_back("w" + std::to_string(i));
  m.vocab = Vocab(words);
  Rng rng(seed);
  m.params.init(m.config, rng);
  for (Mat<float>* p : m.params.list()) *p *= 1.5f;  // sharper attention, confident outputs
  return m;
}

// A model whose output depends only on token "good" (id 2). LSTM gates saturated (i = o = 1, f = 0,
// W_hh = 0) so h_t depends on x_t alone; only "good" has a non-zero embedding, so only it has a non-zero
// state h = [r, 0, r, 0] (r = tanh(tanh 3) ~ 0.76; every other state is ~1e-13). Dot attention with
// v = [5, 0, 5, 0] gives "good" score 0.76*5*2/2 ~ 3.8, the others 0. Decoder: logit = sign * (4 * 2r *
// alpha_good - 1): with good attended (alpha ~ 0.94 among 4 tokens) p(1) ~ 0.99 for sign +1; with it
// erased the context is ~0 and logit = -sign, so the decision flips. Erasing another token only raises
// alpha_good.
TextModel one_token_model(float sign = 1.f, float decoder_scale = 4.f, float bias = -1.f) {
  TextModel m;
  m.config.attention = AttentionKind::Dot;
  m.config.vocab_size = 7;
  m.config.embedding_dim = 2;
  m.config.hidden_dim = 2;
  m.config.num_classes = 2;
  m.vocab = Vocab({"<pad>", "<unk>", "good", "a", "b", "c", "d"});
  m.params.resize(m.config);
  m.params.embedding(0, 2) = 3.f;
  const int H = 2;
  for (LstmParams<float>* l : {&m.params.encoder.fwd, &m.params.encoder.bwd}) {
    for (int j = 0; j < H; ++j) {
      l->bias(0 * H + j, 0) = 30.f;   // i
      l->bias(1 * H + j, 0) = -30.f;  // f
      l->bias(3 * H + j, 0) = 30.f;   // o
    }
    l->w_ih(2 * H + 0, 0) = 1.f;  // g_0 = tanh(x_0)
  }
  m.params.attention.v << 5.f, 0.f, 5.f, 0.f;
  m.params.decoder.w << sign * decoder_scale, 0.f, sign * decoder_scale, 0.f;
  m.params.decoder.b << sign * bias;
  return m;
}

Instance make_instance(int index, std::vector<int> ids, int label = -1) {
  Instance in;
  in.index = index;
  in.label = label;
  in.ids = std::move(ids);
  for (int id : in.ids) in.tokens.push_back("t" + std::to_string(id));
  return in;
}

json run_one(const Experiment& e, const TextModel& m, const Instance& in, const ExperimentOptions& o = {}) {
  Rng rng = instance_rng(o.seed, in.index);
  return e.run(TextAttentionModel(m), in, o, rng, nullptr);
}

std::vector<double> forward_probs(const TextModel& m, const std::vector<int>& ids) {
  TextCache<float> c;
  text_forward_ids(m.config, m.params, TextBatch::from_sequences({ids}), c);
  const Mat<float> p = class_probabilities(m.config, c.logits);
  return std::vector<double>(p.data(), p.data() + p.size());
}

const std::vector<int> kIds = {3, 7, 2, 11, 5, 9, 4};

// ---------------------------------------------------------------- frozen encoder

TEST(FrozenEncoder, OutputWithModelAttentionEqualsForward) {
  for (AttentionKind kind : {AttentionKind::Tanh, AttentionKind::Dot, AttentionKind::Uniform})
    for (int classes : {2, 3}) {
      const TextModel m = random_model(kind, classes);
      const FrozenEncoder fe = freeze_encoder(m, kIds);
      const std::vector<double> expected = forward_probs(m, kIds);
      const std::vector<double> got = output_with_attention(m, fe, fe.alpha);
      ASSERT_EQ(got.size(), static_cast<size_t>(classes));
      for (int c = 0; c < classes; ++c) {
        EXPECT_NEAR(got[c], expected[c], 1e-6);
        EXPECT_NEAR(fe.probs[c], expected[c], 1e-6);
      }
      EXPECT_EQ(fe.predicted, argmax(expected));
    }
}

TEST(FrozenEncoder, AttentionGradientMatchesCentralDifferences) {
  for (int classes : {2, 3}) {
    const TextModel m = random_model(AttentionKind::Tanh, classes);
    const FrozenEncoder fe = freeze_encoder(m, kIds);
    std::vector<double> alpha = {0.3, 0.05, 0.1, 0.2, 0.15, 0.12, 0.08};  // any point, not just the model's
    for (int cls = 0; cls < classes; ++cls) {
      const std::vector<double> g = d_output_d_attention(m, fe, alpha, cls);
      ASSERT_EQ(g.size(), kIds.size());
      double scale = 0;
      for (double v : g) scale = std::max(scale, std::abs(v));
      EXPECT_GT(scale, 1e-3);
      const double h = 1e-6;
      for (size_t t = 0; t < alpha.size(); ++t) {
        std::vector<double> up = alpha, down = alpha;
        up[t] += h;
        down[t] -= h;
        const double fd = (output_with_attention(m, fe, up)[cls] - output_with_attention(m, fe, down)[cls]) / (2 * h);
        EXPECT_NEAR(g[t], fd, 1e-7 * std::max(1.0, scale)) << "class " << cls << " t " << t;
      }
    }
  }
}

TEST(FrozenEncoder, HandModelStatesDependOnlyOnGoodToken) {
  const TextModel m = one_token_model();
  const FrozenEncoder fe = freeze_encoder(m, {3, 2, 4, 5});
  const double r = std::tanh(std::tanh(3.0));
  EXPECT_NEAR(fe.h(0, 1), r, 1e-5);
  EXPECT_NEAR(fe.h(2, 1), r, 1e-5);
  for (int t : {0, 2, 3})
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(fe.h(k, t), 0.0, 1e-9);
  const double e = std::exp(5.0 * 2 * r / 2);
  EXPECT_NEAR(fe.alpha[1], e / (e + 3), 1e-5);
  EXPECT_EQ(fe.predicted, 1);
}

// ---------------------------------------------------------------- kendall

TEST(Kendall, TausEqualKendallOnImportancesComputedDirectly) {
  // Binary importances are symmetric in the class (|d p1| = |d p0|); three classes check the target is the
  // predicted one.
  int predicted_not_1 = 0;
  for (int variant = 0; variant < 12; ++variant) {
    const int classes = variant < 6 ? 2 : 3;
    const uint64_t seed = 5 + variant % 3;
    const AttentionKind kind = variant % 2 ? AttentionKind::Dot : AttentionKind::Tanh;
    const TextModel m = random_model(kind, classes, seed);
    const json row = run_one(kendall_experiment(), m, make_instance(0, kIds));
    const int pred = argmax(forward_probs(m, kIds));
    ExplainInput in;
    in.cfg = &m.config;
    in.params = &m.params;
    in.ids = kIds;
    in.target = pred;
    const std::vector<double> a = attention_importance(in);
    const KendallResult g = kendall_tau(a, gradient_importance(in));
    const KendallResult l = kendall_tau(a, leave_one_out_importance(in));
    EXPECT_EQ(row["predicted"].get<int>(), pred);
    EXPECT_EQ(row["num_tokens"].get<int>(), 7);
    EXPECT_DOUBLE_EQ(row["tau_gradient"].get<double>(), g.tau);
    EXPECT_DOUBLE_EQ(row["p_gradient"].get<double>(), g.p);
    EXPECT_DOUBLE_EQ(row["tau_loo"].get<double>(), l.tau);
    EXPECT_DOUBLE_EQ(row["p_loo"].get<double>(), l.p);
    if (classes == 3 && pred != 1) ++predicted_not_1;
  }
  EXPECT_GT(predicted_not_1, 0);
}

TEST(Kendall, BruteForceTauOnSmallCase) {
  // No ties among continuous importances: tau-b = tau-a = (concordant - discordant) / (n(n-1)/2).
  const TextModel m = random_model(AttentionKind::Tanh);
  const std::vector<int> ids = {4, 9, 2, 7, 10};
  const json row = run_one(kendall_experiment(), m, make_instance(0, ids));
  ExplainInput in;
  in.cfg = &m.config;
  in.params = &m.params;
  in.ids = ids;
  in.target = row["predicted"].get<int>();
  const std::vector<double> a = attention_importance(in), g = gradient_importance(in),
                            l = leave_one_out_importance(in);
  const auto brute = [&](const std::vector<double>& y) {
    int s = 0;
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = i + 1; j < a.size(); ++j) {
        const double d = (a[i] - a[j]) * (y[i] - y[j]);
        EXPECT_NE(d, 0.0) << "tie: brute-force formula needs none";
        s += d > 0 ? 1 : -1;
      }
    return s / 10.0;
  };
  EXPECT_NEAR(row["tau_gradient"].get<double>(), brute(g), 1e-12);
  EXPECT_NEAR(row["tau_loo"].get<double>(), brute(l), 1e-12);
}

TEST(Kendall, UniformAttentionGivesUndefinedTaus) {
  const TextModel m = random_model(AttentionKind::Uniform);
  const Experiment e = kendall_experiment();
  std::vector<Instance> data = {make_instance(0, kIds, 1), make_instance(1, {3, 4, 5}, 0),
                                make_instance(2, {6, 7, 8, 9}, 1)};
  const json out = run_experiment(e, m, data, ExperimentOptions{});
  for (const json& r : out["rows"]) {
    EXPECT_TRUE(r["tau_gradient"].is_null() || std::isnan(r["tau_gradient"].get<double>()));
    EXPECT_EQ(json::parse(r.dump())["tau_loo"], nullptr);  // NaN is written as null
  }
  const json s = out["summary"];
  EXPECT_EQ(s["n_undefined"]["gradient"], 3);
  EXPECT_EQ(s["n_undefined"]["loo"], 3);
  EXPECT_EQ(json::parse(s.dump())["tau_gradient_mean"], nullptr);
  EXPECT_EQ(s["per_class"]["1"]["n"], 2);
  EXPECT_EQ(s["per_class"]["0"]["n"], 1);
}

TEST(Kendall, SummaryMeansSignificanceAndPerClass) {
  const TextModel m = random_model(AttentionKind::Tanh);
  // Labels 0, 1, 1, unknown (falls back on the predicted class), plus one single-token instance (tau NaN).
  std::vector<Instance> data = {make_instance(0, kIds, 0), make_instance(1, {2, 3, 4, 5, 6, 8}, 1),
                                make_instance(2, {11, 10, 9, 8, 7, 6, 5, 4}, 1), make_instance(3, {4, 6, 8, 10, 3}),
                                make_instance(4, {5}, 0)};
  const json out = run_experiment(kendall_experiment(), m, data, ExperimentOptions{});
  ASSERT_EQ(out["rows"].size(), 5u);
  std::vector<double> tg;
  int sig = 0;
  for (int i = 0; i < 4; ++i) {
    tg.push_back(out["rows"][i]["tau_gradient"].get<double>());
    sig += out["rows"][i]["p_gradient"].get<double>() < 0.05;
  }
  const json s = out["summary"];
  EXPECT_NEAR(s["tau_gradient_mean"].get<double>(), (tg[0] + tg[1] + tg[2] + tg[3]) / 4, 1e-12);
  EXPECT_NEAR(s["tau_gradient_std"].get<double>(), std_of(tg), 1e-12);
  EXPECT_NEAR(s["fraction_significant"]["gradient"].get<double>(), sig / 4.0, 1e-12);
  EXPECT_EQ(s["n_undefined"]["gradient"], 1);  // the single-token instance
  const int pred3 = out["rows"][3]["predicted"].get<int>();
  EXPECT_EQ(s["per_class"]["0"]["n"].get<int>(), 2 + (pred3 == 0));
  EXPECT_EQ(s["per_class"]["1"]["n"].get<int>(), 2 + (pred3 == 1));
  EXPECT_NEAR(s["per_class"]["1"]["tau_gradient_mean"].get<double>(),
              mean_of(pred3 == 1 ? std::vector<double>{tg[1], tg[2], tg[3]} : std::vector<double>{tg[1], tg[2]}),
              1e-12);
}

// ---------------------------------------------------------------- permutation

TEST(Permutation, UniformAttentionGivesZeroChange) {
  const TextModel m = random_model(AttentionKind::Uniform);
  const json row = run_one(permutation_experiment(), m, make_instance(0, kIds));
  ASSERT_EQ(row["deltas"].size(), 100u);
  for (const json& d : row["deltas"]) EXPECT_EQ(d.get<double>(), 0.0);
  EXPECT_EQ(row["median_delta"].get<double>(), 0.0);
  EXPECT_NEAR(row["max_attention"].get<double>(), 1.0 / 7, 1e-7);
}

TEST(Permutation, TwoTokensDeltaIsZeroOrTheSwapChange) {
  // Two weights: a permutation is the identity or the swap, so every delta is 0 or |p(swapped) - p|.
  const TextModel m = one_token_model();
  const FrozenEncoder fe = freeze_encoder(m, {2, 3});
  const double swap = std::abs(output_with_attention(m, fe, {fe.alpha[1], fe.alpha[0]})[1] - fe.probs[1]);
  EXPECT_GT(swap, 0.5);  // the weight moves off "good": the decision changes
  const json row = run_one(permutation_experiment(), m, make_instance(0, {2, 3}));
  int zeros = 0, swaps = 0;
  std::vector<double> deltas;
  for (const json& d : row["deltas"]) {
    const double v = d.get<double>();
    deltas.push_back(v);
    if (v == 0.0) ++zeros;
    else if (std::abs(v - swap) < 1e-12) ++swaps;
  }
  EXPECT_EQ(zeros + swaps, 100);
  EXPECT_GT(zeros, 0);
  EXPECT_GT(swaps, 0);
  EXPECT_EQ(row["median_delta"].get<double>(), median_of(deltas));
  EXPECT_DOUBLE_EQ(row["max_attention"].get<double>(), std::max(fe.alpha[0], fe.alpha[1]));
  EXPECT_EQ(row["predicted"], 1);
  EXPECT_EQ(row["num_tokens"], 2);
}

TEST(Permutation, OptionSetsCountAndSingleTokenIsSkipped) {
  const TextModel m = random_model(AttentionKind::Tanh);
  ExperimentOptions o;
  o.params = {{"permutations", 7}};
  EXPECT_EQ(run_one(permutation_experiment(), m, make_instance(0, kIds), o)["deltas"].size(), 7u);
  o.params = {{"permutations", 0}};
  EXPECT_EQ(run_one(permutation_experiment(), m, make_instance(0, kIds), o)["deltas"].size(), 1u);
  const json skipped = run_one(permutation_experiment(), m, make_instance(0, {4}));
  EXPECT_EQ(skipped["skipped"], "single token");
  EXPECT_FALSE(skipped.contains("deltas"));
}

TEST(Permutation, SummaryBinsAndPerClass) {
  const TextModel m = random_model(AttentionKind::Tanh);
  std::vector<Instance> data = {make_instance(0, kIds, 0), make_instance(1, {2, 3, 4}, 1),
                                make_instance(2, {5}, 1), make_instance(3, {9, 8, 7, 6, 5, 4, 3, 2, 11, 10}, 1)};
  ExperimentOptions o;
  o.params = {{"permutations", 20}};
  const json out = run_experiment(permutation_experiment(), m, data, o);
  const json s = out["summary"];
  EXPECT_EQ(s["n"], 4);
  EXPECT_EQ(s["n_used"], 3);
  EXPECT_EQ(s["n_skipped"], 1);
  std::vector<double> med;
  int below = 0;
  for (int i : {0, 1, 3}) {
    med.push_back(out["rows"][i]["median_delta"].get<double>());
    below += med.back() < 0.01;
  }
  EXPECT_NEAR(s["median_delta_mean"].get<double>(), mean_of(med), 1e-12);
  EXPECT_NEAR(s["median_delta_median"].get<double>(), median_of(med), 1e-12);
  EXPECT_NEAR(s["fraction_median_delta_below_0.01"].get<double>(), below / 3.0, 1e-12);
  ASSERT_EQ(s["by_max_attention"].size(), 4u);
  EXPECT_EQ(s["by_max_attention"][0]["bin"], "[0,0.25)");
  EXPECT_EQ(s["by_max_attention"][3]["bin"], "[0.75,1]");
  int total = 0;
  for (int b = 0; b < 4; ++b) total += s["by_max_attention"][b]["n"].get<int>();
  EXPECT_EQ(total, 3);
  const double a0 = out["rows"][0]["max_attention"].get<double>();
  const int bin0 = std::min(3, static_cast<int>(a0 * 4));
  EXPECT_GE(s["by_max_attention"][bin0]["n"].get<int>(), 1);
  EXPECT_EQ(s["per_class"]["0"]["n"], 1);
  EXPECT_EQ(s["per_class"]["1"]["n"], 2);
  EXPECT_NEAR(s["per_class"]["0"]["median_delta_mean"].get<double>(), med[0], 1e-12);
}

TEST(Permutation, SummaryOfHandWrittenRows) {
  const TextModel m = random_model(AttentionKind::Tanh);
  const auto row = [](double max_attention, double median, int label) {
    return json{{"max_attention", max_attention}, {"median_delta", median}, {"predicted", 1}, {"label", label}};
  };
  const std::vector<json> rows = {row(0.1, 0.2, 0), row(0.25, 0.004, 1), row(0.6, 0.05, 1), row(1.0, 0.3, 1),
                                  row(0.8, 0.1, 0), json{{"skipped", "single token"}}};
  const json s = permutation_experiment().summarize(TextAttentionModel(m), rows, ExperimentOptions{});
  EXPECT_NEAR(s["median_delta_mean"].get<double>(), (0.2 + 0.004 + 0.05 + 0.3 + 0.1) / 5, 1e-12);
  EXPECT_NEAR(s["median_delta_median"].get<double>(), 0.1, 1e-12);
  EXPECT_NEAR(s["fraction_median_delta_below_0.01"].get<double>(), 0.2, 1e-12);
  const std::vector<int> n = {1, 1, 1, 2};
  const std::vector<double> mean = {0.2, 0.004, 0.05, 0.2};
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(s["by_max_attention"][b]["n"].get<int>(), n[b]) << b;
    EXPECT_NEAR(s["by_max_attention"][b]["median_delta_mean"].get<double>(), mean[b], 1e-12) << b;
  }
  EXPECT_EQ(s["n_skipped"], 1);
  EXPECT_EQ(s["per_class"]["0"]["n"], 2);
  EXPECT_NEAR(s["per_class"]["0"]["median_delta_mean"].get<double>(), 0.15, 1e-12);
  EXPECT_NEAR(s["per_class"]["1"]["median_delta_median"].get<double>(), 0.05, 1e-12);
}

// ---------------------------------------------------------------- erase-max

TEST(EraseMax, ErasingTheDecisiveTokenFlipsAndRandomDoesNot) {
  const TextModel m = one_token_model();
  const std::vector<int> ids = {3, 2, 4, 5};
  const FrozenEncoder fe = freeze_encoder(m, ids);
  ASSERT_EQ(argmax(fe.alpha), 1);
  const json row = run_one(erase_max_experiment(), m, make_instance(0, ids));
  EXPECT_TRUE(row["flip_max"].get<bool>());
  EXPECT_FALSE(row["flip_random"].get<bool>());
  EXPECT_GT(row["jsd_max"].get<double>(), row["jsd_random"].get<double>());
  EXPECT_LE(row["jsd_max"].get<double>(), std::log(2.0));
  const double expected =
      jensen_shannon(output_with_attention(m, fe, erase_and_renormalise(fe.alpha, {1})), fe.probs);
  EXPECT_NEAR(row["jsd_max"].get<double>(), expected, 1e-12);
  EXPECT_DOUBLE_EQ(row["max_attention"].get<double>(), fe.alpha[1]);
  const double ra = row["random_attention"].get<double>();
  EXPECT_TRUE(ra == fe.alpha[0] || ra == fe.alpha[2] || ra == fe.alpha[3]);
  EXPECT_EQ(row["num_tokens"], 4);
  EXPECT_EQ(row["predicted"], 1);
}

TEST(EraseMax, NegativeDecisionFlipsTooAndTwoTokensPickTheOther) {
  const TextModel m = one_token_model(-1.f);
  const FrozenEncoder fe = freeze_encoder(m, {2, 6});
  ASSERT_EQ(fe.predicted, 0);
  const json row = run_one(erase_max_experiment(), m, make_instance(3, {2, 6}));
  EXPECT_TRUE(row["flip_max"].get<bool>());
  EXPECT_DOUBLE_EQ(row["random_attention"].get<double>(), fe.alpha[1]);  // the only non-max position
  EXPECT_EQ(run_one(erase_max_experiment(), m, make_instance(0, {2}))["skipped"], "single token");
}

TEST(EraseMax, RandomPositionIsUniformOverNonMax) {
  // A random model has distinct weights, so the erased position can be read back from random_attention.
  const TextModel m = random_model(AttentionKind::Tanh);
  const std::vector<int> ids = {3, 7, 2, 11};
  const FrozenEncoder fe = freeze_encoder(m, ids);
  const int top = argmax(fe.alpha);
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 300; ++i) {
    const json row = run_one(erase_max_experiment(), m, make_instance(i, ids));
    const double ra = row["random_attention"].get<double>();
    const int pos = static_cast<int>(std::find(fe.alpha.begin(), fe.alpha.end(), ra) - fe.alpha.begin());
    ASSERT_LT(pos, 4);
    counts[pos]++;
    const double expected =
        jensen_shannon(output_with_attention(m, fe, erase_and_renormalise(fe.alpha, {pos})), fe.probs);
    EXPECT_NEAR(row["jsd_random"].get<double>(), expected, 1e-12);
  }
  EXPECT_EQ(counts[top], 0);
  for (int t = 0; t < 4; ++t) EXPECT_GT(t == top ? 100 : counts[t], 60) << t;  // expected 100 each
}

TEST(EraseMax, Summary) {
  const TextModel m = one_token_model();
  std::vector<Instance> data = {make_instance(0, {3, 2, 4, 5}), make_instance(1, {2, 6, 6}),
                                make_instance(2, {4}), make_instance(3, {5, 5, 3, 2, 6})};
  const json out = run_experiment(erase_max_experiment(), m, data, ExperimentOptions{});
  const json s = out["summary"];
  EXPECT_EQ(s["n_used"], 3);
  EXPECT_EQ(s["n_skipped"], 1);
  EXPECT_EQ(s["flip_rate_max"].get<double>(), 1.0);
  EXPECT_EQ(s["flip_rate_random"].get<double>(), 0.0);
  EXPECT_EQ(s["fraction_jsd_max_greater"].get<double>(), 1.0);
  double sum = 0;
  for (int i : {0, 1, 3}) sum += out["rows"][i]["jsd_max"].get<double>();
  EXPECT_NEAR(s["jsd_max_mean"].get<double>(), sum / 3, 1e-12);
}

// ---------------------------------------------------------------- erase-until-flip

TEST(EraseUntilFlip, DecisiveTokenFirstFlipsAfterOneRemoval) {
  const TextModel m = one_token_model();
  const std::vector<int> ids = {3, 4, 2, 5, 6};
  const FrozenEncoder fe = freeze_encoder(m, ids);
  const json row = run_one(erase_until_flip_experiment(), m, make_instance(0, ids));
  for (const char* name : {"attention", "gradient", "attention_x_gradient", "leave_one_out"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(row[name]["removed"], 1);
    EXPECT_NEAR(row[name]["fraction"].get<double>(), 0.2, 1e-15);
    EXPECT_TRUE(row[name]["flipped"].get<bool>());
    ASSERT_EQ(row[name]["curve"].size(), 1u);
    EXPECT_NEAR(row[name]["curve"][0].get<double>(),
                output_with_attention(m, fe, erase_and_renormalise(fe.alpha, {2}))[1], 1e-12);
    EXPECT_LT(row[name]["curve"][0].get<double>(), 0.5);
  }
  // Random: flips exactly when "good" is removed, i.e. after k removals where k is its place in the shuffle.
  const json r = row["random"];
  const int k = r["removed"].get<int>();
  EXPECT_TRUE(r["flipped"].get<bool>());
  ASSERT_EQ(r["curve"].size(), static_cast<size_t>(k));
  for (int i = 0; i + 1 < k; ++i) EXPECT_GT(r["curve"][i].get<double>(), fe.probs[1] - 1e-9);  // alpha_good grows
  EXPECT_LT(r["curve"][k - 1].get<double>(), 0.5);
  EXPECT_EQ(row["num_tokens"], 5);
  EXPECT_EQ(row["predicted"], 1);
}

TEST(EraseUntilFlip, RandomRankingVariesWithTheInstanceStream) {
  const TextModel m = one_token_model();
  const std::vector<int> ids = {3, 4, 2, 5, 6};
  std::vector<int> seen(6, 0);
  for (int i = 0; i < 60; ++i) seen[run_one(erase_until_flip_experiment(), m, make_instance(i, ids))["random"]["removed"].get<int>()]++;
  for (int k = 1; k <= 5; ++k) EXPECT_GT(seen[k], 0) << k;  // each place of "good" in the shuffle occurs
}

TEST(EraseUntilFlip, NoFlipRemovesEverything) {
  const TextModel m = one_token_model(1.f, 0.f, 2.f);  // decoder w = 0: logit = 2 whatever alpha is, never flips
  const std::vector<int> ids = {3, 2, 4};
  const FrozenEncoder fe = freeze_encoder(m, ids);
  const json row = run_one(erase_until_flip_experiment(), m, make_instance(0, ids));
  for (const char* name : {"attention", "gradient", "attention_x_gradient", "leave_one_out", "random"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(row[name]["flipped"].get<bool>());
    EXPECT_EQ(row[name]["removed"], 3);
    EXPECT_EQ(row[name]["fraction"].get<double>(), 1.0);
    ASSERT_EQ(row[name]["curve"].size(), 3u);
    for (const json& p : row[name]["curve"]) EXPECT_NEAR(p.get<double>(), fe.probs[fe.predicted], 1e-12);
  }
}

TEST(EraseUntilFlip, SummaryFlippedByAllAndOrder) {
  const TextModel m = one_token_model();
  std::vector<Instance> data = {make_instance(0, {3, 4, 2, 5, 6}), make_instance(1, {2, 3}),
                                make_instance(2, {5}), make_instance(3, {6, 5, 4, 3, 2})};
  ExperimentOptions ss;  // S&S's five rankings alone (the readings: test_experiments_readings.cpp)
  ss.params = {{"readings", 0}};
  const json out = run_experiment(erase_until_flip_experiment(), m, data, ss);
  const json s = out["summary"];
  EXPECT_EQ(s["n_used"], 3);
  EXPECT_EQ(s["n_skipped"], 1);
  EXPECT_EQ(s["n_flipped_by_all"], 3);
  const double att = (0.2 + 0.5 + 0.2) / 3;
  EXPECT_NEAR(s["attention"]["fraction_mean"].get<double>(), att, 1e-12);
  EXPECT_NEAR(s["attention"]["fraction_median"].get<double>(), 0.2, 1e-12);
  EXPECT_EQ(s["attention"]["flip_rate"].get<double>(), 1.0);
  EXPECT_NEAR(s["fraction_mean_flipped_by_all"]["gradient"].get<double>(), att, 1e-12);
  double rnd = 0;
  for (int i : {0, 1, 3}) rnd += out["rows"][i]["random"]["fraction"].get<double>();
  EXPECT_NEAR(s["random"]["fraction_mean"].get<double>(), rnd / 3, 1e-12);
  ASSERT_EQ(s["order"].size(), 5u);
  // Four rankings tie at the minimum (kept in their listed order); random needs more removals.
  EXPECT_EQ(s["order"][0], "attention");
  EXPECT_GT(rnd / 3, att);  // with seed 1 the shuffles do not all put "good" first
  EXPECT_EQ(s["order"][4], "random");
  for (int i = 0; i + 1 < 5; ++i)
    EXPECT_LE(s[s["order"][i].get<std::string>()]["fraction_mean"].get<double>(),
              s[s["order"][i + 1].get<std::string>()]["fraction_mean"].get<double>());
}

TEST(EraseUntilFlip, SummaryOfHandWrittenRows) {
  const TextModel m = one_token_model();
  const auto r = [](double fraction, bool flipped) { return json{{"fraction", fraction}, {"flipped", flipped}}; };
  // A flips under every ranking; B never flips under random; C never flips under attention.
  const json a = {{"attention", r(0.4, true)}, {"gradient", r(0.2, true)}, {"attention_x_gradient", r(0.1, true)},
                  {"leave_one_out", r(0.3, true)}, {"random", r(0.6, true)}};
  const json b = {{"attention", r(0.2, true)}, {"gradient", r(0.4, true)}, {"attention_x_gradient", r(0.1, true)},
                  {"leave_one_out", r(0.5, true)}, {"random", r(1.0, false)}};
  const json c = {{"attention", r(1.0, false)}, {"gradient", r(0.5, true)}, {"attention_x_gradient", r(0.4, true)},
                  {"leave_one_out", r(0.2, true)}, {"random", r(0.6, true)}};
  const json s = erase_until_flip_experiment().summarize(TextAttentionModel(m), {a, b, c, json{{"skipped", "single token"}}}, {});
  EXPECT_EQ(s["n_used"], 3);
  EXPECT_EQ(s["n_skipped"], 1);
  EXPECT_EQ(s["n_flipped_by_all"], 1);
  EXPECT_NEAR(s["attention"]["fraction_mean"].get<double>(), 1.6 / 3, 1e-12);
  EXPECT_NEAR(s["attention"]["flip_rate"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_NEAR(s["leave_one_out"]["fraction_median"].get<double>(), 0.3, 1e-12);
  EXPECT_NEAR(s["random"]["flip_rate"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_NEAR(s["random"]["fraction_mean"].get<double>(), 2.2 / 3, 1e-12);
  EXPECT_NEAR(s["fraction_mean_flipped_by_all"]["attention"].get<double>(), 0.4, 1e-12);  // A alone
  EXPECT_NEAR(s["fraction_mean_flipped_by_all"]["random"].get<double>(), 0.6, 1e-12);
  // Means: attention .533, gradient .367, attention_x_gradient .2, leave_one_out .333, random .733.
  EXPECT_EQ(s["order"], json({"attention_x_gradient", "leave_one_out", "gradient", "attention", "random"}));
}

TEST(EraseUntilFlip, CurvesMatchErasingInTheDirectlyComputedOrders) {
  int seen_class[2] = {0, 0};
  for (uint64_t seed : {5, 6, 7, 8, 9, 10}) {
    const TextModel m = random_model(AttentionKind::Tanh, 2, seed);
    const FrozenEncoder fe = freeze_encoder(m, kIds);
    seen_class[fe.predicted]++;
    ExplainInput in;
    in.cfg = &m.config;
    in.params = &m.params;
    in.ids = kIds;
    in.target = fe.predicted;
    const std::vector<double> g = d_output_d_attention(m, fe, fe.alpha, fe.predicted);
    std::vector<double> axg(g.size());
    for (size_t t = 0; t < g.size(); ++t) axg[t] = fe.alpha[t] * g[t];
    const std::vector<std::pair<const char*, std::vector<double>>> scores = {
        {"attention", fe.alpha}, {"gradient", g}, {"attention_x_gradient", axg},
        {"leave_one_out", leave_one_out_importance(in)}};
    const json row = run_one(erase_until_flip_experiment(), m, make_instance(0, kIds));
    for (const auto& sc : scores) {
      SCOPED_TRACE(sc.first);
      std::vector<int> order(kIds.size());
      for (size_t t = 0; t < order.size(); ++t) order[t] = static_cast<int>(t);
      std::sort(order.begin(), order.end(), [&](int a, int b) { return sc.second[a] > sc.second[b]; });
      std::vector<int> erased;
      int removed = static_cast<int>(kIds.size());
      const json& got = row[sc.first];
      for (size_t k = 0; k < order.size(); ++k) {
        erased.push_back(order[k]);
        const std::vector<double> p = output_with_attention(m, fe, erase_and_renormalise(fe.alpha, erased));
        ASSERT_GT(got["curve"].size(), k);
        EXPECT_NEAR(got["curve"][k].get<double>(), p[fe.predicted], 1e-12);
        if (argmax(p) != fe.predicted) {
          removed = static_cast<int>(k + 1);
          break;
        }
      }
      EXPECT_EQ(got["removed"].get<int>(), removed);
      EXPECT_EQ(got["curve"].size(), static_cast<size_t>(removed));
    }
  }
  EXPECT_GT(seen_class[0], 0);  // both predicted classes are exercised
  EXPECT_GT(seen_class[1], 0);
}

TEST(EraseMax, SummaryOfHandWrittenRows) {
  const TextModel m = one_token_model();
  const auto r = [](double jm, double jr, bool fm, bool fr) {
    return json{{"jsd_max", jm}, {"jsd_random", jr}, {"flip_max", fm}, {"flip_random", fr}};
  };
  const json s = erase_max_experiment().summarize(
      TextAttentionModel(m), {r(0.3, 0.1, true, false), r(0.1, 0.2, false, false), r(0.2, 0.2, true, true), json{{"skipped", "x"}}}, {});
  EXPECT_NEAR(s["jsd_max_mean"].get<double>(), 0.2, 1e-12);
  EXPECT_NEAR(s["jsd_random_mean"].get<double>(), 0.5 / 3, 1e-12);
  EXPECT_NEAR(s["flip_rate_max"].get<double>(), 2.0 / 3, 1e-12);
  EXPECT_NEAR(s["flip_rate_random"].get<double>(), 1.0 / 3, 1e-12);
  EXPECT_NEAR(s["fraction_jsd_max_greater"].get<double>(), 1.0 / 3, 1e-12);  // ties do not count
  EXPECT_EQ(s["n"], 3);
  EXPECT_EQ(s["n_skipped"], 1);
}

// ---------------------------------------------------------------- all four: robustness and determinism

std::vector<Experiment> debate() {
  return {kendall_experiment(), permutation_experiment(), erase_max_experiment(), erase_until_flip_experiment()};
}

TEST(Debate, NamesAndBadInputsAreSkippedNotFatal) {
  const std::vector<std::string> names = {"kendall", "permutation", "erase-max", "erase-until-flip"};
  const TextModel m = random_model(AttentionKind::Tanh);
  const auto es = debate();
  for (size_t i = 0; i < es.size(); ++i) {
    EXPECT_EQ(es[i].name, names[i]);
    EXPECT_FALSE(es[i].description.empty());
    EXPECT_EQ(run_one(es[i], m, make_instance(0, {}))["skipped"], "no tokens");
    EXPECT_EQ(run_one(es[i], m, make_instance(0, {3, 99}))["skipped"], "token id out of range");
    EXPECT_TRUE(es[i].summarize(TextAttentionModel(m), {}, ExperimentOptions{}).is_object());  // empty data: nulls, no crash
  }
}

TEST(Debate, MultiClassModelRuns) {
  const TextModel m = random_model(AttentionKind::Dot, 3);
  std::vector<Instance> data = {make_instance(0, kIds, 2), make_instance(1, {2, 3, 4, 5}), make_instance(2, {8, 9})};
  for (const Experiment& e : debate()) {
    const json out = run_experiment(e, m, data, ExperimentOptions{});
    EXPECT_EQ(out["n"], 3);
    if (out["summary"].contains("per_class")) {
      EXPECT_TRUE(out["summary"]["per_class"].contains("2"));
    }
  }
  const json row = run_one(permutation_experiment(), m, make_instance(0, kIds));
  for (const json& d : row["deltas"]) {
    EXPECT_GE(d.get<double>(), 0.0);
    EXPECT_LE(d.get<double>(), 1.0);
  }
}

TEST(Debate, SameSeedSameJsonDifferentSeedDifferentRandomParts) {
  const TextModel m = random_model(AttentionKind::Tanh);
  std::vector<Instance> data = {make_instance(0, kIds, 1), make_instance(1, {2, 3, 4, 5, 6}, 0),
                                make_instance(2, {9, 8, 7, 6, 5, 4}, 1), make_instance(3, {10, 11, 3}, 0)};
  ExperimentOptions a, b;
  a.seed = 7;
  b.seed = 8;
  for (const Experiment& e : debate()) {
    SCOPED_TRACE(e.name);
    const std::string first = run_experiment(e, m, data, a).dump();
    EXPECT_EQ(first, run_experiment(e, m, data, a).dump());
    const std::string other = run_experiment(e, m, data, b).dump();
    if (e.name == "kendall")
      EXPECT_EQ(first, other);  // nothing random
    else
      EXPECT_NE(first, other);
  }
  // The deterministic parts do not depend on the seed.
  const json ea = run_experiment(erase_until_flip_experiment(), m, data, a);
  const json eb = run_experiment(erase_until_flip_experiment(), m, data, b);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ea["rows"][i]["attention"], eb["rows"][i]["attention"]);
  // Per-instance streams: a row does not depend on which other instances run.
  const json alone = run_experiment(permutation_experiment(), m, {data[2]}, a);
  EXPECT_EQ(alone["rows"][0], run_experiment(permutation_experiment(), m, data, a)["rows"][2]);
}

}  // namespace
}  // namespace attnlab
