#include "sst_rationales.h"

#include <filesystem>

#include "files.h"
#include "text/sst_tree.h"

namespace attnlab::cli {

std::string sst_trees_path(const std::string& data_path, const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  const std::filesystem::path data(data_path);
  const std::filesystem::path trees = data.parent_path() / "trees" / (data.stem().string() + ".txt");
  std::error_code ec;
  return std::filesystem::is_regular_file(trees, ec) ? trees.string() : std::string();
}

nlohmann::json attach_sst_rationales(const std::string& trees_path, const std::string& data_path,
                                     std::vector<Instance>& data) {
  std::string content, error;
  if (!read_file(trees_path, &content, &error)) fail(error);
  SstTreebank bank;
  if (!bank.parse(content, &error)) fail(trees_path + ": " + error);
  const std::vector<TextExample> full = load_tsv(data_path, 0);  // the sentences before any max_tokens cut
  int matched = 0, unmatched = 0, empty = 0, disagrees = 0;
  for (Instance& inst : data) {
    const SstTree* tree = inst.index >= 0 && inst.index < static_cast<int>(full.size())
                              ? bank.find(full[inst.index].tokens) : nullptr;
    const int tree_label = tree ? sst_binary_label(*tree) : -1;
    const int polarity = inst.label == 0 || inst.label == 1 ? inst.label : tree_label;
    if (!tree || polarity < 0) {
      ++unmatched;
      continue;
    }
    ++matched;
    if (tree_label != polarity) ++disagrees;
    std::vector<int> mask = sst_human_rationale(*tree, polarity);
    mask.resize(inst.tokens.size());  // the tokens were cut to the model's max_tokens
    bool any = false;
    for (int v : mask) any = any || v != 0;
    if (!any) ++empty;
    inst.rationale = std::move(mask);
  }
  return {{"rule", "words, and phrases of <= " + std::to_string(kSstRationaleMaxPhrase) +
                       " words other than the whole sentence, labelled with the sentence's polarity (>= 3 for "
                       "positive, <= 1 for negative)"},
          {"trees", trees_path}, {"trees_read", bank.size()}, {"duplicate_trees", bank.duplicates()},
          {"matched", matched}, {"unmatched", unmatched}, {"empty_rationale", empty}, {"label_disagrees", disagrees}};
}

}  // namespace attnlab::cli
