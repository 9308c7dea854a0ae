// Plausibility (issue 14): the SST PTB tree parser (escapes, errors), the human-rationale rule on a
// hand-written tree, ERASER's token F1 / AUPRC / IOU F1 against hand-computed values (a perfect ranking gives
// 1, a reversed one its closed value), a negative control (the same scores against a shuffled mask score
// lower), and the `plausibility` experiment end to end on real SST-2 test sentences with the shipped
// sst2-tanh model (skipped when the model or ../shared/data is missing), and the CLI's tree lookup (default
// path, --trees, the error without trees).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "experiments/experiment.h"
#include "metrics/rationale_metrics.h"
#include "text/dataset.h"
#include "text/sst_rationales.h"
#include "text/sst_tree.h"
#include "text/tokenizer.h"
#include "onnx_test_util.h"

namespace attnlab {
namespace {

using nlohmann::json;

// "The plot is not good , awful in fact" — negative root.
const char* const kTree =
    "(0 (2 (2 The) (2 plot)) (0 (2 is) (0 (1 (2 not) (3 good)) (2 (2 ,) (0 (0 awful) (2 (2 in) (2 fact)))))))";

TEST(SstTree, ParsesWordsSpansAndLabels) {
  SstTree t;
  std::string error;
  ASSERT_TRUE(parse_sst_tree(kTree, &t, &error)) << error;
  EXPECT_EQ(t.words, (std::vector<std::string>{"The", "plot", "is", "not", "good", ",", "awful", "in", "fact"}));
  ASSERT_EQ(t.nodes.size(), 17u);  // 9 words + 8 phrases
  EXPECT_EQ(t.nodes[0].label, 0);  // pre-order: the root first
  EXPECT_EQ(t.nodes[0].begin, 0);
  EXPECT_EQ(t.nodes[0].end, 9);
  EXPECT_EQ(t.nodes[1].label, 2);  // "The plot"
  EXPECT_EQ(t.nodes[1].end, 2);
  EXPECT_EQ(t.nodes[2].begin, 0);  // "The"
  EXPECT_EQ(t.nodes[2].end, 1);
  EXPECT_EQ(sst_binary_label(t), 0);
  ASSERT_TRUE(parse_sst_tree("  (3 (2 a) (4 b))\r\n", &t, &error)) << error;
  EXPECT_EQ(sst_binary_label(t), 1);
  ASSERT_TRUE(parse_sst_tree("(2 (2 so-so))", &t, &error));
  EXPECT_EQ(sst_binary_label(t), -1);
}

TEST(SstTree, RefusesMalformedTreesWithAMessage) {
  SstTree t;
  std::string error;
  EXPECT_FALSE(parse_sst_tree("", &t, &error));
  EXPECT_EQ(error, "column 1: empty tree");
  EXPECT_FALSE(parse_sst_tree("(3 (2 a) (4 b)", &t, &error));
  EXPECT_NE(error.find("missing ')'"), std::string::npos) << error;
  EXPECT_FALSE(parse_sst_tree("(5 (2 a))", &t, &error));
  EXPECT_NE(error.find("label must be 0..4"), std::string::npos) << error;
  EXPECT_FALSE(parse_sst_tree("(12 a)", &t, &error));
  EXPECT_FALSE(parse_sst_tree("(x a)", &t, &error));
  EXPECT_FALSE(parse_sst_tree("(2 a (3 b))", &t, &error));  // a word node with a child
  EXPECT_NE(error.find("expected ')' after the word"), std::string::npos) << error;
  EXPECT_FALSE(parse_sst_tree("(2 a) (3 b)", &t, &error));
  EXPECT_EQ(error, "column 7: text after the tree");
  EXPECT_FALSE(parse_sst_tree("(2 ())", &t, &error));
  std::string deep;
  for (int i = 0; i < kSstMaxTreeDepth + 5; ++i) deep += "(2 ";
  EXPECT_FALSE(parse_sst_tree(deep + "a", &t, &error));  // refused, no stack overflow
  EXPECT_NE(error.find("deeper than"), std::string::npos) << error;
  SstTreebank bank;
  EXPECT_FALSE(bank.parse("(2 (2 a))\n\n(2 (2 b)\n", &error));
  EXPECT_EQ(error.rfind("line 3, ", 0), 0u) << error;
  EXPECT_EQ(bank.size(), 1u);
}

TEST(SstTree, RationaleRuleOnAHandWrittenTree) {
  SstTree t;
  std::string error;
  ASSERT_TRUE(parse_sst_tree(kTree, &t, &error)) << error;
  // Negative: "not good" (1, 2 words) and "awful in fact" (0, 3 words) mark their words; "is not good , awful in
  // fact" (0) is longer than 3 words; the root is never a rationale.
  EXPECT_EQ(sst_human_rationale(t, 0), (std::vector<int>{0, 0, 0, 1, 1, 0, 1, 1, 1}));
  // Positive (the other polarity): only the word "good" (3).
  EXPECT_EQ(sst_human_rationale(t, 1), (std::vector<int>{0, 0, 0, 0, 1, 0, 0, 0, 0}));
  // A three-word sentence whose root is its only polar node has an empty rationale.
  ASSERT_TRUE(parse_sst_tree("(4 (2 a) (2 (2 great) (2 film)))", &t, &error));
  EXPECT_EQ(sst_human_rationale(t, 1), (std::vector<int>{0, 0, 0}));
  // A 4-word phrase does not mark; its 2-word part does.
  ASSERT_TRUE(parse_sst_tree("(3 (3 (2 w) (2 x) (2 y) (2 z)) (2 (2 u) (3 (2 v) (2 q))))", &t, &error));
  EXPECT_EQ(sst_human_rationale(t, 1), (std::vector<int>{0, 0, 0, 0, 0, 1, 1}));
}

TEST(SstTree, MatchesTokenisedSentencesThroughEscapesAndCase) {
  SstTreebank bank;
  std::string error;
  ASSERT_TRUE(bank.parse("(3 (2 A) (3 (2 -LRB-) (3 great) (2 -RRB-)) (2 ``) (2 film) (2 '') (2 and\\/or) (2 drama))\n"
                         "(1 (2 Not) (1 bad))\n(1 (2 not) (1 BAD))\n",
                         &error))
      << error;
  EXPECT_EQ(bank.size(), 3u);
  EXPECT_EQ(bank.duplicates(), 1);
  // The SST tokenizer turns the raw sentence into -lrb- / `` '' / and\/or; raw brackets and quotes match too.
  const std::vector<std::string> tokens = tokenize("A (great) \"film\" and/or drama");
  ASSERT_EQ(tokens, (std::vector<std::string>{"a", "-lrb-", "great", "-rrb-", "``", "film", "''", "and\\/or", "drama"}));
  const SstTree* t = bank.find(tokens);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->words[0], "A");
  EXPECT_EQ(bank.find({"a", "(", "great", ")", "\"", "film", "\"", "and/or", "drama"}), t);
  EXPECT_EQ(sst_human_rationale(*t, 1), (std::vector<int>{0, 1, 1, 1, 0, 0, 0, 0, 0}));  // "( great )" is 3 words
  const SstTree* first = bank.find({"not", "bad"});
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->words[0], "Not");  // the first of the duplicates
  EXPECT_EQ(bank.find({"a", "great", "film"}), nullptr);
  EXPECT_EQ(bank.find({"not"}), nullptr);
}

