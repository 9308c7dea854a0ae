// Passes on the last positions of a causal LM's sequence after a prefix (onnx/suffix_pass.h,
// OnnxTextModel::run_suffix_batch): on the shipped stories260K a batch of tails after the prefix's keys and values gives
// the whole sequences' logits (natively Eigen rounds a product of fewer rows otherwise: 1e-5; in wasm the same bits,
// checked by the page's parity tests), with and without the last-position tail, at prefixes of 1 to T − 1 positions;
// leave-one-out with the prefix gives each deletion's whole pass. Negative controls: the keys and values of another
// text give other logits and fail the once-per-model check; the GPT-2-shaped
// fixture builds its causal mask from a token-path shape, so its suffix pass fails, its check says so and its
// leave-one-out runs whole passes (the same values). The helpers against closed forms on small tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "explain/onnx_text/onnx_text_explain.h"
#include "onnx/suffix_pass.h"
#include "onnx_text_test_util.h"

namespace {

using namespace attnlab;
using onnx::Tensor;

std::vector<int> text(int T, int salt = 0) {
  std::vector<int> ids = {1};
  for (int t = 1; t < T; ++t) ids.push_back(30 + (37 * t + 11 * salt) % 400);
  return ids;
}

double max_rel(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return 1e30;
  double worst = 0;
  for (size_t k = 0; k < a.size(); ++k)
    worst = std::max(worst, std::abs(static_cast<double>(a[k]) - b[k]) / std::max(1.0, std::abs(static_cast<double>(b[k]))));
  return worst;
}

constexpr const char* kStories = "models/text/stories260K/model.onnx";

TEST(SuffixPass, TailsAfterAPrefixGiveTheWholeSequencesLogits) {
  OnnxTextModel m, whole_model;
  ASSERT_TRUE(test::load_text_model(&m, kStories));
  ASSERT_TRUE(test::load_text_model(&whole_model, kStories));  // whole passes (natively the default)
  m.set_last_row_batches(true);               // as in wasm
  const std::vector<int> ids = text(24);
  std::string err;
  ASSERT_TRUE(m.run(ids, &err)) << err;
  ASSERT_TRUE(m.suffix_ready());
  OnnxTextModel::Prefix pre;
  ASSERT_TRUE(m.prefix_of(ids, &pre, &err)) << err;
  ASSERT_EQ(pre.keys.size(), m.attention().size());
  // before the model's first last-position pass (checked once) the tails run whole; after it, their last position alone
  for (const bool last_row : {false, true}) {
    if (last_row) ASSERT_TRUE(m.run(ids, &err, /*inference=*/true)) << err;
    for (const int a : {1, 5, 23}) {
      // three tails of one length after ids[0, a): the text's own, and two others
      std::vector<std::vector<int>> tails = {std::vector<int>(ids.begin() + a, ids.end())};
      for (int salt : {1, 2}) {
        std::vector<int> t = tails[0];
        for (size_t k = 0; k < t.size(); ++k) t[k] = 30 + (t[k] * 7 + salt * 13 + static_cast<int>(k)) % 400;
        tails.push_back(t);
      }
      std::vector<std::vector<float>> cut, whole;
      ASSERT_TRUE(m.run_suffix_batch(pre, a, tails, &cut, &err)) << a << ": " << err;
      const int64_t S = 24 - a;
      EXPECT_EQ(m.executor().value(m.output_name())->shape[1], last_row && S > 1 ? 1 : S) << a;
      std::vector<std::vector<int>> seqs;
      for (const auto& t : tails) {
        seqs.push_back(std::vector<int>(ids.begin(), ids.begin() + a));
        seqs.back().insert(seqs.back().end(), t.begin(), t.end());
      }
      ASSERT_TRUE(whole_model.run_batch(seqs, &whole, &err)) << err;
      for (size_t b = 0; b < tails.size(); ++b) EXPECT_LT(max_rel(cut[b], whole[b]), 1e-5) << "a " << a << ", tail " << b;
      // Negative control: the keys and values of another text before the same tails (both begin with BOS: a > 1)
      if (a == 1) continue;
      OnnxTextModel o;
      ASSERT_TRUE(test::load_text_model(&o, kStories));
      o.set_last_row_batches(true);
      OnnxTextModel::Prefix other;
      ASSERT_TRUE(o.run(text(24, 5), &err)) << err;
      ASSERT_TRUE(o.prefix_of(text(24, 5), &other, &err)) << err;
      std::vector<std::vector<float>> wrong;
      ASSERT_TRUE(m.run_suffix_batch(other, a, tails, &wrong, &err)) << err;
      EXPECT_GT(max_rel(wrong[0], whole[0]), 1e-3) << "a " << a << ": another text's keys must change the logits";
    }
  }
  EXPECT_FALSE(whole_model.suffix_ready()) << "natively, by default, whole passes";
}

TEST(SuffixPass, CheckAgreesOnStoriesAndFailsOnKeysThatAreNotThePrefixs) {
  OnnxTextModel m;
  ASSERT_TRUE(test::load_text_model(&m, kStories));
  m.set_last_row_batches(true);
  const std::vector<int> ids = text(20);
  std::string err;
  ASSERT_TRUE(m.run(ids, &err)) << err;
  OnnxTextModel::Prefix pre;
  ASSERT_TRUE(m.prefix_of(ids, &pre, &err)) << err;
  OnnxTextModel bad = m;
  ASSERT_TRUE(m.check_suffix(pre, 12, std::vector<int>(ids.begin() + 13, ids.end()), &err)) << err;
  EXPECT_EQ(m.suffix_check(), OnnxTextModel::BatchCheck::kAgree);
  // Negative control: the ids of this text with the keys and values of another
  OnnxTextModel::Prefix mixed;
  ASSERT_TRUE(bad.run(text(20, 3), &err)) << err;
  ASSERT_TRUE(bad.prefix_of(text(20, 3), &mixed, &err)) << err;
  mixed.ids = ids;
  ASSERT_TRUE(bad.check_suffix(mixed, 12, std::vector<int>(ids.begin() + 13, ids.end()), &err)) << err;
  EXPECT_EQ(bad.suffix_check(), OnnxTextModel::BatchCheck::kDisagree);
  EXPECT_FALSE(bad.suffix_ready()) << "a model whose check failed runs whole passes";
}

TEST(SuffixPass, LeaveOneOutAfterPrefixesEqualsWholePasses) {
  for (const char* path : {kStories, "tests/fixtures/onnx-text/gpt2-sst2/model.onnx"}) {
    OnnxTextModel m;
    ASSERT_TRUE(test::load_text_model(&m, path));
    m.set_last_row_batches(true);
    const std::vector<int> ids = text(24);  // 8 batches of 3 deletions: prefixes 0, 3, …, 21
    std::string err;
    ASSERT_TRUE(m.run(ids, &err)) << err;
    const int target = onnx_text_top_k(m.logits(), 1).at(0);
    const double p = onnx_text_probability(m.logits(), target);
    std::vector<double> loo;
    ASSERT_TRUE(onnx_text_leave_one_out(m, ids, target, p, 0, 24, &loo, &err)) << err;
    const bool stories = std::string(path) == kStories;
    // stories260K's graph runs after a prefix; the GPT-2-shaped one builds its causal mask from the shape of a
    // token-path value (the queries' length alone), so its suffix pass fails and the check says so
    EXPECT_EQ(m.suffix_check(), stories ? OnnxTextModel::BatchCheck::kAgree : OnnxTextModel::BatchCheck::kDisagree) << path;
    OnnxTextModel r;
    ASSERT_TRUE(test::load_text_model(&r, path));
    double worst = 0, largest = 0;
    for (int i = 0; i < 24; ++i) {
      std::vector<int> c = ids;
      c.erase(c.begin() + i);
      ASSERT_TRUE(r.run(c, &err)) << err;
      const double v = std::abs(p - onnx_text_probability(r.logits(), target));
      worst = std::max(worst, std::abs(v - loo[static_cast<size_t>(i)]));
      largest = std::max(largest, v);
    }
    EXPECT_LT(worst, 1e-5) << path;
    EXPECT_GT(largest, 1e-3) << path << ": some deletion must move the prediction (else the comparison says nothing)";
  }
}

// The page's "next": leave-one-out on the text, then on it one token longer — the second runs each deletion's new
// position alone after the keys and values the first kept (OnnxTextModel::deletions) — equal to whole passes at each
// step; negative control: kept deletions of another text under this text's ids change the values.
TEST(SuffixPass, LeaveOneOutOnTheTextOneTokenLongerRunsFromTheKeptDeletions) {
  OnnxTextModel m, r;
  ASSERT_TRUE(test::load_text_model(&m, kStories));
  ASSERT_TRUE(test::load_text_model(&r, kStories));
  m.set_last_row_batches(true);
  std::vector<int> ids = text(20);
  std::string err;
  auto loo = [&](const std::vector<int>& x, OnnxTextModel& model, std::vector<double>* out, double* p, int* target) {
    ASSERT_TRUE(model.run(x, &err)) << err;
    *target = onnx_text_top_k(model.logits(), 1).at(0);
    *p = onnx_text_probability(model.logits(), *target);
    ASSERT_TRUE(onnx_text_leave_one_out(model, x, *target, *p, 0, static_cast<int>(x.size()), out, &err)) << err;
  };
  auto whole = [&](const std::vector<int>& x, double p, int target, size_t i) {
    std::vector<int> c = x;
    c.erase(c.begin() + static_cast<std::ptrdiff_t>(i));
    EXPECT_TRUE(r.run(c, &err)) << err;
    return std::abs(p - onnx_text_probability(r.logits(), target));
  };
  for (int step = 0; step < 3; ++step) {
    std::vector<double> out;
    double p = 0;
    int target = 0;
    loo(ids, m, &out, &p, &target);
    ASSERT_TRUE(m.deletions()) << "step " << step << ": the deletions are kept for the next";
    EXPECT_EQ(m.deletions()->ids, ids);
    double worst = 0, largest = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      const double v = whole(ids, p, target, i);
      worst = std::max(worst, std::abs(v - out[i]));
      largest = std::max(largest, v);
    }
    EXPECT_LT(worst, 1e-5) << "step " << step << " at " << ids.size() << " tokens";
    EXPECT_GT(largest, 1e-3) << "step " << step;
    ids.push_back(target);
  }
  // Negative control: the kept deletions of another text, under this text's ids: the next call reads them
  OnnxTextModel o;
  ASSERT_TRUE(test::load_text_model(&o, kStories));
  o.set_last_row_batches(true);
  const std::vector<int> other = text(static_cast<int>(ids.size()) - 1, 7);
  std::vector<double> o_loo;
  double o_p = 0;
  int o_target = 0;
  loo(other, o, &o_loo, &o_p, &o_target);
  ASSERT_TRUE(o.deletions());
  auto forged = std::make_shared<OnnxTextModel::Deletions>(*o.deletions());
  forged->ids = std::vector<int>(ids.begin(), ids.end() - 1);
  forged->whole.ids = forged->ids;
  m.set_deletions(forged);
  std::vector<double> out;
  double p = 0;
  int target = 0;
  loo(ids, m, &out, &p, &target);
  double worst = 0;
  for (size_t i = 0; i + 1 < ids.size(); ++i) worst = std::max(worst, std::abs(whole(ids, p, target, i) - out[i]));
  EXPECT_GT(worst, 1e-3) << "the kept deletions must be what the next call reads";
  // a text that is not one token longer runs whole batches again (and keeps its own)
  loo(text(15, 9), m, &out, &p, &target);
  ASSERT_TRUE(m.deletions());
  EXPECT_EQ(m.deletions()->ids, text(15, 9));
}

