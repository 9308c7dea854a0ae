#include "model/han_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "nn/embedding.h"
#include "nn/init.h"
#include "nn/loss.h"

namespace attnlab {

template <class T>
void HanParams<T>::resize(const HanConfig& c) {
  const int E = c.embedding_dim, Hw = c.word_hidden, Hs = c.sentence_hidden;
  embedding = Mat<T>::Zero(E, c.vocab_size);
  word_encoder.fwd.resize(E, Hw);
  word_encoder.bwd.resize(E, Hw);
  sentence_encoder.fwd.resize(2 * Hw, Hs);
  sentence_encoder.bwd.resize(2 * Hw, Hs);
  auto att = [](AttentionParams<T>& a, AttentionKind kind, int in, int dim) {
    a = {};
    if (kind != AttentionKind::Tanh) return;
    a.w1 = Mat<T>::Zero(dim, in);
    a.b1 = Mat<T>::Zero(dim, 1);
    a.v = Mat<T>::Zero(1, dim);
  };
  att(word_attention, c.word_attention, 2 * Hw, c.word_attention_dim());
  att(sentence_attention, c.sentence_attention, 2 * Hs, c.sentence_attention_dim());
  classifier.w = Mat<T>::Zero(c.outputs(), 2 * Hs);
  classifier.b = Mat<T>::Zero(c.outputs(), 1);
}

template <class T>
void HanParams<T>::init(const HanConfig& c, Rng& rng) {
  resize(c);
  for (Eigen::Index j = 0; j < embedding.cols(); ++j)
    for (Eigen::Index i = 0; i < embedding.rows(); ++i) embedding(i, j) = T(rng.normal());
  embedding.col(0).setZero();  // <pad>
  for (BiGruParams<T>* enc : {&word_encoder, &sentence_encoder}) {
    const double k = 1.0 / std::sqrt(double(enc->hidden()));
    for (Mat<T>* m : enc->list()) fill_uniform(*m, k, rng);
  }
  for (AttentionParams<T>* a : {&word_attention, &sentence_attention}) {
    if (!a->w1.size()) continue;
    const double k = 1.0 / std::sqrt(double(a->w1.cols()));
    fill_uniform(a->w1, k, rng);
    fill_uniform(a->b1, k, rng);
    fill_uniform(a->v, 1.0 / std::sqrt(double(a->v.cols())), rng);
  }
  const double kc = 1.0 / std::sqrt(double(classifier.w.cols()));
  fill_uniform(classifier.w, kc, rng);
  fill_uniform(classifier.b, kc, rng);
}

template <class T>
std::vector<std::pair<std::string, Mat<T>*>> HanParams<T>::named() {
  std::vector<std::pair<std::string, Mat<T>*>> out = {{"embedding.weight", &embedding}};
  auto gru = [&](const std::string& prefix, BiGruParams<T>& g) {
    for (int d = 0; d < 2; ++d) {
      GruParams<T>& p = d ? g.bwd : g.fwd;
      const std::string pre = prefix + (d ? ".backward." : ".forward.");
      out.push_back({pre + "weight_ih", &p.w_ih});
      out.push_back({pre + "weight_hh", &p.w_hh});
      out.push_back({pre + "bias_ih", &p.b_ih});
      out.push_back({pre + "bias_hh", &p.b_hh});
    }
  };
  auto att = [&](const std::string& prefix, AttentionParams<T>& a) {
    if (!a.w1.size()) return;
    out.push_back({prefix + ".weight", &a.w1});
    out.push_back({prefix + ".bias", &a.b1});
    out.push_back({prefix + ".context", &a.v});
  };
  gru("word_encoder", word_encoder);
  att("word_attention", word_attention);
  gru("sentence_encoder", sentence_encoder);
  att("sentence_attention", sentence_attention);
  out.push_back({"classifier.weight", &classifier.w});
  out.push_back({"classifier.bias", &classifier.b});
  return out;
}

template <class T>
std::vector<std::pair<std::string, const Mat<T>*>> HanParams<T>::named() const {
  std::vector<std::pair<std::string, const Mat<T>*>> out;
  for (auto& [name, m] : const_cast<HanParams<T>*>(this)->named()) out.push_back({name, m});
  return out;
}

template <class T>
std::vector<Mat<T>*> HanParams<T>::list() {
  std::vector<Mat<T>*> out;
  for (auto& nm : named()) out.push_back(nm.second);
  return out;
}

template <class T>
void HanParams<T>::set_zero() {
  for (Mat<T>* m : list()) m->setZero();
}

template <class T>
template <class U>
HanParams<U> HanParams<T>::cast() const {
  HanParams<U> out;
  out.embedding = embedding.template cast<U>();
  auto gru = [](const BiGruParams<T>& g) {
    BiGruParams<U> o;
    o.fwd = {g.fwd.w_ih.template cast<U>(), g.fwd.w_hh.template cast<U>(), g.fwd.b_ih.template cast<U>(),
             g.fwd.b_hh.template cast<U>()};
    o.bwd = {g.bwd.w_ih.template cast<U>(), g.bwd.w_hh.template cast<U>(), g.bwd.b_ih.template cast<U>(),
             g.bwd.b_hh.template cast<U>()};
    return o;
  };
  auto att = [](const AttentionParams<T>& a) {
    return AttentionParams<U>{a.w1.template cast<U>(), a.b1.template cast<U>(), a.v.template cast<U>()};
  };
  out.word_encoder = gru(word_encoder);
  out.sentence_encoder = gru(sentence_encoder);
  out.word_attention = att(word_attention);
  out.sentence_attention = att(sentence_attention);
  out.classifier = {classifier.w.template cast<U>(), classifier.b.template cast<U>()};
  return out;
}

template <class T>
void han_sentence_forward(const HanConfig& cfg, const HanParams<T>& p, const Mat<T>& sv, const std::vector<int>& doc_count,
                          HanCache<T>& c, const Mat<T>* sentence_alpha) {
  const int D = static_cast<int>(doc_count.size());
  c.D = D;
  c.doc_count = doc_count;
  c.doc_first.assign(D, 0);
  c.S = 0;
  c.smax = 0;
  for (int d = 0; d < D; ++d) {
    c.doc_first[d] = c.S;
    c.S += doc_count[d];
    c.smax = std::max(c.smax, doc_count[d]);
  }
  if (&sv != &c.sentence_vectors) c.sentence_vectors = sv;
  c.xs = Mat<T>::Zero(sv.rows(), static_cast<Eigen::Index>(c.smax) * D);
  for (int d = 0; d < D; ++d)
    for (int i = 0; i < doc_count[d]; ++i) c.xs.col(static_cast<Eigen::Index>(i) * D + d) = sv.col(c.doc_first[d] + i);
  bigru_forward(p.sentence_encoder, c.xs, doc_count, c.smax, c.sentence_encoder);
  attention_forward(cfg.sentence_attention, p.sentence_attention, c.sentence_encoder.out, doc_count, c.smax,
                    c.sentence_attention, sentence_alpha);
  linear_forward(p.classifier, c.sentence_attention.context, c.logits);
}

template <class T>
void han_forward(const HanConfig& cfg, const HanParams<T>& p, const std::vector<HanDocument>& docs, HanCache<T>& c,
                 const HanOverrides<T>& ov, const HanForwardOptions& opt) {
  const int D = static_cast<int>(docs.size());
  std::vector<int> doc_count(D);
  c.sentence_doc.clear();
  c.sentence_pos.clear();
  std::vector<const std::vector<int>*> sent;
  for (int d = 0; d < D; ++d) {
    doc_count[d] = static_cast<int>(docs[d].size());
    for (int i = 0; i < doc_count[d]; ++i) {
      c.sentence_doc.push_back(d);
      c.sentence_pos.push_back(i);
      sent.push_back(&docs[d][i]);
    }
  }
  const int S = static_cast<int>(sent.size());
  std::vector<int> order(S);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sent[a]->size() < sent[b]->size(); });
  const int chunk = std::max(1, opt.chunk_sentences);
  const int Hw = cfg.word_hidden;
  c.chunks.clear();
  c.sentence_chunk.assign(S, 0);
  c.sentence_col.assign(S, 0);
  c.sentence_vectors = Mat<T>::Zero(2 * Hw, S);
  for (int a = 0; a < S; a += chunk) {
    HanWordChunk<T> ch;
    const int B = std::min(chunk, S - a);
    ch.sentences.assign(order.begin() + a, order.begin() + a + B);
    for (int b = 0; b < B; ++b) {
      const int g = ch.sentences[b];
      ch.lengths.push_back(static_cast<int>(sent[g]->size()));
      ch.steps = std::max(ch.steps, ch.lengths.back());
      c.sentence_chunk[g] = static_cast<int>(c.chunks.size());
      c.sentence_col[g] = b;
    }
    ch.ids.assign(static_cast<size_t>(ch.steps) * B, 0);
    for (int b = 0; b < B; ++b)
      for (int t = 0; t < ch.lengths[b]; ++t) ch.ids[static_cast<size_t>(t) * B + b] = (*sent[ch.sentences[b]])[t];
    embedding_forward(p.embedding, ch.ids, ch.x);
    ch.scale.assign(B, T(1));
    if (ov.input_scale) {
      for (int b = 0; b < B; ++b) ch.scale[b] = (*ov.input_scale)[c.sentence_doc[ch.sentences[b]]];
      for (int t = 0; t < ch.steps; ++t)
        for (int b = 0; b < B; ++b) ch.x.col(static_cast<Eigen::Index>(t) * B + b) *= ch.scale[b];
    }
    bigru_forward(p.word_encoder, ch.x, ch.lengths, ch.steps, ch.encoder);
    Mat<T> alpha;
    if (ov.word_alpha) {
      alpha = Mat<T>::Zero(ch.steps, B);
      for (int b = 0; b < B; ++b)
        for (int t = 0; t < ch.lengths[b]; ++t) alpha(t, b) = (*ov.word_alpha)[ch.sentences[b]][t];
    }
    attention_forward(cfg.word_attention, p.word_attention, ch.encoder.out, ch.lengths, ch.steps, ch.attention,
                      ov.word_alpha ? &alpha : nullptr);
    for (int b = 0; b < B; ++b) c.sentence_vectors.col(ch.sentences[b]) = ch.attention.context.col(b);
    c.chunks.push_back(std::move(ch));
  }
  han_sentence_forward(cfg, p, c.sentence_vectors, doc_count, c, ov.sentence_alpha);
}

