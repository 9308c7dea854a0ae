// Transformer encoder forward / backward and parameters (contract in transformer.h).
#include "model/transformer.h"

#include <algorithm>
#include <cmath>

#include "model/text_model.h"
#include "nn/dropout.h"
#include "nn/gelu.h"
#include "nn/init.h"

namespace attnlab {

namespace {

template <class T>
void fill_normal(Mat<T>& m, double std, Rng& rng) {
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = T(std * rng.normal());
}

template <class T>
void resize_linear(LinearParams<T>& l, int out, int in) {
  l.w = Mat<T>::Zero(out, in);
  l.b = Mat<T>::Zero(out, 1);
}

template <class T>
void resize_ln(LayerNormParams<T>& l, int d) {
  l.gamma = Mat<T>::Ones(d, 1);
  l.beta = Mat<T>::Zero(d, 1);
}

template <class U, class T>
LinearParams<U> cast_linear(const LinearParams<T>& l) {
  return {l.w.template cast<U>(), l.b.template cast<U>()};
}
template <class U, class T>
LayerNormParams<U> cast_ln(const LayerNormParams<T>& l) {
  return {l.gamma.template cast<U>(), l.beta.template cast<U>()};
}

}  // namespace

template <class T>
void TransformerParams<T>::resize(const TextConfig& c) {
  const int d = c.embedding_dim, F = c.ffn_dim;
  cls = Mat<T>::Zero(d, 1);
  position = Mat<T>::Zero(c.max_len + 1, d);
  layers.assign(c.layers, {});
  for (auto& l : layers) {
    resize_ln(l.ln1, d);
    resize_ln(l.ln2, d);
    for (LinearParams<T>* lin : {&l.attn.q, &l.attn.k, &l.attn.v, &l.attn.o}) resize_linear(*lin, d, d);
    resize_linear(l.fc1, F, d);
    resize_linear(l.fc2, d, F);
  }
  resize_ln(ln_f, d);
}

template <class T>
void TransformerParams<T>::init(const TextConfig& c, Rng& rng) {
  resize(c);
  fill_normal(cls, 0.02, rng);
  fill_normal(position, 0.02, rng);
  for (auto& l : layers) {
    for (LinearParams<T>* lin : {&l.attn.q, &l.attn.k, &l.attn.v, &l.attn.o, &l.fc1, &l.fc2}) {
      const double bound = 1.0 / std::sqrt(double(lin->w.cols()));
      fill_uniform(lin->w, bound, rng);
      fill_uniform(lin->b, bound, rng);
    }
  }
}

template <class T>
std::vector<std::pair<std::string, Mat<T>*>> TransformerParams<T>::named() {
  std::vector<std::pair<std::string, Mat<T>*>> out = {{"transformer.cls", &cls},
                                                       {"transformer.position.weight", &position}};
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string pre = "transformer.layers." + std::to_string(i) + ".";
    auto& l = layers[i];
    out.insert(out.end(), {{pre + "ln1.weight", &l.ln1.gamma},
                           {pre + "ln1.bias", &l.ln1.beta},
                           {pre + "attention.q.weight", &l.attn.q.w},
                           {pre + "attention.q.bias", &l.attn.q.b},
                           {pre + "attention.k.weight", &l.attn.k.w},
                           {pre + "attention.k.bias", &l.attn.k.b},
                           {pre + "attention.v.weight", &l.attn.v.w},
                           {pre + "attention.v.bias", &l.attn.v.b},
                           {pre + "attention.out.weight", &l.attn.o.w},
                           {pre + "attention.out.bias", &l.attn.o.b},
                           {pre + "ln2.weight", &l.ln2.gamma},
                           {pre + "ln2.bias", &l.ln2.beta},
                           {pre + "ffn.fc1.weight", &l.fc1.w},
                           {pre + "ffn.fc1.bias", &l.fc1.b},
                           {pre + "ffn.fc2.weight", &l.fc2.w},
                           {pre + "ffn.fc2.bias", &l.fc2.b}});
  }
  out.push_back({"transformer.ln_final.weight", &ln_f.gamma});
  out.push_back({"transformer.ln_final.bias", &ln_f.beta});
  return out;
}

