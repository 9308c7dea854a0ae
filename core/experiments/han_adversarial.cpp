// Jain & Wallace 2019 §4.2 (adversarial attention) on HAN at both levels; the method is the flat search's
// (experiments/adversarial.cpp: K = 5 candidates, Adam lr 0.01, 500 steps, penalty 500, eps = 0.01 in total
// variation, init log(1/n) + N(0, 3^2), params candidates / steps / lr / epsilon), see han_adversarial.h.
// Where it differs from the flat search: (1) at the word level a candidate is one distribution per sentence
// and its divergence is the beta-weighted sum of the per-sentence JSDs (in [0, ln 2] as the flat JSD; the
// row also has the unweighted mean over sentences of >= 2 words); the sentence attention is recomputed by the
// model from the new sentence vectors, not held; (2) at the sentence level the output is the classifier on
// the frozen sentence states (the flat search's frozen encoder, one level up). The output gradient w.r.t. the
// attention is exact (closed form at the sentence level; han_backward sentence_level_only at the word level)
// and gradient-checked in tests/core/test_han_adversarial.cpp.
// Row: {level, num_units, num_sentences, predicted, max_jsd, found, tvd, max_attention (sentence: max beta;
// word: max beta_i alpha_it), attention, adversarial_attention (sentence: one list; word: per sentence),
// probabilities, adversarial_probabilities, candidate_jsd, candidate_tvd[, mean_sentence_jsd]}; skipped when
// fewer than 2 sentences (sentence) or no sentence of >= 2 words (word). Summary: the flat one's
// {mean_max_jsd, median_max_jsd, fraction_jsd_above_0.4, fraction_found, n_used, jsd_upper_bound,
// by_max_attention, per_class} and {level, n_skipped}.
#include "experiments/han_adversarial.h"

#include <algorithm>
#include <cmath>

#include "experiments/adversarial.h"  // add_d_jsd, softmax_backward
#include "experiments/frozen_encoder.h"

