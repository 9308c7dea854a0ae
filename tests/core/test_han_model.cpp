// HAN (core/model/han_model, han_checkpoint): end-to-end gradient checks in double for every parameter,
// the embedded words, the sentence vectors and the attention weights at both levels (tanh and uniform
// variants, ragged batches incl. an empty document); batching invariances (chunk size, a document alone vs
// in a batch); the checkpoint round trip and its error messages.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "model/han_checkpoint.h"
#include "model/han_model.h"

namespace attnlab {
namespace {

using test::expect_gradient;

HanConfig small_config(AttentionKind word, AttentionKind sentence, int classes = 2) {
  HanConfig c;
  c.vocab_size = 7;
  c.embedding_dim = 3;
  c.word_hidden = 2;
  c.sentence_hidden = 2;
  c.word_attention = word;
  c.sentence_attention = sentence;
  c.num_classes = classes;
  return c;
}

std::vector<HanDocument> small_docs() {
  return {{{2, 3, 4}, {5}, {6, 2}},          // three sentences
          {{3, 3, 1, 4, 5, 6}},              // one long sentence
          {},                                // no sentence
          {{4, 2}, {1, 6, 5, 3}}};           // two
}

void check_all(const HanConfig& cfg, int seed) {
  Rng rng(seed);
  HanParams<double> p;
  p.init(cfg, rng);
  for (Mat<double>* m : p.list()) *m = test::random_mat(m->rows(), m->cols(), rng, 0.7);
  const auto docs = small_docs();
  const Mat<double> G = test::random_mat(cfg.outputs(), static_cast<Eigen::Index>(docs.size()), rng, 1.0);
  HanForwardOptions fo;
  fo.chunk_sentences = 3;  // several word chunks
  auto loss = [&]() {
    HanCache<double> c;
    han_forward(cfg, p, docs, c, {}, fo);
    return c.logits.cwiseProduct(G).sum();
  };
  HanCache<double> c;
  han_forward(cfg, p, docs, c, {}, fo);
  HanParams<double> g;
  g.resize(cfg);
  HanGradients<double> out;
  han_backward(cfg, p, c, G, {}, &g, &out);
  auto pn = p.named();
  auto gl = g.list();
  for (size_t i = 0; i < pn.size(); ++i) expect_gradient(pn[i].first, *pn[i].second, *gl[i], loss);

  // Sentence vectors: through the sentence level alone.
  Mat<double> sv = c.sentence_vectors;
  const std::vector<int> counts = c.doc_count;
  auto sent_loss = [&]() {
    HanCache<double> cs;
    han_sentence_forward(cfg, p, sv, counts, cs);
    return cs.logits.cwiseProduct(G).sum();
  };
  expect_gradient("sentence vectors", sv, out.d_sentence_vectors, sent_loss);

  // Embedded words: the input scale of document 0 perturbs all its words at once -> d/dscale = sum x . d_x.
  std::vector<double> scale(docs.size(), 1.0);
  HanOverrides<double> ov;
  ov.input_scale = &scale;
  auto scaled_loss = [&]() {
    HanCache<double> cs;
    han_forward(cfg, p, docs, cs, ov, fo);
    return cs.logits.cwiseProduct(G).sum();
  };
  double analytic = 0;
  for (int i = 0; i < c.doc_count[0]; ++i) {
    const int gidx = c.doc_first[0] + i;
    for (size_t t = 0; t < docs[0][i].size(); ++t) analytic += out.d_words[gidx].col(t).dot(p.embedding.col(docs[0][i][t]));
  }
  Mat<double> s0(1, 1);
  s0(0, 0) = 1.0;
  Mat<double> a0(1, 1);
  a0(0, 0) = analytic;
  auto s_loss = [&]() {
    scale[0] = s0(0, 0);
    return scaled_loss();
  };
  expect_gradient("input scale", s0, a0, s_loss);

  // Attention weights as inputs (imposed), both levels: d_word_alpha, d_sentence_alpha.
  std::vector<std::vector<double>> wa(c.S);
  for (int gi = 0; gi < c.S; ++gi) wa[gi] = han_word_alpha(c, gi);
  Mat<double> sa = c.sentence_attention.alpha;
  HanOverrides<double> ova;
  ova.word_alpha = &wa;
  ova.sentence_alpha = &sa;
  auto alpha_loss = [&]() {
    HanCache<double> cs;
    han_forward(cfg, p, docs, cs, ova, fo);
    return cs.logits.cwiseProduct(G).sum();
  };
  HanCache<double> ca;
  han_forward(cfg, p, docs, ca, ova, fo);
  EXPECT_LT((ca.logits - c.logits).cwiseAbs().maxCoeff(), 1e-12);  // imposing the own weights changes nothing
  HanGradients<double> outa;
  han_backward<double>(cfg, p, ca, G, {}, nullptr, &outa);
  expect_gradient("sentence alpha", sa, outa.d_sentence_alpha, alpha_loss);
  // word alpha of global sentence 0 (3 tokens)
  Mat<double> w0(1, static_cast<Eigen::Index>(wa[0].size())), dw0(1, static_cast<Eigen::Index>(wa[0].size()));
  for (size_t t = 0; t < wa[0].size(); ++t) {
    w0(0, t) = wa[0][t];
    dw0(0, t) = outa.d_word_alpha[0][t];
  }
  auto w_loss = [&]() {
    for (size_t t = 0; t < wa[0].size(); ++t) wa[0][t] = w0(0, t);
    return alpha_loss();
  };
  expect_gradient("word alpha", w0, dw0, w_loss);
}

TEST(HanModel, GradientCheckTanhBothLevels) { check_all(small_config(AttentionKind::Tanh, AttentionKind::Tanh), 1); }
TEST(HanModel, GradientCheckUniformWords) { check_all(small_config(AttentionKind::Uniform, AttentionKind::Tanh), 2); }
TEST(HanModel, GradientCheckUniformSentences) {
  check_all(small_config(AttentionKind::Tanh, AttentionKind::Uniform, 3), 3);
}

TEST(HanModel, DetachedAttentionGradient) {
  // With both levels detached, the gradient equals the one of a model whose weights are imposed constants.
  const HanConfig cfg = small_config(AttentionKind::Tanh, AttentionKind::Tanh);
  Rng rng(4);
  HanParams<double> p;
  p.init(cfg, rng);
  const auto docs = small_docs();
  const Mat<double> G = test::random_mat(1, 4, rng, 1.0);
  HanCache<double> c;
  han_forward(cfg, p, docs, c);
  HanBackwardOptions det;
  det.detach_word_attention = det.detach_sentence_attention = true;
  HanGradients<double> a, b;
  han_backward<double>(cfg, p, c, G, det, nullptr, &a);
  std::vector<std::vector<double>> wa(c.S);
  for (int g = 0; g < c.S; ++g) wa[g] = han_word_alpha(c, g);
  Mat<double> sa = c.sentence_attention.alpha;
  HanOverrides<double> ov;
  ov.word_alpha = &wa;
  ov.sentence_alpha = &sa;
  HanCache<double> ci;
  han_forward(cfg, p, docs, ci, ov);
  han_backward<double>(cfg, p, ci, G, {}, nullptr, &b);
  for (int g = 0; g < c.S; ++g) EXPECT_LT((a.d_words[g] - b.d_words[g]).cwiseAbs().maxCoeff(), 1e-12);
  // ... and differs from the undetached gradient.
  HanGradients<double> full;
  han_backward<double>(cfg, p, c, G, {}, nullptr, &full);
  EXPECT_GT((full.d_words[0] - a.d_words[0]).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(HanModel, BatchingInvariances) {
  const HanConfig cfg = small_config(AttentionKind::Tanh, AttentionKind::Tanh);
  Rng rng(9);
  HanParams<double> p;
  p.init(cfg, rng);
  const auto docs = small_docs();
  HanCache<double> a, b;
  HanForwardOptions one, many;
  one.chunk_sentences = 1;
  many.chunk_sentences = 100;
  han_forward(cfg, p, docs, a, {}, one);
  han_forward(cfg, p, docs, b, {}, many);
  EXPECT_LT((a.logits - b.logits).cwiseAbs().maxCoeff(), 1e-12);
  for (size_t d = 0; d < docs.size(); ++d) {
    HanCache<double> s;
    han_forward(cfg, p, {docs[d]}, s);
    EXPECT_LT(std::abs(s.logits(0, 0) - b.logits(0, d)), 1e-12) << "document " << d;
  }
  EXPECT_LT(std::abs(b.logits(0, 2) - p.classifier.b(0, 0)), 1e-15);  // the empty document: the bias alone
}

TEST(HanCheckpoint, RoundTripAndErrors) {
  HanModel m;
  m.config = small_config(AttentionKind::Tanh, AttentionKind::Uniform);
  m.vocab = Vocab({"<pad>", "<unk>", "a", "b", "c", "d", "e"});
  m.class_names = {"negative", "positive"};
  Rng rng(2);
  m.params.init(m.config, rng);
  m.split.max_sentences = 7;
  const std::string cfg = han_model_config_json(m);
  EXPECT_EQ(config_format(cfg), "attnlab-han-v1");
  const auto w = han_model_weights(m, StorageType::F32);
  HanModel back;
  std::string err;
  ASSERT_TRUE(load_han_model(cfg, w.data(), w.size(), &back, &err)) << err;
  EXPECT_EQ(back.split.max_sentences, 7);
  EXPECT_TRUE(back.split.run_together);
  std::string old_cfg = cfg;  // a config without the key (the first models): the old splitter
  const size_t k = old_cfg.find("\"split_run_together\"");
  ASSERT_NE(k, std::string::npos);
  old_cfg.replace(k, std::string("\"split_run_together\": true").size(), "\"x_unused\": 0");
  ASSERT_TRUE(load_han_model(old_cfg, w.data(), w.size(), &back, &err)) << err;
  EXPECT_FALSE(back.split.run_together);
  EXPECT_FALSE(back.split.lower_case_starts);  // absent: the capital-letter rule of the shipped models
  EXPECT_EQ(cfg.find("split_lower_case"), std::string::npos);  // off is not written: the shipped files stay as they are
  {
    HanModel lc = m;
    lc.split.lower_case_starts = true;
    const std::string lc_cfg = han_model_config_json(lc);
    ASSERT_TRUE(load_han_model(lc_cfg, w.data(), w.size(), &back, &err)) << err;
    EXPECT_TRUE(back.split.lower_case_starts);
    std::string bad_lc = lc_cfg;
    bad_lc.replace(bad_lc.find("\"split_lower_case\": true"), std::string("\"split_lower_case\": true").size(),
                   "\"split_lower_case\": 1");
    EXPECT_FALSE(load_han_model(bad_lc, w.data(), w.size(), &back, &err));
    EXPECT_EQ(err, "config.json: 'split_lower_case' must be true or false");
  }
  ASSERT_TRUE(load_han_model(old_cfg, w.data(), w.size(), &back, &err)) << err;
  EXPECT_EQ(back.config.sentence_attention, AttentionKind::Uniform);
  auto a = m.params.named();
  auto b = back.params.named();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(*a[i].second, *b[i].second) << a[i].first;
  // Errors name the problem.
  EXPECT_FALSE(load_han_model("{\"format\":\"attnlab-text-v1\"}", w.data(), w.size(), &back, &err));
  EXPECT_NE(err.find("attnlab-han-v1"), std::string::npos) << err;
  std::string bad = cfg;
  bad.replace(bad.find("\"uniform\""), 9, "\"dot\"");
  EXPECT_FALSE(load_han_model(bad, w.data(), w.size(), &back, &err));
  EXPECT_NE(err.find("sentence_attention"), std::string::npos) << err;
  HanModel other = m;
  other.config.word_hidden = 3;
  other.params.init(other.config, rng);
  const auto w2 = han_model_weights(other, StorageType::F16);
  EXPECT_FALSE(load_han_model(cfg, w2.data(), w2.size(), &back, &err));
  EXPECT_NE(err.find("has shape"), std::string::npos) << err;
  EXPECT_FALSE(load_han_model(cfg, w.data(), 10, &back, &err));
  EXPECT_EQ(config_format("not json"), "");
}

}  // namespace
}  // namespace attnlab