// core/text/sst_rationales: the shared matching (the CLI's --trees and the wasm loadDataset's trees).
TEST(SstTree, RationalesForExamplesWithCounts) {
  SstTreebank bank;
  std::string error;
  ASSERT_TRUE(bank.parse("(3 (2 a) (3 (2 (2 not) (1 bad)) (4 fine)))\n(1 (2 x) (2 y))\n", &error)) << error;
  const std::vector<TextExample> examples = {
      {1, {"a", "not", "bad", "fine"}},  // positive: the phrase "not bad fine" (3) and the word "fine" (4)
      {0, {"a", "not", "bad", "fine"}},  // the same sentence labelled negative: only the word "bad" (1)
      {-1, {"X", "Y"}},                  // no label: the root's polarity (1: negative); no negative word: empty
      {1, {"no", "tree"}},               // unmatched
  };
  SstRationaleCounts c;
  const std::vector<std::vector<int>> r = sst_rationales(bank, examples, &c);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(r[1], (std::vector<int>{0, 0, 1, 0}));
  EXPECT_EQ(r[2], (std::vector<int>{0, 0}));
  EXPECT_TRUE(r[3].empty());
  EXPECT_EQ(c.matched, 3);
  EXPECT_EQ(c.unmatched, 1);
  EXPECT_EQ(c.empty_rationale, 1);
  EXPECT_EQ(c.label_disagrees, 1);  // example 1: label 0, root 3
  const json rep = sst_rationale_report(bank, c);
  EXPECT_EQ(rep["matched"], 3);
  EXPECT_EQ(rep["trees_read"], 2);
  EXPECT_NE(rep["rule"].get<std::string>().find("<= 3 words"), std::string::npos);
}

