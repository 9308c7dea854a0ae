// attnlab tokenize --tokenizer tokenizer.json|tok512.bin --text "…" [--no-special]
// The core's subword tokenizers (core/text/subword_tokenizer.h): Hugging Face tokenizer.json (WordPiece, byte-level
// BPE) or llama2.c's tok*.bin. The last stdout line is one JSON object: ids, tokens, offsets ([[begin, end], …]
// byte offsets into --text), special (1 where the template added the token), kind, vocab_size.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "files.h"
#include "text/subword_tokenizer.h"

namespace attnlab::cli {
namespace {

struct TokenizeCommand {
  CLI::App* app = nullptr;
  std::string tokenizer, text;
  bool no_special = false;
};

int run_tokenize(const TokenizeCommand& c) {
  std::string bytes, error;
  if (!read_file(c.tokenizer, &bytes, &error, kMaxTokenizerFileBytes)) fail(error);
  const std::unique_ptr<SubwordTokenizer> tok = load_tokenizer(bytes, &error);
  if (!tok) fail(c.tokenizer + ": " + error);
  Tokenization t;
  if (!tok->encode(c.text, !c.no_special, &t, &error)) fail(error);
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& [b, e] : t.offsets) offsets.push_back({b, e});
  const nlohmann::json out = {{"ids", t.ids},         {"tokens", t.tokens},   {"offsets", offsets},
                              {"special", t.special}, {"kind", tok->kind()}, {"vocab_size", tok->vocab_size()}};
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

}  // namespace

std::function<int()> add_tokenize_command(CLI::App& app) {
  auto c = std::make_shared<TokenizeCommand>();
  c->app = app.add_subcommand("tokenize", "token ids, tokens, offsets of a text (tokenizer.json or llama2.c tok*.bin)");
  c->app->add_option("--tokenizer", c->tokenizer, "a Hugging Face tokenizer.json or a llama2.c tok*.bin")->required();
  c->app->add_option("--text", c->text, "the text (UTF-8)")->required();
  c->app->add_flag("--no-special", c->no_special, "leave out the template's tokens ([CLS] … [SEP], <s> … </s>, BOS)");
  return [c]() -> int { return *c->app ? run_tokenize(*c) : -1; };
}

}  // namespace attnlab::cli
