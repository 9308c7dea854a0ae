// A user's ONNX text transformer as the CLI reads it: a folder with model.onnx and tokenizer.json (the Hugging Face /
// Optimum layout) or tokenizer.bin (llama2.c), or a model.onnx file with --tokenizer. Shared by explain-onnx-text and
// `experiment NAME --model DIR`. A folder's config.json, when there, is read (onnx_text_session.h: id2label, the
// number of positions, stop ids); a model given with a tokenizer is checked to fit it (check_onnx_text_pair: a
// vocabulary larger than the embedding table is refused). Fails (cli::fail) with the file's name and what was wrong.
#pragma once
#include <memory>
#include <string>

#include "explain/onnx_text/onnx_text_model.h"
#include "explain/onnx_text/onnx_text_session.h"
#include "text/subword_tokenizer.h"

namespace attnlab::cli {

struct OnnxTextFiles {
  std::unique_ptr<OnnxTextModel> model;
  std::unique_ptr<SubwordTokenizer> tokenizer;  // null when none was given or found (then only --ids work)
  OnnxTextConfig config;                        // from DIR/config.json (empty when none)
  std::string model_path, tokenizer_path, config_path;
};

// True for a .onnx file or a folder holding model.onnx.
bool is_onnx_text_model(const std::string& path);
OnnxTextFiles load_onnx_text_files(const std::string& model, const std::string& tokenizer, const std::string& output);

}  // namespace attnlab::cli
