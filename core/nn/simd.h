// 4-float SIMD via the GCC/Clang vector extension: lowered to wasm SIMD128 with -msimd128 and to SSE/AVX
// natively, with no platform headers. Used where Eigen 3.4 has no wasm packet path (matmul kernel,
// LSTM cell activations, the transformer's softmax and GELU).
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
// The 4 x 4 transpose of rows r0..r3: on return r_j holds element j of each input row (lane i from the old r_i).
inline void transpose4(v4& r0, v4& r1, v4& r2, v4& r3) {
  const v4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5), t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
  const v4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5), t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
  r0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  r1 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  r2 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  r3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}
inline v4 min(v4 a, v4 b) { return a < b ? a : b; }
inline v4 max(v4 a, v4 b) { return a > b ? a : b; }

// tanh to a few ulp: the odd/even minimax rational approximation Eigen uses (generic_fast_tanh_float:
// clamp to +-7.9053, x for |x| < 0.0004), on four lanes; exactly +-1 beyond the clamp (the rational's value
// there is 1 or 1 - 1 ulp depending on whether the compiler fuses multiply-adds). NaN is not preserved (the
// clamp reads it as +7.9, so it gives about 1). Tested
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

// exp to about 2 ulp: Cephes' range reduction and polynomial (the one Eigen's pexp_float uses),
// exp(x) = 2^m exp(r), m = floor(x log2 e + 1/2). Inputs are clamped to [-87, 88]; below -87 the result is 0
// (where std::exp is below FLT_MIN = 1.2e-38), above 88 it stays exp(88). NaN is not preserved. Tested
// against std::exp in tests/core.
inline v4 exp(v4 a) {
  const v4 x = max(min(a, splat(88.f)), splat(-87.f));
  const v4 fx = x * splat(1.44269504088896341f) + splat(0.5f);
  i4 m = __builtin_convertvector(fx, i4);  // truncation; floor below
  m += (__builtin_convertvector(m, v4) > fx);  // true lanes are -1
  const v4 mf = __builtin_convertvector(m, v4);
  v4 r = x - mf * splat(0.693359375f);
  r = r - mf * splat(-2.12194440e-4f);
  const v4 r2 = r * r;
  v4 y = splat(1.9875691500E-4f) * r + splat(1.3981999507E-3f);
  y = y * r + splat(8.3334519073E-3f);
  y = y * r + splat(4.1665795894E-2f);
  y = y * r + splat(1.6666665459E-1f);
  y = y * r + splat(5.0000001201E-1f);
  y = y * r2 + r + splat(1.f);
  const i4 bits = (m + 127) << 23;
  v4 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const v4 out = y * scale;
  return a < splat(-87.f) ? splat(0.f) : out;
}

// erf to a few ulp: the odd/even rational approximation Eigen uses (generic_fast_erf_float), clamped to
// [-4, 4] (beyond which erf is +-1 in float). Tested against std::erf in tests/core.
inline v4 erf(v4 a) {
  const v4 x = max(min(a, splat(4.f)), splat(-4.f));
  const v4 x2 = x * x;
  v4 p = x2 * splat(-2.72614225801306e-10f) + splat(2.77068142495902e-08f);
  p = x2 * p + splat(-2.10102402082508e-06f);
  p = x2 * p + splat(-5.69250639462346e-05f);
  p = x2 * p + splat(-7.34990630326855e-04f);
  p = x2 * p + splat(-2.95459980854025e-03f);
  p = x2 * p + splat(-1.60960333262415e-02f);
  p = x * p;
  v4 q = x2 * splat(-1.45660718464996e-05f) + splat(-2.13374055278905e-04f);
  q = x2 * q + splat(-1.68282697438203e-03f);
  q = x2 * q + splat(-7.37332916720468e-03f);
  q = x2 * q + splat(-1.42647390514189e-02f);
  return p / q;
}

// out[i] = f(in[i]) (times scale[i] when scale is given) over n floats, the tail through a padded lane set.
template <class F>
inline void map4(const float* in, const float* scale, float* out, long n, F f) {
  long i = 0;
  for (; i + 4 <= n; i += 4) store(out + i, scale ? f(load(in + i)) * load(scale + i) : f(load(in + i)));
  if (i < n) {
    float a[4] = {0, 0, 0, 0}, s[4] = {1, 1, 1, 1};
    for (long k = i; k < n; ++k) a[k - i] = in[k], s[k - i] = scale ? scale[k] : 1.f;
    const v4 r = f(load(a)) * load(s);
    for (long k = i; k < n; ++k) out[k] = r[k - i];
  }
}

}  // namespace attnlab::simd
