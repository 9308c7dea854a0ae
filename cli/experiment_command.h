// `attnlab experiment NAME --model DIR --data F.tsv [--limit N] [--seed S] [--param k=v]... [--with-model DIR]...
// [--trees T.txt] [--out F.json]`:
// runs one debate experiment over a data set; the --out file holds the per-instance rows and the summary,
// the last stdout line is the summary as one JSON object (without --out, only that line; --out is required by
// the two training experiments). `plausibility` takes its human rationales from SST trees (--trees, by default
// <data dir>/trees/<data name without .tsv>.txt; cli/sst_rationales.h).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace attnlab::cli {

struct ExperimentCommand {
  std::string name, model_dir, data_path, out_path;
  std::string trees_path;  // SST PTB trees of --data (plausibility); "" = the default path
  int limit = 0;
  uint64_t seed = 1;
  std::vector<std::string> params;  // key=value
  std::vector<std::string> with_models;  // further model folders (seeds)
};

CLI::App* add_experiment_command(CLI::App& app, ExperimentCommand& cmd);
int run_experiment_command(const ExperimentCommand& cmd, const std::string& command_line);

}  // namespace attnlab::cli