namespace attnlab {

using nlohmann::json;
using Groups = std::vector<std::vector<double>>;

namespace {

// d(sum_c d_probs_c y_c) / d logits for one instance (binary: one sigmoid logit; else softmax).
Vec<double> d_logits_of(const HanConfig& cfg, const std::vector<double>& probs, const std::vector<double>& d_probs) {
  Vec<double> d(cfg.outputs());
  if (cfg.outputs() == 1) {
    d(0) = (d_probs[1] - d_probs[0]) * probs[1] * (1 - probs[1]);
  } else {
    double dot = 0;
    for (size_t c = 0; c < probs.size(); ++c) dot += d_probs[c] * probs[c];
    for (size_t k = 0; k < probs.size(); ++k) d(static_cast<Eigen::Index>(k)) = probs[k] * (d_probs[k] - dot);
  }
  return d;
}

HanParams<double> sentence_params_of(const HanParams<float>& p) {
  HanParams<float> s;
  s.sentence_encoder = p.sentence_encoder;
  s.sentence_attention = p.sentence_attention;
  s.classifier = p.classifier;
  return s.cast<double>();
}

}  // namespace

double han_group_jsd(const Groups& a, const Groups& b, const std::vector<double>& w) {
  double j = 0;
  for (size_t g = 0; g < a.size(); ++g)
    if (a[g].size() > 1) j += w[g] * jensen_shannon(a[g], b[g]);
  return j;
}

HanAdversary han_adversary(const HanModel& model, const HanDocument& doc, const std::string& level) {
  HanAdversary adv;
  adv.level = level;
  adv.frozen = han_freeze(model, doc);
  adv.probs = adv.frozen.probs;
  if (level == "sentence") {
    adv.attention = {adv.frozen.beta};
    adv.weights = {1.0};
    return adv;
  }
  adv.attention = adv.frozen.alpha;
  adv.weights = adv.frozen.beta;
  adv.sentence_params = sentence_params_of(model.params);
  const HanParams<double> p = model.params.cast<double>();
  HanCache<double> c;
  han_forward(model.config, p, {doc}, c);
  for (int g = 0; g < c.S; ++g) {
    const HanWordChunk<double>& ch = c.chunks[c.sentence_chunk[g]];
    const int b = c.sentence_col[g], B = static_cast<int>(ch.sentences.size()), n = ch.lengths[b];
    Mat<double> st(ch.encoder.out.rows(), n);
    for (int t = 0; t < n; ++t) st.col(t) = ch.encoder.out.col(static_cast<Eigen::Index>(t) * B + b);
    adv.word_states.push_back(std::move(st));
  }
  return adv;
}

std::vector<std::vector<double>> HanAdversary::outputs(const HanModel& model, const std::vector<Groups>& cands,
                                                       const std::vector<std::vector<double>>* d_probs,
                                                       std::vector<Groups>* d_attention) const {
  const int K = static_cast<int>(cands.size());
  std::vector<std::vector<double>> out;
  if (d_attention) d_attention->assign(K, {});
  if (level == "sentence") {
    const Mat<double> w = model.params.classifier.w.cast<double>();
    for (int k = 0; k < K; ++k) {
      out.push_back(han_output_with_sentence_attention(model, frozen, cands[k][0]));
      if (!d_probs) continue;
      const Vec<double> dv = w.transpose() * d_logits_of(model.config, out.back(), (*d_probs)[k]);
      std::vector<double> db(cands[k][0].size());
      for (size_t i = 0; i < db.size(); ++i) db[i] = frozen.h.col(static_cast<Eigen::Index>(i)).dot(dv);
      (*d_attention)[k] = {db};
    }
    return out;
  }
  // Word level: the sentence vectors of every candidate, then the sentence level in one batch.
  const HanParams<double>& sp = sentence_params;
  const int S = static_cast<int>(word_states.size());
  const Eigen::Index width = S ? word_states[0].rows() : 2 * model.config.word_hidden;
  Mat<double> sv = Mat<double>::Zero(width, static_cast<Eigen::Index>(S) * K);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < S; ++i)
      for (size_t t = 0; t < cands[k][i].size(); ++t)
        sv.col(static_cast<Eigen::Index>(k) * S + i) += cands[k][i][t] * word_states[i].col(static_cast<Eigen::Index>(t));
  HanCache<double> c;
  han_sentence_forward(model.config, sp, sv, std::vector<int>(K, S), c);
  const Mat<double> pr = han_class_probabilities(model.config, c.logits);
  for (int k = 0; k < K; ++k) {
    std::vector<double> p;
    for (Eigen::Index r = 0; r < pr.rows(); ++r) p.push_back(pr(r, k));
    out.push_back(std::move(p));
  }
  if (!d_probs) return out;
  Mat<double> d_logits(model.config.outputs(), K);
  for (int k = 0; k < K; ++k) d_logits.col(k) = d_logits_of(model.config, out[k], (*d_probs)[k]);
  HanBackwardOptions bo;
  bo.sentence_level_only = true;
  HanGradients<double> g;
  han_backward<double>(model.config, sp, c, d_logits, bo, nullptr, &g);
  for (int k = 0; k < K; ++k) {
    Groups d(S);
    for (int i = 0; i < S; ++i) {
      const Vec<double> ds = g.d_sentence_vectors.col(static_cast<Eigen::Index>(k) * S + i);
      for (Eigen::Index t = 0; t < word_states[i].cols(); ++t) d[i].push_back(word_states[i].col(t).dot(ds));
    }
    (*d_attention)[k] = std::move(d);
  }
  return out;
}

