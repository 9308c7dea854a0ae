// The transformer fields of a text model's config.json (encoder "transformer", docs/DESIGN.md):
//   "layers" (1..64), "heads" (1..64, must divide embedding_dim), "ffn_dim" (1..65536), "max_len" (1..100000
//   tokens, [CLS] not counted; the position table has max_len + 1 rows); "attention" must be "dot" (learned
//   scaled dot-product) or "uniform" (frozen). The model's max_tokens is max_len unless the config sets a
//   smaller one. No exceptions: a failure returns false with a message naming the key.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "model/text_model.h"

namespace attnlab {

// Reads the fields into cfg (cfg.embedding_dim and cfg.attention must be set already); *max_tokens is capped
// to max_len (0 = none becomes max_len).
bool read_transformer_config(const nlohmann::json& j, TextConfig* cfg, int* max_tokens, std::string* error);
void write_transformer_config(const TextConfig& cfg, nlohmann::json* j);

// Makes cfg a transformer of these sizes for training (hidden_dim = embedding_dim; cfg.embedding_dim and
// cfg.attention set already); *max_tokens capped to max_len as above. "" or a message naming the option
// ("heads (3) must divide embedding_dim (128)"); the ranges are the caller's (CLI flags, catalogue specs).
std::string make_transformer_config(int layers, int heads, int ffn_dim, int max_len, TextConfig* cfg, int* max_tokens);

}  // namespace attnlab
