// HanAttentionModel (han_attention_model.h): both levels of a HAN through the attention-model interface.
#include "experiments/han_attention_model.h"

#include "experiments/frozen_encoder.h"  // argmax
#include "experiments/han_experiment.h"  // han_freeze, HanFrozen
#include "explain/han/han_importance.h"

namespace attnlab {
namespace {

class HanAttentionInstance : public AttentionInstance {
 public:
  HanAttentionInstance(const HanModel& model, const HanDocument& doc, bool word)
      : model_(model), doc_(doc), word_(word), f_(han_freeze(model, doc)) {
    probs_ = f_.probs;
    predicted_ = f_.predicted;
    int first = 0;
    for (size_t i = 0; i < doc_.size(); ++i) {
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
    if (!word_) effective_ = attention_;
  }

  std::vector<double> effective_attention() const override { return effective_; }

  std::vector<std::vector<double>> outputs(const std::vector<std::vector<double>>& variants) const override {
    if (!word_) {
      std::vector<std::vector<double>> out;
      for (const auto& w : variants) out.push_back(han_output_with_sentence_attention(model_, f_, w));
      return out;
    }
    std::vector<std::vector<std::vector<double>>> split;
    for (const auto& w : variants) split.push_back(per_sentence(w));
    return han_outputs_with_word_attention(model_, doc_, split);
  }

  std::vector<double> d_output(const std::vector<double>& w, int cls) const override {
    const HanParams<double> p = model_.params.cast<double>();
    HanCache<double> c;
    HanOverrides<double> ov;
    std::vector<std::vector<double>> word_alpha;
    Mat<double> sentence_alpha;
    if (word_) {
      word_alpha = per_sentence(w);
      ov.word_alpha = &word_alpha;
    } else {
      sentence_alpha = Mat<double>::Zero(static_cast<Eigen::Index>(w.size()), 1);
      for (size_t i = 0; i < w.size(); ++i) sentence_alpha(static_cast<Eigen::Index>(i), 0) = w[i];
      ov.sentence_alpha = &sentence_alpha;
    }
    han_forward(model_.config, p, {doc_}, c, ov);
    const Mat<double> pr = han_class_probabilities(model_.config, c.logits);
    Mat<double> d_logits(model_.config.outputs(), 1);
    if (model_.config.outputs() == 1) {
      const double p1 = pr(1, 0);
      d_logits(0, 0) = (cls == 1 ? 1.0 : -1.0) * p1 * (1 - p1);
    } else {
      for (Eigen::Index k = 0; k < d_logits.rows(); ++k) d_logits(k, 0) = pr(cls, 0) * ((k == cls ? 1.0 : 0.0) - pr(k, 0));
    }
    HanGradients<double> g;
    han_backward<double>(model_.config, p, c, d_logits, {}, nullptr, &g);
    std::vector<double> out;
    if (word_) {
      for (const auto& s : g.d_word_alpha) out.insert(out.end(), s.begin(), s.end());
    } else {
      for (size_t i = 0; i < w.size(); ++i) out.push_back(g.d_sentence_alpha(static_cast<Eigen::Index>(i), 0));
    }
    return out;
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
  std::vector<std::vector<double>> per_sentence(const std::vector<double>& w) const {
    std::vector<std::vector<double>> out(doc_.size());
    for (size_t u = 0; u < w.size() && u < group_.size(); ++u) out[static_cast<size_t>(group_[u])].push_back(w[u]);
    return out;
  }

  const HanModel& model_;
  HanDocument doc_;
  bool word_;
  HanFrozen f_;
  std::vector<double> effective_;
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

}  // namespace attnlab
