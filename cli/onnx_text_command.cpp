// attnlab explain-onnx-text --model DIR|M.onnx [--tokenizer T] [--output NAME] (--text "…" | --ids 1,2,3)
//                           [--target K|next] [--no-loo] [--no-context-mixing] [--ig-steps N]
//                           [--ig-baseline auto|zero|token]
// A user's ONNX text transformer (an encoder classifier or a causal LM) explained through the core's executor
// (core/explain/onnx_text/): the attention found in the graph, rollout, flow, Chefer relevance, attention ×
// gradient, gradients on the token embeddings, integrated gradients (completeness beside it), leave-one-out, AttnLRP /
// CP-LRP, value zeroing and ALTI (the values, residuals and block outputs found in the graph). DIR holds model.onnx and tokenizer.json (the Hugging
// Face / Optimum layout) or tokenizer.bin (llama2.c). --ids bypasses the tokenizer. The last stdout line is one JSON
// object: ids, tokens, offsets, special (when tokenized), then onnx_text_explain's fields (logits of the explained
// position, target, attention_layers [layer][head][query][key], and every importance row). A text longer than the
// model's positions (config.json's, or found by trying) is cut and the object gets `truncated` {kept, total, at_byte,
// max_positions, source}, as the page's.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "explain/onnx_text/onnx_text_explain.h"
#include "files.h"
#include "onnx_text_dir.h"
#include "text/subword_tokenizer.h"

namespace attnlab::cli {
namespace {

struct OnnxTextCommand {
  CLI::App* app = nullptr;
  std::string model, tokenizer, output, text, ids, target = "next";
  bool no_loo = false, no_mixing = false;
  int ig_steps = OnnxTextExplainRequest().ig_steps;
  std::string ig_baseline = "auto";
};

int run_onnx_text(const OnnxTextCommand& c) {
  std::string error;
  OnnxTextFiles files = load_onnx_text_files(c.model, c.tokenizer, c.output);
  OnnxTextModel& model = *files.model;
  OnnxTextExplainRequest req;
  req.leave_one_out = !c.no_loo;
  req.context_mixing = !c.no_mixing;
  req.ig_steps = c.ig_steps;
  req.ig_baseline = onnx_ig_baseline_of(files.tokenizer.get());
  req.ig_baseline.mode = c.ig_baseline;
  nlohmann::json out = nlohmann::json::object();
  Tokenization t;
  if (!c.ids.empty()) {
    std::stringstream ss(c.ids);
    std::string part;
    while (std::getline(ss, part, ',')) {
      try {
        req.ids.push_back(std::stoi(part));
      } catch (...) {
        fail("--ids: '" + part + "' is not an integer");
      }
    }
  } else {
    if (!files.tokenizer)
      fail("--text needs a tokenizer (--tokenizer, or tokenizer.json / tokenizer.bin in the model folder)");
    const SubwordTokenizer* tok = files.tokenizer.get();
    if (!tok->encode(c.text, true, &t, &error)) fail(error);
    req.ids = t.ids;
  }
  if (req.ids.empty()) fail("no tokens to explain");
  // A text longer than the model reads is cut (a template's closing token kept last), as the page cuts it.
  nlohmann::json cut = nullptr;
  if (!fit_onnx_text_input(model, &files.config, &req.ids, c.ids.empty() ? &t : nullptr, &cut, &error)) fail(error);
  if (c.ids.empty()) {
    nlohmann::json offsets = nlohmann::json::array();
    for (const auto& [b, e] : t.offsets) offsets.push_back({b, e});
    out["tokens"] = t.tokens;
    out["offsets"] = offsets;
    out["special"] = t.special;
    req.ig_baseline.special = t.special;
  }
  if (c.target != "next") {
    try {
      req.target = std::stoi(c.target);
    } catch (...) {
      fail("--target: '" + c.target + "' is neither a class index nor 'next'");
    }
  }
  out["ids"] = req.ids;
  nlohmann::json e;
  if (!onnx_text_explain(model, req, &e, &error)) fail(error);
  out.update(e);
  if (!cut.is_null()) out["truncated"] = cut;
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

}  // namespace

std::function<int()> add_onnx_text_command(CLI::App& app) {
  auto c = std::make_shared<OnnxTextCommand>();
  c->app = app.add_subcommand("explain-onnx-text", "explain a text transformer given as ONNX (encoder classifier or causal LM)");
  c->app->add_option("--model", c->model, "model.onnx, or a folder with model.onnx and tokenizer.json / tokenizer.bin")->required();
  c->app->add_option("--tokenizer", c->tokenizer, "tokenizer.json (Hugging Face) or tok*.bin (llama2.c)");
  c->app->add_option("--output", c->output, "the graph output to explain (default: 'logits', or the only one)");
  auto* text = c->app->add_option("--text", c->text, "the text (UTF-8)");
  auto* ids = c->app->add_option("--ids", c->ids, "token ids, comma-separated (instead of --text)");
  text->excludes(ids);
  c->app->add_option("--target", c->target, "class index, or 'next' (the arg-max: a causal LM's greedy next token)");
  c->app->add_flag("--no-loo", c->no_loo, "skip leave-one-out (one forward pass per token)");
  c->app->add_flag("--no-context-mixing", c->no_mixing, "skip value zeroing and ALTI (a forward pass per token and layer each)");
  c->app->add_option("--ig-steps", c->ig_steps, "integrated gradients' uniform path segments to start (0: skip; one "
                     "forward + backward per path point)")->check(CLI::Range(0, 10000));
  c->app->add_option("--ig-baseline", c->ig_baseline, "integrated gradients' baseline: zero (the token embeddings scaled "
                     "from 0), token (each non-special token's embedding replaced by the tokenizer's padding / unknown "
                     "token's), auto (zero, unless its attributions miss p(x) - p(0) by over 5 %: then token)")
      ->check(CLI::IsMember({"auto", "zero", "token"}));
  return [c, text, ids]() -> int {
    if (!*c->app) return -1;
    if (!*text && !*ids) fail("give --text or --ids");
    return run_onnx_text(*c);
  };
}

}  // namespace attnlab::cli