TEST(RationaleMetrics, TopKAndTokenF1) {
  EXPECT_EQ(top_k_mask({0.1, -0.9, 0.5, 0.5}, 2), (std::vector<int>{0, 1, 1, 0}));  // |.|, ties: earlier first
  EXPECT_EQ(top_k_mask({0.1, 0.2}, 5), (std::vector<int>{1, 1}));
  EXPECT_EQ(top_k_mask({0.1, 0.2}, -1), (std::vector<int>{0, 0}));
  PrecisionRecall r = token_prf({1, 1, 0, 0}, {1, 0, 1, 0});
  EXPECT_DOUBLE_EQ(r.precision, 0.5);
  EXPECT_DOUBLE_EQ(r.recall, 0.5);
  EXPECT_DOUBLE_EQ(r.f1, 0.5);
  r = token_prf({1, 1, 1, 0}, {1, 0, 0, 0});  // P 1/3, R 1: F1 = 2 (1/3) / (4/3) = 1/2
  EXPECT_DOUBLE_EQ(r.precision, 1.0 / 3);
  EXPECT_DOUBLE_EQ(r.recall, 1.0);
  EXPECT_DOUBLE_EQ(r.f1, 0.5);
  EXPECT_DOUBLE_EQ(token_prf({0, 0, 0, 0}, {1, 0, 0, 0}).f1, 0.0);
  EXPECT_DOUBLE_EQ(token_prf({1, 0, 1, 0}, {1, 0, 1, 0}).f1, 1.0);
  EXPECT_DOUBLE_EQ(token_prf({0, 1, 0, 1}, {1, 0, 1, 0}).f1, 0.0);
}

TEST(RationaleMetrics, AuprcClosedValues) {
  const std::vector<int> human = {1, 0, 1, 0};
  EXPECT_DOUBLE_EQ(auprc({0.9, 0.1, 0.8, 0.2}, human), 1.0);  // perfect ranking
  // Reversed: points (r, p) = (0, 0), (0, 0), (1/2, 1/3), (1, 1/2) after (0, 1):
  // area = 1/2 (0 + 1/3) / 2 + 1/2 (1/3 + 1/2) / 2 = 1/12 + 5/24 = 7/24.
  EXPECT_NEAR(auprc({0.1, 0.9, 0.2, 0.8}, human), 7.0 / 24, 1e-12);
  // Mixed, human {1, 0, 0, 1}: points (1/2, 1), (1/2, 1/2), (1, 2/3), (1, 1/2): area = 1/2 + 1/2 (1/2 + 2/3) / 2
  // = 19/24 (trapezoidal; average precision would be (1 + 2/3) / 2 = 5/6).
  EXPECT_NEAR(auprc({0.9, 0.8, 0.1, 0.5}, {1, 0, 0, 1}), 19.0 / 24, 1e-12);
  // All tied: one point (1, prevalence): (1 + 1/4) / 2.
  EXPECT_DOUBLE_EQ(auprc({1, 1, 1, 1}, {1, 0, 0, 0}), 0.625);
  // Ties inside a ranking enter together: scores {3, 2, 2, 1} vs {0, 1, 0, 1}: (0, 0), (1/2, 1/3), (1, 1/2):
  // 1/2 (0 + 1/3) / 2 + 1/2 (1/3 + 1/2) / 2 = 7/24.
  EXPECT_NEAR(auprc({3, 2, 2, 1}, {0, 1, 0, 1}), 7.0 / 24, 1e-12);
  EXPECT_TRUE(std::isnan(auprc({1, 2}, {0, 0})));
  EXPECT_TRUE(std::isnan(auprc({1, 2}, {1})));
}

