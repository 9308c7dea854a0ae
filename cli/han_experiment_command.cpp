// `attnlab experiment NAME --model HAN_DIR --data F.tsv --out rows.json [--limit N] [--seed S] [--param k=v]`:
// the HAN experiments (core/experiments/han_experiment.h); experiment_command.cpp dispatches here when the
// model folder holds an "attnlab-han-v1" config. Output as the flat experiments: --out has the rows and the
// summary, the last stdout line is the summary.
#include <chrono>
#include <iostream>

#include "experiment_command.h"
#include "experiments/han_experiment.h"
#include "files.h"
#include "han_command.h"

namespace attnlab::cli {

int run_han_experiment_command(const ExperimentCommand& cmd, const std::string& command_line) {
  const HanExperiment* e = find_han_experiment(cmd.name);
  if (!e) {
    std::string names;
    for (const HanExperiment& x : han_experiment_registry()) names += (names.empty() ? "" : ", ") + x.name;
    fail("experiment '" + cmd.name + "' does not run on HAN models (these do: " + names + ")");
  }
  const HanModel model = load_han(cmd.model_dir);
  const auto raw = load_raw_tsv(cmd.data_path);
  std::vector<HanInstance> data;
  for (size_t i = 0; i < raw.size() && (cmd.limit == 0 || static_cast<int>(i) < cmd.limit); ++i)
    data.push_back({static_cast<int>(i), raw[i].label, han_encode(model, raw[i].text).ids});
  ExperimentOptions options;
  options.seed = cmd.seed;
  options.params = nlohmann::json::object();
  for (const std::string& kv : cmd.params) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) fail("--param '" + kv + "' is not key=value");
    const nlohmann::json v = nlohmann::json::parse(kv.substr(eq + 1), nullptr, false);
    options.params[kv.substr(0, eq)] = v.is_discarded() ? nlohmann::json(kv.substr(eq + 1)) : v;
  }
  if (han_level(options).empty()) fail("--param level must be sentence or word");
  const auto t0 = std::chrono::steady_clock::now();
  int last = -1;
  nlohmann::json result = run_han_experiment(*e, model, data, options, [&](int done, int total) {
    const int percent = total ? 100 * done / total : 100;
    if (percent / 10 != last / 10) {
      std::cerr << cmd.name << " (HAN): " << done << "/" << total << "\n";
      last = percent;
    }
    return true;
  });
  nlohmann::json summary = result["summary"];
  summary["experiment"] = cmd.name;
  summary["model"] = cmd.model_dir;
  summary["model_kind"] = "han";
  summary["data"] = cmd.data_path;
  summary["seed"] = cmd.seed;
  summary["params"] = options.params;
  summary["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  result["summary"] = summary;
  result["command"] = command_line;
  const auto dump = [](const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
  std::string error;
  if (!cmd.out_path.empty() && !write_file(cmd.out_path, dump(result) + "\n", &error)) fail(error);
  std::cout << dump(summary) << std::endl;
  return 0;
}

}  // namespace attnlab::cli
