// fuzz_common.h — shared by the libFuzzer targets in tests/fuzz/ (built with -DATTNLAB_FUZZ=ON, clang).
// Each target rejects oversized input first (returns without parsing), so the fuzzer spends its time on
// the parser, not on memcpy; the limits are far below what the parsers refuse themselves.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace attnlab::fuzz {

constexpr size_t kMaxInput = size_t{1} << 20;  // 1 MiB

// A checkpoint input is "config.json text" NUL "safetensors bytes" (no NUL: all of it is the config).
inline void split_checkpoint(const uint8_t* data, size_t size, std::string* config, const uint8_t** weights,
                             size_t* weights_size) {
  const void* nul = std::memchr(data, 0, size);
  const size_t n = nul ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - data) : size;
  config->assign(reinterpret_cast<const char*>(data), n);
  *weights = nul ? data + n + 1 : data + size;
  *weights_size = nul ? size - n - 1 : 0;
}

// A failed check is a bug the fuzzer must report (abort, not an exception).
inline void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace attnlab::fuzz