template <class T>
void han_backward(const HanConfig& cfg, const HanParams<T>& p, const HanCache<T>& c, const Mat<T>& d_logits,
                  const HanBackwardOptions& opt, HanParams<T>* grads, HanGradients<T>* out) {
  const int D = c.D;
  Mat<T> d_ctx;
  linear_backward(p.classifier, c.sentence_attention.context, d_logits, grads ? &grads->classifier : nullptr, &d_ctx);
  Mat<T> d_hs = Mat<T>::Zero(c.sentence_encoder.out.rows(), c.sentence_encoder.out.cols());
  Mat<T> d_beta;
  attention_backward(cfg.sentence_attention, p.sentence_attention, c.sentence_encoder.out, c.doc_count, c.smax,
                     c.sentence_attention, d_ctx, opt.detach_sentence_attention, d_hs,
                     grads ? &grads->sentence_attention : nullptr, &d_beta);
  Mat<T> d_xs;
  bigru_backward(p.sentence_encoder, c.xs, c.sentence_encoder, d_hs, grads ? &grads->sentence_encoder : nullptr, &d_xs);
  Mat<T> d_sv = Mat<T>::Zero(c.xs.rows(), c.S);
  for (int d = 0; d < D; ++d)
    for (int i = 0; i < c.doc_count[d]; ++i) d_sv.col(c.doc_first[d] + i) = d_xs.col(static_cast<Eigen::Index>(i) * D + d);
  if (out) {
    out->d_sentence_vectors = d_sv;
    out->d_sentence_alpha = d_beta;
    out->d_words.assign(c.S, Mat<T>());
    out->d_word_alpha.assign(c.S, {});
  }
  if (opt.sentence_level_only) return;
  for (const HanWordChunk<T>& ch : c.chunks) {
    const int B = static_cast<int>(ch.sentences.size());
    Mat<T> d_cw(d_sv.rows(), B);
    for (int b = 0; b < B; ++b) d_cw.col(b) = d_sv.col(ch.sentences[b]);
    Mat<T> d_h = Mat<T>::Zero(ch.encoder.out.rows(), ch.encoder.out.cols());
    Mat<T> d_alpha;
    attention_backward(cfg.word_attention, p.word_attention, ch.encoder.out, ch.lengths, ch.steps, ch.attention, d_cw,
                       opt.detach_word_attention, d_h, grads ? &grads->word_attention : nullptr, &d_alpha);
    Mat<T> d_x;
    bigru_backward(p.word_encoder, ch.x, ch.encoder, d_h, grads ? &grads->word_encoder : nullptr, &d_x);
    if (grads) {
      // x = scale * E[id]: dL/dE[id] = scale * dL/dx.
      Mat<T> d_e = d_x;
      for (int b = 0; b < B; ++b)
        if (ch.scale[b] != T(1))
          for (int t = 0; t < ch.steps; ++t) d_e.col(static_cast<Eigen::Index>(t) * B + b) *= ch.scale[b];
      embedding_backward(ch.ids, d_e, grads->embedding);
    }
    if (out) {
      for (int b = 0; b < B; ++b) {
        const int g = ch.sentences[b], n = ch.lengths[b];
        Mat<T>& dw = out->d_words[g];
        dw.resize(d_x.rows(), n);
        std::vector<T>& da = out->d_word_alpha[g];
        da.resize(n);
        for (int t = 0; t < n; ++t) {
          dw.col(t) = d_x.col(static_cast<Eigen::Index>(t) * B + b);
          da[t] = d_alpha(t, b);
        }
      }
    }
  }
}

