#include "catalogue/param_spec.h"

#include <cmath>

namespace attnlab {
namespace {

std::string num_text(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<long long>(v)) : nlohmann::json(v).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string check_number(const ParamSpec& s, const nlohmann::json& v, bool integer, const std::string& what) {
  const bool bounded = s.min <= s.max;
  if (!v.is_number() || !std::isfinite(v.get<double>()) ||
      (bounded && (v.get<double>() < s.min || v.get<double>() > s.max)))
    return what + " must be a number" + (bounded ? " in [" + num_text(s.min) + ", " + num_text(s.max) + "]" : "");
  if (integer && v.get<double>() != std::floor(v.get<double>())) return what + " must be an integer";
  return "";
}

}  // namespace

nlohmann::json ParamSpec::to_json() const {
  nlohmann::json j = {{"name", name}, {"type", type}, {"default", def}, {"description", description}};
  if (min <= max && type != "string" && type != "bool" && type != "bool_list") {
    j["min"] = min;
    j["max"] = max;
  }
  if (!values.empty()) j["values"] = values;
  return j;
}

std::string check_param(const ParamSpec& s, const nlohmann::json& v) {
  if (s.type == "int" || s.type == "number") return check_number(s, v, s.type == "int", s.name);
  if (s.type == "bool") return v.is_boolean() ? "" : s.name + " must be true or false";
  if (s.type == "string") {
    if (!v.is_string()) return s.name + " must be a string";
    if (s.values.empty()) return "";
    for (const std::string& a : s.values)
      if (v.get<std::string>() == a) return "";
    std::string list;
    for (size_t i = 0; i < s.values.size(); ++i)
      list += (i == 0 ? "" : i + 1 == s.values.size() ? " or " : ", ") + s.values[i];
    return s.name + " must be " + list + ", got '" + v.get<std::string>() + "'";
  }
  if (s.type == "int_list" || s.type == "number_list" || s.type == "bool_list") {
    if (!v.is_array() || v.empty() || v.size() > 8) return s.name + " must be a list of 1..8 values";
    for (const auto& x : v) {
      const std::string bad = s.type == "bool_list" ? (x.is_boolean() ? "" : "x") : check_number(s, x, s.type == "int_list", "x");
      if (!bad.empty()) return s.name + " has a bad value";
    }
    return "";
  }
  return s.name + ": unknown parameter type '" + s.type + "'";
}

std::string check_params(const std::vector<ParamSpec>& specs, const nlohmann::json& params) {
  if (!params.is_object()) return "parameters must be a JSON object";
  for (const ParamSpec& s : specs) {
    auto it = params.find(s.name);
    if (it == params.end()) continue;
    const std::string bad = check_param(s, *it);
    if (!bad.empty()) return bad;
  }
  return "";
}

const ParamSpec* find_param(const std::vector<ParamSpec>& specs, const std::string& name) {
  for (const ParamSpec& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

nlohmann::json param_or_default(const std::vector<ParamSpec>& specs, const nlohmann::json& params,
                                const std::string& name) {
  auto it = params.is_object() ? params.find(name) : params.end();
  if (params.is_object() && it != params.end()) return *it;
  const ParamSpec* s = find_param(specs, name);
  return s ? s->def : nlohmann::json();
}

nlohmann::json params_json(const std::vector<ParamSpec>& specs) {
  nlohmann::json out = nlohmann::json::array();
  for (const ParamSpec& s : specs) out.push_back(s.to_json());
  return out;
}

}  // namespace attnlab
