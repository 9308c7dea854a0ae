#include "io/config_fields.h"

namespace attnlab {

bool json_int_in(const nlohmann::json& j, long long lo, long long hi, long long* out) {
  if (j.is_number_unsigned()) {
    const uint64_t u = j.get<uint64_t>();
    if (hi < 0 || u > static_cast<uint64_t>(hi) || (lo > 0 && u < static_cast<uint64_t>(lo))) return false;
    *out = static_cast<long long>(u);
    return true;
  }
  if (!j.is_number_integer()) return false;
  const long long v = j.get<long long>();
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

int json_nesting_depth(const std::string& s, int limit) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth && (max_depth = depth) > limit) return max_depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

bool config_get_int(const nlohmann::json& j, const char* key, int lo, int hi, int* out, std::string* error) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    *error = std::string("config.json: '") + key + "' is missing or not an integer";
    return false;
  }
  long long v = 0;
  if (!json_int_in(*it, lo, hi, &v)) {
    *error = std::string("config.json: '") + key + "' = " + it->dump() + " is outside [" + std::to_string(lo) +
             ", " + std::to_string(hi) + "]";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool parse_config(const std::string& text, const char* format, const char* what, nlohmann::json* out,
                  std::string* error) {
  if (text.size() > kMaxConfigBytes) {
    *error = "config.json is " + std::to_string(text.size()) + " bytes, more than the limit of " +
             std::to_string(kMaxConfigBytes) + " bytes";
    return false;
  }
  if (json_nesting_depth(text, kMaxConfigDepth) > kMaxConfigDepth) {
    *error = "config.json is nested more than " + std::to_string(kMaxConfigDepth) + " levels deep";
    return false;
  }
  *out = nlohmann::json::parse(text, nullptr, false);
  if (out->is_discarded() || !out->is_object()) {
    *error = "config.json is not a JSON object";
    return false;
  }
  auto fmt = out->find("format");
  if (fmt == out->end() || !fmt->is_string() || fmt->get<std::string>() != format) {
    *error = std::string("config.json: 'format' must be \"") + format + "\" (is this a " + what + " model folder?)";
    return false;
  }
  return true;
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

}  // namespace attnlab
