// onnx_text_suffix.cpp — OnnxTextModel's passes on the last positions of a sequence whose first positions ran before
// (onnx_text_model.h: suffix_ready, prefix_of, run_suffix_batch, check_suffix; the executor's side in
// onnx/suffix_pass.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "explain/onnx_text/onnx_text_model.h"

namespace attnlab {

using namespace attnlab::onnx;

namespace {

// Nodes between the score product Q·Kᵀ and its Softmax that pass the scores on (attention_finder's set).
bool passes_scores(const std::string& op) {
  return op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Where" || op == "Cast" || op == "Identity" ||
         op == "Clip";
}

}  // namespace

bool OnnxTextModel::suffix_ready() {
  if (!last_row_batches_ || !causal_ || !batch_free_ || attention_.empty() || suffix_check_ == BatchCheck::kDisagree)
    return false;
  if (!suffix_planned_) {
    suffix_planned_ = true;
    // Per layer, from the Softmax's input up through scaling and masking to the score product: its second input holds
    // the keys.
    std::map<std::string, const Node*> producer, by_name;
    for (const Node& n : model_->nodes) {
      for (const auto& o : n.outputs)
        if (!o.empty()) producer[o] = &n;
      by_name[n.name] = &n;
    }
    std::vector<std::string> keys;
    for (const FoundAttention& a : attention_) {
      auto s = by_name.find(a.softmax_node);
      if (s == by_name.end() || s->second->inputs.empty()) return false;
      // every MatMul reached from the Softmax's input through scaling and masking (the masks reach none): one
      std::set<const Node*> products;
      std::vector<std::pair<std::string, int>> stack = {{s->second->inputs[0], 0}};
      while (!stack.empty() && products.size() < 2) {
        const auto [v, depth] = stack.back();
        stack.pop_back();
        auto p = producer.find(v);
        if (depth > 8 || p == producer.end()) continue;
        const Node& n = *p->second;
        if (n.op_type == "MatMul") products.insert(&n);
        else if (passes_scores(n.op_type))
          for (const auto& in : n.inputs)
            if (!in.empty() && !ex_.is_constant(in)) stack.push_back({in, depth + 1});
      }
      if (products.size() != 1 || (*products.begin())->inputs.size() != 2) return false;  // not ready
      keys.push_back((*products.begin())->inputs[1]);
    }
    suffix_keys_ = keys;
    kv_names_.clear();
    for (size_t l = 0; l < keys.size(); ++l) {
      kv_names_.push_back(keys[l]);
      kv_names_.push_back(attention_[l].values);
    }
  }
  return suffix_keys_.size() == attention_.size();
}

bool OnnxTextModel::prefix_of(const std::vector<int>& ids, Prefix* out, std::string* error) {
  if (!suffix_ready()) {
    *error = "this model's passes cannot start after a prefix";
    return false;
  }
  if (full_ids_ != ids && !run(ids, error)) return false;
  const int64_t T = static_cast<int64_t>(ids.size());
  *out = Prefix();
  out->ids = ids;
  for (size_t l = 0; l < attention_.size(); ++l) {
    const Tensor<float>* k = ex_.value(suffix_keys_[l]);
    const Tensor<float>* v = ex_.value(attention_[l].values);
    if (!k || !v || !k->is_float() || !v->is_float() || k->rank() < 3 || v->rank() < 3 || k->shape[0] != 1 ||
        v->shape[0] != 1 || k->shape.back() != T || v->shape[v->shape.size() - 2] != T) {
      *error = "layer " + std::to_string(l) + "'s keys or values do not hold one entry a position";
      return false;
    }
    out->keys.push_back(*k);
    out->values.push_back(*v);
  }
  out->logits = logits_;
  return true;
}

OnnxTextModel::KeyValues OnnxTextModel::Prefix::key_values() const {
  KeyValues kv;
  for (size_t l = 0; l < keys.size(); ++l) {
    kv.push_back(keys[l]);
    kv.push_back(values[l]);
  }
  return kv;
}

bool OnnxTextModel::read_kv(int64_t B, std::vector<KeyValues>* kv, std::string* error) const {
  kv->assign(static_cast<size_t>(B), KeyValues());
  for (size_t q = 0; q < kv_names_.size(); ++q) {
    const Tensor<float>* t = ex_.value(kv_names_[q]);
    if (!t || !t->is_float() || t->rank() < 3 || t->shape[0] != B) {
      *error = "the keys or values '" + kv_names_[q] + "' were not kept";
      return false;
    }
    const int64_t each = t->numel() / B;
    Shape one = t->shape;
    one[0] = 1;
    for (int64_t b = 0; b < B; ++b) {
      Tensor<float> r = Tensor<float>::uninit(one);
      std::copy_n(t->f.begin() + b * each, each, r.f.begin());
      (*kv)[static_cast<size_t>(b)].push_back(std::move(r));
    }
  }
  return true;
}

bool OnnxTextModel::run_suffix_rows(const std::vector<const KeyValues*>& heads, int64_t a,
                                    const std::vector<std::vector<int>>& tails, std::vector<std::vector<float>>* logits,
                                    std::string* error, std::vector<KeyValues>* kv) {
  if (heads.size() != tails.size() || heads.empty() || !suffix_ready()) {
    *error = "a pass after prefixes needs one prefix a sequence";
    return false;
  }
  // each sequence's first a positions, stacked on the batch axis (the keys: the last axis; the values: the one before)
  std::vector<Tensor<float>> stacked;
  for (size_t q = 0; q < kv_names_.size(); ++q) {
    const int axis = kv_axis(q);
    Tensor<float> s;
    for (size_t b = 0; b < heads.size(); ++b) {
      if (heads[b]->size() != kv_names_.size()) {
        *error = "a prefix's keys and values do not fit this model";
        return false;
      }
      const Tensor<float> h = suffix_head((*heads[b])[q], axis, a);
      if (b == 0) {
        s = h;
        s.shape[0] = static_cast<int64_t>(heads.size());
        s.f.resize(h.f.size() * heads.size());
      }
      if (h.shape[0] != 1 || !std::equal(h.shape.begin() + 1, h.shape.end(), s.shape.begin() + 1, s.shape.end())) {
        *error = "the prefixes differ in shape";
        return false;
      }
      std::copy(h.f.begin(), h.f.end(), s.f.begin() + static_cast<std::ptrdiff_t>(b * h.f.size()));
    }
    stacked.push_back(std::move(s));
  }
  return run_after(std::move(stacked), a, tails, logits, error, kv);
}

bool OnnxTextModel::run_suffix_batch(const Prefix& prefix, int64_t a, const std::vector<std::vector<int>>& tails,
                                     std::vector<std::vector<float>>* logits, std::string* error,
                                     std::vector<KeyValues>* kv) {
  const int64_t T = static_cast<int64_t>(prefix.ids.size());
  if (a > T || prefix.keys.size() != attention_.size() || !suffix_ready()) {
    *error = "a pass after a prefix needs a prefix and tokens after it";
    return false;
  }
  std::vector<Tensor<float>> heads = prefix.key_values();
  for (size_t q = 0; q < heads.size(); ++q) heads[q] = suffix_head(heads[q], kv_axis(q), a);  // batch 1: every sequence's
  return run_after(std::move(heads), a, tails, logits, error, kv);
}

bool OnnxTextModel::run_after(std::vector<Tensor<float>> heads, int64_t a, const std::vector<std::vector<int>>& tails,
                              std::vector<std::vector<float>>* logits, std::string* error, std::vector<KeyValues>* kv) {
  backward_done_ = false;
  full_ids_.clear();
  std::vector<int> flat;
  if (a < 1 || heads.size() != kv_names_.size()) {
    *error = "a pass after a prefix needs a prefix and tokens after it";
    return false;
  }
  if (!flat_ids(tails, &flat, error)) return false;
  SuffixPass<float> pass;
  pass.prefix = a;
  for (size_t q = 0; q < heads.size(); ++q) pass.extend.push_back({kv_names_[q], kv_axis(q), &heads[q]});
  const int64_t b = static_cast<int64_t>(tails.size()), s = static_cast<int64_t>(tails[0].size());
  const bool cut = s > 1 && last_rows_ready() && last_row_checked_;
  keep_kv_ = kv != nullptr;
  bool ok = forward_ids(flat, b, error, /*inference=*/true, cut ? s : 0, &pass, a);
  if (!ok && cut) ok = forward_ids(flat, b, error, /*inference=*/true, 0, &pass, a);
  keep_kv_ = false;
  if (!ok || (kv && !read_kv(b, kv, error))) return false;
  return batch_logits(b, s, logits, error);
}

bool OnnxTextModel::check_suffix(const Prefix& prefix, int64_t a, const std::vector<int>& tail, std::string* error) {
  if (a < 1 || a > static_cast<int64_t>(prefix.ids.size())) {
    *error = "a pass after a prefix needs a prefix";
    return false;
  }
  std::vector<std::vector<float>> cut;
  std::string cut_error;
  const bool ran = run_suffix_batch(prefix, a, {tail}, &cut, &cut_error);
  std::vector<int> whole(prefix.ids.begin(), prefix.ids.begin() + a);
  whole.insert(whole.end(), tail.begin(), tail.end());
  if (!run(whole, error, /*inference=*/true)) return false;
  bool same = ran && cut[0].size() == logits_.size();
  for (size_t k = 0; same && k < logits_.size(); ++k)
    same = std::abs(cut[0][k] - logits_[k]) <= 1e-4f * std::max(1.f, std::abs(logits_[k]));
  suffix_check_ = same ? BatchCheck::kAgree : BatchCheck::kDisagree;
  return true;
}

}  // namespace attnlab
