// How one operator's work is cut into parts for the core's threads (parallel/parallel_for.h). The cut comes from
// the work alone — never from the thread count — so an op's values are the same on any number of threads (each
// output element is computed whole inside one part, with the same arithmetic whichever thread runs it). Work under
// kWorkPerPart multiply-adds stays one part: a loop costs a wake-up of the pool. Inside a parallel loop (an
// explanation's batched passes, SmoothGrad's copies: the threads are busy already) an op is one part — a fact of the
// call structure, not of the thread count (parallel_for.h), so values still do not depend on the threads.
//
//   for_parts(rows, madds_per_row, [&](int64_t begin, int64_t end) { … rows [begin, end) … });
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "parallel/parallel_for.h"

namespace attnlab::onnx {

constexpr int64_t kWorkPerPart = int64_t(1) << 17;  // multiply-adds (≈ 0.01–0.05 ms on this machine's cores)
constexpr int64_t kMaxOpParts = 8;
constexpr int64_t kElementWork = 4;  // an element-wise op's work per element, in multiply-adds (memory-bound)

// The work per part in effect: kWorkPerPart, unless a test lowered it to run small ops in parts (returns the old).
inline std::atomic<int64_t> g_work_per_part{kWorkPerPart};
inline int64_t set_op_work_per_part(int64_t w) { return g_work_per_part.exchange(std::max<int64_t>(w, 1)); }

// The parts of `items` uniform items of `work_per_item` multiply-adds each: 1 .. min(items, kMaxOpParts); 1 inside
// a parallel loop. An odd count above 1 is raised by one where the items allow: with 3, 5 or 7 parts two threads
// split 2 : 1, 3 : 2, 4 : 3 (MobileNetV2's depthwise layers; its native forward on 2 threads 5 % faster even).
inline int64_t op_parts(int64_t items, int64_t work_per_item) {
  if (items <= 1 || in_parallel_loop()) return 1;
  const double work = static_cast<double>(items) * static_cast<double>(std::max<int64_t>(work_per_item, 1));
  const double parts = work / static_cast<double>(g_work_per_part.load(std::memory_order_relaxed));
  int64_t p = std::clamp<int64_t>(static_cast<int64_t>(std::min(parts, static_cast<double>(kMaxOpParts))), 1,
                                  std::min(items, kMaxOpParts));
  if (p > 1 && (p & 1) && p < std::min(items, kMaxOpParts)) ++p;  // even: two threads take equal shares
  return p;
}

// Calls body(begin, end) for each part of [0, items) (op_parts of them, sizes differing by at most one), on the
// core's threads when there is more than one part.
template <class F>
void for_parts(int64_t items, int64_t work_per_item, F&& body) {
  const int64_t parts = op_parts(items, work_per_item);
  if (parts == 1) {
    body(int64_t(0), items);
    return;
  }
  const auto n = static_cast<size_t>(items), p = static_cast<size_t>(parts);
  parallel_for(p, [&](size_t k) {
    body(static_cast<int64_t>(split_begin(n, p, k)), static_cast<int64_t>(split_begin(n, p, k + 1)));
  });
}

}  // namespace attnlab::onnx
