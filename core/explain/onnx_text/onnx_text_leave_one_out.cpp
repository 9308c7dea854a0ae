// onnx_text_leave_one_out.cpp — leave-one-out on a user's text transformer (onnx_text_explain.h
// onnx_text_leave_one_out) and the lanes and passes it runs on (onnx_text_lanes.h).
#include <algorithm>
#include <atomic>
#include <cmath>

#include "explain/importance.h"  // explain_parts
#include "explain/onnx_text/onnx_text_explain.h"
#include "explain/onnx_text/onnx_text_lanes.h"
#include "parallel/parallel_for.h"

namespace attnlab {
namespace {

// Leave-one-out's batches (a graph with a free batch dimension): the parts of the flat models' batched methods
// (importance.h explain_parts: 8, or more when a part would hold over kExplainBatchTokens tokens), more when a part's
// output (a causal LM's [B, T, V] logits) would exceed this many floats; they follow from the work alone. In wasm
// 2 M (8 MB): the GPT-2-shaped fixture at 50 tokens (50,265 logits a position) ran leave-one-out in 832–905 ms with
// batches of 6 and 590–596 ms one by one (Node, one thread); natively batches of 6 took it from 3.5 s to 1.1–1.5 s.
#if defined(__wasm__)
constexpr size_t kLooBatchOutputs = size_t(2) << 20;
#else
constexpr size_t kLooBatchOutputs = size_t(16) << 20;
#endif

}  // namespace

bool on_model_lanes(OnnxTextModel& model, size_t n, std::string* error,
                    const std::function<bool(OnnxTextModel&, size_t, std::string*)>& body,
                    const std::function<void()>& first) {
  const size_t wanted = std::min<size_t>(n + (first ? 1 : 0), static_cast<size_t>(thread_count()));
  const size_t lanes = in_parallel_loop() ? 1 : static_cast<size_t>(model.lanes(static_cast<int>(std::max<size_t>(1, wanted))));
  std::vector<OnnxTextModel> copies(lanes - 1, model);
  std::vector<std::string> errors(lanes);
  std::vector<size_t> failed_at(lanes, n);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  parallel_for(lanes, [&](size_t k) {
    OnnxTextModel& mine = k == 0 ? model : copies[k - 1];
    if (k == 0 && first) first();
    while (!failed.load(std::memory_order_acquire)) {
      const size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      if (!body(mine, i, &errors[k])) {
        failed_at[k] = i;
        failed.store(true, std::memory_order_release);
        return;
      }
    }
  });
  for (const OnnxTextModel& c : copies) model.adopt_checks(c);
  const size_t worst = static_cast<size_t>(std::min_element(failed_at.begin(), failed_at.end()) - failed_at.begin());
  if (failed_at[worst] == n) return true;
  *error = errors[worst];
  return false;
}

bool LooPasses::run(OnnxTextModel& m, size_t c, std::string* e) const {
  if (!batched) {
    if (!m.run(cut(c), e, /*inference=*/true)) return false;
    (*out)[c] = std::abs(p - onnx_text_probability(m.logits(), target));
    return true;
  }
  const size_t i0 = split_begin(n, chunks, c), i1 = split_begin(n, chunks, c + 1);
  const int64_t a = begin + static_cast<int64_t>(i0);  // the positions before the batch's first deletion
  std::vector<std::vector<float>> logits;
  std::vector<OnnxTextModel::KeyValues> kv;
  std::vector<OnnxTextModel::KeyValues>* keep = prefix && after ? &kv : nullptr;
  if (prefix && before) {  // begin = 0, T = ids.size() ≥ 3
    const size_t last = ids.size() - 1;
    std::vector<const OnnxTextModel::KeyValues*> heads;
    std::vector<std::vector<int>> tails;
    for (size_t i = i0; i < std::min(i1, last); ++i) {
      heads.push_back(&before->rows[i]);
      tails.push_back({ids[last]});
    }
    if (!heads.empty() && !m.run_suffix_rows(heads, static_cast<int64_t>(last) - 1, tails, &logits, e, keep)) return false;
    if (i1 > last) {  // the new token's deletion: the text before it, as run before
      logits.push_back(before->whole.logits);
      if (keep) kv.push_back(before->whole.key_values());
    }
  } else {
    std::vector<std::vector<int>> seqs;
    for (size_t i = i0; i < i1; ++i) {
      seqs.push_back(cut(i));
      if (prefix && a > 0) seqs.back().erase(seqs.back().begin(), seqs.back().begin() + a);
    }
    if (!(prefix && a > 0 ? m.run_suffix_batch(*prefix, a, seqs, &logits, e, keep) : m.run_batch(seqs, &logits, e, keep)))
      return false;
  }
  for (size_t i = i0; i < i1; ++i) {
    (*out)[i] = std::abs(p - onnx_text_probability(logits[i - i0], target));
    if (keep) after->rows[i] = std::move(kv[i - i0]);
  }
  return true;
}

void LooPasses::finish(OnnxTextModel& m) const {
  const bool whole_text = begin == 0 && static_cast<size_t>(begin) + n == ids.size();
  bool kept = after && prefix && batched;
  for (size_t i = 0; kept && i < after->rows.size(); ++i) kept = !after->rows[i].empty();
  if (kept) m.set_deletions(after);
  else if (whole_text) m.set_deletions(nullptr);
}

bool LooPasses::check_prefix(OnnxTextModel& m, std::string* e) {
  if (!prefix || m.suffix_check() != OnnxTextModel::BatchCheck::kUnchecked) return true;
  const size_t i = split_begin(n, chunks, chunks - 1);
  const int64_t a = begin + static_cast<int64_t>(i);
  if (a > 0) {
    std::vector<int> tail = cut(i);
    tail.erase(tail.begin(), tail.begin() + a);
    if (!m.check_suffix(*prefix, a, tail, e)) return false;
  }
  if (m.suffix_check() != OnnxTextModel::BatchCheck::kAgree) prefix.reset();
  return true;
}

LooPasses loo_passes(OnnxTextModel& model, const std::vector<int>& ids, int target, double p, int begin, int end,
                     std::vector<double>* out) {
  const int T = static_cast<int>(ids.size());
  begin = std::max(begin, 0);
  end = std::min(end, T);
  const size_t n = T > 1 ? static_cast<size_t>(std::max(end - begin, 0)) : 0;
  out->assign(static_cast<size_t>(std::max(end - begin, 0)), std::nan(""));
  // a causal LM's output holds every position, or the last alone (onnx/last_row.h)
  const size_t positions = model.causal() && !model.last_rows_ready() ? static_cast<size_t>(T - 1) : 1;
  const size_t per_output = positions * std::max<size_t>(1, model.logits().size());
  const size_t by_output = (n * per_output + kLooBatchOutputs - 1) / kLooBatchOutputs;
  const size_t chunks = n == 0 ? 0 : std::min(n, std::max(explain_parts(n, static_cast<size_t>(T - 1)), by_output));
  const bool batched = model.batch_free() && chunks < n && model.batch_check() != OnnxTextModel::BatchCheck::kDisagree;
  LooPasses passes{ids, begin, target, p, n, chunks, batched, out, nullptr, nullptr, nullptr};
  if (batched && model.suffix_ready()) {
    auto pre = std::make_shared<OnnxTextModel::Prefix>();
    std::string ignored;  // no prefix: whole passes
    if (model.prefix_of(ids, pre.get(), &ignored)) passes.prefix = pre;
  }
  if (passes.prefix && begin == 0 && end == T && T >= 3) {
    const auto& d = model.deletions();
    if (d && d->ids.size() + 1 == ids.size() && std::equal(d->ids.begin(), d->ids.end(), ids.begin()) &&
        d->rows.size() == d->ids.size()) {
      passes.before = d;
      passes.chunks = std::min<size_t>(n - 1, 4);  // a position each: a few batches, for the lanes
    }
    int64_t each = 0;  // a deletion's keys and values: about the text's own
    for (size_t l = 0; l < passes.prefix->keys.size(); ++l)
      each += (passes.prefix->keys[l].numel() + passes.prefix->values[l].numel()) * static_cast<int64_t>(sizeof(float));
    if (each * static_cast<int64_t>(n) <= OnnxTextModel::kDeletionsBytes) {
      passes.after = std::make_shared<OnnxTextModel::Deletions>();
      passes.after->ids = ids;
      passes.after->rows.resize(n);
      passes.after->whole = *passes.prefix;
    }
  }
  return passes;
}

bool onnx_text_leave_one_out(OnnxTextModel& model, const std::vector<int>& ids, int target, double p, int begin, int end,
                             std::vector<double>* out, std::string* error) {
  // Each deletion's value depends on its own input alone, so they run side by side on copies of the model; with a
  // free batch dimension, many deletions (all of one length) in one pass.
  LooPasses loo = loo_passes(model, ids, target, p, begin, end, out);
  if (loo.n == 0) return true;
  if (loo.batched && !loo.check_prefix(model, error)) return false;
  if (loo.batched) {
    std::string batch_error;
    const bool ok = on_model_lanes(model, loo.items(), &batch_error, [&](OnnxTextModel& m, size_t c, std::string* e) {
      return loo.run(m, c, e);
    });
    // A graph that declares a free batch but fixes it inside (a Reshape to [1, …]) fails; one that mixes the batch's
    // sequences (attention over B·T positions) gives other numbers: on the model's first batched call the first
    // deletion is checked against a pass of its own (the answer kept for its later calls), and either falls back to
    // one deletion a pass.
    if (ok && model.batch_check() == OnnxTextModel::BatchCheck::kAgree) {
      loo.finish(model);
      return true;
    }
    std::string single_error;
    if (ok && model.run(loo.cut(0), &single_error, /*inference=*/true)) {
      model.set_batch_check(std::abs((*out)[0] - std::abs(p - onnx_text_probability(model.logits(), target))) <= 1e-5);
      if (model.batch_check() == OnnxTextModel::BatchCheck::kAgree) {
        loo.finish(model);
        return true;
      }
    }
    loo.batched = false;
  }
  return on_model_lanes(model, loo.items(), error, [&](OnnxTextModel& m, size_t i, std::string* e) { return loo.run(m, i, e); });
}

}  // namespace attnlab