double han_adversarial_objective(const HanModel& model, const HanAdversary& adv, const std::vector<Groups>& theta,
                                 const AdversarialOptions& o, std::vector<Groups>* grad) {
  const int K = static_cast<int>(theta.size());
  std::vector<Groups> a(K), g_a(K);
  for (int k = 0; k < K; ++k)
    for (const auto& th : theta[k]) {
      a[k].push_back(softmax_of(th));
      g_a[k].emplace_back(th.size(), 0.0);
    }
  const std::vector<std::vector<double>> probs = adv.outputs(model, a);
  const int C = static_cast<int>(adv.probs.size());
  std::vector<std::vector<double>> d_probs(K, std::vector<double>(C, 0.0));
  bool any_penalty = false;
  double loss = 0;
  for (int k = 0; k < K; ++k) {
    loss -= han_group_jsd(a[k], adv.attention, adv.weights);
    for (size_t g = 0; g < a[k].size(); ++g) add_d_jsd(a[k][g], adv.attention[g], -adv.weights[g], g_a[k][g]);
    const double tvd = total_variation(probs[k], adv.probs);
    if (tvd > o.epsilon) {
      loss += o.penalty * (tvd - o.epsilon);
      any_penalty = true;
      for (int c = 0; c < C; ++c) {
        const double sign = probs[k][c] > adv.probs[c] ? 1.0 : (probs[k][c] < adv.probs[c] ? -1.0 : 0.0);
        d_probs[k][c] = o.penalty * 0.5 * sign;
      }
    }
  }
  if (K > 1) {
    const double w = 1.0 / (K * (K - 1));
    for (int j = 0; j < K; ++j)
      for (int k = 0; k < K; ++k) {
        if (j == k) continue;
        loss -= w * han_group_jsd(a[j], a[k], adv.weights);
        for (size_t g = 0; g < a[j].size(); ++g) add_d_jsd(a[j][g], a[k][g], -2 * w * adv.weights[g], g_a[j][g]);
      }
  }
  if (!grad) return loss;
  if (any_penalty) {
    std::vector<Groups> d_att;
    adv.outputs(model, a, &d_probs, &d_att);
    for (int k = 0; k < K; ++k)
      for (size_t g = 0; g < a[k].size(); ++g)
        for (size_t t = 0; t < a[k][g].size(); ++t) g_a[k][g][t] += d_att[k][g][t];
  }
  grad->assign(K, {});
  for (int k = 0; k < K; ++k)
    for (size_t g = 0; g < a[k].size(); ++g) (*grad)[k].push_back(softmax_backward(a[k][g], g_a[k][g]));
  return loss;
}

HanAdversarialResult han_adversarial_search(const HanModel& model, const HanAdversary& adv, const AdversarialOptions& o,
                                            Rng& rng) {
  const int K = o.candidates;
  std::vector<Groups> theta(K), m(K), v(K), grad;
  for (int k = 0; k < K; ++k)
    for (const auto& att : adv.attention) {
      std::vector<double> th(att.size());
      for (double& x : th) x = std::log(1.0 / att.size()) + o.init_std * rng.normal();
      theta[k].push_back(th);
      m[k].emplace_back(att.size(), 0.0);
      v[k].emplace_back(att.size(), 0.0);
    }
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  for (int step = 1; step <= o.steps; ++step) {
    han_adversarial_objective(model, adv, theta, o, &grad);
    const double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
    for (int k = 0; k < K; ++k)
      for (size_t g = 0; g < theta[k].size(); ++g)
        for (size_t t = 0; t < theta[k][g].size(); ++t) {
          const double gr = grad[k][g][t];
          m[k][g][t] = b1 * m[k][g][t] + (1 - b1) * gr;
          v[k][g][t] = b2 * v[k][g][t] + (1 - b2) * gr * gr;
          theta[k][g][t] -= o.lr * (m[k][g][t] / bc1) / (std::sqrt(v[k][g][t] / bc2) + eps);
        }
  }
  HanAdversarialResult r;
  r.attention = adv.attention;
  r.probs = adv.probs;
  std::vector<Groups> a(K);
  for (int k = 0; k < K; ++k)
    for (const auto& th : theta[k]) a[k].push_back(softmax_of(th));
  const std::vector<std::vector<double>> probs = adv.outputs(model, a);
  for (int k = 0; k < K; ++k) {
    const double jsd = han_group_jsd(a[k], adv.attention, adv.weights), tvd = total_variation(probs[k], adv.probs);
    r.candidate_jsd.push_back(jsd);
    r.candidate_tvd.push_back(tvd);
    if (tvd <= o.epsilon && (!r.found || jsd > r.max_jsd)) {
      r.found = true;
      r.max_jsd = jsd;
      r.attention = a[k];
      r.probs = probs[k];
      r.tvd = tvd;
    }
  }
  return r;
}