template <class T>
template <class U>
TransformerParams<U> TransformerParams<T>::cast() const {
  TransformerParams<U> o;
  o.cls = cls.template cast<U>();
  o.position = position.template cast<U>();
  for (const auto& l : layers) {
    TransformerBlockParams<U> b;
    b.ln1 = cast_ln<U>(l.ln1);
    b.ln2 = cast_ln<U>(l.ln2);
    b.attn = {cast_linear<U>(l.attn.q), cast_linear<U>(l.attn.k), cast_linear<U>(l.attn.v), cast_linear<U>(l.attn.o)};
    b.fc1 = cast_linear<U>(l.fc1);
    b.fc2 = cast_linear<U>(l.fc2);
    o.layers.push_back(std::move(b));
  }
  o.ln_f = cast_ln<U>(ln_f);
  return o;
}

template <class T>
void transformer_forward(const TextConfig& cfg, const TransformerParams<T>& p, const LinearParams<T>& decoder,
                         const Mat<T>& x, const std::vector<int>& lengths, TransformerCache<T>& c, Mat<T>& logits,
                         const Mat<T>* alpha_override, TransformerRun run) {
  const int B = static_cast<int>(lengths.size());
  const int d = cfg.embedding_dim, L = static_cast<int>(p.layers.size());
  const int steps = B > 0 ? static_cast<int>(x.cols() / B) : 0;
  Rng rng(run.seed * 0x9E3779B97F4A7C15ULL + 0x5851F42D4C957F2DULL);
  c.B = B;
  c.steps = steps;
  c.lengths = lengths;
  c.truncated = false;
  c.n.resize(B);
  int S = 1;
  for (int b = 0; b < B; ++b) {
    const int kept = std::min(lengths[b], cfg.max_len);
    c.truncated = c.truncated || lengths[b] > kept;
    c.n[b] = kept + 1;
    S = std::max(S, c.n[b]);
  }
  c.S = S;
  c.h0 = Mat<T>::Zero(d, static_cast<Eigen::Index>(B) * S);
  for (int b = 0; b < B; ++b) {
    const Eigen::Index col0 = static_cast<Eigen::Index>(b) * S;
    c.h0.col(col0) = p.cls.col(0) + p.position.row(0).transpose();
    for (int s = 1; s < c.n[b]; ++s)
      c.h0.col(col0 + s) = x.col(static_cast<Eigen::Index>(s - 1) * B + b) + p.position.row(s).transpose();
  }
  dropout_forward(c.h0, run.dropout, rng, c.mask0);
  // The imposed weights, cut to the kept tokens.
  Mat<T> imposed;
  if (alpha_override) imposed = alpha_override->topRows(std::min<Eigen::Index>(alpha_override->rows(), S - 1));
  if (alpha_override && imposed.rows() < S - 1) {
    Mat<T> padded = Mat<T>::Zero(S - 1, B);
    padded.topRows(imposed.rows()) = imposed;
    imposed = padded;
  }
  c.layers.resize(L);
  const Mat<T>* h = &c.h0;
  const bool uniform = cfg.attention == AttentionKind::Uniform;
  for (int l = 0; l < L; ++l) {
    auto& lc = c.layers[l];
    const auto& lp = p.layers[l];
    lc.in = *h;
    layer_norm_forward(lp.ln1, lc.in, lc.y1, lc.ln1);
    Mat<T> a;
    const bool cls_query = run.logits_only && l == L - 1;  // a [d x B]: the [CLS] query only
    mha_forward(lp.attn, cfg.heads, lc.y1, c.n, S, uniform, (alpha_override && l == L - 1) ? &imposed : nullptr,
                lc.attn, a, run.head_off.empty() ? nullptr : run.head_off.data() + static_cast<size_t>(l) * cfg.heads,
                cls_query);
    dropout_forward(a, run.dropout, rng, lc.mask1);
    lc.ffn_cols.clear();
    if (l == L - 1) {
      for (int b = 0; b < B; ++b) lc.ffn_cols.push_back(static_cast<Eigen::Index>(b) * S);
    } else {
      for (Eigen::Index k = 0; k < lc.in.cols(); ++k) lc.ffn_cols.push_back(k);
    }
    const Eigen::Index M = static_cast<Eigen::Index>(lc.ffn_cols.size());
    if (cls_query) {
      lc.mid.resize(0, 0);  // only the [CLS] columns exist
      lc.mid_sel.resize(d, M);
      for (Eigen::Index k = 0; k < M; ++k) lc.mid_sel.col(k) = lc.in.col(lc.ffn_cols[k]) + a.col(k);
    } else {
      lc.mid = lc.in + a;
      if (l == L - 1) {
        lc.mid_sel.resize(d, M);
        for (Eigen::Index k = 0; k < M; ++k) lc.mid_sel.col(k) = lc.mid.col(lc.ffn_cols[k]);
      } else {
        lc.mid_sel = lc.mid;
      }
    }
    layer_norm_forward(lp.ln2, lc.mid_sel, lc.y2, lc.ln2);
    linear_forward(lp.fc1, lc.y2, lc.pre);
    gelu_forward(lc.pre, lc.act);
    Mat<T> f;
    linear_forward(lp.fc2, lc.act, f);
    dropout_forward(f, run.dropout, rng, lc.mask2);
    lc.out = lc.mid_sel + f;
    h = &lc.out;
  }
  if (L == 0) {  // no blocks: the embedding sum itself
    c.top.resize(d, B);
    for (int b = 0; b < B; ++b) c.top.col(b) = c.h0.col(static_cast<Eigen::Index>(b) * S);
  } else {
    c.top = c.layers[L - 1].out;
  }
  layer_norm_forward(p.ln_f, c.top, c.z, c.ln_f);
  linear_forward(decoder, c.z, logits);
  // alpha: the last layer's head-averaged [CLS] row over the tokens, renormalised.
  c.alpha = Mat<T>::Zero(steps, B);
  if (L > 0) {
    const int H = cfg.heads;
    for (int b = 0; b < B; ++b) {
      T sum = 0;
      for (int j = 1; j < c.n[b]; ++j) {
        T m = 0;
        for (int hh = 0; hh < H; ++hh) m += c.probs(L - 1, b, hh)(0, j);
        c.alpha(j - 1, b) = m / T(H);
        sum += m / T(H);
      }
      for (int j = 1; j < c.n[b]; ++j) c.alpha(j - 1, b) = sum > 0 ? c.alpha(j - 1, b) / sum : T(1) / T(c.n[b] - 1);
    }
  }
}

