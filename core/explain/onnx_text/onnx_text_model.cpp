// ONNX text transformer for the explanation methods (see onnx_text_model.h).
#include "explain/onnx_text/onnx_text_model.h"

#include <algorithm>
#include <cmath>

#include "explain/onnx/attention_layers.h"
#include "onnx/last_row.h"
#include "onnx/reader.h"

namespace attnlab {

using namespace attnlab::onnx;

namespace {
bool name_has(const std::string& name, const char* part) { return name.find(part) != std::string::npos; }
}  // namespace

bool OnnxTextModel::load(const uint8_t* bytes, size_t size, const std::string& output, std::string* error) {
  model_ = std::make_shared<Model>();
  if (!read_model(bytes, size, model_.get(), error)) return false;
  const Model& m = *model_;
  // Inputs by role.
  std::vector<std::string> integer_inputs;
  for (const ValueInfo& vi : m.inputs) {
    if (is_float_type(vi.dtype)) {
      *error = "input '" + vi.name + "' is " + data_type_name(vi.dtype) +
               ": a text model takes token ids (int64), not embeddings or images";
      return false;
    }
    if (vi.has_shape && vi.dims.size() != 2) {
      *error = "input '" + vi.name + "' has rank " + std::to_string(vi.dims.size()) + "; text inputs are [1, T]";
      return false;
    }
    if (name_has(vi.name, "mask")) mask_inputs_.push_back(vi.name);
    else if (name_has(vi.name, "type")) type_inputs_.push_back(vi.name);
    else if (name_has(vi.name, "position")) position_inputs_.push_back(vi.name);
    else integer_inputs.push_back(vi.name);
  }
  for (const auto& n : integer_inputs)
    if (name_has(n, "input_ids") || name_has(n, "token_ids")) ids_input_ = n;
  if (ids_input_.empty() && integer_inputs.size() == 1) ids_input_ = integer_inputs[0];
  if (ids_input_.empty()) {
    *error = integer_inputs.empty() ? "the model has no token-id input" : "cannot tell which input holds the token ids (expected one named input_ids)";
    return false;
  }
  for (const auto& n : integer_inputs)
    if (n != ids_input_) {
      *error = "input '" + n + "' is none of input_ids, attention_mask, token_type_ids, position_ids";
      return false;
    }
  // The output.
  if (!output.empty()) {
    output_ = output;
  } else {
    for (const auto& o : m.outputs)
      if (o.name == "logits") output_ = o.name;
    if (output_.empty() && m.outputs.size() == 1) output_ = m.outputs[0].name;
    if (output_.empty()) {
      std::string names;
      for (const auto& o : m.outputs) names += (names.empty() ? "" : ", ") + o.name;
      *error = "the model has several outputs (" + names + ") and none is named 'logits': choose one (--output NAME)";
      return false;
    }
  }
  bool found = false;
  for (const auto& o : m.outputs) found = found || o.name == output_;
  if (!found) {
    *error = "the model has no output named '" + output_ + "'";
    return false;
  }
  if (!ex_.load(m, error)) return false;
  last_row_planned_ = last_row_checked_ = false;  // the new executor has no plan yet
  batch_free_ = true;
  for (const ValueInfo& vi : m.inputs)
    if (vi.has_shape && !vi.dims.empty() && vi.dims[0] >= 0) batch_free_ = false;
  attention_ = find_attention(m);
  // The token embeddings: a Gather (axis 0) whose indices are the ids (directly or through a Cast).
  for (const Node& n : m.nodes) {
    if (n.op_type != "Gather" || n.inputs.size() < 2 || n.outputs.empty()) continue;
    std::string idx = n.inputs[1];
    for (const Node& c : m.nodes)
      if (c.op_type == "Cast" && !c.outputs.empty() && c.outputs[0] == idx && !c.inputs.empty()) idx = c.inputs[0];
    if (idx == ids_input_ && n.attr_int("axis", 0) == 0) {
      embedding_ = n.outputs[0];
      break;
    }
  }
  // Gradients start at the token embeddings (no gradient flows through integer ids).
  if (!embedding_.empty()) ex_.set_gradient_roots({embedding_});
  return true;
}

int OnnxTextModel::lanes(int wanted) const {
  const int64_t each = std::max<int64_t>(1, ex_.live_bytes());
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(wanted, kCopiesBytes / each)));
}

