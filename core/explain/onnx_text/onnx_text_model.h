// A user's ONNX text transformer — an encoder classifier (logits [1, C]) or a causal language model (logits
// [1, T, V]: the "class" is the next token) — run by the core's executor with its attention found, not declared
// (onnx/attention_finder.h), and read into the SelfAttentionMaps layout that every self-attention explanation
// uses (explain/self_attention_maps.h: rollout, flow, Chefer relevance, attention × gradient), so those methods
// run on it without a second copy.
//   Inputs filled from token ids: the int64 [1, T] input named *input_ids* / *token_ids* (or the only integer
//   input); attention_mask = 1, token_type_ids = 0, position_ids = 0..T−1 when the graph takes them. Any other
//   input is refused by name.
//   Output: `output` when given, else one named "logits", else the only one (several and none chosen: refused).
//   The explained position: a classifier's only row; a causal LM's last position.
//   Positions: the attention may have one more position than tokens (a graph that prepends its own [CLS], as
//   attnlab's exporter does); else the positions are the tokens.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "explain/importance.h"  // kExplainLogitsOnly
#include "explain/self_attention_maps.h"
#include "onnx/attention_finder.h"
#include "onnx/executor.h"

namespace attnlab {

// Copyable: a copy shares the parsed model and holds its own executor (values, gradients), so copies may run on
// different threads at once (leave-one-out's deletions, onnx_text_explain.h); one object must not.
class OnnxTextModel {
 public:
  // One sequence's keys and values of every found layer, batch 1, all positions: keys of layer 0, its values, keys of
  // layer 1, … (what a pass after it reads as its prefix: run_suffix_rows).
  using KeyValues = std::vector<onnx::Tensor<float>>;
  bool load(const uint8_t* bytes, size_t size, const std::string& output, std::string* error);
  bool causal() const { return causal_; }
  const std::vector<onnx::FoundAttention>& attention() const { return attention_; }
  const onnx::Model& model() const { return *model_; }
  const std::string& output_name() const { return output_; }