TEST(RationaleMetrics, IouSpanF1ClosedValues) {
  EXPECT_EQ(mask_spans({0, 1, 1, 1, 0, 0, 1, 0}), (std::vector<std::pair<int, int>>{{1, 4}, {6, 7}}));
  EXPECT_EQ(mask_spans({1, 1}), (std::vector<std::pair<int, int>>{{0, 2}}));
  EXPECT_TRUE(mask_spans({0, 0}).empty());
  const std::vector<int> human = {0, 1, 1, 1, 0, 0, 1, 0};  // spans [1,4) [6,7)
  PrecisionRecall r = iou_span_match(human, human);
  EXPECT_DOUBLE_EQ(r.f1, 1.0);  // perfect
  // [1,3) vs [1,4): IOU 2/3 -> matched; [7,8): IOU 0 with both. P = 1/2, R = 1/2.
  r = iou_span_match({0, 1, 1, 0, 0, 0, 0, 1}, human);
  EXPECT_DOUBLE_EQ(r.precision, 0.5);
  EXPECT_DOUBLE_EQ(r.recall, 0.5);
  EXPECT_DOUBLE_EQ(r.f1, 0.5);
  // Reversed (the complement): [0,1) IOU 0, [4,6) IOU 0, [7,8) IOU 0.
  EXPECT_DOUBLE_EQ(iou_span_match({1, 0, 0, 0, 1, 1, 0, 1}, human).f1, 0.0);
  // IOU exactly 0.5 matches (>=): [0,2) vs [0,4); 0.25 does not.
  EXPECT_DOUBLE_EQ(iou_span_match({1, 1, 0, 0}, {1, 1, 1, 1}).f1, 1.0);
  EXPECT_DOUBLE_EQ(iou_span_match({1, 0, 0, 0}, {1, 1, 1, 1}).f1, 0.0);
  // One predicted span covering both human spans: IOU 4/7 with [1,4) -> P 1, R 1/2, F1 2/3.
  r = iou_span_match({0, 1, 1, 1, 1, 1, 1, 0}, human);
  EXPECT_DOUBLE_EQ(r.precision, 1.0);
  EXPECT_DOUBLE_EQ(r.recall, 0.5);
  EXPECT_NEAR(r.f1, 2.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(iou_span_match({0, 0, 0, 0, 0, 0, 0, 0}, human).f1, 0.0);
}

// Negative control: scores that rank the human tokens first score 1; the same scores against shuffled masks
// (same number of 1s) score lower on all three metrics.
TEST(RationaleMetrics, ShuffledMaskScoresLower) {
  const std::vector<int> human = {0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0};
  std::vector<double> score(human.size());
  for (size_t t = 0; t < human.size(); ++t) score[t] = human[t] ? 1.0 + 0.1 * t : 0.05 * t;
  const int k = 5;
  EXPECT_DOUBLE_EQ(token_prf(top_k_mask(score, k), human).f1, 1.0);
  EXPECT_DOUBLE_EQ(auprc(score, human), 1.0);
  EXPECT_DOUBLE_EQ(iou_span_match(top_k_mask(score, k), human).f1, 1.0);
  Rng rng(7);
  double f1 = 0, ap = 0, iou = 0;
  const int trials = 50;
  for (int i = 0; i < trials; ++i) {
    std::vector<int> shuffled = human;
    rng.shuffle(shuffled);
    f1 += token_prf(top_k_mask(score, k), shuffled).f1 / trials;
    ap += auprc(score, shuffled) / trials;
    iou += iou_span_match(top_k_mask(score, k), shuffled).f1 / trials;
  }
  EXPECT_LT(f1, 0.7);
  EXPECT_LT(ap, 0.8);
  EXPECT_LT(iou, 0.7);
}

// The shipped sst2-tanh model and the SST-2 test sentences: "" when loaded, kNoSst2 when either is not there, else
// what did not load.
constexpr const char* kNoSst2 = "no shipped model or ../shared/data/sst2";
std::string load_shipped_sst2(TextModel* model, std::vector<TextExample>* examples) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/sst2-tanh/";
  const std::string config = test::read_text(dir + "config.json"), weights = test::read_text(dir + "model.safetensors");
  const std::string tsv = test::read_text(std::string(ATTNLAB_DATA_DIR) + "/sst2/test.tsv");
  if (config.empty() || tsv.empty()) return kNoSst2;
  std::string error;
  if (!load_text_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), model, &error))
    return error;
  if (!parse_labeled_tsv(tsv, examples, &error)) return error;
  return "";
}