bool OnnxTextModel::forward_ids(const std::vector<int>& flat, int64_t B, std::string* error, bool inference,
                                int64_t last_row_of, const SuffixPass<float>* suffix, int64_t first) {
  const int64_t T = static_cast<int64_t>(flat.size()) / B;
  std::map<std::string, Tensor<float>> in;
  Tensor<float> t = Tensor<float>::ints({B, T});
  for (int64_t k = 0; k < B * T; ++k) t.i[k] = flat[static_cast<size_t>(k)];
  in[ids_input_] = t;
  for (const auto& n : mask_inputs_) {  // after a prefix (suffix): every position's, the prefix's too (the keys')
    Tensor<float> mask = Tensor<float>::ints({B, suffix ? first + T : T});
    std::fill(mask.i.begin(), mask.i.end(), 1);
    in[n] = mask;
  }
  for (const auto& n : type_inputs_) in[n] = Tensor<float>::ints({B, T});
  for (const auto& n : position_inputs_) {
    Tensor<float> pos = Tensor<float>::ints({B, T});
    for (int64_t k = 0; k < B * T; ++k) pos.i[k] = first + k % T;
    in[n] = pos;
  }
  // Integer inputs keep their declared ONNX types (the executor computes them as int64).
  for (const ValueInfo& vi : model_->inputs) in[vi.name].dtype = vi.dtype;
  static const std::vector<std::string> kOutputsOnly;
  return ex_.forward(in, error, inference ? (keep_kv_ ? &kv_names_ : &kOutputsOnly) : nullptr, last_row_of, suffix);
}

bool OnnxTextModel::last_rows_ready() {
  if (!last_row_batches_ || !causal_) return false;
  if (!last_row_planned_) {
    ex_.set_last_row_nodes(onnx::last_row_nodes(ex_, output_));
    last_row_planned_ = true;
  }
  return ex_.has_last_row_nodes();
}

bool OnnxTextModel::forward_whole_or_cut(const std::vector<int>& flat, int64_t B, bool cut, std::string* error,
                                         bool inference) {
  const int64_t T = static_cast<int64_t>(flat.size()) / B;
  if (cut && !last_row_checked_) {
    // Once per model: the cut pass must give the whole pass's last position (the plan assumes the values entering
    // the tail hold the positions on axis 1; a graph where they do not could pass the executor's shape check when
    // a dimension equals T). In wasm the values are the same bits; 1e-5 leaves room for native tests' rounding.
    last_row_checked_ = true;
    if (!forward_ids(flat, B, error, inference)) return false;
    const Tensor<float>* y = ex_.value(output_);
    if (!y || !y->is_float() || y->rank() != 3 || y->shape[1] != T) {
      last_row_batches_ = false;
      return true;  // the whole pass's values stand
    }
    const int64_t V = y->shape[2];
    std::vector<float> last;
    for (int64_t b = 0; b < B; ++b) last.insert(last.end(), y->f.begin() + (b * T + T - 1) * V, y->f.begin() + (b * T + T) * V);
    std::string cut_error;
    bool same = forward_ids(flat, B, &cut_error, inference, T);
    const Tensor<float>* c = same ? ex_.value(output_) : nullptr;
    same = c && c->f.size() == last.size();
    for (size_t k = 0; same && k < last.size(); ++k)
      same = std::abs(c->f[k] - last[k]) <= 1e-5f * std::max(1.f, std::abs(last[k]));
    if (same) return true;
    last_row_batches_ = false;
    return forward_ids(flat, B, error, inference);
  }
  if (forward_ids(flat, B, error, inference, cut ? T : 0)) return true;
  if (!cut) return false;
  last_row_batches_ = false;  // the tail cannot run on the last position here: whole passes from now on
  return forward_ids(flat, B, error, inference);
}

bool OnnxTextModel::run(const std::vector<int>& ids, std::string* error, bool inference) {
  backward_done_ = false;
  full_ids_.clear();
  if (ids.empty()) {
    *error = "no tokens to run";
    return false;
  }
  const int64_t T = static_cast<int64_t>(ids.size());
  const bool cut = inference && T > 1 && last_rows_ready();
  if (!forward_whole_or_cut(ids, 1, cut, error, inference)) return false;
  const Tensor<float>* y = ex_.value(output_);
  if (!y || !y->is_float() || y->rank() < 1) {
    *error = "output '" + output_ + "' is not a float tensor";
    return false;
  }
  tokens_ = static_cast<int>(T);
  // [1, C] / [C]: a classifier; [1, T, V]: a causal LM (the last position; [1, 1, V] from a pass on it alone).
  if (y->rank() == 3 && y->shape[0] == 1 && (y->shape[1] == T || (causal_ && y->shape[1] == 1))) {
    causal_ = true;
    const int64_t V = y->shape[2];
    logits_.assign(y->f.end() - V, y->f.end());
  } else if (y->rank() <= 2 && (y->rank() == 1 || y->shape[0] == 1)) {
    causal_ = false;
    logits_.assign(y->f.begin(), y->f.end());
  } else {
    *error = "output '" + output_ + "' has shape " + shape_str(y->shape) + ": expected [1, classes] or [1, T, vocabulary]";
    return false;
  }
  if (!inference) full_ids_ = ids;
  return true;
}

