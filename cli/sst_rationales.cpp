#include "sst_rationales.h"

#include <filesystem>

#include "files.h"
#include "text/sst_rationales.h"

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
  // The instances in use (a --limit run uses the first N), each with its sentence's full tokens.
  std::vector<TextExample> used;
  used.reserve(data.size());
  for (const Instance& inst : data) {
    const bool known = inst.index >= 0 && inst.index < static_cast<int>(full.size());
    used.push_back({inst.label, known ? full[inst.index].tokens : std::vector<std::string>()});
  }
  SstRationaleCounts counts;
  std::vector<std::vector<int>> masks = sst_rationales(bank, used, &counts);
  for (size_t i = 0; i < data.size(); ++i) {
    if (masks[i].empty()) continue;
    masks[i].resize(data[i].tokens.size());  // the tokens were cut to the model's max_tokens
    data[i].rationale = std::move(masks[i]);
  }
  nlohmann::json report = sst_rationale_report(bank, counts);
  report["trees"] = trees_path;
  return report;
}

}  // namespace attnlab::cli
