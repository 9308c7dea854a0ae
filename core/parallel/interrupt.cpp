// The one interrupt word of this process (see interrupt.h).
#include "parallel/interrupt.h"

namespace attnlab {

static_assert(sizeof(std::atomic<int32_t>) == 4 && alignof(std::atomic<int32_t>) == 4,
              "the page writes the word as one Int32Array element");

std::atomic<int32_t>& interrupt_word() {
  static std::atomic<int32_t> word{0};
  return word;
}

}  // namespace attnlab
