// The global view (core/explain/global_view.h) as the JS object TextLab.globalViewStep / HanLab.globalViewStep
// return when finished (docs/DESIGN.md "Global view"): the header of `attnlab global-view`'s JSON (level, error,
// query, score_at_mean, explained_variance, count_total) plus every item, ranked by score, as columns — texts
// (array of strings), score / contextual_score / x / y (Float64Array; contextual_score NaN for an unseen item),
// count / predicted_class (Int32Array) — and class_names. Copied out at once (boundary.h).
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "boundary.h"
#include "explain/global_view.h"

namespace attnlab::wasm {

inline val global_view_val(const GlobalView& v, const std::vector<std::string>& class_names) {
  const size_t n = v.items.size();
  std::vector<std::string> texts(n);
  std::vector<double> score(n), contextual(n), x(n), y(n);
  std::vector<int32_t> count(n), cls(n);
  for (size_t i = 0; i < n; ++i) {
    const GlobalViewItem& it = v.items[i];
    texts[i] = it.text;
    score[i] = it.score;
    contextual[i] = it.contextual_score;
    x[i] = it.x;
    y[i] = it.y;
    count[i] = it.count;
    cls[i] = it.predicted_class;
  }
  val out = out_json({{"level", v.level}, {"error", v.error}, {"query", v.query}, {"score_at_mean", v.score_at_mean},
                      {"explained_variance", v.explained_variance}, {"count_total", n}, {"class_names", class_names},
                      {"texts", texts}});
  out.set("score", out_array(score));
  out.set("contextual_score", out_array(contextual));
  out.set("x", out_array(x));
  out.set("y", out_array(y));
  out.set("count", out_array(count));
  out.set("predicted_class", out_array(cls));
  return out;
}

// One step call of a job: runs up to `steps` steps; {done, total, finished: false} while steps remain, else the
// view (global_view_val) with finished: true and the job consumed. No job: an Error value.
inline val global_view_steps(std::unique_ptr<GlobalViewJob>& job, int steps, const std::vector<std::string>& class_names) {
  if (!job) return error_val("no global view is running (globalViewStart first)");
  bool more = true;
  for (int k = 0; k < std::max(1, steps) && more; ++k) more = job->step();
  if (more) {
    return out_json({{"finished", false}, {"done", job->steps_done()}, {"total", job->steps_total()}});
  }
  const int total = job->steps_total();
  val out = global_view_val(job->result(), class_names);
  job.reset();
  out.set("finished", true);
  out.set("done", total);
  out.set("total", total);
  return out;
}

}  // namespace attnlab::wasm
