// Deterministic random numbers: the same seed gives the same stream natively and in wasm (std::
// distributions are implementation-defined, so uniform/normal are computed here from raw 64-bit draws).
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace attnlab {

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  uint64_t next_u64() { return gen_(); }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(gen_() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n) (n > 0), by rejection so it is unbiased.
  uint64_t below(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do { r = gen_(); } while (r >= limit);
    return r % n;
  }
  // Standard normal (Box-Muller, one value per call).
  double normal() {
    double u1;
    do { u1 = uniform(); } while (u1 <= 0.0);
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  template <class V>
  void shuffle(V& v) {  // Fisher-Yates
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::mt19937_64 gen_;
};

}  // namespace attnlab