TEST(SuffixPassHelpers, ExtendPrefixesAlongAnAxisAndBroadcastsTheBatch) {
  // head [1, 2, 1] (two cached positions on axis 1) before a value [2, 1, 1] of a batch of two: [2, 3, 1]
  Tensor<float> head = Tensor<float>::floats({1, 2, 1});
  head.f = {1, 2};
  Tensor<float> value = Tensor<float>::floats({2, 1, 1});
  value.f = {7, 8};
  Tensor<float> out;
  ASSERT_EQ(onnx::suffix_extend(head, value, -2, &out), "");
  EXPECT_EQ(out.shape, (onnx::Shape{2, 3, 1}));
  EXPECT_EQ(std::vector<float>(out.f.begin(), out.f.end()), (std::vector<float>{1, 2, 7, 1, 2, 8}));
  // on the last axis: [1, 2, 2] ‖ [1, 2, 1] → [1, 2, 3]
  Tensor<float> h2 = Tensor<float>::floats({1, 2, 2});
  h2.f = {1, 2, 3, 4};
  Tensor<float> v2 = Tensor<float>::floats({1, 2, 1});
  v2.f = {9, 10};
  ASSERT_EQ(onnx::suffix_extend(h2, v2, -1, &out), "");
  EXPECT_EQ(std::vector<float>(out.f.begin(), out.f.end()), (std::vector<float>{1, 2, 9, 3, 4, 10}));
  EXPECT_NE(onnx::suffix_extend(h2, value, -1, &out), "") << "shapes that do not fit are refused";
  // the head's first two positions of [1, 1, 3]: {0, 1}
  Tensor<float> t = Tensor<float>::floats({1, 1, 3});
  t.f = {0, 1, 2};
  const Tensor<float> first = onnx::suffix_head(t, -1, 2);
  EXPECT_EQ(std::vector<float>(first.f.begin(), first.f.end()), (std::vector<float>{0, 1}));
}

