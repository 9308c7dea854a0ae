// HAN leave-one-out at both levels (han_importance.h). The word level encodes each sentence on its own, so a
// shortened document's other sentences keep their sentence vectors: the document's vectors are computed once,
// each sentence with one word deleted is encoded once (S + T sentences of word-level work in all, where running
// every shortened document whole was (S + T) × T), and only the sentence level runs per variant, on sentence
// vectors. The word-deleted sentences are encoded in parts side by side on the core's threads; the sentence level
// runs in chunks of at most kHanExplainBatchTokens sentence vectors.
#include <cmath>

#include "explain/han/han_importance.h"
#include "explain/importance.h"  // explain_parts
#include "parallel/parallel_for.h"

namespace attnlab {
namespace {

// A shortened document at the sentence level: the document's sentence vectors with sentence `drop` removed, or
// with sentence `swap` replaced by column `with` of the word-deleted sentences' vectors (-1: not used).
struct Variant {
  int drop = -1, swap = -1;
  Eigen::Index with = 0;
};

// p_target of each variant: the sentence level alone on its vectors, in chunks.
std::vector<double> sentence_level_probabilities(const HanExplainInput& in, const Mat<float>& doc_vectors,
                                                 const Mat<float>& deleted_vectors, const std::vector<Variant>& variants) {
  const Eigen::Index S = doc_vectors.cols(), R = doc_vectors.rows();
  std::vector<double> prob(variants.size());
  size_t first = 0;
  while (first < variants.size()) {
    size_t last = first;
    long columns = 0;
    do {
      columns += S;
      ++last;
    } while (last < variants.size() && columns + S <= kHanExplainBatchTokens);
    std::vector<int> counts;
    for (size_t v = first; v < last; ++v) counts.push_back(static_cast<int>(variants[v].drop >= 0 ? S - 1 : S));
    Mat<float> sv(R, columns);
    Eigen::Index col = 0;
    for (size_t v = first; v < last; ++v)
      for (Eigen::Index i = 0; i < S; ++i) {
        if (i == variants[v].drop) continue;
        sv.col(col++) = i == variants[v].swap ? deleted_vectors.col(variants[v].with) : doc_vectors.col(i);
      }
    sv.conservativeResize(R, col);
    HanCache<float> c;
    han_sentence_forward(*in.cfg, *in.params, sv, counts, c);
    for (size_t v = first; v < last; ++v)
      prob[v] = han_probability(*in.cfg, c.logits, static_cast<Eigen::Index>(v - first), in.target);
    first = last;
  }
  return prob;
}

// The sentence vectors of the given sentences (each as a one-sentence document), in parts side by side on the core's
// threads: explain_parts of the sentences by their mean length, a part's sentences contiguous.
Mat<float> sentence_vectors_of(const HanExplainInput& in, const std::vector<std::vector<int>>& sentences, Eigen::Index rows) {
  Mat<float> out(rows, static_cast<Eigen::Index>(sentences.size()));
  size_t tokens = 0;
  for (const auto& s : sentences) tokens += s.size();
  const size_t n = sentences.size(), parts = explain_parts(n, n ? (tokens + n - 1) / n : 1);
  parallel_for(parts, [&](size_t part) {
    const size_t first = split_begin(n, parts, part), last = split_begin(n, parts, part + 1);
    std::vector<HanDocument> docs;
    for (size_t k = first; k < last; ++k) docs.push_back({sentences[k]});
    HanCache<float> c;
    han_forward(*in.cfg, *in.params, docs, c);
    out.middleCols(static_cast<Eigen::Index>(first), static_cast<Eigen::Index>(last - first)) = c.sentence_vectors;
  });
  return out;
}

}  // namespace

HanImportance han_leave_one_out_importance(const HanExplainInput& in) {
  HanImportance out;
  if (!han_input_ok(in)) return out;
  const int S = static_cast<int>(in.doc.size());
  HanCache<float> whole;
  han_forward(*in.cfg, *in.params, {in.doc}, whole);
  const double p0 = han_probability(*in.cfg, whole.logits, 0, in.target);
  const Mat<float> doc_vectors = whole.sentence_vectors;  // [2Hw x S], the document's sentences in order

  // variants[0]: the document itself, so the first chunk has a non-empty document beside the empty one (S = 1)
  std::vector<Variant> variants = {{-1, -1, 0}};
  for (int i = 0; i < S; ++i) variants.push_back({i, -1, 0});  // without sentence i (S = 1: the empty document)
  std::vector<std::vector<int>> deleted;                         // sentence i without word t, for sentences of ≥ 2 words
  for (int i = 0; i < S; ++i)
    if (in.doc[i].size() > 1)
      for (size_t t = 0; t < in.doc[i].size(); ++t) {
        std::vector<int> s = in.doc[i];
        s.erase(s.begin() + static_cast<long>(t));
        variants.push_back({-1, i, static_cast<Eigen::Index>(deleted.size())});
        deleted.push_back(std::move(s));
      }
  const Mat<float> deleted_vectors = sentence_vectors_of(in, deleted, doc_vectors.rows());
  const std::vector<double> prob = sentence_level_probabilities(in, doc_vectors, deleted_vectors, variants);

  for (int i = 0; i < S; ++i) out.sentence.push_back(std::abs(p0 - prob[static_cast<size_t>(i) + 1]));
  size_t k = static_cast<size_t>(S) + 1;
  for (int i = 0; i < S; ++i) {
    std::vector<double> w;
    if (in.doc[i].size() == 1) w.push_back(out.sentence[static_cast<size_t>(i)]);  // a one-word sentence: without it
    else
      for (size_t t = 0; t < in.doc[i].size(); ++t) w.push_back(std::abs(p0 - prob[k++]));
    out.word.push_back(std::move(w));
  }
  return out;
}

}  // namespace attnlab
