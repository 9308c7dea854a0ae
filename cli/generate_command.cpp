// attnlab generate --model M.onnx --tokenizer tok512.bin [--steps 200] [--prompt TEXT] [--logits] [--input NAME]
//                  [--output NAME]
// Greedy decoding as llama2.c's run.c does it with temperature 0: the prompt is encoded with BOS (id 1) first and a
// dummy-prefix space (core/text/llama2c_tokenizer.h); `steps` counts positions as run.c does (the forward at
// position pos yields the token at pos + 1; prompt tokens are forced), so the sequence holds at most steps + 1 ids
// including BOS; the argmax of the last position's logits is appended until a step yields BOS (run.c's stop) or EOS
// (id 2). Every step re-runs the whole ONNX graph (core/onnx/executor.h) on the sequence so far: no key/value cache,
// the graph is the standard one that any exporter writes (models/tools/llama2c-to-onnx.mjs).
// stdout: the text (tokenizer decode of the ids: BOS / EOS print nothing, the piece after BOS loses its leading space,
// <0xXX> pieces are raw bytes; unlike run.c's safe_printf, unprintable bytes are not dropped), then as the last line
// one JSON object: {"ids": every id from BOS, "text", "prompt_tokens", "generated", "stop": "steps"|"bos"|"eos"|
// "model_limit" (a forward on a longer sequence failed after shorter ones ran, e.g. past the model's positions: the
// text so far is kept and the message goes to stderr, as run.c clamps steps to seq_len),
// "forwards", "seconds", "ms_per_forward"}; with --logits also "logits": the logits [T][vocab] of the first forward
// pass (the prompt's positions; with no generation step, one forward is run for them).
#include "generate_command.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "files.h"
#include "onnx/executor.h"
#include "onnx/reader.h"
#include "text/llama2c_tokenizer.h"

using nlohmann::json;

namespace attnlab::cli {
namespace {

constexpr int kGenerateBos = 1, kGenerateEos = 2;

struct GenerateArgs {
  CLI::App* cmd = nullptr;
  std::string model, tokenizer, prompt, input = "input_ids", output = "logits";
  int steps = 256;
  bool logits = false;
};

int run_generate(const GenerateArgs& a) {
  std::string bytes, err;
  if (!read_file(a.model, &bytes, &err)) fail(err);
  onnx::Model model;
  if (!onnx::read_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &model, &err))
    fail(a.model + ": " + err);
  bytes.clear();
  bytes.shrink_to_fit();
  const auto has = [](const std::vector<onnx::ValueInfo>& v, const std::string& name) {
    return std::any_of(v.begin(), v.end(), [&](const onnx::ValueInfo& x) { return x.name == name; });
  };
  if (!has(model.inputs, a.input)) fail(a.model + ": the graph has no input '" + a.input + "' (see --input)");
  if (model.inputs.size() != 1)
    fail(a.model + ": the graph has " + std::to_string(model.inputs.size()) + " inputs; generate feeds only '" + a.input + "'");
  if (!has(model.outputs, a.output)) fail(a.model + ": the graph has no output '" + a.output + "' (see --output)");
  onnx::Executor<float> ex;
  if (!ex.load(model, &err)) fail(a.model + ": " + err);

  std::string tok_bytes;
  if (!read_file(a.tokenizer, &tok_bytes, &err, kMaxTokenizerFileBytes)) fail(err);
  const std::unique_ptr<SubwordTokenizer> tok = load_llama2c_tokenizer(tok_bytes, &err);
  if (!tok) fail(a.tokenizer + ": " + err);
  Tokenization enc;
  if (!tok->encode(a.prompt, true, &enc, &err)) fail(err);
  std::vector<int> ids = enc.ids;
  if (ids.empty() || ids[0] != kGenerateBos) ids.insert(ids.begin(), kGenerateBos);
  const int prompt_tokens = static_cast<int>(ids.size());
  if (static_cast<int>(ids.size()) > a.steps + 1) {
    std::cerr << "generate: the prompt has " << ids.size() - 1 << " tokens after BOS; --steps " << a.steps
              << " keeps the first " << a.steps << "\n";
    ids.resize(static_cast<size_t>(a.steps) + 1);
  }