template <class T>
std::vector<T> han_word_alpha(const HanCache<T>& c, int g) {
  const HanWordChunk<T>& ch = c.chunks[c.sentence_chunk[g]];
  const int b = c.sentence_col[g];
  std::vector<T> out(ch.lengths[b]);
  for (int t = 0; t < ch.lengths[b]; ++t) out[t] = ch.attention.alpha(t, b);
  return out;
}

template <class T>
Mat<T> han_class_probabilities(const HanConfig& cfg, const Mat<T>& logits) {
  if (cfg.outputs() == 1) {
    Mat<T> pr(2, logits.cols());
    for (Eigen::Index b = 0; b < logits.cols(); ++b) {
      pr(1, b) = sigmoid(logits(0, b));
      pr(0, b) = T(1) - pr(1, b);
    }
    return pr;
  }
  return softmax_columns(logits);
}

#define ATTNLAB_INSTANTIATE(T)                                                                                  \
  template struct HanParams<T>;                                                                                 \
  template void han_forward<T>(const HanConfig&, const HanParams<T>&, const std::vector<HanDocument>&,          \
                               HanCache<T>&, const HanOverrides<T>&, const HanForwardOptions&);                 \
  template void han_sentence_forward<T>(const HanConfig&, const HanParams<T>&, const Mat<T>&,                   \
                                        const std::vector<int>&, HanCache<T>&, const Mat<T>*);                  \
  template void han_backward<T>(const HanConfig&, const HanParams<T>&, const HanCache<T>&, const Mat<T>&,       \
                                const HanBackwardOptions&, HanParams<T>*, HanGradients<T>*);                    \
  template std::vector<T> han_word_alpha<T>(const HanCache<T>&, int);                                           \
  template Mat<T> han_class_probabilities<T>(const HanConfig&, const Mat<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE
template HanParams<double> HanParams<float>::cast<double>() const;
template HanParams<float> HanParams<double>::cast<float>() const;

}  // namespace attnlab
