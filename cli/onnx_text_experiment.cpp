// `attnlab experiment NAME --model DIR --data F.tsv` where DIR is an ONNX text transformer (cli/onnx_text_dir.h): the
// texts are tokenised with the model's tokenizer (its template's special tokens marked, so they are held fixed,
// core/explain/onnx_text/onnx_attention_model.h) and the experiment runs through the attention-model interface — the
// same rows and summary as on a model attnlab trained. A classifier's TSV labels are its gold labels; a causal LM's
// class is its next token, so the label column is ignored there (said in the summary). A text longer than the model
// reads is cut as explain-onnx-text cuts it (the summary's cut_texts counts them).
#include <chrono>

#include "experiment_command.h"
#include "explain/onnx_text/onnx_attention_model.h"
#include "explain/onnx_text/onnx_text_instance.h"
#include "files.h"
#include "onnx_text_dir.h"
#include "text/dataset.h"
#include "text/subword_tokenizer.h"

namespace attnlab::cli {

int run_onnx_text_experiment_command(const ExperimentCommand& cmd, const std::string& command_line) {
  const Experiment* e = find_experiment(cmd.name);
  if (!e)
    fail(cmd.name + " trains models attnlab defines; on an ONNX model run one of the per-instance experiments");
  if (!cmd.with_models.empty()) fail("--with-model compares models attnlab trained; it does not apply to an ONNX model");
  OnnxTextFiles files = load_onnx_text_files(cmd.model_dir, "", cmd.output);
  if (!files.tokenizer)
    fail(cmd.model_dir + ": the experiments read text: put tokenizer.json (or llama2.c's tokenizer.bin) beside model.onnx");
  std::string content, error;
  if (!read_file(cmd.data_path, &content, &error)) fail(error);
  std::vector<RawTextExample> raw;
  if (!parse_raw_labeled_tsv(content, &raw, &error)) fail(cmd.data_path + ": " + error);
  std::vector<Instance> data;
  int skipped_empty = 0, cut_texts = 0;
  for (size_t i = 0; i < raw.size() && (cmd.limit == 0 || static_cast<int>(i) < cmd.limit); ++i) {
    Tokenization t;
    if (!files.tokenizer->encode(raw[i].text, true, &t, &error))
      fail(cmd.data_path + ": line " + std::to_string(raw[i].line) + ": " + error);
    if (t.ids.empty()) {
      ++skipped_empty;
      continue;
    }
    // A text longer than the model reads is cut (a template's closing token kept last), counted in the summary.
    nlohmann::json cut = nullptr;
    std::vector<int> ids = t.ids;
    if (!fit_onnx_text_input(*files.model, &files.config, &ids, &t, &cut, &error))
      fail(cmd.data_path + ": line " + std::to_string(raw[i].line) + ": " + error);
    if (!cut.is_null()) ++cut_texts;
    data.push_back(onnx_text_instance(std::move(t), static_cast<int>(i), raw[i].label));
  }
  if (data.empty()) fail(cmd.data_path + ": no text to run on");
  OnnxAttentionModel model(*files.model, cmd.layer);
  if (files.tokenizer) model.set_ig_baseline_token(neutral_token(*files.tokenizer));
  if (!model.prepare(data[0].ids, &error)) fail(files.model_path + ": " + error);
  if (const std::string why = check_experiment_model(*e, model); !why.empty()) fail(why);
  nlohmann::json extra = nlohmann::json::object();
  if (files.model->causal()) {
    for (Instance& in : data) in.label = -1;
    extra["labels"] = "ignored: a causal language model's class is its next token";
  } else {
    for (const Instance& in : data)
      if (in.label >= model.num_classes())
        fail(cmd.data_path + ": label " + std::to_string(in.label) + " is not a class of the model (0.." +
             std::to_string(model.num_classes() - 1) + ")");
  }
  ExperimentOptions options;
  options.seed = cmd.seed;
  options.params = parse_experiment_params(cmd.params);
  if (const std::string bad = check_experiment_params(*e, options.params); !bad.empty()) fail("--param: " + bad);
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json result = run_experiment(*e, model, data, options, experiment_progress(cmd.name));
  extra["attention_layer"] = cmd.layer < 0 ? static_cast<int>(files.model->attention().size()) - 1 : cmd.layer;
  extra["causal"] = files.model->causal();
  if (skipped_empty) extra["skipped_empty_lines"] = skipped_empty;
  if (cut_texts)
    extra["cut_texts"] = {{"count", cut_texts}, {"max_positions", files.config.max_positions},
                          {"source", files.config.max_positions_source}};
  return report_experiment(cmd, options, std::move(result), std::chrono::steady_clock::now() - t0, extra, command_line);
}

}  // namespace attnlab::cli
