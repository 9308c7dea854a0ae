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

std::string make_transformer_config(int layers, int heads, int ffn_dim, int max_len, TextConfig* cfg, int* max_tokens) {
  if (heads < 1 || cfg->embedding_dim % heads != 0)
    return "heads (" + std::to_string(heads) + ") must divide embedding_dim (" + std::to_string(cfg->embedding_dim) + ")";
  if (cfg->attention != AttentionKind::Dot && cfg->attention != AttentionKind::Uniform)
    return "a transformer's attention is dot (scaled dot-product) or uniform (frozen 1/n rows), not tanh";
  cfg->encoder = EncoderKind::Transformer;
  cfg->hidden_dim = cfg->embedding_dim;
  cfg->layers = layers;
  cfg->heads = heads;
  cfg->ffn_dim = ffn_dim;
  cfg->max_len = max_len;
  if (*max_tokens <= 0 || *max_tokens > max_len) *max_tokens = max_len;
  return "";
}

void write_transformer_config(const TextConfig& cfg, nlohmann::json* j) {
  (*j)["encoder"] = "transformer";
  (*j)["layers"] = cfg.layers;
  (*j)["heads"] = cfg.heads;
  (*j)["ffn_dim"] = cfg.ffn_dim;
  (*j)["max_len"] = cfg.max_len;
}

}  // namespace attnlab
