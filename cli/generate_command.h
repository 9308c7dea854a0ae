// attnlab generate (cli/generate_command.cpp): greedy text from an ONNX causal language model (input_ids → logits
// [1, T, vocab]) and a llama2.c tokenizer, by re-running the whole graph through the core's executor on the growing
// sequence.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace attnlab::cli {

// Registers `generate`; the runner returns -1 when it did not run.
std::function<int()> add_generate_command(CLI::App& app);

}  // namespace attnlab::cli
