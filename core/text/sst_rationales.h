// Human rationales for SST sentences from the PTB trees, as the `plausibility` experiment reads them
// (Instance::rationale): each example is matched with the tree whose words equal its tokens one for one (up to
// ASCII case and PTB escapes, sst_match_form) and gets the rule of core/text/sst_tree.h for its gold label
// (the tree's own root label when the example's label is not 0 / 1). Shared by the CLI (`--trees`) and the
// wasm TextLab (`loadDataset(name, tsv, trees)`), so both attach the same rationales. No I/O.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "text/dataset.h"
#include "text/sst_tree.h"

namespace attnlab {

struct SstRationaleCounts {
  int matched = 0;          // examples with a tree
  int unmatched = 0;        // examples without one (or without a polarity): their rationale stays empty
  int empty_rationale = 0;  // matched, but no word or short phrase carries the sentence's polarity
  int label_disagrees = 0;  // matched, the tree's root polarity differs from the example's label
};

// One mask per example (0/1 per token of the example as given, i.e. before any max_tokens cut; empty when
// unmatched). Callers cut a mask as they cut its tokens.
std::vector<std::vector<int>> sst_rationales(const SstTreebank& bank, const std::vector<TextExample>& examples,
                                             SstRationaleCounts* counts);

// The report the plausibility summary carries: {"rule", "trees_read", "duplicate_trees", "matched", "unmatched",
// "empty_rationale", "label_disagrees"}.
nlohmann::json sst_rationale_report(const SstTreebank& bank, const SstRationaleCounts& counts);

}  // namespace attnlab
