// Google Benchmark: the core's ONNX executor forward (and forward + backward) on the models named by
// ATTNLAB_ONNX_BENCH (comma-separated MODEL.onnx[:SIZE]; default models/image/mobilenet_v2.onnx:224), for the
// core-vs-ONNX-Runtime ratio in docs/BENCHMARKS.md ("ONNX executor"). Input as tests/bench/bench-onnx-ort.mjs.
// Arguments: the core's threads, and 1 when every op runs whole (its products not cut into parts, onnx/ops/parts.h)
// — so one run sets the threads' gain beside the cut's cost on one thread.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "explain/onnx/onnx_classifier.h"
#include "onnx/ops/parts.h"
#include "parallel/parallel_for.h"

namespace {

void run(benchmark::State& state, const std::string& path, int size, bool backward) {
  struct Setting {  // the threads and the cut for this benchmark, the defaults again after it
    explicit Setting(const benchmark::State& st) {
      attnlab::set_thread_count(static_cast<int>(st.range(0)));
      attnlab::onnx::set_op_work_per_part(st.range(1) ? INT64_MAX : attnlab::onnx::kWorkPerPart);
    }
    ~Setting() {
      attnlab::onnx::set_op_work_per_part(attnlab::onnx::kWorkPerPart);
      attnlab::set_thread_count(1);
    }
  } setting(state);
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  attnlab::OnnxClassifier clf;
  std::string err;
  if (!clf.load(bytes.data(), bytes.size(), &err)) {
    state.SkipWithError(err.c_str());
    return;
  }
  clf.set_input_size(size);
  const auto s = clf.input_shape();
  std::vector<float> x(static_cast<size_t>(s[1] * s[2] * s[3]));
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256) / (path.find("mobilenet_v2") != std::string::npos ? 1.f : 255.f);
  for (auto _ : state) {
    if (!clf.forward(x.data(), x.size(), &err)) {
      state.SkipWithError(err.c_str());
      return;
    }
    if (backward && !clf.backward_class(0, &err)) {
      state.SkipWithError(err.c_str());
      return;
    }
  }
}

int register_all() {
  const char* env = std::getenv("ATTNLAB_ONNX_BENCH");
  std::string list = env ? env : "models/image/mobilenet_v2.onnx:224";  // run from the repository root
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t colon = item.rfind(':');
    const std::string path = colon == std::string::npos ? item : item.substr(0, colon);
    const int size = colon == std::string::npos ? 224 : std::atoi(item.c_str() + colon + 1);
    const std::string name = path.substr(path.find_last_of('/') + 1);
    benchmark::RegisterBenchmark(("onnx_forward/" + name).c_str(), [=](benchmark::State& st) { run(st, path, size, false); })
        ->ArgsProduct({{1, 2}, {0, 1}})->UseRealTime()->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("onnx_forward_backward/" + name).c_str(), [=](benchmark::State& st) { run(st, path, size, true); })
        ->ArgsProduct({{1, 2}, {0, 1}})->UseRealTime()->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int registered = register_all();

}  // namespace