  // One forward pass on ids (≥ 1); then logits() are the explained position's. inference: keep only the graph
  // outputs (Executor::forward's keep), for a pass whose logits are all that is read — nothing else (backward, maps,
  // forward_from) may follow it before the next full run.
  bool run(const std::vector<int>& ids, std::string* error, bool inference = false);
  const std::vector<float>& logits() const { return logits_; }
  // Several sequences of one length in one inference pass ([B, T] inputs): each one's explained-position logits.
  // Only for a graph whose inputs leave the batch dimension free (batch_free()); the values equal run()'s on each
  // sequence up to float rounding (the products run as one; the wasm kernel sums each element in the same order).
  // As after an inference run(), nothing else may read the executor before the next full run.
  // A causal LM's batches and inference runs run the graph's row-wise tail on the last position alone
  // (onnx/last_row.h) where last_row_batches() is on: by default in wasm only, like kExplainLogitsOnly
  // (explain/importance.h) — the wasm kernel sums each element in the same order for one row as for many, so the
  // values are the whole pass's to the bit, where Eigen's one-row product rounds otherwise. A pass the tail cannot run
  // on the last position (a planned node's output not [B, 1, …]) runs whole, and so do all later ones; the first cut
  // pass of a model is also run whole and compared (different logits: whole passes from then on).
  // last_rows_ready(): whether they do (a causal LM, the setting on, a tail found; planned on first use).
  bool batch_free() const { return batch_free_; }
  bool run_batch(const std::vector<std::vector<int>>& seqs, std::vector<std::vector<float>>* logits, std::string* error,
                 std::vector<KeyValues>* kv = nullptr);  // kv as run_suffix_batch's (where suffix_ready)
  void set_last_row_batches(bool on) { last_row_batches_ = on; }
  bool last_row_batches() const { return last_row_batches_; }
  bool last_rows_ready();
  // Whether this model's batched passes were found to give a single pass's logits (onnx_text_leave_one_out checks
  // its first deletion once per model; kDisagree: one sequence a pass from then on).
  enum class BatchCheck { kUnchecked, kAgree, kDisagree };
  BatchCheck batch_check() const { return batch_check_; }
  void set_batch_check(bool agree) { batch_check_ = agree ? BatchCheck::kAgree : BatchCheck::kDisagree; }
  // Passes on the last positions of a sequence whose first positions ran before (onnx/suffix_pass.h): a causal LM's
  // key/value cache, emulated on its graph. Prefix = the keys and values of a whole run on `ids`, per found layer.
  // suffix_ready(): a causal LM with a free batch, every layer's keys found (the score product's second input, through
  // scaling and masking from the Softmax), the check not failed, and last_row_batches() on (wasm only by default, for
  // the same reason: natively Eigen rounds a product of fewer rows otherwise, and the CLI keeps whole passes); an
  // attention_mask input holds all positions.
  // prefix_of(ids): from the executor when its last run was a whole run on ids, else after one.
  // run_suffix_batch(prefix, a, tails): sequences ids[0, a) ‖ tails[b] (each tail of one length) in one inference
  // pass on the tails' positions alone; each one's last-position logits, as run_batch gives them for the whole
  // sequences up to float rounding (the same bits in wasm). check_suffix(prefix, a, tail): once per model, one such
  // pass against the whole one (logits within 1e-4 relative); its answer kept (kDisagree: no suffix passes).
  struct Prefix {
    std::vector<int> ids;
    std::vector<onnx::Tensor<float>> keys, values;  // per layer, batch 1, all positions
    std::vector<float> logits;                      // the last position's
    KeyValues key_values() const;                   // keys and values in KeyValues' order
  };
  // The positions' axis of KeyValues entry q: the keys' last (as the score product reads them), the values' the one
  // before.
  static int kv_axis(size_t q) { return q % 2 == 0 ? -1 : -2; }
  bool suffix_ready();
  bool prefix_of(const std::vector<int>& ids, Prefix* out, std::string* error);
  // kv (optional): each sequence's keys and values after the pass (prefix and tail), for passes after it.
  bool run_suffix_batch(const Prefix& prefix, int64_t a, const std::vector<std::vector<int>>& tails,
                        std::vector<std::vector<float>>* logits, std::string* error, std::vector<KeyValues>* kv = nullptr);
  // The same with each sequence's own prefix of a positions (heads[b]: KeyValues of ≥ a positions, the first a read).
  bool run_suffix_rows(const std::vector<const KeyValues*>& heads, int64_t a, const std::vector<std::vector<int>>& tails,
                       std::vector<std::vector<float>>* logits, std::string* error, std::vector<KeyValues>* kv = nullptr);
  // Leave-one-out's last whole text on this model (onnx_text_leave_one_out): its deletions' keys and values, kept so
  // that the same text one token longer (the page's "next") runs each deletion on its one new position.
  struct Deletions {
    std::vector<int> ids;
    std::vector<KeyValues> rows;  // per deletion d: the keys and values of ids without ids[d]
    Prefix whole;                 // ids' own (the new token's deletion leaves them)
  };
  static constexpr int64_t kDeletionsBytes = int64_t(32) << 20;  // kept up to this many bytes of keys and values
  const std::shared_ptr<const Deletions>& deletions() const { return deletions_; }
  void set_deletions(std::shared_ptr<const Deletions> d) { deletions_ = std::move(d); }
  BatchCheck suffix_check() const { return suffix_check_; }
  bool check_suffix(const Prefix& prefix, int64_t a, const std::vector<int>& tail, std::string* error);
  // Backward from the explained position's logit `target` (a one-logit binary classifier: target 1 = +logit,
  // target 0 = −logit, as the core's transformer). After it: maps(with_gradients) and embedding_gradients.
  bool backward(int target, std::string* error);
  // Attention of every found layer as [layer][head] [n × n] (row = query) in the graph's own position order, and
  // the gradients of the backward target at them (empty without backward; dA null: not read).
  bool attention_layers(std::vector<std::vector<Mat<double>>>* A, std::vector<std::vector<Mat<double>>>* dA,
                        std::string* error) const;
  // The same as SelfAttentionMaps with the explained position moved to index 0 (the others in order after it),
  // so rollout_from_maps & co. give one value per other position. token_of[k] = the token of permuted position
  // k ≥ 1 (−1: a position that is no token). *explained_token = the token at the explained position (−1: none).
  bool maps(bool with_gradients, SelfAttentionMaps* out, std::vector<int>* token_of, int* explained_token,
            std::string* error) const;
  // After backward: per token, Σ_e x_te · d logit / d x_te (gradient × input) and ‖d logit / d x_t‖₂ on the token
  // embeddings (the output of the Gather that reads the ids). False when no such Gather is found.
  bool embedding_gradients(std::vector<double>* grad_x_input, std::vector<double>* grad_norm, std::string* error) const;

