// The frozen last-layer [CLS] path of a transformer (contract in transformer_frozen.h).
#include "model/transformer_frozen.h"

#include "nn/gelu.h"

namespace attnlab {

TransformerFrozen freeze_transformer(const TextConfig& cfg, const TextParams<float>& p, const TextCache<float>& c) {
  TransformerFrozen f;
  const TransformerParams<double> pd = p.transformer.cast<double>();
  const int L = static_cast<int>(pd.layers.size());
  f.last = pd.layers[L - 1];
  f.ln_f = pd.ln_f;
  f.decoder = {p.decoder.w.cast<double>(), p.decoder.b.cast<double>()};
  f.heads = cfg.heads;
  const auto& lc = c.transformer.layers[L - 1];
  const int n = c.transformer.n[0];
  const Mat<double> in = lc.in.leftCols(n).cast<double>();
  f.x_cls = in.col(0);
  Mat<double> y1;
  LayerNormCache<double> lnc;
  layer_norm_forward(f.last.ln1, in, y1, lnc);
  linear_forward(f.last.attn.v, y1, f.v);
  for (int h = 0; h < cfg.heads; ++h) f.self.push_back(c.transformer.probs(L - 1, 0, h)(0, 0));
  for (int t = 0; t + 1 < n; ++t) f.alpha.push_back(c.transformer.alpha(t, 0));
  return f;
}

namespace {

struct FrozenPass {
  Mat<double> ctx, mid, y2, pre, act, top, z, logits;
  LayerNormCache<double> ln2, lnf;
};

void frozen_forward(const TransformerFrozen& f, const std::vector<double>& alpha, FrozenPass& s) {
  const Eigen::Index d = f.x_cls.size();
  const int dk = static_cast<int>(d) / f.heads;
  const int n = static_cast<int>(f.v.cols());
  s.ctx = Mat<double>::Zero(d, 1);
  for (int h = 0; h < f.heads; ++h) {
    auto ch = s.ctx.block(h * dk, 0, dk, 1);
    ch = f.self[h] * f.v.block(h * dk, 0, dk, 1);
    for (int t = 0; t + 1 < n && t < static_cast<int>(alpha.size()); ++t)
      ch += (1 - f.self[h]) * alpha[t] * f.v.block(h * dk, t + 1, dk, 1);
  }
  Mat<double> a;
  linear_forward(f.last.attn.o, s.ctx, a);
  s.mid = f.x_cls + a;
  layer_norm_forward(f.last.ln2, s.mid, s.y2, s.ln2);
  linear_forward(f.last.fc1, s.y2, s.pre);
  gelu_forward(s.pre, s.act);
  Mat<double> ff;
  linear_forward(f.last.fc2, s.act, ff);
  s.top = s.mid + ff;
  layer_norm_forward(f.ln_f, s.top, s.z, s.lnf);
  linear_forward(f.decoder, s.z, s.logits);
}

}  // namespace

Vec<double> transformer_frozen_logits(const TransformerFrozen& f, const std::vector<double>& alpha) {
  FrozenPass s;
  frozen_forward(f, alpha, s);
  return s.logits.col(0);
}

std::vector<double> transformer_frozen_grad(const TransformerFrozen& f, const std::vector<double>& alpha,
                                            const Vec<double>& w) {
  FrozenPass s;
  frozen_forward(f, alpha, s);
  Mat<double> d_z, d_top, d_act, d_pre, d_y2, d_mid, d_ctx;
  linear_backward<double>(f.decoder, s.z, w, nullptr, &d_z);
  layer_norm_backward<double>(f.ln_f, s.lnf, d_z, nullptr, &d_top);
  linear_backward<double>(f.last.fc2, s.act, d_top, nullptr, &d_act);
  gelu_backward(s.pre, d_act, d_pre);
  linear_backward<double>(f.last.fc1, s.y2, d_pre, nullptr, &d_y2);
  layer_norm_backward<double>(f.last.ln2, s.ln2, d_y2, nullptr, &d_mid);
  d_mid += d_top;
  linear_backward<double>(f.last.attn.o, s.ctx, d_mid, nullptr, &d_ctx);
  const Eigen::Index d = f.x_cls.size();
  const int dk = static_cast<int>(d) / f.heads;
  std::vector<double> g(alpha.size(), 0.0);
  for (size_t t = 0; t < alpha.size() && static_cast<Eigen::Index>(t + 1) < f.v.cols(); ++t)
    for (int h = 0; h < f.heads; ++h)
      g[t] += (1 - f.self[h]) * d_ctx.block(h * dk, 0, dk, 1).col(0).dot(f.v.block(h * dk, t + 1, dk, 1).col(0));
  return g;
}

}  // namespace attnlab
