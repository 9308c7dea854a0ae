// 4-float SIMD via the GCC/Clang vector extension: lowered to wasm SIMD128 with -msimd128 and to SSE/AVX
// natively, with no platform headers. Used where Eigen 3.4 has no wasm packet path (matmul kernel,
// LSTM cell activations).
#pragma once
#include <cstring>

namespace attnlab::simd {

typedef float v4 __attribute__((vector_size(16)));
typedef int i4 __attribute__((vector_size(16)));

inline v4 load(const float* p) {
  v4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, v4 v) { std::memcpy(p, &v, sizeof v); }
inline v4 splat(float x) { return v4{x, x, x, x}; }
inline v4 min(v4 a, v4 b) { return a < b ? a : b; }
inline v4 max(v4 a, v4 b) { return a > b ? a : b; }

// tanh to a few ulp: the odd/even minimax rational approximation Eigen uses (generic_fast_tanh_float:
// clamp to +-7.9053, x for |x| < 0.0004), on four lanes; exactly +-1 beyond the clamp (the rational's value
// there is 1 or 1 - 1 ulp depending on whether the compiler fuses multiply-adds). NaN stays NaN. Tested
// against std::tanh in tests/core.
inline v4 tanh(v4 a) {
  const v4 x = max(min(a, splat(7.90531110763549805f)), splat(-7.90531110763549805f));
  const v4 x2 = x * x;
  v4 p = x2 * splat(-2.76076847742355e-16f) + splat(2.00018790482477e-13f);
  p = x2 * p + splat(-8.60467152213735e-11f);
  p = x2 * p + splat(5.12229709037114e-08f);
  p = x2 * p + splat(1.48572235717979e-05f);
  p = x2 * p + splat(6.37261928875436e-04f);
  p = x2 * p + splat(4.89352455891786e-03f);
  p = x * p;
  v4 q = x2 * splat(1.19825839466702e-06f) + splat(1.18534705686654e-04f);
  q = x2 * q + splat(2.26843463243900e-03f);
  q = x2 * q + splat(4.89352518554385e-03f);
  const v4 abs_a = a < splat(0.f) ? -a : a;
  const v4 r = abs_a < splat(0.0004f) ? x : p / q;
  return abs_a >= splat(7.90531110763549805f) ? (a < splat(0.f) ? splat(-1.f) : splat(1.f)) : r;
}

}  // namespace attnlab::simd