bool OnnxTextModel::flat_ids(const std::vector<std::vector<int>>& seqs, std::vector<int>* flat, std::string* error) {
  if (seqs.empty() || seqs[0].empty()) {
    *error = "no tokens to run";
    return false;
  }
  flat->clear();
  flat->reserve(seqs.size() * seqs[0].size());
  for (const auto& s : seqs) {
    if (s.size() != seqs[0].size()) {
      *error = "a batch's sequences must have one length";
      return false;
    }
    flat->insert(flat->end(), s.begin(), s.end());
  }
  return true;
}

bool OnnxTextModel::batch_logits(int64_t b, int64_t t, std::vector<std::vector<float>>* logits, std::string* error) const {
  const Tensor<float>* y = ex_.value(output_);
  const int64_t rows = y && y->rank() == 3 && y->shape[1] == 1 ? 1 : t;  // positions the output holds
  const bool lm = y && y->is_float() && y->rank() == 3 && y->shape[0] == b && y->shape[1] == rows;
  const bool clf = y && y->is_float() && y->rank() == 2 && y->shape[0] == b;
  if (!lm && !clf) {
    *error = "output '" + output_ + "' of a batch of " + std::to_string(b) + " has shape " +
             (y ? shape_str(y->shape) : std::string("(none)")) + ": expected [B, classes] or [B, T, vocabulary]";
    return false;
  }
  const int64_t V = y->shape.back();
  logits->assign(static_cast<size_t>(b), {});
  for (int64_t k = 0; k < b; ++k) {
    const auto at = y->f.begin() + (lm ? (k * rows + rows - 1) * V : k * V);  // a causal LM: each sequence's last position
    (*logits)[static_cast<size_t>(k)].assign(at, at + V);
  }
  return true;
}

bool OnnxTextModel::run_batch(const std::vector<std::vector<int>>& seqs, std::vector<std::vector<float>>* logits,
                              std::string* error, std::vector<KeyValues>* kv) {
  backward_done_ = false;
  full_ids_.clear();
  std::vector<int> flat;
  if (!flat_ids(seqs, &flat, error)) return false;
  const int64_t b = static_cast<int64_t>(seqs.size()), t = static_cast<int64_t>(seqs[0].size());
  const bool cut = t > 1 && last_rows_ready();
  if (kv && !suffix_ready()) {
    *error = "this model's keys and values are not found";
    return false;
  }
  keep_kv_ = kv != nullptr;
  const bool ran = forward_whole_or_cut(flat, b, cut, error, /*inference=*/true);
  keep_kv_ = false;
  if (!ran || (kv && !read_kv(b, kv, error))) return false;
  return batch_logits(b, t, logits, error);
}

bool OnnxTextModel::backward(int target, std::string* error) {
  const Tensor<float>* y = ex_.value(output_);
  if (!y) {
    *error = "run the model first";
    return false;
  }
  const int C = static_cast<int>(logits_.size());
  if (target < 0 || (C > 1 && target >= C) || (C == 1 && target > 1)) {
    *error = "target " + std::to_string(target) + " is out of range (" + std::to_string(C) + " outputs)";
    return false;
  }
  Tensor<float> seed = Tensor<float>::floats(y->shape);
  const size_t base = causal_ ? y->f.size() - static_cast<size_t>(C) : 0;
  if (C == 1) seed.f[base] = target == 1 ? 1.f : -1.f;
  else seed.f[base + static_cast<size_t>(target)] = 1.f;
  if (!ex_.backward(output_, seed, error)) return false;
  backward_done_ = true;
  return true;
}

std::vector<float> OnnxTextModel::current_logits() const {
  const Tensor<float>* y = ex_.value(output_);
  if (!y || !y->is_float() || logits_.empty() || y->f.size() < logits_.size()) return {};
  const size_t C = logits_.size();
  return causal_ ? std::vector<float>(y->f.end() - static_cast<std::ptrdiff_t>(C), y->f.end())
                 : std::vector<float>(y->f.begin(), y->f.begin() + static_cast<std::ptrdiff_t>(C));
}

