// Overflow-checked size arithmetic and UB-free integer operations for the ONNX executor (one helper for
// every operator, the executor and the bindings; correct where size_t has 32 bits, as in wasm32).
//   checked_mul / checked_add   false instead of a signed overflow.
//   shape_fits(s, limit, &n)    every dim ≥ 0 and ∏ max(d, 1) ≤ limit (a zero dim counts as 1, so no partial
//                               product of a shape that fits can overflow either); n = the element count.
//   wrap_add / wrap_sub / wrap_mul   two's-complement int64 arithmetic (ONNX leaves overflow unspecified; C++
//                               makes it undefined): computed on uint64.
//   wrap_div                    truncating division with INT64_MIN / −1 = INT64_MIN; the caller refuses ÷ 0.
//   saturate_i64(v)             float → int64 without UB: NaN → 0, out of range → INT64_MIN / INT64_MAX.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace attnlab::onnx {

inline bool checked_mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
inline bool checked_add(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

inline bool shape_fits(const std::vector<int64_t>& s, int64_t limit, int64_t* numel = nullptr) {
  int64_t bound = 1, n = 1;
  for (int64_t d : s) {
    if (d < 0) return false;
    if (!checked_mul(bound, d > 1 ? d : 1, &bound) || bound > limit) return false;
    n = d == 0 ? 0 : n * d;  // n ≤ bound: cannot overflow
  }
  if (numel) *numel = n;
  return true;
}

inline int64_t wrap_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
inline int64_t wrap_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
inline int64_t wrap_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
inline int64_t wrap_div(int64_t a, int64_t b) {
  if (b == -1) return wrap_sub(0, a);  // INT64_MIN / −1 wraps to INT64_MIN
  return a / b;
}

inline int64_t saturate_i64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

}  // namespace attnlab::onnx
