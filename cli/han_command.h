// HAN commands (cli/han_command.cpp) and the helpers the experiment / global-view commands share.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "model/han_checkpoint.h"
#include "train/han_trainer.h"

namespace attnlab::cli {

struct RawDocument {
  int label = 0;
  std::string text;
};

// A label<TAB>text file with the texts untouched (sentence splitting needs the raw text); fails on a bad line.
std::vector<RawDocument> load_raw_tsv(const std::string& path);
// True when DIR/config.json has "format": "attnlab-han-v1".
bool is_han_dir(const std::string& dir);
HanModel load_han(const std::string& dir);
// Split, tokenised, encoded documents (the first `limit`; 0: all); fails on a label outside the model's classes.
std::vector<HanExample> encode_han(const HanModel& model, const std::vector<RawDocument>& docs, const std::string& path,
                                   int limit);
// train-han; the runner returns -1 when it did not run.
std::function<int()> add_han_commands(CLI::App& app, const std::string& command_line);
int han_eval_command(const std::string& dir, const std::string& data_path);
// global-view (cli/global_view_command.cpp); the runner returns -1 when it did not run.
std::function<int()> add_global_view_command(CLI::App& app);
int han_explain_command(const std::string& dir, const std::string& text, int ig_steps);

}  // namespace attnlab::cli

namespace attnlab::cli {
struct ExperimentCommand;
// The HAN experiments behind `attnlab experiment` (cli/han_experiment_command.cpp).
int run_han_experiment_command(const ExperimentCommand& cmd, const std::string& command_line);
}  // namespace attnlab::cli
