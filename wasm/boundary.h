// The one Embind boundary helper (docs/DESIGN.md "Binding convention"): typed arrays are checked and
// copied into the wasm heap, results are copied out (fresh arrays, never views of the heap), errors are
// returned as JS Error values (never thrown inside wasm), JSON crosses as text and is parsed once in JS.
#pragma once
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include <emscripten/val.h>
#include <nlohmann/json.hpp>

namespace attnlab::wasm {

using emscripten::val;

inline std::string num(size_t n) { return std::to_string(n); }

// The first error of a call (later checks keep it).
struct Err {
  std::string message;
  bool fail(const std::string& m) {
    if (message.empty()) message = m;
    return false;
  }
  bool ok() const { return message.empty(); }
};

inline val error_val(const std::string& message) { return val::global("Error").new_(val(message)); }

inline std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
// A JS object from C++ JSON (one string crosses, one JSON.parse).
inline val out_json(const nlohmann::json& j) { return val::global("JSON").call<val>("parse", val(dump(j))); }

// Copies a typed array (JS type names in `types`) with exactly `expected` elements (SIZE_MAX: any);
// `what` names the size in the message, e.g. "K·h·w = 62720".
template <class T>
bool copy_array(const val& v, const char* name, std::initializer_list<const char*> types, size_t expected,
                const std::string& what, std::vector<T>* out, Err& e) {
  if (!e.ok()) return false;
  bool typed = false;
  for (const char* t : types) typed = typed || v.instanceof(val::global(t));
  if (!typed) {
    std::string list;
    for (const char* t : types) list += (list.empty() ? "" : " or ") + std::string(t);
    return e.fail(std::string(name) + " must be a " + list);
  }
  const size_t n = v["length"].as<size_t>();
  if (expected != SIZE_MAX && n != expected)
    return e.fail(std::string(name) + " must have " + what + " values, got " + num(n));
  out->resize(n);
  if (n) val(emscripten::typed_memory_view(n, out->data())).call<void>("set", v);
  return true;
}

inline bool f32(const val& v, const char* name, std::vector<float>* out, Err& e, size_t expected = SIZE_MAX,
                const std::string& what = "") {
  return copy_array<float>(v, name, {"Float32Array"}, expected, what.empty() ? num(expected) : what, out, e);
}
inline bool u8(const val& v, const char* name, std::vector<uint8_t>* out, Err& e, size_t expected = SIZE_MAX,
               const std::string& what = "") {
  return copy_array<uint8_t>(v, name, {"Uint8Array", "Uint8ClampedArray"}, expected,
                             what.empty() ? num(expected) : what, out, e);
}

// Fresh typed arrays out (Float32Array / Uint8Array by element type; Uint8ClampedArray for RGBA); any allocator
// (an executor tensor's values are a std::vector with onnx::NoInitAllocator).
template <class T, class A>
val out_array(const std::vector<T, A>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}
inline val out_rgba(const std::vector<uint8_t>& v) {
  return val::global("Uint8ClampedArray").new_(val(emscripten::typed_memory_view(v.size(), v.data())));
}

inline bool string_arg(const val& v, const char* name, std::string* out, Err& e) {
  if (!e.ok()) return false;
  if (!v.isString()) return e.fail(std::string(name) + " must be a string");
  *out = v.as<std::string>();
  return true;
}

// A JSON object argument: a JS object, a JSON string, or undefined / null / "" (= {}).
inline bool object_arg(const val& v, const char* name, nlohmann::json* out, Err& e) {
  if (!e.ok()) return false;
  std::string text = "{}";
  if (v.isString()) {
    text = v.as<std::string>();
    if (text.empty()) text = "{}";
  } else if (!v.isUndefined() && !v.isNull()) {
    text = val::global("JSON").call<std::string>("stringify", v);
  }
  *out = nlohmann::json::parse(text, nullptr, false);
  if (!out->is_object()) return e.fail(std::string(name) + " must be a JSON object");
  return true;
}

inline bool seed_arg(double seed, uint64_t* out, Err& e) {
  if (!e.ok()) return false;
  if (!(seed >= 0) || seed != std::floor(seed) || seed > 9007199254740991.0)
    return e.fail("seed must be a non-negative integer");
  *out = static_cast<uint64_t>(seed);
  return true;
}

inline bool dim(int v, const char* name, Err& e, int max = 16384) {
  if (!e.ok()) return false;
  if (v < 1 || v > max)
    return e.fail(std::string(name) + " must be an integer in 1.." + std::to_string(max) + ", got " + std::to_string(v));
  return true;
}

}  // namespace attnlab::wasm
