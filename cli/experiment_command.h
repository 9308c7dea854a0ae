// `attnlab experiment NAME --model DIR --data F.tsv [--limit N] [--seed S] [--param k=v]... [--with-model DIR]...
// [--trees T.txt] [--out F.json]`:
// runs one debate experiment over a data set; the --out file holds the per-instance rows and the summary,
// the last stdout line is the summary as one JSON object (without --out, only that line; --out is required by
// the two training experiments). `plausibility` takes its human rationales from SST trees (--trees, by default
// <data dir>/trees/<data name without .tsv>.txt; cli/sst_rationales.h).
// With --model an ONNX text transformer (a folder with model.onnx + tokenizer, cli/onnx_text_dir.h), the experiments
// written on the attention-model interface run on it (cli/onnx_text_experiment.cpp; --layer, --output).
#pragma once
#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "experiments/experiment.h"

namespace attnlab::cli {

struct ExperimentCommand {
  std::string name, model_dir, data_path, out_path;
  std::string trees_path;  // SST PTB trees of --data (plausibility); "" = the default path
  std::string positions_path;  // impermissible token positions of --data's examples (impermissible); "" = none
  int limit = 0;
  uint64_t seed = 1;
  std::vector<std::string> params;  // key=value
  std::vector<std::string> with_models;  // further model folders (seeds)
  int layer = -1;                        // ONNX text models: the attention layer (-1: the last)
  std::string output;                    // ONNX text models: the graph output
};

CLI::App* add_experiment_command(CLI::App& app, ExperimentCommand& cmd);
int run_experiment_command(const ExperimentCommand& cmd, const std::string& command_line);
int run_onnx_text_experiment_command(const ExperimentCommand& cmd, const std::string& command_line);

// --param key=value pairs; values that parse as JSON (numbers, arrays) are kept as such, others as strings.
nlohmann::json parse_experiment_params(const std::vector<std::string>& params);
// Shared by the model kinds: "name: done/total" on stderr every 10 %; the summary completed with the command's
// settings (and `extra`), written with the rows to --out, and printed as the last stdout line.
std::function<bool(int, int)> experiment_progress(const std::string& name);
int report_experiment(const ExperimentCommand& cmd, const ExperimentOptions& options, nlohmann::json result,
                      std::chrono::steady_clock::duration elapsed, const nlohmann::json& extra,
                      const std::string& command_line);

}  // namespace attnlab::cli
