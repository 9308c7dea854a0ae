#include "train/explanation_penalties.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "nn/conicity.h"
#include "text/dataset.h"
#include "text/tokenizer.h"

namespace attnlab {

namespace {
constexpr double kMaxImpermissibleMass = 1 - 1e-6;
}

std::vector<char> impermissible_flags(const Vocab& vocab, const std::string& words, int* in_vocab) {
  std::vector<char> flags(static_cast<size_t>(vocab.size()), 0);
  int found = 0;
  for (const std::string& w : tokenize(words)) {
    const int id = vocab.id(w);
    if (id == Vocab::kUnk || id == Vocab::kPad || flags[id]) continue;
    flags[id] = 1;
    ++found;
  }
  if (in_vocab) *in_vocab = found;
  return flags;
}

bool parse_position_lists(const std::string& content, size_t expected, std::vector<std::vector<int>>* out,
                          std::string* error) {
  out->clear();
  size_t start = 0;
  while (start < content.size()) {
    size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    std::string line = content.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = "line " + std::to_string(out->size() + 1) + ": ";
    if (out->size() == expected) {
      *error = where + "more lines than the " + std::to_string(expected) + " examples of the data";
      return false;
    }
    std::vector<int> positions;
    std::istringstream in(line);
    std::string word;
    while (in >> word) {
      const bool digits = word.size() <= 9 && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
      const long v = digits ? std::stol(word) : -1;
      if (!digits || v >= kMaxExampleTokens) {
        *error = where + "'" + word.substr(0, 24) + "' is not a token position (0 to " +
                 std::to_string(kMaxExampleTokens - 1) + ")";
        return false;
      }
      positions.push_back(static_cast<int>(v));
    }
    out->push_back(std::move(positions));
    start = end + 1;
  }
  if (out->size() != expected) {
    *error = std::to_string(out->size()) + " lines of positions for " + std::to_string(expected) +
             " examples of the data (one line per example, in the file's order; an empty line for none)";
    return false;
  }
  return true;
}

std::vector<char> marked_flags(const std::vector<int>& positions, size_t length, int* kept) {
  std::vector<char> flags(length, 0);
  int n = 0;
  for (int t : positions)
    if (t >= 0 && static_cast<size_t>(t) < length && !flags[t]) flags[t] = 1, ++n;
  if (kept) *kept = n;
  return flags;
}

bool impermissible_at(const ExplanationPenalties& p, const TextBatch& batch, int t, int b) {
  const size_t k = static_cast<size_t>(t) * batch.size() + b;
  const int id = batch.ids[k];
  if (id >= 0 && id < static_cast<int>(p.impermissible.size()) && p.impermissible[id]) return true;
  return k < batch.marked.size() && batch.marked[k];
}

template <class T>
double impermissible_mass(const ExplanationPenalties& p, const TextBatch& batch, const Mat<T>& alpha, int b) {
  double mass = 0;
  for (int t = 0; t < batch.lengths[b]; ++t)
    if (impermissible_at(p, batch, t, b)) mass += alpha(t, b);
  return mass;
}

template <class T>
T explanation_penalties(const ExplanationPenalties& p, const TextBatch& batch, const TextCache<T>& cache,
                        Mat<T>* d_alpha, Mat<T>* d_states) {
  const int B = batch.size();
  double loss = 0;
  *d_alpha = Mat<T>::Zero(cache.attention.alpha.rows(), cache.attention.alpha.cols());
  *d_states = Mat<T>::Zero(cache.encoder.out.rows(), cache.encoder.out.cols());
  if (p.diversity > 0) {
    const std::vector<T> c = conicity_forward(cache.encoder.out, batch.lengths);
    for (T v : c) loss += p.diversity * double(v);
    conicity_backward(cache.encoder.out, batch.lengths, std::vector<T>(B, T(p.diversity)), *d_states);
  }
  if (p.deception > 0) {
    for (int b = 0; b < B; ++b) {
      const double mass = std::min(impermissible_mass(p, batch, cache.attention.alpha, b), kMaxImpermissibleMass);
      loss += -p.deception * std::log(1 - mass);
      const T g = T(p.deception / (1 - mass));
      for (int t = 0; t < batch.lengths[b]; ++t)
        if (impermissible_at(p, batch, t, b)) (*d_alpha)(t, b) = g;
    }
  }
  return T(loss);
}

#define ATTNLAB_INSTANTIATE(T)                                                                                    \
  template double impermissible_mass<T>(const ExplanationPenalties&, const TextBatch&, const Mat<T>&, int);       \
  template T explanation_penalties<T>(const ExplanationPenalties&, const TextBatch&, const TextCache<T>&, Mat<T>*, \
                                      Mat<T>*);
ATTNLAB_INSTANTIATE(float)
ATTNLAB_INSTANTIATE(double)
#undef ATTNLAB_INSTANTIATE

std::string check_explanation_penalties(const TextConfig& cfg, const ExplanationPenalties& p) {
  if (!(p.diversity >= 0) || !(p.deception >= 0)) return "diversity and deception weights must be >= 0";
  if (cfg.encoder == EncoderKind::Transformer && p.any())
    return "the diversity and deception penalties apply to the BiLSTM models (one attention distribution), not a "
           "transformer";
  if (cfg.encoder == EncoderKind::Mlp && p.diversity > 0)
    return "the diversity penalty applies to a recurrent encoder's states (bilstm)";
  if (p.deception > 0 && cfg.attention == AttentionKind::Uniform)
    return "the deception penalty needs learned attention (uniform attention cannot move)";
  if (p.deception > 0 && !p.by_position &&
      std::find(p.impermissible.begin(), p.impermissible.end(), 1) == p.impermissible.end())
    return "the deception penalty needs impermissible tokens that are in the vocabulary (or marked by position)";
  return "";
}

}  // namespace attnlab
