// safetensors reader/writer (see safetensors.h). Nothing here throws: the header is parsed with
// json::parse(..., nullptr, false) (a parse error gives a discarded value), every JSON value's type is
// checked before get<>, JSON is dumped with error_handler_t::replace, and the nesting depth of the header
// is bounded before parsing. Multi-byte values are (de)serialised byte by byte (little-endian), so the host
// byte order and alignment do not matter.
// Reading: on failure *out is left empty and *error names the problem. As the Rust safetensors crate
// (its `validate`): the header is at most 100 MB of UTF-8, no key appears twice in one object, and the
// tensors, sorted by offset, tile the data buffer exactly — no overlap, no gap, no trailing bytes
// (zero-size tensors, e.g. shape [2, 0] at [0, 0], fit anywhere on the tiling).
// Writing: tensors in name order, contiguous, header padded with spaces to a multiple of 8 bytes.
// write_safetensors returns an empty vector when the input is invalid (see write_safetensors_checked).
#include "io/safetensors.h"
#include "io/config_fields.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <nlohmann/json.hpp>

namespace attnlab {
namespace {

using nlohmann::json;

constexpr int kMaxHeaderDepth = 64;
constexpr uint64_t kMaxHeaderBytes = 100000000;  // the Rust crate's MAX_HEADER_SIZE

// Index of the first byte that is not part of well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF),
// or npos when the whole text is valid.
size_t first_invalid_utf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len = 0;
    uint32_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
    for (int k = 2; k < len; ++k)
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string::npos;
}

// Parses JSON and reports the first key that appears twice in one object (nlohmann keeps the last one
// silently). Returns a discarded value on a syntax error.
json parse_rejecting_duplicates(const std::string& text, std::string* duplicate) {
  std::vector<std::vector<std::string>> keys;  // one list per open object
  json::parser_callback_t cb = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == json::parse_event_t::key && !keys.empty() && parsed.is_string()) {
      const std::string& k = parsed.get_ref<const std::string&>();
      auto& seen = keys.back();
      if (duplicate->empty() && std::find(seen.begin(), seen.end(), k) != seen.end()) *duplicate = k;
      seen.push_back(k);
    }
    return true;
  };
  return json::parse(text, cb, false);
}

uint64_t load_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void store_u64_le(uint64_t v, uint8_t* p) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

float load_f32(const uint8_t* p) {
  uint32_t bits = static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                  (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

float load_f16(const uint8_t* p) {
  const uint16_t bits = static_cast<uint16_t>(p[0] | (p[1] << 8));
  return static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits));
}

float load_f64(const uint8_t* p) {
  const uint64_t bits = load_u64_le(p);
  double d;
  std::memcpy(&d, &bits, 8);
  // casting an out-of-range finite double to float is undefined behaviour: saturate to +-inf
  if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<float>::max())) {
    return d > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  }
  return static_cast<float>(d);
}