template <class T>
void transformer_backward(const TextConfig& cfg, const TransformerParams<T>& p, const LinearParams<T>& decoder,
                          const TransformerCache<T>& c, const Mat<T>& d_logits, TransformerBackwardOptions opts,
                          TransformerParams<T>* grads, LinearParams<T>* d_decoder, Mat<T>* d_x,
                          std::vector<std::vector<Mat<T>>>* d_probs, Mat<T>* d_alpha, Mat<T>* d_h0_out) {
  const int B = c.B, S = c.S, d = cfg.embedding_dim, L = static_cast<int>(p.layers.size());
  const int steps = c.steps;
  const bool rules = opts.rule != PropagationRule::Gradient;  // LayerNorm scale held, GELU identity rule
  const bool detach = opts.detach_attention || opts.rule == PropagationRule::CpLrp;
  const bool uniform_rule = opts.rule == PropagationRule::AttnLrp;
  Mat<T> d_z, d_top;
  linear_backward(decoder, c.z, d_logits, d_decoder, &d_z);
  layer_norm_backward(p.ln_f, c.ln_f, d_z, grads ? &grads->ln_f : nullptr, &d_top, rules);
  if (d_probs) d_probs->assign(L, {});
  if (d_alpha) *d_alpha = Mat<T>::Zero(steps, B);
  Mat<T> d_h;  // gradient on the current block's output, full [d x B*S] (or [d x B] for the last block)
  Mat<T> d_h0;
  if (L == 0) {
    d_h0 = Mat<T>::Zero(d, static_cast<Eigen::Index>(B) * S);
    for (int b = 0; b < B; ++b) d_h0.col(static_cast<Eigen::Index>(b) * S) = d_top.col(b);
  }
  d_h = d_top;
  for (int l = L - 1; l >= 0; --l) {
    const auto& lc = c.layers[l];
    const auto& lp = p.layers[l];
    auto* lg = grads ? &grads->layers[l] : nullptr;
    // out = mid_sel + Drop(fc2(gelu(fc1(LN2(mid_sel)))))
    Mat<T> d_f = d_h;
    dropout_backward(lc.mask2, d_f);
    Mat<T> d_act, d_pre, d_y2, d_mid_sel;
    linear_backward(lp.fc2, lc.act, d_f, lg ? &lg->fc2 : nullptr, &d_act);
    if (rules) gelu_identity_backward(lc.pre, d_act, d_pre);
    else gelu_backward(lc.pre, d_act, d_pre);
    linear_backward(lp.fc1, lc.y2, d_pre, lg ? &lg->fc1 : nullptr, &d_y2);
    layer_norm_backward(lp.ln2, lc.ln2, d_y2, lg ? &lg->ln2 : nullptr, &d_mid_sel, rules);
    d_mid_sel += d_h;
    const bool cls_query = lc.attn.first_query_only;  // the forward ran logits_only: d_a is [d x B]
    Mat<T> d_mid;
    if (cls_query) {
      // d_mid stays empty: the residual's gradient is added at the [CLS] columns below
    } else if (l == L - 1) {
      d_mid = Mat<T>::Zero(d, lc.mid.cols());
      for (size_t k = 0; k < lc.ffn_cols.size(); ++k) d_mid.col(lc.ffn_cols[k]) = d_mid_sel.col(static_cast<Eigen::Index>(k));
    } else {
      d_mid = std::move(d_mid_sel);
    }
    // mid = in + Drop(MHA(LN1(in)))
    Mat<T> d_a = cls_query ? d_mid_sel : d_mid;
    dropout_backward(lc.mask1, d_a);
    Mat<T> d_y1, d_in;
    Mat<T> d_alpha_l;
    mha_backward(lp.attn, lc.y1, lc.attn, d_a, detach, lg ? &lg->attn : nullptr, &d_y1,
                 d_probs ? &(*d_probs)[l] : nullptr, (d_alpha && l == L - 1) ? &d_alpha_l : nullptr, uniform_rule);
    if (d_alpha && l == L - 1)
      d_alpha->topRows(std::min<Eigen::Index>(steps, d_alpha_l.rows())) =
          d_alpha_l.topRows(std::min<Eigen::Index>(steps, d_alpha_l.rows()));
    layer_norm_backward(lp.ln1, lc.ln1, d_y1, lg ? &lg->ln1 : nullptr, &d_in, rules);
    if (cls_query) {
      for (size_t k = 0; k < lc.ffn_cols.size(); ++k) d_in.col(lc.ffn_cols[k]) += d_mid_sel.col(static_cast<Eigen::Index>(k));
    } else {
      d_in += d_mid;
    }
    d_h = std::move(d_in);
  }
  if (L > 0) d_h0 = std::move(d_h);
  dropout_backward(c.mask0, d_h0);
  if (grads) {
    for (int b = 0; b < B; ++b) {
      const Eigen::Index col0 = static_cast<Eigen::Index>(b) * S;
      grads->cls.col(0) += d_h0.col(col0);
      for (int s = 0; s < c.n[b]; ++s) grads->position.row(s) += d_h0.col(col0 + s).transpose();
    }
  }
  if (d_h0_out) *d_h0_out = d_h0;
  if (d_x) {
    *d_x = Mat<T>::Zero(d, static_cast<Eigen::Index>(steps) * B);
    for (int b = 0; b < B; ++b)
      for (int s = 1; s < c.n[b]; ++s)
        d_x->col(static_cast<Eigen::Index>(s - 1) * B + b) = d_h0.col(static_cast<Eigen::Index>(b) * S + s);
  }
}

#define ATTNLAB_INSTANTIATE(T)                                                                                   \
  template struct TransformerParams<T>;                                                                          \
  template void transformer_forward<T>(const TextConfig&, const TransformerParams<T>&, const LinearParams<T>&,   \
                                       const Mat<T>&, const std::vector<int>&, TransformerCache<T>&, Mat<T>&,    \
                                       const Mat<T>*, TransformerRun);                                           \
  template void transformer_backward<T>(const TextConfig&, const TransformerParams<T>&, const LinearParams<T>&,  \
                                        const TransformerCache<T>&, const Mat<T>&, TransformerBackwardOptions,   \
                                        TransformerParams<T>*, LinearParams<T>*, Mat<T>*,                        \
                                        std::vector<std::vector<Mat<T>>>*, Mat<T>*, Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE
template TransformerParams<double> TransformerParams<float>::cast<double>() const;
template TransformerParams<float> TransformerParams<double>::cast<float>() const;
template TransformerParams<float> TransformerParams<float>::cast<float>() const;

}  // namespace attnlab
