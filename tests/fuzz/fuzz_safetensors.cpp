// libFuzzer target: core/io/safetensors read_safetensors on any bytes. Checks: no crash / UB / leak; a
// failure leaves the output empty with a message; a success re-serialised (F32) parses back to the same
// shapes and bit-identical data.
#include <cstring>
#include <vector>

#include "fuzz_common.h"
#include "io/safetensors.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput) return -1;  // reject: not added to the corpus
  SafetensorsFile f;
  std::string error;
  if (!read_safetensors(data, size, &f, &error)) {
    fuzz::require(!error.empty() && f.tensors.empty());
    return 0;
  }
  std::vector<uint8_t> again;
  std::string werr;
  if (!write_safetensors_checked(f.tensors, StorageType::F32, f.metadata, &again, &werr)) {
    // only the reserved-name case can fail, and the reader never yields that name as a tensor
    fuzz::require(false);
  }
  SafetensorsFile g;
  fuzz::require(read_safetensors(again.data(), again.size(), &g, &error));
  fuzz::require(g.tensors.size() == f.tensors.size() && g.metadata == f.metadata);
  for (const auto& [name, t] : f.tensors) {
    const NamedTensor& u = g.tensors.at(name);
    fuzz::require(u.shape == t.shape && u.data.size() == t.data.size());
    fuzz::require(t.data.empty() || std::memcmp(u.data.data(), t.data.data(), t.data.size() * sizeof(float)) == 0);
  }
  return 0;
}
