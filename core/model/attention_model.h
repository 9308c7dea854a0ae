// The one attention-model interface. Every model kind the debate runs on — the flat text models (BiLSTM / MLP with
// additive or dot attention), the core's transformer, a user's ONNX transformer (and, next, each level of the HAN) —
// maps one instance to an AttentionInstance: the model's prediction and its own attention distribution over the
// instance's units, with the rest of the model frozen around that distribution so the output can be computed for
// any replacement of it (erased, permuted, adversarial, uniform) and differentiated with respect to it, plus the
// importances that attention is compared with. The experiments (core/experiments) are written once against it, so a
// new model kind gets every one of them by implementing these two classes.
//
// Units and groups: the units are what the attention weighs (tokens; a transformer's explained query row over its
// tokens). They fall into softmax groups (the weights of a group sum to 1; a flat model has one group); an
// intervention renormalises within each group.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

struct TextModel;
class Rng;

// One instance of a data set, or a live text.
struct Instance {
  int index = 0;                    // position in the data set
  int label = -1;                   // gold label, -1 when unknown (live text)
  std::vector<std::string> tokens;  // as tokenised
  std::vector<int> ids;             // non-empty
  std::vector<int> rationale;       // human rationale, one 0/1 per token; empty when unknown (plausibility)
  std::vector<int> special;         // 1 where a tokenizer's template added the token ([CLS], [SEP], BOS); empty: none
  std::vector<int> sentence_lengths;  // a HAN document: tokens per sentence (summing to ids.size()); empty: one text
  std::vector<char> marked = {};     // 1 where a positions file marks the token impermissible (experiment impermissible)
};

// What a ranking by attention is compared with (Jain & Wallace §4.1; Serrano & Smith §5).
enum class Importance {
  Gradient,     // |Σ_e x_e · ∂p/∂x_e| on the unit's input embedding, attention held constant, normalised to sum 1
  LeaveOneOut,  // |p(x) − p(x without the unit)|
};

// One instance with the model frozen around its attention. Not thread-safe (an ONNX instance drives its executor).
class AttentionInstance {
 public:
  virtual ~AttentionInstance() = default;
  int size() const { return static_cast<int>(attention_.size()); }
  // The model's own weights, one per unit (each group sums to 1), and the softmax group of each unit.
  const std::vector<double>& attention() const { return attention_; }
  const std::vector<int>& groups() const { return group_; }
  int num_groups() const { return group_.empty() ? 0 : group_.back() + 1; }
  // The class probabilities of the unchanged model and its decision (argmax, first on ties).
  const std::vector<double>& probs() const { return probs_; }
  int predicted() const { return predicted_; }
  // The token each unit stands for (an index into Instance::ids; a sentence: its first token).
  const std::vector<int>& unit_tokens() const { return unit_token_; }
  // The weight each unit carries in the whole instance — what "the highest attention" ranks: attention() for one
  // group; a HAN word's beta_i · alpha_it.
  virtual std::vector<double> effective_attention() const { return attention_; }
  // Each group's share in a divergence between two attentions over the instance, J = Σ_g w_g JSD(a_g, b_g) (the
  // adversary's, experiments/adversarial.h): 1 for one group; a HAN document's words: beta_i, so J stays in [0, ln 2].
  // The default: 1 / num_groups() each.
  virtual std::vector<double> group_weights() const;

  // Class probabilities with the weights replaced by each variant (length size(), used as given: not renormalised).
  virtual std::vector<std::vector<double>> outputs(const std::vector<std::vector<double>>& variants) const = 0;
  std::vector<double> output(const std::vector<double>& weights) const { return outputs({weights})[0]; }
  // ∂p_cls / ∂w_u at the weights w (length size()).
  virtual std::vector<double> d_output(const std::vector<double>& weights, int cls) const = 0;
  // g_u += Σ_c (scale · coeff_c) · ∂p_c/∂w_u over the classes with coeff_c ≠ 0 (the adversary's TVD penalty). The
  // default runs d_output class by class, in class order; a model with many classes (a language model's vocabulary)
  // overrides it with one backward pass.
  virtual void add_d_output_combination(const std::vector<double>& weights, const std::vector<double>& coeff, double scale,
                                        std::vector<double>& g) const;
  // The importance of each unit for class cls.
  virtual std::vector<double> importance(Importance kind, int cls) const = 0;

 protected:
  std::vector<double> attention_, probs_;
  std::vector<int> group_, unit_token_;
  int predicted_ = 0;
};

// The token-importance measures a perturbation benchmark ranks by (ERASER, experiments/eraser.cpp), for one instance:
// each explains the class c the model predicts on the full input.
struct TokenMeasures {
  int predicted = -1;                        // c: the class explained (the predicted one unless a target was asked for)
  double p_predicted = 0;                    // p_c(x) on the full input
  std::vector<std::string> names;            // in the model's token_measure_names() order
  std::vector<std::vector<double>> scores;   // [measure][position]
  std::vector<char> fixed;                   // positions never removed nor ranked (a template's special tokens, a causal
                                             // LM's explained position); empty: none
};

class AttentionModel {
 public:
  virtual ~AttentionModel() = default;
  virtual int num_classes() const = 0;
  // What one unit is, for messages and rows ("token").
  virtual const char* unit_name() const { return "token"; }
  // Why an instance cannot be used ("no tokens", "token id out of range", "single token" when fewer than min_units
  // units), or nullptr when it can.
  virtual const char* skip_reason(const Instance& instance, int min_units) const = 0;
  // The frozen instance; null with *error set when the model cannot run it.
  virtual std::unique_ptr<AttentionInstance> freeze(const Instance& instance, std::string* error) const = 0;
  // The flat model attnlab trained, for the experiments that read its parameters (ERASER's batched forwards,
  // randomisation, head ablation, ...); null for other kinds.
  virtual const TextModel* text_model() const { return nullptr; }
  // Whether instances may be frozen and run on several threads at once (parallel/parallel_for.h): true for the
  // models whose passes only read the parameters; false (the default) for a model driven through one executor.
  virtual bool concurrent() const { return false; }
  // The perturbation benchmark's view (ERASER): the measures' names (empty: the kind has none), one instance's
  // measures (ig_steps: integrated gradients' path segments; target: the class they explain, −1 the predicted one;
  // rng: the random baseline's shuffle), and p_c of edited token sequences (an empty one: the model's output without
  // tokens; NaN where it cannot run).
  virtual std::vector<std::string> token_measure_names() const { return {}; }
  virtual bool token_measures(const Instance&, int /*ig_steps*/, int /*target*/, Rng&, TokenMeasures*,
                              std::string* error) const {
    *error = "this kind of model has no token measures";
    return false;
  }
  virtual bool sequence_probabilities(const std::vector<std::vector<int>>&, int /*c*/, std::vector<double>*,
                                      std::string* error) const {
    *error = "this kind of model cannot run edited token sequences";
    return false;
  }
};

// weights with the listed units set to 0 and each group that lost one renormalised to sum 1 (a group with nothing left:
// zeros); the other groups are returned as given.
std::vector<double> erase_units(const std::vector<double>& weights, const std::vector<int>& groups,
                                const std::vector<int>& units);
// The perturbation benchmarks' random baseline: the positions 0..T−1 shuffled by rng, scored T, T − 1, …, 1 in that
// order (ranking by score gives the shuffle itself).
std::vector<double> random_position_scores(int T, Rng& rng);
// Units by descending score; ties and NaN (ranked last) by position.
std::vector<int> order_by_score(const std::vector<double>& score);

}  // namespace attnlab