  int vocab = 0, forwards = 0;
  json first_logits;
  std::string limit_error;  // a forward refused after shorter ones ran: the model's positions end there
  const auto forward = [&](const std::vector<int>& seq) -> const onnx::Tensor<float>* {
    onnx::Tensor<float> in = onnx::Tensor<float>::ints({1, static_cast<int64_t>(seq.size())});
    std::copy(seq.begin(), seq.end(), in.i.begin());
    if (!ex.forward({{a.input, std::move(in)}}, &err)) {
      if (forwards == 0)
        fail("forward on " + std::to_string(seq.size()) + " tokens: " + err +
             " (a prompt longer than the model's positions is refused; use a shorter --prompt or --steps)");
      limit_error = "forward on " + std::to_string(seq.size()) + " tokens: " + err;
      return nullptr;
    }
    const onnx::Tensor<float>* out = ex.value(a.output);
    if (!out || !out->is_float() || out->rank() != 3 || out->shape[0] != 1 ||
        out->shape[1] != static_cast<int64_t>(seq.size()) || out->shape[2] < 3)
      fail("output '" + a.output + "' is not float [1, " + std::to_string(seq.size()) + ", vocab] (got " +
           (out ? onnx::shape_str(out->shape) : std::string("nothing")) + ")");
    vocab = static_cast<int>(out->shape[2]);
    if (a.logits && forwards == 0) {
      first_logits = json::array();
      for (size_t t = 0; t < seq.size(); ++t)
        first_logits.push_back(std::vector<float>(out->f.begin() + t * vocab, out->f.begin() + (t + 1) * vocab));
    }
    ++forwards;
    return out;
  };

  std::string stop = "steps";
  const auto t0 = std::chrono::steady_clock::now();
  if (a.logits && static_cast<int>(ids.size()) >= a.steps + 1) forward(ids);
  while (static_cast<int>(ids.size()) < a.steps + 1) {
    const onnx::Tensor<float>* out = forward(ids);
    if (!out) {  // like run.c, which clamps steps to the model's seq_len
      std::cerr << "generate: stopped at " << ids.size() << " tokens, the model refused more: " << limit_error << "\n";
      stop = "model_limit";
      break;
    }
    const float* last = out->f.data() + (ids.size() - 1) * static_cast<size_t>(vocab);
    const int next = static_cast<int>(std::max_element(last, last + vocab) - last);  // first maximum, as run.c
    if (next == kGenerateBos || next == kGenerateEos) {
      stop = next == kGenerateBos ? "bos" : "eos";
      break;
    }
    ids.push_back(next);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (vocab > tok->vocab_size())
    std::cerr << "generate: the model's vocabulary (" << vocab << ") is larger than the tokenizer's ("
              << tok->vocab_size() << "); ids beyond it print nothing\n";

  const std::string text = tok->decode(ids);
  std::cout << text << "\n";
  json r = {{"ids", ids}, {"text", text}, {"prompt_tokens", prompt_tokens},
            {"generated", static_cast<int>(ids.size()) - std::min(prompt_tokens, static_cast<int>(ids.size()))},
            {"stop", stop}, {"forwards", forwards}, {"seconds", seconds},
            {"ms_per_forward", forwards ? 1000.0 * seconds / forwards : 0.0}};
  if (a.logits) r["logits"] = first_logits;
  std::cout << r.dump(-1, ' ', false, json::error_handler_t::replace) << std::endl;
  return 0;
}

}  // namespace

std::function<int()> add_generate_command(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  a->cmd = app.add_subcommand("generate", "greedy text from an ONNX causal LM (input_ids → logits) and a llama2.c tokenizer");
  a->cmd->add_option("--model", a->model, "ONNX model (input_ids INT64 [1, T] → logits [1, T, vocab])")->required();
  a->cmd->add_option("--tokenizer", a->tokenizer, "llama2.c tokenizer (tok512.bin / tokenizer.bin)")->required();
  a->cmd->add_option("--steps", a->steps, "positions to run, prompt included, as llama2.c's -n")->check(CLI::Range(1, 1 << 16));
  a->cmd->add_option("--prompt", a->prompt, "text to start from (after BOS)");
  a->cmd->add_flag("--logits", a->logits, "add the first forward pass's logits [T][vocab] to the JSON");
  a->cmd->add_option("--input", a->input, "name of the token-id input");
  a->cmd->add_option("--output", a->output, "name of the logits output");
  return [a]() -> int { return *a->cmd ? run_generate(*a) : -1; };
}

}  // namespace attnlab::cli
