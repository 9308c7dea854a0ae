#include "text/sst_rationales.h"

#include <string>

namespace attnlab {

std::vector<std::vector<int>> sst_rationales(const SstTreebank& bank, const std::vector<TextExample>& examples,
                                             SstRationaleCounts* counts) {
  SstRationaleCounts c;
  std::vector<std::vector<int>> out(examples.size());
  for (size_t i = 0; i < examples.size(); ++i) {
    const TextExample& ex = examples[i];
    const SstTree* tree = bank.find(ex.tokens);
    const int tree_label = tree ? sst_binary_label(*tree) : -1;
    const int polarity = ex.label == 0 || ex.label == 1 ? ex.label : tree_label;
    if (!tree || polarity < 0) {
      ++c.unmatched;
      continue;
    }
    ++c.matched;
    if (tree_label != polarity) ++c.label_disagrees;
    out[i] = sst_human_rationale(*tree, polarity);
    bool any = false;
    for (int v : out[i]) any = any || v != 0;
    if (!any) ++c.empty_rationale;
  }
  if (counts) *counts = c;
  return out;
}

nlohmann::json sst_rationale_report(const SstTreebank& bank, const SstRationaleCounts& counts) {
  return {{"rule", "words, and phrases of <= " + std::to_string(kSstRationaleMaxPhrase) +
                       " words other than the whole sentence, labelled with the sentence's polarity (>= 3 for "
                       "positive, <= 1 for negative)"},
          {"trees_read", bank.size()}, {"duplicate_trees", bank.duplicates()},
          {"matched", counts.matched}, {"unmatched", counts.unmatched},
          {"empty_rationale", counts.empty_rationale}, {"label_disagrees", counts.label_disagrees}};
}

}  // namespace attnlab