// Max nesting of [ and { outside strings; guards the parser and the json destructor against deep input.
int json_depth(const std::string& s) {
  int depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

// A JSON value that is a non-negative integer fitting in int64; sets *v.
bool as_nonneg_int(const json& j, int64_t* v) {
  if (!j.is_number_unsigned()) return false;
  const uint64_t u = j.get<uint64_t>();
  if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

bool fail(std::string* error, const std::string& msg) {
  if (error) *error = msg;
  return false;
}

bool parse_tensor(const std::string& name, const json& entry, const uint8_t* data, uint64_t data_size,
                  NamedTensor* out, uint64_t* begin_out, uint64_t* end_out, std::string* error) {
  const std::string where = "tensor '" + name + "': ";
  if (!entry.is_object()) return fail(error, where + "entry is not an object");

  auto dt = entry.find("dtype");
  if (dt == entry.end()) return fail(error, where + "missing dtype");
  if (!dt->is_string()) return fail(error, where + "dtype is not a string");
  const std::string dtype = dt->get<std::string>();
  int elem_size = 0;
  if (dtype == "F32") {
    elem_size = 4;
  } else if (dtype == "F16") {
    elem_size = 2;
  } else if (dtype == "F64") {
    elem_size = 8;
  } else {
    return fail(error, where + "unsupported dtype '" + dtype + "' (supported: F32, F16, F64)");
  }

  auto sh = entry.find("shape");
  if (sh == entry.end()) return fail(error, where + "missing shape");
  if (!sh->is_array()) return fail(error, where + "shape is not an array");
  std::vector<int64_t> shape;
  shape.reserve(sh->size());
  for (size_t i = 0; i < sh->size(); ++i) {
    const json& d = (*sh)[i];
    if (d.is_number_integer() && !d.is_number_unsigned()) {
      return fail(error, where + "negative dimension " + std::to_string(d.get<int64_t>()) + " in shape");
    }
    int64_t v = 0;
    if (!as_nonneg_int(d, &v)) return fail(error, where + "shape[" + std::to_string(i) + "] is not an integer");
    shape.push_back(v);
  }

  auto off = entry.find("data_offsets");
  if (off == entry.end()) return fail(error, where + "missing data_offsets");
  if (!off->is_array() || off->size() != 2) return fail(error, where + "data_offsets is not a [begin, end] pair");
  int64_t begin = 0, end = 0;
  if (!as_nonneg_int((*off)[0], &begin) || !as_nonneg_int((*off)[1], &end)) {
    return fail(error, where + "data_offsets are not non-negative integers");
  }
  const std::string offs = "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
  if (begin > end) return fail(error, where + offs + " have begin > end");

  // element count, with overflow checks (any overflow means the byte size cannot match)
  uint64_t count = 1;
  bool overflow = false;
  for (int64_t d : shape) {
    const uint64_t ud = static_cast<uint64_t>(d);
    if (ud != 0 && count > std::numeric_limits<uint64_t>::max() / ud) overflow = true;
    count = overflow ? 0 : count * ud;
  }
  if (!overflow && count > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(elem_size)) overflow = true;
  const uint64_t span = static_cast<uint64_t>(end - begin);
  if (overflow || count * static_cast<uint64_t>(elem_size) != span) {
    const std::string bytes = overflow ? std::string("too many") : std::to_string(count * elem_size);
    return fail(error, where + offs + " do not match dtype " + dtype + " and shape " + shape_str(shape) + " (" +
                           bytes + " bytes)");
  }
  if (static_cast<uint64_t>(end) > data_size) {
    return fail(error, where + offs + " exceed the data size " + std::to_string(data_size) +
                           " (file truncated?)");
  }

  *begin_out = static_cast<uint64_t>(begin);
  *end_out = static_cast<uint64_t>(end);
  out->shape = std::move(shape);
  out->data.resize(static_cast<size_t>(count));
  const uint8_t* p = data + begin;
  for (size_t i = 0; i < out->data.size(); ++i, p += elem_size) {
    out->data[i] = elem_size == 4 ? load_f32(p) : elem_size == 2 ? load_f16(p) : load_f64(p);
  }
  return true;
}

bool check_tensors(const std::map<std::string, NamedTensor>& tensors, std::string* error) {
  for (const auto& kv : tensors) {
    const std::string where = "tensor '" + kv.first + "': ";
    if (kv.first == "__metadata__") return fail(error, where + "the name is reserved");
    uint64_t count = 1;
    for (int64_t d : kv.second.shape) {
      if (d < 0) return fail(error, where + "negative dimension " + std::to_string(d) + " in shape");
      const uint64_t ud = static_cast<uint64_t>(d);
      if (ud != 0 && count > std::numeric_limits<uint64_t>::max() / ud) {
        return fail(error, where + "shape " + shape_str(kv.second.shape) + " is too large");
      }
      count *= ud;
    }
    if (count != kv.second.data.size()) {
      return fail(error, where + "shape " + shape_str(kv.second.shape) + " has " + std::to_string(count) +
                             " elements but data has " + std::to_string(kv.second.data.size()));
    }
  }
  return true;
}

}  // namespace

bool read_safetensors(const uint8_t* bytes, size_t size, SafetensorsFile* out, std::string* error) {
  SafetensorsFile result;
  if (out) *out = SafetensorsFile();
  if (bytes == nullptr && size > 0) return fail(error, "no data (null pointer)");
  if (size < 8) {
    return fail(error, "file too short: " + std::to_string(size) + " bytes, need at least 8 for the header length");
  }
  const uint64_t header_len = load_u64_le(bytes);
  if (header_len > static_cast<uint64_t>(size) - 8) {
    return fail(error, "header length " + std::to_string(header_len) + " exceeds file size " + std::to_string(size));
  }
  if (header_len > kMaxHeaderBytes) {
    return fail(error, "header length " + std::to_string(header_len) + " exceeds the limit of " +
                           std::to_string(kMaxHeaderBytes) + " bytes");
  }
  const std::string header(reinterpret_cast<const char*>(bytes) + 8, static_cast<size_t>(header_len));
  if (const size_t bad = first_invalid_utf8(header); bad != std::string::npos) {
    return fail(error, "header is not valid UTF-8 (byte " + std::to_string(bad) + " of the header)");
  }
  if (json_depth(header) > kMaxHeaderDepth) return fail(error, "header is nested too deeply");
  std::string duplicate;
  const json j = parse_rejecting_duplicates(header, &duplicate);
  if (j.is_discarded()) return fail(error, "header is not valid JSON");
  if (!j.is_object()) return fail(error, "header is not a JSON object");
  if (!duplicate.empty()) {
    return fail(error, "header has the key '" + duplicate.substr(0, 200) + "' twice");
  }

  const uint8_t* data = bytes + 8 + header_len;
  const uint64_t data_size = static_cast<uint64_t>(size) - 8 - header_len;
  std::vector<std::tuple<uint64_t, uint64_t, std::string>> spans;  // begin, end, name
  for (const auto& item : j.items()) {
    const std::string& name = item.key();
    const json& value = item.value();
    if (name == "__metadata__") {
      if (!value.is_object()) return fail(error, "__metadata__ is not an object");
      for (const auto& m : value.items()) {
        if (!m.value().is_string()) return fail(error, "__metadata__ entry '" + m.key() + "' is not a string");
        result.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    NamedTensor t;
    uint64_t begin = 0, end = 0;
    if (!parse_tensor(name, value, data, data_size, &t, &begin, &end, error)) return false;
    spans.push_back({begin, end, name});
    result.tensors.emplace(name, std::move(t));
  }
  // The tensors must tile [0, data_size): sorted by (begin, end), each starts where the previous ended.
  std::sort(spans.begin(), spans.end());
  uint64_t covered = 0;
  const std::string* last = nullptr;
  for (const auto& [b, e, name] : spans) {
    if (b < covered) {
      return fail(error, "tensor '" + name + "': data_offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                             "] overlap tensor '" + *last + "' (which ends at " + std::to_string(covered) + ")");
    }
    if (b > covered) {
      return fail(error, "tensor '" + name + "': data_offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                             "] leave bytes " + std::to_string(covered) + ".." + std::to_string(b) +
                             " of the data unused");
    }
    covered = e;
    if (e > b || last == nullptr) last = &name;
  }
  if (covered != data_size) {
    return fail(error, "the data has " + std::to_string(data_size - covered) + " trailing bytes after the last tensor (" +
                           std::to_string(covered) + " of " + std::to_string(data_size) + " bytes used)");
  }
  if (out) *out = std::move(result);
  if (error) error->clear();
  return true;
}

bool write_safetensors_checked(const std::map<std::string, NamedTensor>& tensors, StorageType storage,
                               const std::map<std::string, std::string>& metadata, std::vector<uint8_t>* out,
                               std::string* error) {
  if (out) out->clear();
  if (!check_tensors(tensors, error)) return false;
  const uint64_t elem_size = storage == StorageType::F32 ? 4 : 2;
  json header = json::object();
  if (!metadata.empty()) {
    json m = json::object();
    for (const auto& kv : metadata) m[kv.first] = kv.second;
    header["__metadata__"] = std::move(m);
  }
  uint64_t offset = 0;
  for (const auto& kv : tensors) {
    const uint64_t nbytes = kv.second.data.size() * elem_size;
    json entry = json::object();
    entry["dtype"] = storage == StorageType::F32 ? "F32" : "F16";
    entry["shape"] = kv.second.shape;
    entry["data_offsets"] = json::array({offset, offset + nbytes});
    header[kv.first] = std::move(entry);
    offset += nbytes;
  }
  std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');

  std::vector<uint8_t> bytes(8 + text.size() + offset);
  store_u64_le(text.size(), bytes.data());
  std::memcpy(bytes.data() + 8, text.data(), text.size());
  uint8_t* p = bytes.data() + 8 + text.size();
  for (const auto& kv : tensors) {
    for (float v : kv.second.data) {
      if (storage == StorageType::F32) {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        for (int b = 0; b < 4; ++b) *p++ = static_cast<uint8_t>(bits >> (8 * b));
      } else {
        const uint16_t bits = Eigen::numext::bit_cast<uint16_t>(Eigen::half(v));
        *p++ = static_cast<uint8_t>(bits & 0xFF);
        *p++ = static_cast<uint8_t>(bits >> 8);
      }
    }
  }
  if (out) *out = std::move(bytes);
  if (error) error->clear();
  return true;
}

std::vector<uint8_t> write_safetensors(const std::map<std::string, NamedTensor>& tensors, StorageType storage,
                                       const std::map<std::string, std::string>& metadata) {
  std::vector<uint8_t> out;
  write_safetensors_checked(tensors, storage, metadata, &out, nullptr);
  return out;
}

float round_to_half(float x) { return static_cast<float>(Eigen::half(x)); }

}  // namespace attnlab
