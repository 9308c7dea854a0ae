// A user's ONNX text transformer behind the attention-model interface (model/attention_model.h), so every debate
// experiment runs on it: the attention is the explained position's row of one found attention layer (default: the
// last), and an intervention replaces that row in the graph and runs the rest of it (Executor::forward_from).
//   The explained position: a classifier's [CLS] row (the graph's position 0); a causal LM's last position (the
//   "class" is the next token, so a decision flips when the greedy next token changes).
//   Units: the tokens of that row, except the positions held fixed — a position the graph prepends itself (attnlab's
//   exporter adds its own [CLS]) and the tokens a tokenizer's template added (Instance::special: [CLS], [SEP], BOS).
//   Head h's held weight c_h stays; the units get (1 − c_h)·w in every head, so the model's own w is the head-averaged
//   row over the units, renormalised — exactly the core transformer's rule (model/transformer_frozen.h), so the
//   exported sst2-transformer gives the native numbers.
//   probs() are the outputs with the model's own w imposed that way (the baseline of every intervention, as in the
//   core transformer; with one head, the model's output itself).
//   ∂p/∂w_u = Σ_h (1 − c_h) ∂p/∂A_h[e, u] from one backward pass to the replaced row.
//   Importances: Gradient = |Σ_e x_e ∂p/∂x_e| on the token embeddings with every found attention distribution held
//   constant (Executor::set_detached), normalised over the units; LeaveOneOut = the token deleted, the rest re-run.
// The model is driven through its executor: not thread-safe, one instance in use at a time (each re-runs its forward
// when another run came between).
#pragma once
#include <memory>
#include <string>

#include "explain/onnx_text/onnx_text_model.h"
#include "model/attention_model.h"

namespace attnlab {

class OnnxAttentionModel : public AttentionModel {
 public:
  // layer: the found attention layer whose row is intervened on (−1: the last). The model must outlive this.
  OnnxAttentionModel(OnnxTextModel& model, int layer = -1) : model_(model), layer_(layer) {}
  // After one run: the number of classes (a causal LM: its vocabulary; one logit: 2).
  int num_classes() const override { return classes_; }
  const char* skip_reason(const Instance& instance, int min_units) const override;
  std::unique_ptr<AttentionInstance> freeze(const Instance& instance, std::string* error) const override;
  // Checks that the model can be intervened on (attention found, a layer in range) and runs one probe to learn the
  // number of classes; false with a message otherwise.
  bool prepare(const std::vector<int>& probe_ids, std::string* error);
  // ERASER's view (experiments/eraser.cpp): the rows of explain-onnx-text (onnx_text_explain.h; the attention rows and
  // value zeroing / ALTI only when attention was found) and "random", each explaining the predicted class / greedy next
  // token; the fixed positions are the template's special tokens and a causal LM's explained last token. An edited
  // sequence runs through the graph (an empty one: NaN). A row the model cannot give for an instance skips it.
  std::vector<std::string> token_measure_names() const override;
  bool token_measures(const Instance& instance, int ig_steps, int target, Rng& rng, TokenMeasures* out,
                      std::string* error) const override;
  bool sequence_probabilities(const std::vector<std::vector<int>>& seqs, int c, std::vector<double>* out,
                              std::string* error) const override;
  OnnxTextModel& model() const { return model_; }
  int layer() const { return layer_; }
  // Integrated gradients' neutral token (onnx_text_explain.h OnnxIgBaseline, `auto`; the instance's special tokens
  // kept): the caller's tokenizer's (text/subword_tokenizer.h neutral_token); −1 (the default): the zero baseline only.
  void set_ig_baseline_token(int token) { ig_token_ = token; }
  // Counts forward passes, so an instance knows when its values were overwritten.
  mutable long runs = 0;

 private:
  OnnxTextModel& model_;
  int layer_ = -1;
  int classes_ = 0;
  int ig_token_ = -1;
};

}  // namespace attnlab
