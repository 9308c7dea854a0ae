#include "io/config_fields.h"

namespace attnlab {

bool config_get_int(const nlohmann::json& j, const char* key, int lo, int hi, int* out, std::string* error) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) {
    *error = std::string("config.json: '") + key + "' is missing or not an integer";
    return false;
  }
  const long long v = it->get<long long>();
  if (v < lo || v > hi) {
    *error = std::string("config.json: '") + key + "' = " + std::to_string(v) + " is outside [" +
             std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

bool parse_config(const std::string& text, const char* format, const char* what, nlohmann::json* out,
                  std::string* error) {
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
