// Human rationales for `attnlab experiment plausibility`: the SST PTB trees of a data file (--trees PATH, by
// default <data dir>/trees/<data name without .tsv>.txt) are matched with the data's sentences (words equal
// one for one up to ASCII case and PTB escapes, core/text/sst_tree.h) and each matched instance gets
// Instance::rationale by the rule of core/text/sst_tree.h for its gold label, cut as its tokens were.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/experiment.h"

namespace attnlab::cli {

// `explicit_path` when non-empty, else the default path above ("" when that file does not exist).
std::string sst_trees_path(const std::string& data_path, const std::string& explicit_path);

// Fills data[i].rationale from the trees at trees_path for the sentences of data_path (data[i].index is the
// example's position there). Returns the rule and the counts: {"rule", "trees", "trees_read", "duplicate_trees", "matched",
// "unmatched", "empty_rationale", "label_disagrees"}. Fails (exits) on an unreadable or malformed trees file.
nlohmann::json attach_sst_rationales(const std::string& trees_path, const std::string& data_path,
                                     std::vector<Instance>& data);

}  // namespace attnlab::cli
