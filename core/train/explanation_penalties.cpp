#include "train/explanation_penalties.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "nn/conicity.h"
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

template <class T>
double impermissible_mass(const ExplanationPenalties& p, const TextBatch& batch, const Mat<T>& alpha, int b) {
  const int B = batch.size();
  double mass = 0;
  for (int t = 0; t < batch.lengths[b]; ++t) {
    const int id = batch.ids[static_cast<size_t>(t) * B + b];
    if (id >= 0 && id < static_cast<int>(p.impermissible.size()) && p.impermissible[id]) mass += alpha(t, b);
  }
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
      for (int t = 0; t < batch.lengths[b]; ++t) {
        const int id = batch.ids[static_cast<size_t>(t) * B + b];
        if (id >= 0 && id < static_cast<int>(p.impermissible.size()) && p.impermissible[id]) (*d_alpha)(t, b) = g;
      }
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
  if (p.deception > 0 && std::find(p.impermissible.begin(), p.impermissible.end(), 1) == p.impermissible.end())
    return "the deception penalty needs impermissible tokens that are in the vocabulary";
  return "";
}

}  // namespace attnlab