// The experiment on the first N SST-2 test sentences with the shipped model, instances built as the CLI builds
// them. Checks the bookkeeping, the metric ranges, that attention and LOO beat the random baseline, and (negative control)
// that the same importances against each sentence's rationale shuffled score lower.
TEST(Plausibility, EndToEndOnSst2TestSentences) {
  const std::string trees = test::read_text(std::string(ATTNLAB_DATA_DIR) + "/sst2/trees/test.txt");
  TextModel model;
  std::vector<TextExample> examples;
  const std::string why = load_shipped_sst2(&model, &examples);
  if (why == kNoSst2 || trees.empty()) GTEST_SKIP() << kNoSst2;
  ASSERT_EQ(why, "");
  std::string error;
  SstTreebank bank;
  ASSERT_TRUE(bank.parse(trees, &error)) << error;
  EXPECT_EQ(bank.size(), 2210u);
  int matched = 0;
  for (const TextExample& ex : examples) matched += bank.find(ex.tokens) != nullptr;
  EXPECT_EQ(matched, 1821);  // every binary test sentence has its tree

  const int N = 20;
  std::vector<Instance> data, shuffled;
  Rng rng(3);
  for (int i = 0; i < N; ++i) {
    const SstTree* t = bank.find(examples[i].tokens);
    ASSERT_NE(t, nullptr);
    ASSERT_EQ(sst_binary_label(*t), examples[i].label);
    Instance in{i, examples[i].label, examples[i].tokens, model.vocab.ids(examples[i].tokens)};
    in.rationale = sst_human_rationale(*t, examples[i].label);
    data.push_back(in);
    rng.shuffle(in.rationale);
    shuffled.push_back(in);
  }
  data[0].rationale.clear();  // unknown -> skipped
  const Experiment* e = find_experiment("plausibility");
  ASSERT_NE(e, nullptr);
  ExperimentOptions options;
  options.params = {{"ig_steps", 4}};
  const json r = run_experiment(*e, model, data, options);
  const json& s = r["summary"];
  EXPECT_EQ(r["rows"][0]["skipped"], "no human rationale");
  EXPECT_EQ(s["n_used"].get<int>() + s["n_skipped"].get<int>(), N);
  EXPECT_GE(s["n_used"].get<int>(), 14);
  EXPECT_EQ(s["skipped_reasons"]["no human rationale"], 1);
  for (const char* m : {"attention", "gradient", "leave_one_out", "integrated_gradients", "random"})
    for (const char* k : {"token_f1", "auprc", "iou_f1"}) {
      ASSERT_TRUE(s[m][k].is_number()) << m << " " << k;
      EXPECT_GE(s[m][k].get<double>(), 0.0);
      EXPECT_LE(s[m][k].get<double>(), 1.0);
    }
  // The model's importances find the annotated words more often than chance (on the whole test set by
  // 0.1–0.2, docs/RESULTS.md; here 20 sentences).
  for (const char* m : {"attention", "leave_one_out"})
    for (const char* k : {"token_f1", "auprc"})
      EXPECT_GT(s[m][k].get<double>(), s["random"][k].get<double>() + 0.05) << m << " " << k;
  const json c = run_experiment(*e, model, shuffled, options)["summary"];
  for (const char* m : {"attention", "gradient", "leave_one_out", "integrated_gradients"})
    EXPECT_LT(c[m]["auprc"].get<double>(), s[m]["auprc"].get<double>()) << m;
  // The random baseline does not care which mask it is scored against (up to chance).
  EXPECT_NEAR(c["random"]["auprc"].get<double>(), s["random"]["auprc"].get<double>(), 0.1);
  // A rationale of the wrong length is refused, not read out of bounds.
  Instance bad = data[1];
  bad.rationale.pop_back();
  EXPECT_EQ(run_instance(*e, model, bad, options, nullptr)["skipped"], "human rationale does not match the tokens");
}

