// The counting task of the training tests: label 1 iff token 2 ("good") occurs more often than token 3 ("bad") in a
// sequence of 3..10 tokens drawn from 2..11 (ties dropped). Only those two tokens decide the label.
#pragma once
#include <cstdint>
#include <vector>

#include "nn/rng.h"
#include "train/text_trainer.h"

namespace attnlab::test {

inline std::vector<EncodedExample> counting_task(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<EncodedExample> out;
  while (static_cast<int>(out.size()) < n) {
    EncodedExample ex;
    const int len = 3 + static_cast<int>(rng.below(8));
    int good = 0, bad = 0;
    for (int t = 0; t < len; ++t) {
      const int id = static_cast<int>(rng.below(10)) + 2;
      good += id == 2;
      bad += id == 3;
      ex.ids.push_back(id);
    }
    if (good == bad) continue;
    ex.label = good > bad ? 1 : 0;
    out.push_back(ex);
  }
  return out;
}

}  // namespace attnlab::test
