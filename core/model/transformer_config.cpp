// Transformer config.json fields (contract in transformer_config.h).
#include "model/transformer_config.h"

#include "io/config_fields.h"

namespace attnlab {

bool read_transformer_config(const nlohmann::json& j, TextConfig* cfg, int* max_tokens, std::string* error) {
  if (!config_get_int(j, "layers", 1, 64, &cfg->layers, error) ||
      !config_get_int(j, "heads", 1, 64, &cfg->heads, error) ||
      !config_get_int(j, "ffn_dim", 1, 65536, &cfg->ffn_dim, error) ||
      !config_get_int(j, "max_len", 1, 100000, &cfg->max_len, error))
    return false;
  if (cfg->embedding_dim % cfg->heads != 0) {
    *error = "config.json: 'heads' (" + std::to_string(cfg->heads) + ") must divide 'embedding_dim' (" +
             std::to_string(cfg->embedding_dim) + ")";
    return false;
  }
  if (cfg->attention != AttentionKind::Dot && cfg->attention != AttentionKind::Uniform) {
    *error = "config.json: a transformer's 'attention' must be \"dot\" (scaled dot-product) or \"uniform\"";
    return false;
  }
  if (*max_tokens <= 0 || *max_tokens > cfg->max_len) *max_tokens = cfg->max_len;
  return true;
}

void write_transformer_config(const TextConfig& cfg, nlohmann::json* j) {
  (*j)["encoder"] = "transformer";
  (*j)["layers"] = cfg.layers;
  (*j)["heads"] = cfg.heads;
  (*j)["ffn_dim"] = cfg.ffn_dim;
  (*j)["max_len"] = cfg.max_len;
}

}  // namespace attnlab
