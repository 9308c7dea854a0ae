// How the batched text methods split their items over the core's threads (importance.h explain_parts).
#include <algorithm>

#include "explain/importance.h"

namespace attnlab {

size_t explain_parts(size_t items, size_t tokens_per_item) {
  if (items == 0) return 0;
  const size_t per_part = std::max<size_t>(1, static_cast<size_t>(kExplainBatchTokens) / std::max<size_t>(1, tokens_per_item));
  const size_t by_memory = (items + per_part - 1) / per_part;
  // Inside a parallel loop (an experiment's instances side by side) the parts would run one after the other anyway:
  // there the items go in as few batches as the memory bound allows, the shapes the core used before threads, so an
  // experiment's rows keep their values natively (Eigen rounds a column by its batch's shape, and a summary such as
  // attention-flow's, which ranks leave-one-out values tied at a saturated probability, moved by 1e-4 with 8 parts;
  // the page's kernel gives the same values either way, and the Debate compares the two to 1e-6).
  if (in_parallel_loop()) return by_memory;
  return std::max(by_memory, std::min(items, kExplainParts));
}

}  // namespace attnlab
