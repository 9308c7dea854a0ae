// Helpers shared by the HAN experiments (han_experiment.h): the registry runner, the frozen document and
// the attention interventions. Double precision for the interventions (cheap at this size).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "experiments/frozen_encoder.h"  // erase_and_renormalise, jensen_shannon, argmax
#include "experiments/han_experiment.h"
#include "explain/han/han_importance.h"

namespace attnlab {

using nlohmann::json;

const std::vector<HanExperiment>& han_experiment_registry() {
  static const std::vector<HanExperiment> all = {han_kendall_experiment(), han_erase_max_experiment(),
                                                 han_erase_until_flip_experiment(), han_adversarial_experiment()};
  return all;
}

const HanExperiment* find_han_experiment(const std::string& name) {
  for (const HanExperiment& e : han_experiment_registry())
    if (e.name == name) return &e;
  return nullptr;
}

json run_han_instance(const HanExperiment& e, const HanModel& model, const HanInstance& instance,
                      const ExperimentOptions& options) {
  Rng rng = instance_rng(options.seed, instance.index);
  json row = e.run(model, instance, options, rng);
  row["index"] = instance.index;
  if (instance.label >= 0) row["label"] = instance.label;
  return row;
}

json summarize_han_rows(const HanExperiment& e, const HanModel& model, const std::vector<json>& rows,
                        const ExperimentOptions& options) {
  json summary = e.summarize(model, rows, options);
  summary["n"] = rows.size();
  return summary;
}

bool han_row_well_formed(const std::string& experiment, const json& row) {
  if (!row.is_object()) return false;
  if (row.contains("skipped")) return true;
  const auto integer_or_absent = [&](const char* key) { return !row.contains(key) || row[key].is_number_integer(); };
  if (!integer_or_absent("label") || !integer_or_absent("predicted")) return false;
  const auto unit = [&](const char* key, const char* number) {
    return row.contains(key) && row[key].is_object() && row[key].contains(number) && row[key][number].is_number() &&
           row[key].contains("flipped") && row[key]["flipped"].is_boolean();
  };
  if (experiment == "erase-max") return unit("top", "jsd") && unit("random", "jsd");
  if (experiment == "erase-until-flip") {
    for (const char* r : {"attention", "gradient", "attention_x_gradient", "random"})
      if (!unit(r, "fraction")) return false;
    return true;
  }
  if (experiment == "kendall") {
    if (!row.contains("label") && !row.contains("predicted")) return false;
    for (const char* level : {"sentence", "word"}) {
      if (!row.contains(level) || !row[level].is_object()) return false;
      for (const char* m : {"gradient", "leave_one_out"}) {
        if (!row[level].contains(m) || !row[level][m].is_object()) return false;
        const json& k = row[level][m];
        for (const char* f : {"tau", "p"})
          if (!k.contains(f) || !(k[f].is_number() || k[f].is_null())) return false;
      }
    }
    return true;
  }
  return true;  // adversarial reads its rows with row_number / row_flag / row_class
}

json run_han_experiment(const HanExperiment& e, const HanModel& model, const std::vector<HanInstance>& data,
                        const ExperimentOptions& options, const std::function<bool(int, int)>& progress) {
  bool cancelled = false;
  const std::vector<json> rows = run_rows(
      static_cast<int>(data.size()), true, [&](int i) { return run_han_instance(e, model, data[i], options); },
      progress, &cancelled);
  json summary = summarize_han_rows(e, model, rows, options);
  if (cancelled) summary["cancelled"] = true;
  return {{"experiment", e.name}, {"n", rows.size()}, {"summary", summary}, {"rows", rows}};
}

int HanFrozen::num_words() const {
  int n = 0;
  for (const auto& a : alpha) n += static_cast<int>(a.size());
  return n;
}

HanFrozen han_freeze(const HanModel& model, const HanDocument& doc) {
  HanFrozen f;
  const HanParams<double> p = model.params.cast<double>();
  HanCache<double> c;
  han_forward(model.config, p, {doc}, c);
  const Mat<double> pr = han_class_probabilities(model.config, c.logits);
  for (Eigen::Index k = 0; k < pr.rows(); ++k) f.probs.push_back(pr(k, 0));
  f.predicted = argmax(f.probs);
  const int S = c.S;
  f.h = c.sentence_encoder.out.leftCols(S);  // D = 1: column i = sentence i
  for (int i = 0; i < S; ++i) {
    f.beta.push_back(c.sentence_attention.alpha(i, 0));
    const auto a = han_word_alpha(c, i);
    f.alpha.emplace_back(a.begin(), a.end());
    const HanWordChunk<double>& ch = c.chunks[c.sentence_chunk[i]];
    const int b = c.sentence_col[i], B = static_cast<int>(ch.sentences.size()), n = ch.lengths[b];
    Mat<double> st(ch.encoder.out.rows(), n);
    for (int t = 0; t < n; ++t) st.col(t) = ch.encoder.out.col(static_cast<Eigen::Index>(t) * B + b);
    f.word_states.push_back(std::move(st));
  }
  // d p_pred / d logits, then the attention gradients (attention as inputs: its own values imposed).
  Mat<double> d_logits(model.config.outputs(), 1);
  if (model.config.outputs() == 1) {
    const double p1 = pr(1, 0);
    d_logits(0, 0) = (f.predicted == 1 ? 1.0 : -1.0) * p1 * (1 - p1);
  } else {
    for (Eigen::Index k = 0; k < d_logits.rows(); ++k)
      d_logits(k, 0) = pr(f.predicted, 0) * ((k == f.predicted ? 1.0 : 0.0) - pr(k, 0));
  }
  HanGradients<double> g;
  han_backward<double>(model.config, p, c, d_logits, {}, nullptr, &g);
  for (int i = 0; i < S; ++i) {
    f.d_beta.push_back(g.d_sentence_alpha(i, 0));
    f.d_alpha.push_back(g.d_word_alpha[i]);
  }
  return f;
}

std::vector<double> han_output_with_sentence_attention(const HanModel& model, const HanFrozen& f,
                                                       const std::vector<double>& beta) {
  Vec<double> v = Vec<double>::Zero(f.h.rows());
  for (size_t i = 0; i < beta.size(); ++i) v += beta[i] * f.h.col(static_cast<Eigen::Index>(i));
  const Mat<double> logits = model.params.classifier.w.cast<double>() * v + model.params.classifier.b.cast<double>();
  const Mat<double> pr = han_class_probabilities(model.config, logits);
  std::vector<double> out;
  for (Eigen::Index k = 0; k < pr.rows(); ++k) out.push_back(pr(k, 0));
  return out;
}

std::vector<std::vector<double>> han_outputs_with_word_attention(
    const HanModel& model, const HanDocument& doc, const std::vector<std::vector<std::vector<double>>>& variants) {
  std::vector<std::vector<double>> out;
  if (variants.empty()) return out;
  const std::vector<HanDocument> docs(variants.size(), doc);
  std::vector<std::vector<float>> wa;
  for (const auto& v : variants)
    for (const auto& s : v) wa.emplace_back(s.begin(), s.end());
  HanOverrides<float> ov;
  ov.word_alpha = &wa;
  HanCache<float> c;
  han_forward(model.config, model.params, docs, c, ov);
  const Mat<float> pr = han_class_probabilities(model.config, c.logits);
  for (Eigen::Index d = 0; d < pr.cols(); ++d) {
    std::vector<double> p;
    for (Eigen::Index k = 0; k < pr.rows(); ++k) p.push_back(pr(k, d));
    out.push_back(std::move(p));
  }
  return out;
}

std::string han_level(const ExperimentOptions& o) {
  auto it = o.params.find("level");
  if (it == o.params.end()) return "sentence";
  if (it->is_string() && (it->get<std::string>() == "sentence" || it->get<std::string>() == "word")) return it->get<std::string>();
  return "";
}

}  // namespace attnlab
