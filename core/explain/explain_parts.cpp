// How the batched text methods split their items over the core's threads (importance.h explain_parts).
#include <algorithm>

#include "explain/importance.h"

namespace attnlab {

size_t explain_parts(size_t items, size_t tokens_per_item) {
  if (items == 0) return 0;
  const size_t per_part = std::max<size_t>(1, static_cast<size_t>(kExplainBatchTokens) / std::max<size_t>(1, tokens_per_item));
  const size_t by_memory = (items + per_part - 1) / per_part;
  return std::max(by_memory, std::min(items, kExplainParts));
}

}  // namespace attnlab