TEST(SuffixPassHelpers, AShapePathMaskIsCutToTheQueriesRowsAndKeepsItsKeys) {
  // scores [1, 1, 2, 3] (2 queries after a prefix of 1, 3 keys) + mask [3, 3] (built for all 3 positions): the mask's
  // rows 1..2 (the last two queries), every key column
  Tensor<float> scores = Tensor<float>::floats({1, 1, 2, 3});
  Tensor<float> mask = Tensor<float>::floats({3, 3});
  mask.f = {0, -9, -9, 0, 0, -9, 0, 0, 0};
  std::vector<const Tensor<float>*> in = {&scores, &mask};
  std::vector<Tensor<float>> cut;
  cut.reserve(4);
  ASSERT_EQ(onnx::suffix_cut_inputs<float>("Add", {0, 1}, &in, 2, 3, &cut), "");
  EXPECT_EQ(in[1]->shape, (onnx::Shape{2, 3}));
  EXPECT_EQ(std::vector<float>(in[1]->f.begin(), in[1]->f.end()), (std::vector<float>{0, 0, -9, 0, 0, 0}));
  EXPECT_EQ(in[0], &scores) << "the token path's input is read as it is";
  // a shape-path value of all positions read by a product cannot be cut: refused
  std::vector<const Tensor<float>*> in2 = {&scores, &mask};
  EXPECT_NE(onnx::suffix_cut_inputs<float>("MatMul", {0, 1}, &in2, 2, 3, &cut), "");
}

}  // namespace
