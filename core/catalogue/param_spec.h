// One parameter of a method, experiment or training recipe: name, type, default, range, allowed values and a
// one-line description. The catalogue (catalogue.h) lists them; the same specs check the options the CLI and
// the wasm bindings receive, so a default or a range is written once.
// Types: "int", "number", "string", "bool", "int_list", "number_list", "bool_list". Checks never throw; messages name the key:
// "epochs must be a number in [1, 200]", "epochs must be an integer", "head must be gap, gmp or lse, got 'avg'".
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace attnlab {

struct ParamSpec {
  std::string name, type;
  nlohmann::json def;                // the default (null: none, e.g. a path that must be given)
  double min = 0, max = 0;           // int / number / list entries (inclusive); min > max: unbounded
  std::vector<std::string> values;   // string: the allowed values (empty: any string)
  std::string description;
  nlohmann::json to_json() const;
};

// "" when value fits spec, else a message.
std::string check_param(const ParamSpec& spec, const nlohmann::json& value);
// Checks every key of params that has a spec (keys without one are left alone); "" or the first message.
std::string check_params(const std::vector<ParamSpec>& specs, const nlohmann::json& params);
// The spec called name, or nullptr.
const ParamSpec* find_param(const std::vector<ParamSpec>& specs, const std::string& name);
// params[name] when given, else the spec's default (specs must contain name).
nlohmann::json param_or_default(const std::vector<ParamSpec>& specs, const nlohmann::json& params,
                                const std::string& name);
nlohmann::json params_json(const std::vector<ParamSpec>& specs);

// Shorthands for the catalogues: an int / a number in [lo, hi] with its default and description.
inline ParamSpec iparam(const char* name, int def, int lo, int hi, const char* what) {
  return {name, "int", def, double(lo), double(hi), {}, what};
}
inline ParamSpec nparam(const char* name, double def, double lo, double hi, const char* what) {
  return {name, "number", def, lo, hi, {}, what};
}

}  // namespace attnlab
