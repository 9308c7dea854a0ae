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

// The trainers' --parts (core/train/data_parallel.h), one wording for train-text and train-han.
inline CLI::Option* add_parts_option(CLI::App* sub, int* parts) {
  return sub->add_option("--parts", *parts,
                         "data-parallel parts of each batch, run on the core's threads (0 = a batch of 32 in 4 parts of "
                         "8; 1 = the whole batch in one pass, as models trained before 2026-12-06); the weights do not "
                         "depend on --threads")
      ->check(CLI::Range(0, 4096));
}

}  // namespace attnlab::cli
