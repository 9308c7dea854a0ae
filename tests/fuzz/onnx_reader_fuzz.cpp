// libFuzzer target for the ONNX reader and executor load (core/onnx/reader.h, executor.h): any bytes must
// give a Model or a message, never a crash, a hang or an allocation past the reader's limits.
// Build (clang, outside CMake):
//   clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -Icore -I/usr/include/eigen3 -Ibuild/include \
//     tests/fuzz/onnx_reader_fuzz.cpp core/onnx/*.cpp core/onnx/ops/*.cpp core/io/safetensors.cpp -o /tmp/onnx_reader_fuzz
//   /tmp/onnx_reader_fuzz -max_len=65536 -rss_limit_mb=1024 /usr/share/libonnx-testdata/data/node/*/model.onnx
// (the conformance models make a good seed corpus; pass a folder of copies to keep new inputs).
#include <cstddef>
#include <cstdint>
#include <string>

#include "onnx/executor.h"
#include "onnx/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  attnlab::onnx::ReaderLimits limits;
  limits.max_bytes = 1 << 20;
  limits.max_tensor_elements = 1 << 20;
  limits.max_total_elements = 1 << 22;
  attnlab::onnx::Model m;
  std::string err;
  if (attnlab::onnx::read_model(data, size, &m, &err, limits)) {
    attnlab::onnx::Executor<float> ex;
    ex.load(m, &err);  // validation + constant folding on fuzzed graphs
  }
  attnlab::onnx::TensorData t;
  attnlab::onnx::read_tensor(data, size, &t, &err, limits);
  return 0;
}