bool OnnxTextModel::backward_seeded(const std::vector<float>& d_logits, const std::string& stop_at, std::string* error) {
  const Tensor<float>* y = ex_.value(output_);
  if (!y || d_logits.size() != logits_.size() || y->f.size() < logits_.size()) {
    *error = "run the model first";
    return false;
  }
  Tensor<float> seed = Tensor<float>::floats(y->shape);
  const size_t base = causal_ ? y->f.size() - logits_.size() : 0;
  for (size_t c = 0; c < d_logits.size(); ++c) seed.f[base + c] = d_logits[c];
  if (!ex_.backward(output_, seed, error, stop_at)) return false;
  backward_done_ = true;
  return true;
}

bool OnnxTextModel::attention_layers(std::vector<std::vector<Mat<double>>>* A, std::vector<std::vector<Mat<double>>>* dA,
                                     std::string* error) const {
  return read_attention_layers(ex_, attention_, backward_done_ && dA, A, dA, error);
}

bool OnnxTextModel::maps(bool with_gradients, SelfAttentionMaps* out, std::vector<int>* token_of, int* explained_token,
                         std::string* error) const {
  if (attention_.empty()) {
    *error = "no attention was found in this model (a Softmax over the keys that multiplies the values)";
    return false;
  }
  if (with_gradients && !backward_done_) {
    *error = "run backward first";
    return false;
  }
  std::vector<std::vector<Mat<double>>> A, dA;
  if (!read_attention_layers(ex_, attention_, with_gradients, &A, &dA, error)) return false;
  const int n = static_cast<int>(A[0][0].rows());
  const int offset = n - tokens_;  // 1: the graph prepends its own position 0
  if (offset != 0 && offset != 1) {
    *error = "the attention has " + std::to_string(n) + " positions for " + std::to_string(tokens_) + " tokens";
    return false;
  }
  const int e = causal_ ? n - 1 : 0;  // the explained position
  // order[k] = the graph position at permuted index k: the explained one first, the rest in order.
  std::vector<int> order = {e};
  for (int p = 0; p < n; ++p)
    if (p != e) order.push_back(p);
  auto permute = [&](const Mat<double>& m) {
    Mat<double> r(n, n);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) r(i, j) = m(order[i], order[j]);
    return r;
  };
  *out = SelfAttentionMaps();
  out->layers = static_cast<int>(A.size());
  out->heads = static_cast<int>(A[0].size());
  out->n = n;
  out->A.resize(A.size());
  if (with_gradients) out->dA.resize(A.size());
  for (size_t l = 0; l < A.size(); ++l) {
    if (static_cast<int>(A[l].size()) != out->heads || A[l][0].rows() != n) {
      *error = "the attention layers differ in heads or positions";
      return false;
    }
    for (size_t h = 0; h < A[l].size(); ++h) {
      out->A[l].push_back(permute(A[l][h]));
      if (with_gradients) out->dA[l].push_back(permute(dA[l][h]));
    }
  }
  token_of->assign(static_cast<size_t>(n), -1);
  for (int k = 0; k < n; ++k) (*token_of)[k] = order[k] - offset;  // −1 for the graph's own position 0
  *explained_token = e - offset;
  double mx = -1e300, z = 0;
  for (float v : logits_) mx = std::max(mx, static_cast<double>(v));
  for (float v : logits_) z += std::exp(v - mx);
  for (float v : logits_) out->probabilities.push_back(std::exp(v - mx) / z);
  return true;
}

bool OnnxTextModel::embedding_gradients(std::vector<double>* grad_x_input, std::vector<double>* grad_norm,
                                        std::string* error) const {
  if (embedding_.empty()) {
    *error = "no token-embedding Gather reads the ids: the gradient methods need one";
    return false;
  }
  const Tensor<float>* x = ex_.value(embedding_);
  const Tensor<float>* g = backward_done_ ? ex_.gradient(embedding_) : nullptr;
  if (!x || !x->is_float() || x->numel() % tokens_ != 0) {
    *error = "the token embeddings '" + embedding_ + "' have an unexpected shape";
    return false;
  }
  const int64_t d = x->numel() / tokens_;
  grad_x_input->assign(static_cast<size_t>(tokens_), 0.0);
  grad_norm->assign(static_cast<size_t>(tokens_), 0.0);
  if (!g) return true;  // the output does not depend on the embeddings
  for (int t = 0; t < tokens_; ++t) {
    double gx = 0, gg = 0;
    for (int64_t k = 0; k < d; ++k) {
      const size_t q = static_cast<size_t>(t * d + k);
      gx += static_cast<double>(x->f[q]) * g->f[q];
      gg += static_cast<double>(g->f[q]) * g->f[q];
    }
    (*grad_x_input)[t] = gx;
    (*grad_norm)[t] = std::sqrt(gg);
  }
  return true;
}

}  // namespace attnlab
