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

// "[2, 3, 4]" — a tensor shape for error messages.
std::string shape_str(const std::vector<int64_t>& s);

}  // namespace attnlab