  // For interventions on the graph (onnx_attention_model.h): the executor after the last run, the token-embedding
  // value ("" when none was found) and the number of tokens of the last run.
  onnx::Executor<float>& executor() {
    full_ids_.clear();  // the caller may change its values (forward_from)
    return ex_;
  }
  // The explained position's logits as the executor holds them now (after Executor::forward_from too).
  std::vector<float> current_logits() const;
  // Backward from the explained position with d(objective)/d logits = d_logits (stop_at as Executor::backward).
  bool backward_seeded(const std::vector<float>& d_logits, const std::string& stop_at, std::string* error);
  const std::string& embedding_value() const { return embedding_; }
  int tokens() const { return tokens_; }
  // How many copies of this model, itself included, may run side by side: at most `wanted`, their executors' bytes
  // together (values and gradients held now) within kCopiesBytes, at least 1.
  static constexpr int64_t kCopiesBytes = int64_t(512) << 20;  // a quarter of the wasm core's 2 GiB
  int lanes(int wanted) const;
  // After a copy ran inference passes: the once-per-model check of the last-position cut that the copy made (its
  // outcome) holds for this model too, so the next copies do not make it again.
  void adopt_checks(const OnnxTextModel& copy) {
    if (copy.last_row_checked_ && !last_row_checked_) {
      last_row_checked_ = true;
      last_row_batches_ = copy.last_row_batches_;
    }
  }

 private:
  std::shared_ptr<onnx::Model> model_;  // shared by copies
  onnx::Executor<float> ex_;
  std::vector<onnx::FoundAttention> attention_;
  std::string ids_input_, output_, embedding_;
  std::vector<std::string> mask_inputs_, type_inputs_, position_inputs_;
  bool causal_ = false, backward_done_ = false, batch_free_ = false;
  bool last_row_batches_ = kExplainLogitsOnly, last_row_planned_ = false, last_row_checked_ = false;
  BatchCheck batch_check_ = BatchCheck::kUnchecked, suffix_check_ = BatchCheck::kUnchecked;
  bool suffix_planned_ = false;
  std::vector<std::string> suffix_keys_;  // per found layer: the score product's keys (positions on the last axis)
  std::vector<int> full_ids_;             // the ids of the executor's last whole (non-inference) run; empty: none
  std::vector<std::string> kv_names_;     // the keys and values the executor keeps for kv (KeyValues' order)
  bool keep_kv_ = false;                  // the next inference pass keeps them
  std::shared_ptr<const Deletions> deletions_;
  // After a pass that kept them: each of its B sequences' keys and values.
  bool read_kv(int64_t B, std::vector<KeyValues>* kv, std::string* error) const;
  // B sequences of one length, one after the other (false with a message for none, an empty one or unequal lengths).
  static bool flat_ids(const std::vector<std::vector<int>>& seqs, std::vector<int>* flat, std::string* error);
  // After an inference pass on B sequences of T tokens: each one's explained-position logits (a causal LM's last
  // position, whether the output holds T positions or the last alone; a classifier's row).
  bool batch_logits(int64_t B, int64_t T, std::vector<std::vector<float>>* logits, std::string* error) const;
  bool run_after(std::vector<onnx::Tensor<float>> heads, int64_t a, const std::vector<std::vector<int>>& tails,
                 std::vector<std::vector<float>>* logits, std::string* error, std::vector<KeyValues>* kv);
  // One forward of B sequences of flat.size() / B tokens each (the inputs filled as run() documents; position inputs
  // from `first`); last_row_of and suffix as Executor::forward.
  bool forward_ids(const std::vector<int>& flat, int64_t B, std::string* error, bool inference, int64_t last_row_of = 0,
                   const onnx::SuffixPass<float>* suffix = nullptr, int64_t first = 0);
  // One pass on the last position when cut (see last_rows_ready), or whole after a failed cut pass.
  bool forward_whole_or_cut(const std::vector<int>& flat, int64_t B, bool cut, std::string* error, bool inference);
  int tokens_ = 0;
  std::vector<float> logits_;
};

}  // namespace attnlab
