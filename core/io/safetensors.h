// safetensors reader/writer (https://huggingface.co/docs/safetensors): u64 little-endian header size,
// JSON header {name: {dtype, shape, data_offsets}}, optional "__metadata__", then raw little-endian data.
// Reading validates everything (sizes, offsets inside the buffer, dtype, shape product) and reports a
// message naming what is wrong; it never aborts on bad bytes. Supported dtypes: F32, F16, F64.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab {

struct NamedTensor {
  std::vector<int64_t> shape;
  std::vector<float> data;  // row-major, converted to float
};

struct SafetensorsFile {
  std::map<std::string, NamedTensor> tensors;
  std::map<std::string, std::string> metadata;
};

// Parses bytes. On failure returns false and sets *error (e.g. "header length 9999 exceeds file size 120",
// "tensor 'decoder.bias': data_offsets [0, 12] do not match dtype F32 and shape [2] (8 bytes)").
bool read_safetensors(const uint8_t* bytes, size_t size, SafetensorsFile* out, std::string* error);

enum class StorageType { F32, F16 };

// Serialises tensors (sorted by name) to safetensors bytes, storing data as F32 or F16 (F16 rounds to
// nearest even; out-of-range values become +-inf). Returns an empty vector for invalid input (see below).
std::vector<uint8_t> write_safetensors(const std::map<std::string, NamedTensor>& tensors,
                                       StorageType storage,
                                       const std::map<std::string, std::string>& metadata = {});

// Same, reporting invalid input instead of returning an empty vector: a tensor whose data size is not
// the product of its shape, a negative dimension, or the reserved name "__metadata__". Returns false and
// sets *error (out is left empty); true and fills *out otherwise.
bool write_safetensors_checked(const std::map<std::string, NamedTensor>& tensors, StorageType storage,
                               const std::map<std::string, std::string>& metadata, std::vector<uint8_t>* out,
                               std::string* error);

// Round a float through IEEE half precision (what F16 storage does to a value).
float round_to_half(float x);

}  // namespace attnlab
