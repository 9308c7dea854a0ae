// config_fields.h — small checked readers for checkpoint config.json files (text and CNN checkpoints share
// them). No exceptions: a failure returns false and sets *error to a message naming the key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attnlab {

// *out = j[key] when it is an integer in [lo, hi] (checked as a 64-bit value, so 4294967312 is not read as 16);
// else false with "config.json: 'key' …" in *error.
bool config_get_int(const nlohmann::json& j, const char* key, int lo, int hi, int* out, std::string* error);

// Limits on a config.json before it is parsed (nlohmann's copy and comparison recurse: 10^5 nested arrays
// overflow the stack, and the wasm build's much sooner), shared by every loader of outside JSON.
constexpr int kMaxConfigDepth = 64;
constexpr size_t kMaxConfigBytes = size_t{64} << 20;  // 64 MiB (a 15k-word vocabulary is ~200 KB)

// Max nesting of [ and { outside strings (a byte scan, no parsing; stops counting past `limit` + 1).
int json_nesting_depth(const std::string& text, int limit = 1 << 30);

// Parses config.json text into *out and checks its "format" equals `format`; else false with a message that
// names `what` (e.g. "text" → "is this a text model folder?"). Text over kMaxConfigBytes or nested deeper
// than kMaxConfigDepth is refused before parsing.
bool parse_config(const std::string& text, const char* format, const char* what, nlohmann::json* out,
                  std::string* error);

// *out = j when it is an integer in [lo, hi] (any JSON integer, signed or unsigned, without truncation).
bool json_int_in(const nlohmann::json& j, long long lo, long long hi, long long* out);

// "[2, 3, 4]" — a tensor shape for error messages.
std::string shape_str(const std::vector<int64_t>& s);

}  // namespace attnlab
