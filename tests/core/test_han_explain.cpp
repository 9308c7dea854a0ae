// HAN importances (core/explain/han), the registry's experiments on a HAN (core/experiments/han_attention_model.h)
// and the global view
// (core/explain/global_view) on small models: closed forms (leave-one-out = the re-run document, frozen
// interventions = the full forward), integrated-gradients completeness at both levels, the JSON contract of
// explain_han, bad input (no boundary, 10,000 sentences, one-token sentences, empty lines, markup), and the
// global view test: a model trained on synthetic data where one known word decides the label ranks it first.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "experiments/frozen_encoder.h"
#include "experiments/han_attention_model.h"
#include "experiments/han_frozen.h"
#include "explain/global_view.h"
#include "explain/han/explain_han.h"
#include "train/han_trainer.h"

namespace attnlab {
namespace {

HanModel small_model(AttentionKind word = AttentionKind::Tanh, AttentionKind sentence = AttentionKind::Tanh) {
  HanModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "the", "film", "is", "good", "bad", "not", ".", "plot", "great", "dull"});
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 6;
  m.config.word_hidden = 4;
  m.config.sentence_hidden = 3;
  m.config.word_attention = word;
  m.config.sentence_attention = sentence;
  m.class_names = {"negative", "positive"};
  Rng rng(11);
  m.params.init(m.config, rng);
  for (Mat<float>* p : m.params.list()) *p *= 2.0f;  // sharper than the init, so attention varies
  return m;
}

HanExplainInput input_of(const HanModel& m, const HanDocument& doc, int target = 1, int steps = 50) {
  HanExplainInput in;
  in.cfg = &m.config;
  in.params = &m.params;
  in.doc = doc;
  in.target = target;
  in.ig_steps = steps;
  return in;
}

const HanDocument kDoc = {{2, 3, 4, 5, 8}, {7, 6}, {9, 4, 11, 8}, {10}};

double p_of(const HanModel& m, const HanDocument& doc, int target) {
  HanCache<float> c;
  han_forward(m.config, m.params, {doc}, c);
  return han_probability(m.config, c.logits, 0, target);
}

TEST(HanExplain, LeaveOneOutIsTheRerunDocument) {
  const HanModel m = small_model();
  const HanImportance l = han_leave_one_out_importance(input_of(m, kDoc));
  ASSERT_EQ(l.sentence.size(), 4u);
  const double p0 = p_of(m, kDoc, 1);
  HanDocument without1 = {kDoc[0], kDoc[2], kDoc[3]};
  EXPECT_NEAR(l.sentence[1], std::abs(p0 - p_of(m, without1, 1)), 1e-6);
  HanDocument w = kDoc;
  w[2].erase(w[2].begin() + 1);
  EXPECT_NEAR(l.word[2][1], std::abs(p0 - p_of(m, w, 1)), 1e-6);
  HanDocument one = {kDoc[0], kDoc[1], kDoc[2]};  // the one-word sentence: dropping its word drops it
  EXPECT_NEAR(l.word[3][0], std::abs(p0 - p_of(m, one, 1)), 1e-6);
  EXPECT_NEAR(l.word[3][0], l.sentence[3], 1e-7);
  // one sentence: without it, the empty document (logits = the classifier's bias), as a rerun gives it
  const HanDocument single = {kDoc[2]};
  const HanImportance s = han_leave_one_out_importance(input_of(m, single));
  const double ps = p_of(m, single, 1);
  EXPECT_NEAR(s.sentence[0], std::abs(ps - p_of(m, HanDocument{}, 1)), 1e-6);
  HanDocument w0 = single;
  w0[0].erase(w0[0].begin() + 3);
  EXPECT_NEAR(s.word[0][3], std::abs(ps - p_of(m, w0, 1)), 1e-6);
  EXPECT_GT(std::abs(s.word[0][3] - s.word[0][0]), 1e-9);  // the words differ: not one number copied
}

