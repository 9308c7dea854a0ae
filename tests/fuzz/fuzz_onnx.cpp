// libFuzzer target for the ONNX reader and executor load (core/onnx/reader.h, executor.h): any bytes must
// give a Model or a message, never a crash, a hang or an allocation past the reader's limits. Built by
// CMake with -DATTNLAB_FUZZ=ON (build-fuzz/), run by tests/fuzz/run.sh from tests/fuzz/corpus/onnx/ (small
// models of the ONNX project's conformance cases, Debian libonnx-testdata) with tests/fuzz/dict/onnx.dict.
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
