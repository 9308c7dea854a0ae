// onnx_text_lanes.h — leave-one-out's passes on a user's text transformer and the lanes they run on, shared by
// onnx_text_leave_one_out and onnx_text_explain (which runs the passes beside its own rows). Internal to
// core/explain/onnx_text/.
//
//   on_model_lanes(model, n, error, body, first): see below.
//   loo_passes(model, ids, target, p, begin, end, out) → LooPasses: the deletions of ids[begin, end) as passes —
//     batched where the graph's batch is free and not found to disagree, else one deletion a pass; out sized and
//     NaN-filled. passes.run(m, item, e) runs item `item` on model m and writes its values into out.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "explain/onnx_text/onnx_text_model.h"

namespace attnlab {

// Runs body(lane model, item) for items [0, n) on copies of the model (shared weights, own executors), one lane per
// thread, each lane taking the next item when it is free (a lane slowed by another program takes fewer). first
// (optional) runs on the model itself, in lane 0, before that lane takes items: the explanation's own rows beside
// leave-one-out's passes (onnx_text_explain). Which lane runs an item never changes its value (each item's passes
// are its own). Errors: the item with the lowest index that failed (every item below it ran: items are taken in
// order and a lane stops taking them once one failed), as a serial loop would report.
bool on_model_lanes(OnnxTextModel& model, size_t n, std::string* error,
                    const std::function<bool(OnnxTextModel&, size_t, std::string*)>& body,
                    const std::function<void()>& first = nullptr);

// Leave-one-out's deletions of ids[begin, begin + n): in `chunks` batched passes (batched) or one pass each. With a
// prefix (a causal LM's keys and values of the run on ids: OnnxTextModel::run_suffix_batch), a batch whose first
// deletion is ids[a] runs positions [a, T − 1) alone: a deletion leaves every position before it as it was.
struct LooPasses {
  const std::vector<int>& ids;
  int begin, target;
  double p;
  size_t n, chunks;
  bool batched;
  std::vector<double>* out;
  std::shared_ptr<const OnnxTextModel::Prefix> prefix;
  // With the prefix, over the whole text: `before`, the model's deletions of ids[0, T − 1) where ids extend that text by
  // one token (OnnxTextModel::deletions) — each deletion d < T − 1 then runs its one new position after the keys and
  // values kept for d, and the new token's deletion is that text's own run; `after`, what the passes keep for the next
  // (their keys and values, within OnnxTextModel::kDeletionsBytes; null: nothing kept).
  std::shared_ptr<const OnnxTextModel::Deletions> before;
  std::shared_ptr<OnnxTextModel::Deletions> after;

  std::vector<int> cut(size_t i) const {
    std::vector<int> c = ids;
    c.erase(c.begin() + begin + static_cast<std::ptrdiff_t>(i));
    return c;
  }
  size_t items() const { return batched ? chunks : n; }
  bool run(OnnxTextModel& m, size_t c, std::string* e) const;
  // Once per model (OnnxTextModel::check_suffix), on the last batch's first deletion: the prefix dropped where the
  // model's suffix passes disagree with whole ones (or cannot run).
  bool check_prefix(OnnxTextModel& m, std::string* e);
  // After every item ran (batched, with the prefix): the model keeps `after` for the next call; a whole-text call that
  // kept nothing lets go of what the model kept.
  void finish(OnnxTextModel& m) const;
};

// The passes of leave-one-out over ids[begin, end) (out sized and NaN-filled): batched where the graph's batch is free
// (chunks from the work alone, kLooBatchOutputs), else one deletion a pass. batched is false then. The prefix where the
// model is suffix_ready and its check has not failed (prefix_of: may run the model on ids).
LooPasses loo_passes(OnnxTextModel& model, const std::vector<int>& ids, int target, double p, int begin, int end,
                     std::vector<double>* out);

}  // namespace attnlab
