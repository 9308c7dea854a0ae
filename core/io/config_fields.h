// config_fields.h — small checked readers for checkpoint config.json files (text and CNN checkpoints share
// them). No exceptions: a failure returns false and sets *error to a message naming the key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

// *out = j[key] when it is an integer in [lo, hi]; else false with "config.json: 'key' …" in *error.
bool config_get_int(const nlohmann::json& j, const char* key, int lo, int hi, int* out, std::string* error);

// Parses config.json text into *out and checks its "format" equals `format`; else false with a message that
// names `what` (e.g. "text" → "is this a text model folder?").
bool parse_config(const std::string& text, const char* format, const char* what, nlohmann::json* out,
                  std::string* error);

// "[2, 3, 4]" — a tensor shape for error messages.
std::string shape_str(const std::vector<int64_t>& s);

}  // namespace attnlab