TEST(HanExplain, AttentionAndGradientShapes) {
  const HanModel m = small_model();
  const HanImportance a = han_attention_importance(input_of(m, kDoc));
  double s = 0;
  for (double v : a.sentence) s += v;
  EXPECT_NEAR(s, 1.0, 1e-6);
  for (const auto& w : a.word) {
    double ws = 0;
    for (double v : w) ws += v;
    EXPECT_NEAR(ws, 1.0, 1e-6);
  }
  const HanImportance g = han_gradient_importance(input_of(m, kDoc));
  double gs = 0, gw = 0;
  for (double v : g.sentence) gs += v;
  for (double v : han_flat_words(g)) {
    EXPECT_GE(v, 0.0);
    gw += v;
  }
  EXPECT_NEAR(gs, 1.0, 1e-6);
  EXPECT_NEAR(gw, 1.0, 1e-6);
  // Uniform variants: attention is 1/n by construction.
  const HanModel u = small_model(AttentionKind::Uniform, AttentionKind::Uniform);
  const HanImportance au = han_attention_importance(input_of(u, kDoc));
  EXPECT_NEAR(au.sentence[0], 0.25, 1e-7);
  EXPECT_NEAR(au.word[1][0], 0.5, 1e-7);
}

TEST(HanExplain, IntegratedGradientsCompleteness) {
  const HanModel m = small_model();
  for (int target : {0, 1}) {
    const HanImportance ig = han_integrated_gradients_importance(input_of(m, kDoc, target, 300));
    ASSERT_EQ(ig.word.size(), 4u);
    EXPECT_GT(std::abs(ig.word_target), 1e-3);
    EXPECT_NEAR(ig.word_sum, ig.word_target, 0.01 * std::abs(ig.word_target) + 1e-4);
    EXPECT_NEAR(ig.sentence_sum, ig.sentence_target, 0.01 * std::abs(ig.sentence_target) + 1e-4);
    // word_target = p(x) - p(all word embeddings zero)
    std::vector<float> zero = {0.f};
    HanOverrides<float> ov;
    ov.input_scale = &zero;
    HanCache<float> c0;
    han_forward(m.config, m.params, {kDoc}, c0, ov);
    EXPECT_NEAR(ig.word_target, p_of(m, kDoc, target) - han_probability(m.config, c0.logits, 0, target), 1e-6);
  }
}

