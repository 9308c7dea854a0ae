// HanAttentionModel (han_attention_model.h): both levels of a HAN through the attention-model interface.
#include "experiments/han_attention_model.h"

#include "experiments/frozen_encoder.h"  // argmax
#include "experiments/experiment.h"
#include "experiments/han_frozen.h"
#include "explain/han/han_importance.h"

namespace attnlab {
namespace {

// d(Σ_c d_probs_c p_c) / d logits for one instance (binary: one sigmoid logit; else softmax).
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

class HanAttentionInstance : public AttentionInstance {
 public:
  HanAttentionInstance(const HanModel& model, const HanDocument& doc, bool word)
      : model_(model), doc_(doc), word_(word), f_(han_freeze(model, doc)) {
    probs_ = f_.probs;
    predicted_ = f_.predicted;
    int first = 0;
    for (size_t i = 0; i < doc_.size(); ++i) {
      unit_token_first_.push_back(first);
      if (word_) {
        for (size_t t = 0; t < f_.alpha[i].size(); ++t) {
          attention_.push_back(f_.alpha[i][t]);
          effective_.push_back(f_.beta[i] * f_.alpha[i][t]);
          group_.push_back(static_cast<int>(i));
          unit_token_.push_back(first + static_cast<int>(t));
        }
      } else {
        attention_.push_back(f_.beta[i]);
        group_.push_back(0);
        unit_token_.push_back(first);
      }
      first += static_cast<int>(doc_[i].size());
    }
    if (!word_) {
      effective_ = attention_;
      return;
    }
    // The word level: the sentence level in double, which every output re-runs on new sentence vectors of the
    // frozen word states (han_freeze's).
    HanParams<float> sp;
    sp.sentence_encoder = model.params.sentence_encoder;
    sp.sentence_attention = model.params.sentence_attention;
    sp.classifier = model.params.classifier;
    sentence_params_ = sp.cast<double>();
  }

  std::vector<double> effective_attention() const override { return effective_; }
  std::vector<double> group_weights() const override { return word_ ? f_.beta : std::vector<double>{1.0}; }

  std::vector<std::vector<double>> outputs(const std::vector<std::vector<double>>& variants) const override {
    if (!word_) {
      std::vector<std::vector<double>> out;
      for (const auto& w : variants) out.push_back(han_output_with_sentence_attention(model_, f_, w));
      return out;
    }
    HanCache<double> c;
    return sentence_level(variants, c);
  }

  std::vector<double> d_output(const std::vector<double>& w, int cls) const override {
    std::vector<double> coeff(probs_.size(), 0.0), g(w.size(), 0.0);
    coeff[static_cast<size_t>(cls)] = 1.0;
    add_d_output_combination(w, coeff, 1.0, g);
    return g;
  }

  // One backward for Σ_c coeff_c p_c: the classifier alone at the sentence level (closed form), the sentence level
  // alone at the word level.
  void add_d_output_combination(const std::vector<double>& w, const std::vector<double>& coeff, double scale,
                                std::vector<double>& g) const override {
    std::vector<double> d_probs(coeff.size());
    for (size_t c = 0; c < coeff.size(); ++c) d_probs[c] = scale * coeff[c];
    if (!word_) {
      const std::vector<double> probs = han_output_with_sentence_attention(model_, f_, w);
      const Vec<double> dv =
          model_.params.classifier.w.cast<double>().transpose() * d_logits_of(model_.config, probs, d_probs);
      for (size_t i = 0; i < w.size() && i < g.size(); ++i) g[i] += f_.h.col(static_cast<Eigen::Index>(i)).dot(dv);
      return;
    }
    HanCache<double> c;
    const std::vector<double> probs = sentence_level({w}, c)[0];
    Mat<double> d_logits(model_.config.outputs(), 1);
    d_logits.col(0) = d_logits_of(model_.config, probs, d_probs);
    HanBackwardOptions bo;
    bo.sentence_level_only = true;
    HanGradients<double> grads;
    han_backward<double>(model_.config, sentence_params_, c, d_logits, bo, nullptr, &grads);
    for (size_t u = 0; u < g.size() && u < group_.size(); ++u) {
      const int i = group_[u], t = static_cast<int>(u) - first_unit(i);
      g[u] += f_.word_states[static_cast<size_t>(i)].col(t).dot(grads.d_sentence_vectors.col(i));
    }
  }

  std::vector<double> importance(Importance kind, int cls) const override {
    HanExplainInput in;
    in.cfg = &model_.config;
    in.params = &model_.params;
    in.doc = doc_;
    in.target = cls;
    const HanImportance r = kind == Importance::Gradient ? han_gradient_importance(in) : han_leave_one_out_importance(in);
    if (!word_) return r.sentence;
    std::vector<double> out;
    for (const auto& s : r.word) out.insert(out.end(), s.begin(), s.end());
    return out;
  }

