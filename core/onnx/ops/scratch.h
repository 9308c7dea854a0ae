// Scratch storage for an op's temporaries that every use writes before it reads (im2col, Winograd's transforms, a
// product assigned with =): not zero-filled, as a std::vector would be (zero-fills, these and the outputs', were
// 17 % of MobileNetV2's native forward profile).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace attnlab::onnx {

template <class T>
struct Scratch {
  explicit Scratch(int64_t n) : p(n > 0 ? new T[static_cast<size_t>(n)] : nullptr) {}
  T* data() const { return p.get(); }
  std::unique_ptr<T[]> p;
};

}  // namespace attnlab::onnx