// `attnlab experiment plausibility`: finds <data dir>/trees/<name>.txt, matches sentences, refuses to run
// without trees.
TEST(Plausibility, CliFindsTheTreesOrSaysItNeedsThem) {
  const std::string model = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/sst2-tanh";
  if (test::read_text(model + "/config.json").empty()) GTEST_SKIP() << "no shipped model";
  char tmpl[] = "/tmp/attnlab-plaus-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::ofstream(dir + "/data.tsv") << "0\tthe plot is not good , awful in fact\n1\ta ( great ) \"film\" and/or drama\n"
                                   << "1\tno tree for this one\n";
  const auto run = [&](const std::string& args, std::string* out) {
    const std::string log = dir + "/log.txt";
    const int status = std::system(("ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" '" +
                                    std::string(ATTNLAB_CLI) + "' experiment plausibility --model '" + model +
                                    "' --data '" + dir + "/data.tsv' " + args + " >'" + log + "' 2>&1").c_str());
    *out = test::read_text(log);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  };
  std::string out;
  EXPECT_EQ(run("", &out), 1);
  EXPECT_NE(out.find("plausibility needs human rationales"), std::string::npos) << out;
  EXPECT_EQ(run("--trees '" + dir + "/missing.txt'", &out), 1);
  EXPECT_NE(out.find("missing.txt"), std::string::npos) << out;
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "/trees'").c_str()), 0);
  std::ofstream(dir + "/trees/data.txt")
      << kTree << "\n(3 (2 A) (3 (2 -LRB-) (3 great) (2 -RRB-)) (2 ``) (2 film) (2 '') (2 and\\/or) (2 drama))\n";
  ASSERT_EQ(run("", &out), 0) << out;
  const size_t last = out.rfind('\n', out.size() - 2);  // the summary is the last line
  const json s = json::parse(out.substr(last == std::string::npos ? 0 : last + 1), nullptr, false);
  ASSERT_FALSE(s.is_discarded()) << out;
  EXPECT_EQ(s["human_rationales"]["matched"], 2);
  EXPECT_EQ(s["human_rationales"]["unmatched"], 1);
  EXPECT_EQ(s["human_rationales"]["trees_read"], 2);
  EXPECT_EQ(s["n_used"], 2);
  EXPECT_EQ(s["skipped_reasons"]["no human rationale"], 1);
  std::system(("rm -rf '" + dir + "'").c_str());
}

// Experiment impermissible with the tokens a positions file marks (Instance::marked) instead of a word list: marks
// where "the" stands give the word list's rows exactly; marks elsewhere give other masses (negative control).
TEST(Impermissible, MarkedPositionsCountAsTheWordListDoes) {
  TextModel model;
  std::vector<TextExample> examples;
  const std::string why = load_shipped_sst2(&model, &examples);
  if (why == kNoSst2) GTEST_SKIP() << kNoSst2;
  ASSERT_EQ(why, "");
  const Experiment* e = find_experiment("impermissible");
  ASSERT_NE(e, nullptr);
  ExperimentOptions by_word, by_position;
  by_word.params = {{"words", "the"}};
  int with_the = 0, differs = 0;
  for (int i = 0; i < 30; ++i) {
    Instance in{i, examples[i].label, examples[i].tokens, model.vocab.ids(examples[i].tokens)};
    Instance marked = in, shifted = in;
    marked.marked.assign(in.tokens.size(), 0);
    shifted.marked.assign(in.tokens.size(), 0);
    for (size_t t = 0; t < in.tokens.size(); ++t)
      if (in.tokens[t] == "the") marked.marked[t] = 1, shifted.marked[(t + 1) % in.tokens.size()] = 1;
    const json a = run_instance(*e, model, in, by_word, nullptr);
    const json b = run_instance(*e, model, marked, by_position, nullptr);
    EXPECT_EQ(a, b) << i;
    with_the += a["impermissible_tokens"].get<int>() > 0;
    const json c = run_instance(*e, model, shifted, by_position, nullptr);
    differs += c["attention_mass"].get<double>() != a["attention_mass"].get<double>();
  }
  EXPECT_GE(with_the, 10);
  EXPECT_GE(differs, with_the - 2);
}

}  // namespace
}  // namespace attnlab