TEST(HanExplain, JsonContractAndBadInput) {
  HanModel m = small_model();
  m.split.max_sentences = 50;
  m.split.max_sentence_tokens = 20;
  nlohmann::json j = nlohmann::json::parse(han_explanation_json(explain_han(m, "The film is good. Not bad.<br />The plot is dull.")));
  for (const char* key : {"probability", "sentences", "sentence_attention", "word_attention", "sentence_gradient",
                          "sentence_leave_one_out", "word_gradient", "word_leave_one_out", "sentence_integrated_gradients",
                          "word_integrated_gradients", "kendall", "notes", "unknown"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["sentences"].size(), 3u);
  EXPECT_EQ(j["sentences"][0], nlohmann::json({"the", "film", "is", "good", "."}));
  EXPECT_EQ(j["word_attention"][2].size(), j["sentences"][2].size());
  EXPECT_EQ(j["sentence_leave_one_out"].size(), 3u);
  EXPECT_TRUE(j["kendall"]["sentence"].contains("attention_gradient"));
  EXPECT_EQ(j["error"], "");
  // Empty text, empty lines, markup only: empty lists, no error.
  for (const char* text : {"", "\n\n  \n", "<br /><br />"}) {
    j = nlohmann::json::parse(han_explanation_json(explain_han(m, text)));
    EXPECT_EQ(j["sentences"].size(), 0u) << text;
    EXPECT_EQ(j["word_attention"].size(), 0u);
    EXPECT_EQ(j["error"], "");
    EXPECT_TRUE(j["probability"].is_number());
  }
  // One token; no boundary (cut into pieces, stated); 10,000 sentences (cut, stated).
  j = nlohmann::json::parse(han_explanation_json(explain_han(m, "good")));
  ASSERT_EQ(j["sentences"].size(), 1u);
  EXPECT_EQ(j["word_attention"][0][0], 1.0);
  std::string run, many;
  for (int i = 0; i < 70; ++i) run += "the film is good ";
  j = nlohmann::json::parse(han_explanation_json(explain_han(m, run)));
  EXPECT_EQ(j["sentences"].size(), 14u);  // 280 tokens in pieces of 20
  EXPECT_EQ(j["notes"][0], "no sentence boundary found");
  for (int i = 0; i < 10000; ++i) many += "The plot is dull. ";
  j = nlohmann::json::parse(han_explanation_json(explain_han(m, many, {5})));
  EXPECT_EQ(j["sentences"].size(), 50u);
  EXPECT_EQ(j["num_sentences_total"], 10000);
  EXPECT_TRUE(j["truncated"].get<bool>());
  // No model.
  EXPECT_NE(explain_han(HanModel{}, "x").error, "");
}

// The page's Documents view runs the explanation in stages (HanExplainJob) so it can show progress and stop between
// them: one measure per step, in order, and the finished job's JSON is explain_han's byte for byte. A job stopped
// before its last stage lacks that measure (the negative control: its JSON differs).
TEST(HanExplain, JobComputesOneMeasurePerStepAndEndsAsExplainHan) {
  HanModel m = small_model();
  m.split.max_sentences = 50;
  m.split.max_sentence_tokens = 20;
  const std::string text = "The film is good. Not bad.<br />The plot is dull.";
  HanExplainJob job(m, text, {7});
  ASSERT_EQ(job.total(), 4);
  EXPECT_EQ(job.result().input.ids.size(), 3u);  // split and predicted at the start
  EXPECT_EQ(job.result().probabilities.size(), 2u);
  std::vector<std::string> stages;
  std::string partial;
  while (!job.finished()) {
    stages.push_back(job.stage());
    job.step();
    EXPECT_EQ(job.done(), static_cast<int>(stages.size()));
    if (job.done() == 1) {
      EXPECT_EQ(job.result().attention.sentence.size(), 3u);
      EXPECT_TRUE(job.result().gradient.sentence.empty());
      EXPECT_TRUE(job.result().leave_one_out.sentence.empty());
    }
    if (job.done() == 3) partial = han_explanation_json(job.result());
  }
  EXPECT_EQ(stages, (std::vector<std::string>{"attention", "gradient", "leave-one-out", "integrated gradients"}));
  EXPECT_STREQ(job.stage(), "");
  const std::string whole = han_explanation_json(explain_han(m, text, {7}));
  EXPECT_EQ(han_explanation_json(job.result()), whole);
  EXPECT_NE(partial, whole);
  // No integrated gradients: three stages; no words or no model: none (finished at once, as explain_han returns).
  EXPECT_EQ(HanExplainJob(m, text, {0}).total(), 3);
  const HanExplainJob empty(m, "<br />", {});
  EXPECT_TRUE(empty.finished());
  EXPECT_EQ(empty.total(), 0);
  EXPECT_EQ(han_explanation_json(empty.result()), han_explanation_json(explain_han(m, "<br />")));
  const HanModel none;
  const HanExplainJob no_model(none, text, {});
  EXPECT_TRUE(no_model.finished());
  EXPECT_NE(no_model.result().error, "");
}

// issue 27: a HAN explanation was not capped (1,005 tokens took 3.7 GB, 2,000 bad_alloc; the page runs it in a
// 2 GiB heap). Now at most kMaxHanExplainSentences / kMaxHanExplainTokens whatever the model's splitting limits,
// the cut said in the notes, and the batched methods run in chunks (leave-one-out still equals the re-run document).
TEST(HanExplain, LongDocumentIsCutToTheCapAndSaysWhere) {
  HanModel m = small_model();
  m.split.max_sentences = 1000;  // the model's own limits would keep all 5,000 tokens
  m.split.max_sentence_tokens = 1000;
  m.split.max_tokens = 0;
  const char* const words[] = {"the", "film", "is", "good", "bad", "not", "plot", "great", "dull"};
  std::string text;
  for (int s = 0; s < 50; ++s) {  // 50 sentences of 100 tokens (99 words and a period)
    for (int w = 0; w < 99; ++w) {
      std::string word = words[(s * 7 + w * 3) % 9];
      if (w == 0) word[0] = static_cast<char>(word[0] - 'a' + 'A');  // a capital starts each sentence
      text += word + " ";
    }
    text += ". ";
  }
  const HanExplanation e = explain_han(m, text, {4});
  ASSERT_EQ(e.error, "");
  size_t kept = 0;
  for (const auto& s : e.input.ids) kept += s.size();
  EXPECT_EQ(kept, static_cast<size_t>(kMaxHanExplainTokens));
  EXPECT_EQ(e.input.ids.size(), 10u);
  EXPECT_TRUE(e.input.split.truncated);
  EXPECT_EQ(e.input.split.num_tokens_total, 5000);
  EXPECT_EQ(e.input.split.num_sentences_total, 50);
  const nlohmann::json j = nlohmann::json::parse(han_explanation_json(e));
  EXPECT_TRUE(j["truncated"].get<bool>());
  ASSERT_FALSE(j["notes"].empty());
  const std::string notes = j["notes"].dump();
  EXPECT_NE(notes.find("explained: the first 10 sentences, 1000 of 5000 tokens"), std::string::npos) << notes;
  EXPECT_EQ(j["word_leave_one_out"].size(), 10u);
  EXPECT_EQ(j["word_leave_one_out"][9].size(), 100u);
  // Chunked leave-one-out = the re-run documents; the prediction is that of the explained part.
  const double p0 = p_of(m, e.input.ids, 1);
  EXPECT_NEAR(e.probabilities[1], p0, 1e-6);
  HanDocument without = e.input.ids;
  without.erase(without.begin() + 6);
  EXPECT_NEAR(e.leave_one_out.sentence[6], std::abs(p0 - p_of(m, without, 1)), 1e-6);
  without = e.input.ids;
  without[9].erase(without[9].begin() + 42);
  EXPECT_NEAR(e.leave_one_out.word[9][42], std::abs(p0 - p_of(m, without, 1)), 1e-6);
  // Integrated gradients in chunks: completeness holds as in one batch.
  EXPECT_NEAR(e.integrated_gradients.sentence_sum, e.integrated_gradients.sentence_target,
              0.05 * std::abs(e.integrated_gradients.sentence_target) + 1e-3);
  // Many short sentences: cut at kMaxHanExplainSentences, the cut stated.
  std::string many;
  for (int s = 0; s < 300; ++s) many += "The plot is dull. ";
  const HanExplanation e2 = explain_han(m, many, {0});
  EXPECT_EQ(e2.input.ids.size(), static_cast<size_t>(kMaxHanExplainSentences));
  EXPECT_EQ(e2.input.split.num_sentences_total, 300);
  const std::string notes2 = nlohmann::json(e2.input.split.notes).dump();
  EXPECT_NE(notes2.find("explained: the first 100 sentences, 500 of 1500 tokens"), std::string::npos) << notes2;
}

TEST(HanExplain, IntegratedGradientsInChunksKeepCompleteness) {
  // 2,000 steps of a 13-token document: 26,013 tokens, four chunks; the sums match the closed-form target.
  const HanModel m = small_model();
  const HanImportance many = han_integrated_gradients_importance(input_of(m, kDoc, 1, 2000));
  EXPECT_NEAR(many.word_sum, many.word_target, 1e-3 * std::abs(many.word_target) + 1e-5);
  EXPECT_NEAR(many.sentence_sum, many.sentence_target, 1e-3 * std::abs(many.sentence_target) + 1e-5);
  // word_target = p(x) - p(0), the baseline read from the last chunk
  std::vector<float> zero = {0.f};
  HanOverrides<float> ov;
  ov.input_scale = &zero;
  HanCache<float> c0;
  han_forward(m.config, m.params, {kDoc}, c0, ov);
  EXPECT_NEAR(many.word_target, p_of(m, kDoc, 1) - han_probability(m.config, c0.logits, 0, 1), 1e-6);
}

// Both levels of the HAN through the attention-model interface (experiments/han_attention_model.h): the model's
// own weights give its output, erasing renormalises only the groups (sentences) that lost a unit, and ∂p/∂w at
// weights other than the model's equals central finite differences (double).
TEST(HanExperiments, AttentionInterfaceAtBothLevels) {
  const HanModel m = small_model();
  const HanFrozen f = han_freeze(m, kDoc);
  const Instance in = han_instance_of(0, 1, kDoc);
  EXPECT_EQ(han_document_of(in), kDoc);
  for (const bool word : {false, true}) {
    const HanAttentionModel hm(m, word);
    ASSERT_EQ(hm.skip_reason(in, 2), nullptr);
    const auto fi = hm.freeze(in, nullptr);
    ASSERT_EQ(fi->size(), word ? 12 : 4);
    EXPECT_EQ(fi->num_groups(), word ? 4 : 1);
    const std::vector<double> same = fi->output(fi->attention());
    EXPECT_NEAR(same[1], f.probs[1], word ? 1e-5 : 1e-12);
    if (word) {
      // Erasing words 0, 1 (both in sentence 0) renormalises sentence 0 only; flat 9 = sentence 2's word 2.
      const auto e = erase_units(fi->attention(), fi->groups(), {0, 1, 9});
      EXPECT_EQ(e[0], 0.0);
      EXPECT_NEAR(e[2] + e[3] + e[4], 1.0, 1e-12);
      for (int u = 5; u < 7; ++u) EXPECT_EQ(e[u], fi->attention()[u]);
      EXPECT_EQ(e[9], 0.0);
      EXPECT_NEAR(fi->effective_attention()[0], f.beta[0] * f.alpha[0][0], 1e-15);
    }
    // The gradient at weights that are not the model's, for a class that is not the predicted one.
    std::vector<double> w = fi->attention();
    for (size_t u = 0; u < w.size(); ++u) w[u] *= 0.5 + 0.1 * static_cast<double>(u % 3);
    const int cls = 1 - fi->predicted();
    const std::vector<double> g = fi->d_output(w, cls);
    double largest = 0;
    for (double v : g) largest = std::max(largest, std::abs(v));
    EXPECT_GT(largest, 1e-6);
    if (word) continue;  // the word level's outputs are float: checked in double below
    for (size_t u = 0; u < w.size(); ++u) {
      std::vector<double> up = w, down = w;
      up[u] += 1e-6;
      down[u] -= 1e-6;
      EXPECT_NEAR(g[u], (fi->output(up)[cls] - fi->output(down)[cls]) / 2e-6, 1e-7) << "sentence " << u;
    }
    for (size_t i = 0; i < f.beta.size(); ++i) EXPECT_NEAR(fi->d_output(fi->attention(), f.predicted)[i], f.d_beta[i], 1e-12);
  }
}

// The word level's gradient against finite differences in double: the outputs of the word level run in float
// (batched), so the check re-runs the document in double with the weights imposed.
TEST(HanExperiments, WordAttentionGradientMatchesFiniteDifferences) {
  const HanModel m = small_model();
  const HanParams<double> p = m.params.cast<double>();
  const Instance in = han_instance_of(0, 1, kDoc);
  const auto fi = HanAttentionModel(m, true).freeze(in, nullptr);
  std::vector<double> w = fi->attention();
  for (size_t u = 0; u < w.size(); ++u) w[u] *= 0.6 + 0.2 * static_cast<double>(u % 2);
  const int cls = 0;
  const auto p_of_w = [&](const std::vector<double>& x) {
    std::vector<std::vector<double>> per(kDoc.size());
    for (size_t u = 0; u < x.size(); ++u) per[static_cast<size_t>(fi->groups()[u])].push_back(x[u]);
    HanOverrides<double> ov;
    ov.word_alpha = &per;
    HanCache<double> c;
    han_forward(m.config, p, {kDoc}, c, ov);
    return han_class_probabilities(m.config, c.logits)(cls, 0);
  };
  const std::vector<double> g = fi->d_output(w, cls);
  for (size_t u = 0; u < w.size(); ++u) {
    std::vector<double> up = w, down = w;
    up[u] += 1e-6;
    down[u] -= 1e-6;
    EXPECT_NEAR(g[u], (p_of_w(up) - p_of_w(down)) / 2e-6, 1e-7) << "word " << u;
  }
}

// The registry's experiments on both levels of a HAN (han_attention_model.h): rows for documents of several shapes,
// the empty document skipped, the bounds of what each row holds.
TEST(HanExperiments, RowsAndSummaries) {
  const HanModel m = small_model();
  const std::vector<Instance> data = {han_instance_of(0, 1, kDoc), han_instance_of(1, 0, {{5, 6, 7}, {2, 3}}),
                                      han_instance_of(2, 1, {{4}}), han_instance_of(3, 0, {})};
  for (const char* level : {"sentence", "word"}) {
    for (const char* name : {"kendall", "permutation", "adversarial", "erase-max", "erase-until-flip"}) {
      const Experiment* e = find_experiment(name);
      ASSERT_NE(e, nullptr);
      ExperimentOptions o;
      o.params = {{"level", level}, {"steps", 30}};
      if (std::string(name) != "adversarial") o.params.erase("steps");
      bool word = false;
      ASSERT_EQ(check_han_experiment(*e, m, &o.params, &word), "") << name;
      EXPECT_EQ(word, std::string(level) == "word");
      const nlohmann::json r = run_experiment(*e, HanAttentionModel(m, word), data, o);
      ASSERT_EQ(r["rows"].size(), 4u) << name;
      EXPECT_TRUE(r["rows"][3].contains("skipped")) << name;  // the empty document
      EXPECT_FALSE(r["rows"][0].contains("skipped")) << name << " " << level;
      if (e->name == "erase-until-flip") {
        for (const char* rk : {"attention", "gradient", "attention_x_gradient", "leave_one_out", "random"}) {
          const double fr = r["rows"][0][rk]["fraction"];
          EXPECT_GT(fr, 0.0);
          EXPECT_LE(fr, 1.0);
        }
      }
      if (e->name == "erase-max") {
        EXPECT_GE(r["rows"][0]["jsd_max"].get<double>(), 0.0);
        EXPECT_LE(r["rows"][0]["jsd_max"].get<double>(), std::log(2.0) + 1e-12);
        EXPECT_NE(r["rows"][0]["max_attention"], r["rows"][0]["random_attention"]);
      }
    }
  }
  // The level is checked, and what a HAN cannot run is named (negative controls).
  nlohmann::json params = {{"level", "paragraph"}};
  bool word = false;
  EXPECT_NE(check_han_experiment(*find_experiment("erase-max"), m, &params, &word).find("level"), std::string::npos);
  params = nlohmann::json::object();
  EXPECT_NE(check_han_experiment(*find_experiment("randomization"), m, &params, &word), "");
  params = {{"steps", 3}};
  EXPECT_NE(check_han_experiment(*find_experiment("kendall"), m, &params, &word), "");
}

// ---- global view ----

// Synthetic data: random filler words; the label is 1 exactly when the word "magic" occurs.
std::vector<std::vector<std::string>> synthetic(int n, Rng& rng, std::vector<int>* labels) {
  const std::vector<std::string> filler = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
  std::vector<std::vector<std::string>> out;
  for (int k = 0; k < n; ++k) {
    std::vector<std::string> s;
    const int len = 6 + static_cast<int>(rng.below(10));
    for (int t = 0; t < len; ++t) s.push_back(filler[rng.below(filler.size())]);
    const int label = k % 2;
    if (label) s[rng.below(s.size())] = "magic";
    out.push_back(s);
    labels->push_back(label);
  }
  return out;
}

TEST(GlobalView, TheDecisiveWordRanksFirstFlatModel) {
  Rng rng(21);
  std::vector<int> labels;
  const auto texts = synthetic(1000, rng, &labels);
  TextModel m;
  m.vocab = Vocab::build(texts, 1);
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 8;
  m.config.hidden_dim = 8;
  m.class_names = {"negative", "positive"};
  Rng init(3);
  m.params.init(m.config, init);
  std::vector<EncodedExample> train, dev;
  for (size_t k = 0; k < texts.size(); ++k) (k % 5 == 4 ? dev : train).push_back({labels[k], m.vocab.ids(texts[k])});
  TrainOptions o;
  o.epochs = 5;
  o.adam.lr = 0.01;
  train_text_model(m.config, m.params, train, dev, o);
  std::vector<std::vector<int>> ids;
  for (const auto& ex : train) ids.push_back(ex.ids);
  const GlobalView v = global_view_text(m, ids);
  ASSERT_EQ(v.error, "");
  ASSERT_EQ(v.items.size(), 11u);  // 10 fillers + magic
  ASSERT_EQ(v.items[0].text, "magic");
  EXPECT_EQ(v.items[0].count, 500 * 4 / 5);
  EXPECT_EQ(v.items[0].predicted_class, 1);
  // The score is linear on the PCA plane: score_at_mean + x q1 + y q2 for points in the plane.
  const nlohmann::json j = nlohmann::json::parse(global_view_json(v, 3, m.class_names));
  EXPECT_EQ(j["words"][0]["text"], "magic");
  EXPECT_EQ(j["words"].size(), 6u);
  ASSERT_FALSE(j["per_class"]["positive"]["top"].empty());
  EXPECT_EQ(j["per_class"]["positive"]["top"][0]["text"], "magic");
  // Dot attention has no query of this form.
  TextModel dot = m;
  dot.config.attention = AttentionKind::Dot;
  EXPECT_NE(global_view_text(dot, ids).error, "");
}

TEST(GlobalView, TheDecisiveWordRanksFirstHan) {
  Rng rng(22);
  std::vector<int> labels;
  const auto sents = synthetic(3000, rng, &labels);
  HanModel m;
  m.vocab = Vocab::build(sents, 1);
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 8;
  m.config.word_hidden = 6;
  m.config.sentence_hidden = 4;
  m.class_names = {"negative", "positive"};
  Rng init(5);
  m.params.init(m.config, init);
  // Documents of three sentences; a positive document has one sentence with "magic" (at a random place).
  std::vector<std::vector<int>> pos, neg;
  for (size_t k = 0; k < sents.size(); ++k) (labels[k] ? pos : neg).push_back(m.vocab.ids(sents[k]));
  std::vector<HanExample> train, dev;
  size_t ip = 0, in = 0;
  for (int d = 0; ip < pos.size() && in + 3 <= neg.size(); ++d) {
    HanExample ex;
    ex.label = d % 2;
    for (int i = 0; i < 3; ++i) ex.doc.push_back(neg[in++]);
    if (ex.label) ex.doc[rng.below(3)] = pos[ip++];
    (d % 5 == 4 ? dev : train).push_back(ex);
  }
  ASSERT_GT(train.size(), 300u);
  TrainOptions o;
  o.epochs = 5;
  o.adam.lr = 0.01;
  train_han_model(m.config, m.params, train, dev, o);
  std::vector<HanDocument> docs;
  for (const auto& ex : train) docs.push_back(ex.doc);
  const GlobalView v = global_view_han(m, docs, "word");
  ASSERT_EQ(v.error, "");
  ASSERT_EQ(v.items[0].text, "magic");
  const GlobalView s = global_view_han(m, docs, "sentence");
  ASSERT_EQ(s.error, "");
  EXPECT_NE(s.items[0].text.find("magic"), std::string::npos) << s.items[0].text;
  HanModel u = m;
  u.config.word_attention = AttentionKind::Uniform;
  EXPECT_NE(global_view_han(u, docs, "word").error, "");
}

}  // namespace
}  // namespace attnlab
