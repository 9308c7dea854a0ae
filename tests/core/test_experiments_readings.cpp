// The readings that kendall and erase-until-flip set beside attention (experiments/attention_measures.h
// unit_readings): each reading's τ and erasure equal the ones computed directly from the explanation function,
// for the class the attention instance decides; S&S's and J&W's own numbers do not move when the readings are added;
// the summary counts each reading over the rows that have it. Negative controls: another class's readings give
// other numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "experiments/all.h"
#include "experiments/attention_measures.h"
#include "experiments/measure_scores.h"
#include "experiments/text_attention_model.h"
#include "explain/context_mixing.h"
#include "explain/importance.h"
#include "explain/lrp_relevance.h"
#include "metrics/kendall.h"
#include "tiny_text_model.h"

namespace attnlab {
namespace {

using nlohmann::json;

Instance readings_instance(int index, std::vector<int> ids) {
  Instance in;
  in.index = index;
  in.ids = std::move(ids);
  for (int id : in.ids) in.tokens.push_back("t" + std::to_string(id));
  return in;
}

json readings_row(const Experiment& e, const TextModel& m, const Instance& in, const json& params = json::object()) {
  ExperimentOptions o;
  o.params = params;
  Rng rng = instance_rng(o.seed, in.index);
  return e.run(TextAttentionModel(m), in, o, rng, nullptr);
}

ExplainInput explain_input(const TextModel& m, const std::vector<int>& ids, int target) {
  ExplainInput in;
  in.cfg = &m.config;
  in.params = &m.params;
  in.ids = ids;
  in.target = target;
  return in;
}

std::vector<double> magnitudes(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return v;
}

TEST(DebateReadings, KendallReadingOfABiLstmIsTauOfIntegratedGradientsComputedDirectly) {
  const TextModel m = test::tiny_text_model({{"a", "b", "c", "d", "e", "f", "g", "h"}});
  const std::vector<int> ids = {3, 7, 2, 9, 5, 8, 4};
  const Instance inst = readings_instance(0, ids);
  const json row = readings_row(kendall_experiment(), m, inst);
  ASSERT_TRUE(row.contains("readings")) << row.dump();
  ASSERT_EQ(row["readings"].size(), 1u);  // a BiLSTM's one further reading
  const json& ig = row["readings"]["integrated_gradients"];
  const int c = row["predicted"].get<int>();
  const ExplainInput in = explain_input(m, ids, c);
  const std::vector<double> grad = gradient_importance(in), loo = leave_one_out_importance(in);
  const KendallResult g = kendall_tau(magnitudes(integrated_gradients_importance(in)), grad);
  const KendallResult l = kendall_tau(magnitudes(integrated_gradients_importance(in)), loo);
  EXPECT_DOUBLE_EQ(ig["tau_gradient"].get<double>(), g.tau);
  EXPECT_DOUBLE_EQ(ig["p_gradient"].get<double>(), g.p);
  EXPECT_DOUBLE_EQ(ig["tau_loo"].get<double>(), l.tau);
  EXPECT_DOUBLE_EQ(ig["p_loo"].get<double>(), l.p);
  const KendallResult a = kendall_tau(attention_importance(in), magnitudes(integrated_gradients_importance(in)));
  EXPECT_DOUBLE_EQ(ig["tau_attention"].get<double>(), a.tau);  // Mohankumar et al.'s agreement of attention with IG
  EXPECT_DOUBLE_EQ(ig["p_attention"].get<double>(), a.p);
  // Negative control: the signed values rank otherwise (IG has negative entries here).
  EXPECT_NE(kendall_tau(integrated_gradients_importance(in), grad).tau, g.tau);
  // readings=0: J&W's numbers alone, the same ones.
  const json plain = readings_row(kendall_experiment(), m, inst, {{"readings", 0}});
  EXPECT_FALSE(plain.contains("readings"));
  for (const char* k : {"tau_gradient", "p_gradient", "tau_loo", "p_loo"}) EXPECT_EQ(plain[k], row[k]) << k;
}

TEST(DebateReadings, ATransformersKendallReadingsAreItsTenMeasures) {
  const TextModel m = test::tiny_transformer_model(2, 2, 7);
  const json row = readings_row(kendall_experiment(), m, readings_instance(0, {2, 4, 5, 3, 6}));
  ASSERT_TRUE(row.contains("readings")) << row.dump();
  std::set<std::string> names;
  for (const auto& kv : row["readings"].items()) names.insert(kv.key());
  const std::set<std::string> want = {"integrated_gradients", "rollout", "flow", "relevance", "grad_attention",
                                      "attention_norm", "attnlrp", "cp_lrp", "value_zeroing", "alti"};
  EXPECT_EQ(names, want);
}

TEST(DebateReadings, EraseUntilFlipRanksByEachReadingOfThePredictedClass) {
  const TextModel m = test::tiny_transformer_model(2, 2, 7);
  const std::vector<int> ids = {2, 4, 5, 3, 6, 2};
  const Instance inst = readings_instance(3, ids);
  const json row = readings_row(erase_until_flip_experiment(), m, inst);
  const json plain = readings_row(erase_until_flip_experiment(), m, inst, {{"readings", 0}});
  for (const char* k : {"attention", "gradient", "attention_x_gradient", "leave_one_out", "random"})
    EXPECT_EQ(row[k], plain[k]) << k;  // the readings come after S&S's draws
  EXPECT_FALSE(plain.contains("attnlrp"));
  std::string error;
  const auto fi = TextAttentionModel(m).freeze(inst, &error);
  ASSERT_TRUE(fi) << error;
  const int c = fi->predicted();
  const ExplainInput in = explain_input(m, ids, c);
  const std::vector<double> lrp = attnlrp_importance(in), vz = value_zeroing_importance(in);
  EXPECT_EQ(row["attnlrp"], erase_until_flip(*fi, order_by_score(lrp), true));
  EXPECT_EQ(row["value_zeroing"], erase_until_flip(*fi, order_by_score(vz), true));
  // Negative control: the other class's AttnLRP reverses the ranking and removes other weights first.
  const std::vector<double> lrp_other = attnlrp_importance(explain_input(m, ids, 1 - c));
  EXPECT_NE(order_by_score(lrp_other), order_by_score(lrp));
}

TEST(DebateReadings, MeasureScoresExplainTheTargetAskedFor) {
  const TextModel m = test::tiny_transformer_model(1, 2, 3);
  const std::vector<int> ids = {2, 3, 4, 5};
  const Instance inst = readings_instance(0, ids);
  ExperimentOptions o;
  Rng r1(1), r2(1);
  const MeasureScores own = measure_scores(m, inst, o, r1);
  const MeasureScores other = measure_scores(m, inst, o, r2, 1 - own.predicted);
  EXPECT_EQ(other.predicted, 1 - own.predicted);
  EXPECT_NEAR(other.p_predicted, 1 - own.p_predicted, 1e-6);
  const std::vector<std::string> names = importance_measures(m);
  const size_t lrp = static_cast<size_t>(std::find(names.begin(), names.end(), "attnlrp") - names.begin());
  ASSERT_LT(lrp, names.size());
  EXPECT_EQ(other.scores[lrp], attnlrp_importance(explain_input(m, ids, 1 - own.predicted)));
  EXPECT_NE(other.scores[lrp], own.scores[lrp]);
}

TEST(DebateReadings, SummariesCountEachReadingAndKeepTheFlippedByAllSet) {
  const TextModel m = test::tiny_transformer_model(2, 2, 7);
  std::vector<Instance> data;
  const std::vector<std::vector<int>> seqs = {{2, 4, 5, 3}, {3, 5, 6, 2, 4}, {4, 4, 2}, {6, 5, 3, 2, 2, 4}, {5}};
  for (size_t i = 0; i < seqs.size(); ++i) data.push_back(readings_instance(static_cast<int>(i), seqs[i]));
  ExperimentOptions with, without;
  without.params = {{"readings", 0}};
  const json a = run_experiment(erase_until_flip_experiment(), m, data, with);
  const json b = run_experiment(erase_until_flip_experiment(), m, data, without);
  EXPECT_EQ(a["summary"]["n_flipped_by_all"], b["summary"]["n_flipped_by_all"]);
  for (const char* k : {"attention", "gradient", "attention_x_gradient", "leave_one_out", "random"})
    EXPECT_EQ(a["summary"][k], b["summary"][k]) << k;
  EXPECT_EQ(a["summary"]["attnlrp"]["n"], 4);  // the single-token instance is skipped
  EXPECT_EQ(a["summary"]["order"].size(), 15u);
  EXPECT_EQ(b["summary"]["order"].size(), 5u);
  double sum = 0;
  for (const json& r : a["rows"])
    if (r.contains("attnlrp")) sum += r["attnlrp"]["fraction"].get<double>();
  EXPECT_NEAR(a["summary"]["attnlrp"]["fraction_mean"].get<double>(), sum / 4, 1e-12);

  const json k = run_experiment(kendall_experiment(), m, data, with);
  const json& s = k["summary"]["readings"]["alti"];
  std::vector<double> taus;
  for (const json& r : k["rows"])
    if (r.contains("readings") && r["readings"]["alti"]["tau_loo"].is_number() &&
        std::isfinite(r["readings"]["alti"]["tau_loo"].get<double>()))  // a single token's τ is undefined (NaN)
      taus.push_back(r["readings"]["alti"]["tau_loo"].get<double>());
  ASSERT_FALSE(taus.empty());
  EXPECT_NEAR(s["tau_loo_mean"].get<double>(), mean_of(taus), 1e-12);
  EXPECT_EQ(s["n"], 5);
  EXPECT_TRUE(s.contains("tau_attention_mean"));
  EXPECT_EQ(s["n_undefined"]["attention"], 1);  // the single token
  EXPECT_FALSE(k["summary"].contains("tau_attention_mean"));  // attention's own statistics: J&W's two
  EXPECT_TRUE(k["summary"]["per_class"]["0"].contains("readings") || k["summary"]["per_class"]["1"].contains("readings"));
}

}  // namespace
}  // namespace attnlab