 private:
  // The word level: the sentence vectors Σ_t w_t h_it of each variant, then the sentence level on them in one batch
  // (the cache kept for a backward); class probabilities per variant.
  std::vector<std::vector<double>> sentence_level(const std::vector<std::vector<double>>& variants,
                                                  HanCache<double>& c) const {
    const int S = static_cast<int>(f_.word_states.size()), K = static_cast<int>(variants.size());
    const Eigen::Index width = S ? f_.word_states[0].rows() : 2 * model_.config.word_hidden;
    Mat<double> sv = Mat<double>::Zero(width, static_cast<Eigen::Index>(S) * K);
    for (int k = 0; k < K; ++k)
      for (size_t u = 0; u < group_.size(); ++u) {
        const int i = group_[u], t = static_cast<int>(u) - first_unit(i);
        sv.col(static_cast<Eigen::Index>(k) * S + i) += variants[k][u] * f_.word_states[static_cast<size_t>(i)].col(t);
      }
    han_sentence_forward(model_.config, sentence_params_, sv, std::vector<int>(K, S), c);
    const Mat<double> pr = han_class_probabilities(model_.config, c.logits);
    std::vector<std::vector<double>> out;
    for (int k = 0; k < K; ++k) {
      std::vector<double> p;
      for (Eigen::Index r = 0; r < pr.rows(); ++r) p.push_back(pr(r, k));
      out.push_back(std::move(p));
    }
    return out;
  }
  // The index of sentence i's first word (in the document, and so among the word level's units).
  int first_unit(int i) const { return unit_token_first_[static_cast<size_t>(i)]; }

  const HanModel& model_;
  HanDocument doc_;
  bool word_;
  HanFrozen f_;
  std::vector<double> effective_;
  HanParams<double> sentence_params_;     // word level: the sentence encoder, attention and classifier
  std::vector<int> unit_token_first_;     // per sentence
};

}  // namespace

HanDocument han_document_of(const Instance& instance) {
  HanDocument doc;
  size_t at = 0;
  for (int len : instance.sentence_lengths) {
    if (len <= 0 || at + static_cast<size_t>(len) > instance.ids.size()) return {};
    doc.emplace_back(instance.ids.begin() + static_cast<std::ptrdiff_t>(at),
                     instance.ids.begin() + static_cast<std::ptrdiff_t>(at + static_cast<size_t>(len)));
    at += static_cast<size_t>(len);
  }
  if (at != instance.ids.size()) return {};
  return doc;
}

Instance han_instance_of(int index, int label, const HanDocument& doc) {
  Instance in;
  in.index = index;
  in.label = label;
  for (const auto& s : doc) {
    in.ids.insert(in.ids.end(), s.begin(), s.end());
    in.sentence_lengths.push_back(static_cast<int>(s.size()));
  }
  return in;
}

int HanAttentionModel::num_classes() const { return model_.config.num_classes; }

const char* HanAttentionModel::skip_reason(const Instance& instance, int min_units) const {
  if (instance.ids.empty()) return "no tokens";
  const HanDocument doc = han_document_of(instance);
  if (doc.empty()) return "the sentence lengths do not cover the tokens";
  for (int id : instance.ids)
    if (id < 0 || id >= model_.config.vocab_size) return "token id out of range";
  const size_t units = word_ ? instance.ids.size() : doc.size();
  if (units < static_cast<size_t>(min_units)) return word_ ? "single word" : "single sentence";
  return nullptr;
}

std::unique_ptr<AttentionInstance> HanAttentionModel::freeze(const Instance& instance, std::string*) const {
  return std::make_unique<HanAttentionInstance>(model_, han_document_of(instance), word_);
}

std::string check_han_experiment(const Experiment& e, const HanModel& model, nlohmann::json* params, bool* word_level) {
  if (!params->is_object()) *params = nlohmann::json::object();
  std::string error;
  if (!take_han_level(params, word_level, &error)) return error;
  if (std::string why = check_experiment_model(e, HanAttentionModel(model, *word_level)); !why.empty()) return why;
  if (e.needs_human_rationales) return e.name + " reads SST's human rationales, which documents do not have";
  if (e.needs_other_models) return e.name + " compares flat models trained with other seeds; it does not run on a HAN";
  if (std::string bad = check_experiment_params(e, *params); !bad.empty()) return "param: " + bad;
  return "";
}

bool take_han_level(nlohmann::json* params, bool* word_level, std::string* error) {
  *word_level = false;
  if (!params->is_object() || !params->contains("level")) return true;
  const nlohmann::json level = (*params)["level"];
  params->erase("level");
  if (level == "sentence" || level == "word") {
    *word_level = level == "word";
    return true;
  }
  *error = "param level must be \"sentence\" or \"word\"";
  return false;
}

}  // namespace attnlab
