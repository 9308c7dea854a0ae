#include "experiments/frozen_encoder.h"

#include <algorithm>
#include <cmath>

#include "model/attention_model.h"
#include "nn/loss.h"

namespace attnlab {

FrozenEncoder freeze_encoder(const TextModel& model, const std::vector<int>& ids) {
  TextCache<float> cache;
  text_forward_ids(model.config, model.params, TextBatch::from_sequences({ids}), cache);
  FrozenEncoder fe;
  if (model.config.encoder == EncoderKind::Transformer)
    fe.transformer = std::make_shared<const TransformerFrozen>(freeze_transformer(model.config, model.params, cache));
  else
    fe.h = cache.encoder.out.cast<double>();
  for (size_t t = 0; t < ids.size(); ++t) fe.alpha.push_back(cache.attention.alpha(static_cast<Eigen::Index>(t), 0));
  fe.probs = output_with_attention(model, fe, fe.alpha);
  fe.predicted = argmax(fe.probs);
  return fe;
}

static Mat<double> logits_for(const TextModel& model, const FrozenEncoder& fe, const std::vector<double>& alpha) {
  if (fe.transformer) return transformer_frozen_logits(*fe.transformer, alpha);
  const Eigen::Map<const Eigen::VectorXd> a(alpha.data(), static_cast<Eigen::Index>(alpha.size()));
  const Eigen::VectorXd context = fe.h * a;
  return model.params.decoder.w.cast<double>() * context + model.params.decoder.b.cast<double>();
}

std::vector<double> output_with_attention(const TextModel& model, const FrozenEncoder& fe,
                                          const std::vector<double>& alpha) {
  const Mat<double> p = class_probabilities(model.config, logits_for(model, fe, alpha));
  return std::vector<double>(p.data(), p.data() + p.size());
}

std::vector<double> d_output_d_attention(const TextModel& model, const FrozenEncoder& fe,
                                         const std::vector<double>& alpha, int cls) {
  const Mat<double> logits = logits_for(model, fe, alpha);
  // d p_cls / d logits
  Eigen::VectorXd d_logits(logits.rows());
  if (model.config.outputs() == 1) {
    const double p1 = sigmoid(logits(0, 0));
    d_logits(0) = (cls == 1 ? 1.0 : -1.0) * p1 * (1 - p1);
  } else {
    const Mat<double> p = softmax_columns(logits);
    for (Eigen::Index k = 0; k < logits.rows(); ++k) d_logits(k) = p(cls, 0) * ((k == cls ? 1.0 : 0.0) - p(k, 0));
  }
  if (fe.transformer) return transformer_frozen_grad(*fe.transformer, alpha, d_logits);
  const Eigen::VectorXd d_context = model.params.decoder.w.cast<double>().transpose() * d_logits;
  const Eigen::VectorXd g = fe.h.transpose() * d_context;
  return std::vector<double>(g.data(), g.data() + g.size());
}

std::vector<double> erase_and_renormalise(const std::vector<double>& alpha, const std::vector<int>& positions) {
  return erase_units(alpha, std::vector<int>(alpha.size(), 0), positions);
}

double jensen_shannon(const std::vector<double>& p, const std::vector<double>& q) {
  double js = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double m = 0.5 * (p[i] + q[i]);
    if (p[i] > 0) js += 0.5 * p[i] * std::log(p[i] / m);
    if (q[i] > 0) js += 0.5 * q[i] * std::log(q[i] / m);
  }
  return std::max(0.0, js);
}

double total_variation(const std::vector<double>& p, const std::vector<double>& q) {
  double s = 0;
  for (size_t i = 0; i < p.size(); ++i) s += std::abs(p[i] - q[i]);
  return 0.5 * s;
}

int argmax(const std::vector<double>& v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

}  // namespace attnlab
