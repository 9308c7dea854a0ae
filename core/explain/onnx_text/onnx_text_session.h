// A user's ONNX text model beside its tokenizer and optional config.json, as both the CLI (explain-onnx-text,
// `experiment NAME --model DIR`) and the page's binding (wasm/onnx_text_bindings.cpp) read them: what config.json
// says, the check that the three files fit together, and the cut of a text longer than the model reads.
//   read_onnx_text_config(text, tokenizer, out): text "" = no config.json; else it must be a JSON object. Reads
//     id2label (an array; missing entries "class k"), the number of positions (the first of max_position_embeddings,
//     n_positions, n_ctx, max_seq_len, seq_len that is a whole number in 1..65536), eos_token_id (a number or an
//     array) as stop ids — llama2.c's tokenizer with none: BOS and EOS (1, 2), as `attnlab generate` — and
//     model_type.
//   check_onnx_text_pair(model, tokenizer): the model runs on a short text ("Hello" with the template), and on the
//     tokenizer's last id (a vocabulary larger than the embedding table fails there, with a message that says so).
//     The model is left on the short text.
//   fit_onnx_text_input(model, config, ids, t, cut): cuts *ids (and *t, when it is their tokenization) to what the
//     model reads, then runs one forward pass on them. Longer than the known number of positions: cut at once; the
//     number unknown and a forward on T > 1 tokens fails: the longest prefix that runs is searched (halving, ~log2 T
//     forwards, once; config->max_positions then holds it, source "tried"). A closing template token (the last,
//     special) stays last. When cut, *cut = {kept, total, at_byte (the end of the last kept token of the text in
//     its UTF-8 bytes; null without t), max_positions, source}; else *cut is left as it is. inference: the passes
//     are OnnxTextModel::run's inference passes (the logits only, a causal LM's tail on the last position: the top
//     tokens, a greedy step), after which nothing may read the executor before the next full run.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explain/onnx_text/onnx_text_model.h"
#include "text/subword_tokenizer.h"

namespace attnlab {

struct OnnxTextConfig {
  nlohmann::json labels = nullptr;      // config.json id2label as an array, or null
  int max_positions = 0;                // 0: unknown
  std::string max_positions_source;     // "config.json <key>", "tried" or ""
  std::vector<int> stop_ids;            // ids that end a generated text
  nlohmann::json model_type = nullptr;  // config.json's model_type, or null
};

constexpr int kOnnxTextMaxPositions = 1 << 16;  // the most positions a config.json may declare

bool read_onnx_text_config(const std::string& text, const SubwordTokenizer& tokenizer, OnnxTextConfig* out,
                           std::string* error);
bool check_onnx_text_pair(OnnxTextModel& model, const SubwordTokenizer& tokenizer, std::string* error);
bool fit_onnx_text_input(OnnxTextModel& model, OnnxTextConfig* config, std::vector<int>* ids, Tokenization* t,
                         nlohmann::json* cut, std::string* error, bool inference = false);

}  // namespace attnlab
