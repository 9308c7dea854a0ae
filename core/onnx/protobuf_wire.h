// A minimal, bounds-checked reader of the protobuf wire format (varints, fixed32/64, length-delimited
// fields), enough to walk ONNX messages. Every read checks the remaining bytes first and reports failure
// by returning false; nothing here allocates or throws. Nested messages are read through sub-readers over
// a byte range of the parent, so a length that points outside the parent is an error, not a read past
// the buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace attnlab::onnx {

enum class WireType : int { Varint = 0, Fixed64 = 1, Bytes = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };

struct ByteRange {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

class WireReader {
 public:
  WireReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  explicit WireReader(ByteRange r) : WireReader(r.data, r.size) {}
  bool done() const { return p_ >= end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  bool varint(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      const uint8_t b = *p_++;
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = result;
        return true;
      }
    }
    return false;  // more than 10 bytes
  }
  // Reads a field key; false at a malformed key (field number 0 or an unknown wire type).
  bool key(int* field, WireType* type) {
    uint64_t k;
    if (!varint(&k)) return false;
    const uint64_t f = k >> 3, t = k & 7;
    if (f == 0 || f > (1u << 29) || t > 5) return false;
    *field = static_cast<int>(f);
    *type = static_cast<WireType>(t);
    return true;
  }
  bool fixed32(uint32_t* v) {
    if (remaining() < 4) return false;
    std::memcpy(v, p_, 4);  // little-endian hosts only (x86, wasm)
    p_ += 4;
    return true;
  }
  bool fixed64(uint64_t* v) {
    if (remaining() < 8) return false;
    std::memcpy(v, p_, 8);
    p_ += 8;
    return true;
  }
  bool bytes(ByteRange* r) {
    uint64_t n;
    if (!varint(&n) || n > remaining()) return false;
    r->data = p_;
    r->size = static_cast<size_t>(n);
    p_ += n;
    return true;
  }
  bool string(std::string* s, size_t max_len) {
    ByteRange r;
    if (!bytes(&r) || r.size > max_len) return false;
    s->assign(reinterpret_cast<const char*>(r.data), r.size);
    return true;
  }
  // Skips a field of the given wire type (groups are not used by ONNX and are refused).
  bool skip(WireType t) {
    uint64_t v;
    uint32_t v32;
    ByteRange r;
    switch (t) {
      case WireType::Varint: return varint(&v);
      case WireType::Fixed64: return fixed64(&v);
      case WireType::Fixed32: return fixed32(&v32);
      case WireType::Bytes: return bytes(&r);
      default: return false;
    }
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace attnlab::onnx
