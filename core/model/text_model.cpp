#include "model/text_model.h"

#include <algorithm>
#include <cmath>

#include "nn/embedding.h"
#include "nn/init.h"
#include "nn/loss.h"

namespace attnlab {

template <class T>
void TextParams<T>::resize(const TextConfig& c) {
  const int E = c.embedding_dim, H = c.hidden_dim;
  embedding = Mat<T>::Zero(E, c.vocab_size);
  encoder = {};
  mlp = {};
  transformer = {};
  attention = {};
  if (c.encoder == EncoderKind::Transformer) {
    transformer.resize(c);
    decoder.w = Mat<T>::Zero(c.outputs(), E);
    decoder.b = Mat<T>::Zero(c.outputs(), 1);
    return;
  }
  if (c.encoder == EncoderKind::BiLstm) {
    encoder.fwd.resize(E, H);
    encoder.bwd.resize(E, H);
  } else {
    mlp.w = Mat<T>::Zero(2 * H, E);
    mlp.b = Mat<T>::Zero(2 * H, 1);
  }
  attention = {};
  if (c.attention == AttentionKind::Tanh) {
    attention.w1 = Mat<T>::Zero(H, 2 * H);
    attention.b1 = Mat<T>::Zero(H, 1);
    attention.v = Mat<T>::Zero(1, H);
  } else if (c.attention == AttentionKind::Dot) {
    attention.v = Mat<T>::Zero(1, 2 * H);
  }
  decoder.w = Mat<T>::Zero(c.outputs(), 2 * H);
  decoder.b = Mat<T>::Zero(c.outputs(), 1);
}

template <class T>
void TextParams<T>::init(const TextConfig& c, Rng& rng) {
  resize(c);
  for (Eigen::Index j = 0; j < embedding.cols(); ++j)
    for (Eigen::Index i = 0; i < embedding.rows(); ++i) embedding(i, j) = T(rng.normal());
  embedding.col(0).setZero();  // <pad>
  if (c.encoder == EncoderKind::Transformer) {
    transformer.init(c, rng);
    const double kd = 1.0 / std::sqrt(double(c.embedding_dim));
    fill_uniform(decoder.w, kd, rng);
    fill_uniform(decoder.b, kd, rng);
    return;
  }
  if (c.encoder == EncoderKind::BiLstm) {
    const double k_lstm = 1.0 / std::sqrt(double(c.hidden_dim));
    for (LstmParams<T>* l : {&encoder.fwd, &encoder.bwd}) {
      fill_uniform(l->w_ih, k_lstm, rng);
      fill_uniform(l->w_hh, k_lstm, rng);
      fill_uniform(l->bias, k_lstm, rng);
    }
  } else {
    const double k_mlp = 1.0 / std::sqrt(double(c.embedding_dim));
    fill_uniform(mlp.w, k_mlp, rng);
    fill_uniform(mlp.b, k_mlp, rng);
  }
  if (c.attention == AttentionKind::Tanh) {
    const double k1 = 1.0 / std::sqrt(2.0 * c.hidden_dim);
    fill_uniform(attention.w1, k1, rng);
    fill_uniform(attention.b1, k1, rng);
    fill_uniform(attention.v, 1.0 / std::sqrt(double(c.hidden_dim)), rng);
  } else if (c.attention == AttentionKind::Dot) {
    fill_uniform(attention.v, 1.0 / std::sqrt(2.0 * c.hidden_dim), rng);
  }
  const double kd = 1.0 / std::sqrt(2.0 * c.hidden_dim);
  fill_uniform(decoder.w, kd, rng);
  fill_uniform(decoder.b, kd, rng);
}

template <class T>
std::vector<std::pair<std::string, Mat<T>*>> TextParams<T>::named() {
  std::vector<std::pair<std::string, Mat<T>*>> out = {{"embedding.weight", &embedding}};
  if (transformer.cls.size()) {
    for (auto& nm : transformer.named()) out.push_back(nm);
  } else if (mlp.w.size()) {
    out.push_back({"encoder.mlp.weight", &mlp.w});
    out.push_back({"encoder.mlp.bias", &mlp.b});
  } else {
    out.insert(out.end(), {{"encoder.forward.weight_ih", &encoder.fwd.w_ih},
                           {"encoder.forward.weight_hh", &encoder.fwd.w_hh},
                           {"encoder.forward.bias", &encoder.fwd.bias},
                           {"encoder.backward.weight_ih", &encoder.bwd.w_ih},
                           {"encoder.backward.weight_hh", &encoder.bwd.w_hh},
                           {"encoder.backward.bias", &encoder.bwd.bias}});
  }
  if (attention.w1.size()) out.push_back({"attention.w1.weight", &attention.w1});
  if (attention.b1.size()) out.push_back({"attention.w1.bias", &attention.b1});
  if (attention.v.size()) out.push_back({"attention.v.weight", &attention.v});
  out.push_back({"decoder.weight", &decoder.w});
  out.push_back({"decoder.bias", &decoder.b});
  return out;
}

template <class T>
std::vector<std::pair<std::string, const Mat<T>*>> TextParams<T>::named() const {
  std::vector<std::pair<std::string, const Mat<T>*>> out;
  for (auto& [name, m] : const_cast<TextParams<T>*>(this)->named()) out.push_back({name, m});
  return out;
}

template <class T>
std::vector<Mat<T>*> TextParams<T>::list() {
  std::vector<Mat<T>*> out;
  for (auto& nm : named()) out.push_back(nm.second);
  return out;
}

template <class T>
void TextParams<T>::set_zero() {
  for (Mat<T>* m : list()) m->setZero();
}

template <class T>
template <class U>
TextParams<U> TextParams<T>::cast() const {
  TextParams<U> out;
  out.embedding = embedding.template cast<U>();
  out.mlp = {mlp.w.template cast<U>(), mlp.b.template cast<U>()};
  out.transformer = transformer.template cast<U>();
  out.encoder.fwd = {encoder.fwd.w_ih.template cast<U>(), encoder.fwd.w_hh.template cast<U>(),
                     encoder.fwd.bias.template cast<U>()};
  out.encoder.bwd = {encoder.bwd.w_ih.template cast<U>(), encoder.bwd.w_hh.template cast<U>(),
                     encoder.bwd.bias.template cast<U>()};
  out.attention = {attention.w1.template cast<U>(), attention.b1.template cast<U>(), attention.v.template cast<U>()};
  out.decoder = {decoder.w.template cast<U>(), decoder.b.template cast<U>()};
  return out;
}

TextBatch TextBatch::from_sequences(const std::vector<std::vector<int>>& seqs) {
  TextBatch batch;
  const int B = static_cast<int>(seqs.size());
  for (const auto& s : seqs) {
    batch.lengths.push_back(static_cast<int>(s.size()));
    batch.steps = std::max(batch.steps, static_cast<int>(s.size()));
  }
  batch.ids.assign(static_cast<size_t>(batch.steps) * B, 0);
  for (int b = 0; b < B; ++b)
    for (size_t t = 0; t < seqs[b].size(); ++t) batch.ids[t * B + b] = seqs[b][t];
  return batch;
}

template <class T>
void text_forward(const TextConfig& cfg, const TextParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths,
                  TextCache<T>& c, const Mat<T>* alpha_override) {
  const int B = static_cast<int>(lengths.size());
  c.lengths = lengths;
  c.steps = B > 0 ? static_cast<int>(x.cols() / B) : 0;
  c.x = x;
  if (cfg.encoder == EncoderKind::Transformer) {
    transformer_forward(cfg, p.transformer, p.decoder, x, lengths, c.transformer, c.logits, alpha_override, c.run);
    c.attention.alpha = c.transformer.alpha;
    c.attention.imposed = alpha_override != nullptr;
    if (alpha_override) c.attention.alpha = *alpha_override;
    return;
  }
  if (cfg.encoder == EncoderKind::BiLstm) {
    bilstm_forward(p.encoder, x, lengths, c.steps, c.encoder, cfg.orthogonal);
  } else {
    linear_forward(p.mlp, x, c.encoder.out);
    c.encoder.out = c.encoder.out.array().tanh().matrix();
  }
  attention_forward(cfg.attention, p.attention, c.encoder.out, lengths, c.steps, c.attention, alpha_override);
  linear_forward(p.decoder, c.attention.context, c.logits);
}

template <class T>
void text_forward_ids(const TextConfig& cfg, const TextParams<T>& p, const TextBatch& batch, TextCache<T>& c,
                      const Mat<T>* alpha_override) {
  Mat<T> x;
  embedding_forward(p.embedding, batch.ids, x);
  text_forward(cfg, p, x, batch.lengths, c, alpha_override);
}

template <class T>
void text_backward(const TextConfig& cfg, const TextParams<T>& p, const TextCache<T>& c, const Mat<T>& d_logits,
                   BackwardOptions opts, TextParams<T>* grads, Mat<T>* d_x, Mat<T>* d_alpha,
                   const Mat<T>* d_alpha_extra, const Mat<T>* d_states_extra) {
  if (cfg.encoder == EncoderKind::Transformer) {  // d_alpha_extra / d_states_extra (losses on them): not supported
    (void)d_alpha_extra;
    (void)d_states_extra;
    TransformerBackwardOptions to;
    to.detach_attention = opts.detach_attention;
    transformer_backward<T>(cfg, p.transformer, p.decoder, c.transformer, d_logits, to,
                         grads ? &grads->transformer : nullptr, grads ? &grads->decoder : nullptr, d_x, nullptr,
                         d_alpha);
    return;
  }
  Mat<T> d_context;
  linear_backward(p.decoder, c.attention.context, d_logits, grads ? &grads->decoder : nullptr, &d_context);
  Mat<T> d_h = d_states_extra ? *d_states_extra : Mat<T>::Zero(c.encoder.out.rows(), c.encoder.out.cols());
  attention_backward(cfg.attention, p.attention, c.encoder.out, c.lengths, c.steps, c.attention, d_context,
                     opts.detach_attention, d_h, grads ? &grads->attention : nullptr, d_alpha, d_alpha_extra);
  if (cfg.encoder == EncoderKind::BiLstm) {
    bilstm_backward(p.encoder, c.x, c.encoder, d_h, grads ? &grads->encoder : nullptr, d_x);
  } else {
    const Mat<T> d_pre = (d_h.array() * (T(1) - c.encoder.out.array().square())).matrix();
    linear_backward(p.mlp, c.x, d_pre, grads ? &grads->mlp : nullptr, d_x);
  }
}

template <class T>
Mat<T> empty_input_logits(const TextConfig& cfg, const TextParams<T>& p) {
  if (cfg.encoder != EncoderKind::Transformer) return p.decoder.b;
  TextCache<T> cache;
  const Mat<T> none = Mat<T>::Zero(cfg.embedding_dim, 0);
  text_forward<T>(cfg, p, none, {0}, cache);
  return cache.logits;
}

template <class T>
Mat<T> class_probabilities(const TextConfig& cfg, const Mat<T>& logits) {
  if (cfg.outputs() == 1) {
    Mat<T> p(2, logits.cols());
    for (Eigen::Index b = 0; b < logits.cols(); ++b) {
      p(1, b) = sigmoid(logits(0, b));
      p(0, b) = T(1) - p(1, b);
    }
    return p;
  }
  return softmax_columns(logits);
}

#define ATTNLAB_INSTANTIATE(T)                                                                              \
  template struct TextParams<T>;                                                                            \
  template void text_forward<T>(const TextConfig&, const TextParams<T>&, const Mat<T>&, const std::vector<int>&, \
                                TextCache<T>&, const Mat<T>*);                                              \
  template void text_forward_ids<T>(const TextConfig&, const TextParams<T>&, const TextBatch&, TextCache<T>&, \
                                    const Mat<T>*);                                                         \
  template void text_backward<T>(const TextConfig&, const TextParams<T>&, const TextCache<T>&, const Mat<T>&, \
                                 BackwardOptions, TextParams<T>*, Mat<T>*, Mat<T>*, const Mat<T>*,          \
                                 const Mat<T>*);                                                           \
  template Mat<T> class_probabilities<T>(const TextConfig&, const Mat<T>&);                               \
  template Mat<T> empty_input_logits<T>(const TextConfig&, const TextParams<T>&);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE
template TextParams<double> TextParams<float>::cast<double>() const;
template TextParams<float> TextParams<double>::cast<float>() const;
template TextParams<float> TextParams<float>::cast<float>() const;

}  // namespace attnlab
