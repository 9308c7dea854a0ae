// validators.h — CLI11 checks the built-in ones miss: CLI::Range lets NaN through (every comparison with
// NaN is false), so `--lr nan` trained a model full of NaN with exit code 0.
#pragma once
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

namespace attnlab::cli {

// A finite number in [lo, hi].
inline CLI::Validator FiniteRange(double lo, double hi) {
  std::ostringstream r;
  r << "[" << lo << ", " << hi << "]";
  const std::string range = r.str();
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end == nullptr || *end != '\0') return "'" + s + "' is not a number";
        if (!std::isfinite(v) || v < lo || v > hi) return "'" + s + "' is not a finite number in " + range;
        return "";
      },
      "FINITE in " + range);
}

}  // namespace attnlab::cli
