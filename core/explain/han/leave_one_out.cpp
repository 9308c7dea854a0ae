// HAN leave-one-out at both levels (han_importance.h): the variants of the document in batched forwards of at most
// kHanExplainBatchTokens tokens.
#include <cmath>

#include "explain/han/han_importance.h"

namespace attnlab {

HanImportance han_leave_one_out_importance(const HanExplainInput& in) {
  HanImportance out;
  if (!han_input_ok(in)) return out;
  const int S = static_cast<int>(in.doc.size());
  std::vector<HanDocument> docs = {in.doc};
  for (int i = 0; i < S; ++i) {  // without sentence i
    HanDocument d;
    for (int k = 0; k < S; ++k)
      if (k != i) d.push_back(in.doc[k]);
    docs.push_back(std::move(d));
  }
  for (int i = 0; i < S; ++i)  // without word t of sentence i (a one-word sentence: without the sentence)
    for (size_t t = 0; t < in.doc[i].size(); ++t) {
      HanDocument d = in.doc;
      d[i].erase(d[i].begin() + static_cast<long>(t));
      if (d[i].empty()) d.erase(d.begin() + i);
      docs.push_back(std::move(d));
    }
  // In chunks of at most kHanExplainBatchTokens tokens (at least one document a chunk): the variants are S + T
  // documents of about T tokens each, so one batch of all of them grew with T² (1,005 tokens: 3.7 GB).
  std::vector<double> prob(docs.size());
  size_t first = 0;
  while (first < docs.size()) {
    size_t last = first, tokens = 0;
    do {
      for (const auto& s : docs[last]) tokens += s.size();
      ++last;
    } while (last < docs.size() && tokens + han_document_tokens(docs[last]) <= static_cast<size_t>(kHanExplainBatchTokens));
    const std::vector<HanDocument> chunk(docs.begin() + static_cast<long>(first), docs.begin() + static_cast<long>(last));
    HanCache<float> c;
    han_forward(*in.cfg, *in.params, chunk, c);
    for (size_t d = first; d < last; ++d)
      prob[d] = han_probability(*in.cfg, c.logits, static_cast<Eigen::Index>(d - first), in.target);
    first = last;
  }
  size_t k = 1;
  for (int i = 0; i < S; ++i) out.sentence.push_back(std::abs(prob[0] - prob[k++]));
  for (int i = 0; i < S; ++i) {
    std::vector<double> w;
    for (size_t t = 0; t < in.doc[i].size(); ++t) w.push_back(std::abs(prob[0] - prob[k++]));
    out.word.push_back(std::move(w));
  }
  return out;
}

}  // namespace attnlab
