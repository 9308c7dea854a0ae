// `attnlab experiment NAME --model HAN_DIR --data F.tsv [--param level=sentence|word] ...`: the debate's experiments
// (the registry of experiment.h, one file each) on a HAN at one of its levels, through the attention-model interface
// (core/experiments/han_attention_model.h) — the rows and summary of the same experiment on a flat model, with
// "unit" (sentence | word) and "level" in the summary. experiment_command.cpp dispatches here when the model folder
// holds an "attnlab-han-v1" config; experiments that need a flat model's parameters or single-token measures are
// refused with the names of those that run.
#include <chrono>

#include "experiment_command.h"
#include "experiments/han_attention_model.h"
#include "files.h"
#include "han_command.h"

namespace attnlab::cli {

int run_han_experiment_command(const ExperimentCommand& cmd, const std::string& command_line) {
  const Experiment* e = find_experiment(cmd.name);
  if (!e) fail(cmd.name + " trains models attnlab defines; on a HAN model run one of the per-instance experiments");
  if (!cmd.with_models.empty()) fail("--with-model compares flat models; it does not apply to a HAN model");
  ExperimentOptions options;
  options.seed = cmd.seed;
  options.params = parse_experiment_params(cmd.params);
  const HanModel model = load_han(cmd.model_dir);
  bool word = false;
  if (const std::string why = check_han_experiment(*e, model, &options.params, &word); !why.empty()) fail(why);
  const HanAttentionModel attention(model, word);
  const auto raw = load_raw_tsv(cmd.data_path);
  std::vector<Instance> data;
  for (size_t i = 0; i < raw.size() && (cmd.limit == 0 || static_cast<int>(i) < cmd.limit); ++i)
    data.push_back(han_instance_of(static_cast<int>(i), raw[i].label, han_encode(model, raw[i].text).ids));
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json result = run_experiment(*e, attention, data, options, experiment_progress(cmd.name + " (HAN)"));
  const nlohmann::json extra = {{"model_kind", "han"}, {"level", word ? "word" : "sentence"},
                                {"unit", attention.unit_name()}};
  return report_experiment(cmd, options, std::move(result), std::chrono::steady_clock::now() - t0, extra, command_line);
}

}  // namespace attnlab::cli