// Named, not anonymous: the unity build compiles the HAN experiments together, each with its own run / summarize.
namespace han_adversarial_impl {

json run(const HanModel& model, const HanInstance& inst, const ExperimentOptions& opt, Rng& rng) {
  const std::string level = han_level(opt);
  if (level.empty()) return {{"skipped", "param level must be \"sentence\" or \"word\""}};
  if (inst.doc.empty()) return {{"skipped", "no tokens"}};
  int num_words = 0, longest = 0;
  for (const auto& s : inst.doc) {
    num_words += static_cast<int>(s.size());
    longest = std::max(longest, static_cast<int>(s.size()));
  }
  if (level == "sentence" && inst.doc.size() < 2) return {{"level", level}, {"skipped", "single sentence"}};
  if (level == "word" && longest < 2) return {{"level", level}, {"skipped", "no sentence of two words"}};
  AdversarialOptions o;
  o.candidates = opt.get_int("candidates", o.candidates);
  o.steps = opt.get_int("steps", o.steps);
  o.lr = opt.get_double("lr", o.lr);
  o.epsilon = opt.get_double("epsilon", o.epsilon);
  const HanAdversary adv = han_adversary(model, inst.doc, level);
  const HanAdversarialResult r = han_adversarial_search(model, adv, o, rng);
  json row;
  row["level"] = level;
  row["num_sentences"] = inst.doc.size();
  row["num_units"] = level == "sentence" ? static_cast<int>(inst.doc.size()) : num_words;
  row["predicted"] = adv.frozen.predicted;
  row["max_jsd"] = r.max_jsd;
  row["found"] = r.found;
  row["tvd"] = r.tvd;
  double max_att = 0;
  if (level == "sentence") max_att = *std::max_element(adv.frozen.beta.begin(), adv.frozen.beta.end());
  else
    for (size_t i = 0; i < adv.frozen.alpha.size(); ++i)
      for (double x : adv.frozen.alpha[i]) max_att = std::max(max_att, adv.frozen.beta[i] * x);
  row["max_attention"] = max_att;
  if (level == "sentence") {
    row["attention"] = adv.attention[0];
    row["adversarial_attention"] = r.attention[0];
  } else {
    row["attention"] = adv.attention;
    row["adversarial_attention"] = r.attention;
    std::vector<double> per;
    for (size_t g = 0; g < adv.attention.size(); ++g)
      if (adv.attention[g].size() > 1) per.push_back(jensen_shannon(r.attention[g], adv.attention[g]));
    row["mean_sentence_jsd"] = mean_of(per);
  }
  row["probabilities"] = adv.probs;
  row["adversarial_probabilities"] = r.probs;
  row["candidate_jsd"] = r.candidate_jsd;
  row["candidate_tvd"] = r.candidate_tvd;
  return row;
}

json summarize(const HanModel& model, const std::vector<json>& rows, const ExperimentOptions& opt) {
  const int C = model.config.num_classes;
  std::vector<double> all;
  std::vector<std::vector<double>> by_class(C), by_bin(kMaxAttentionBins);
  int found = 0, skipped = 0;
  for (const json& row : rows) {
    const double jsd = row_number(row, "max_jsd");
    if (row.contains("skipped") || !std::isfinite(jsd)) {
      ++skipped;
      continue;
    }
    all.push_back(jsd);
    found += row_flag(row, "found");
    const int cls = row_class(row);
    if (cls >= 0 && cls < C) by_class[cls].push_back(jsd);
    const int bin = max_attention_bin(row_number(row, "max_attention"));
    if (bin >= 0) by_bin[bin].push_back(jsd);
  }
  auto above = [](const std::vector<double>& v, double x) {
    if (v.empty()) return std::nan("");
    return double(std::count_if(v.begin(), v.end(), [x](double d) { return d > x; })) / v.size();
  };
  json s;
  s["level"] = han_level(opt);
  s["mean_max_jsd"] = mean_of(all);
  s["median_max_jsd"] = median_of(all);
  s["fraction_jsd_above_0.4"] = above(all, 0.4);
  s["fraction_found"] = all.empty() ? std::nan("") : double(found) / all.size();
  s["n_used"] = all.size();
  s["n_skipped"] = skipped;
  s["jsd_upper_bound"] = std::log(2.0);
  s["by_max_attention"] = max_attention_bins_json(by_bin, "mean_max_jsd");
  json pc = json::object();
  for (int c = 0; c < C; ++c)
    pc[std::to_string(c)] = {{"n", by_class[c].size()}, {"mean_max_jsd", mean_of(by_class[c])},
                             {"fraction_jsd_above_0.4", above(by_class[c], 0.4)}};
  s["per_class"] = pc;
  return s;
}

}  // namespace han_adversarial_impl

HanExperiment han_adversarial_experiment() {
  return {"adversarial",
          "HAN: Jain & Wallace adversarial attention, max JSD from the model's attention with the output within eps; "
          "level=sentence|word",
          han_adversarial_impl::run, han_adversarial_impl::summarize};
}

}  // namespace attnlab
