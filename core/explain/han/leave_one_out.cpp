// HAN leave-one-out at both levels (han_importance.h): every variant of the document in one batched forward.
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
  HanCache<float> c;
  han_forward(*in.cfg, *in.params, docs, c);
  const double p0 = han_probability(*in.cfg, c.logits, 0, in.target);
  Eigen::Index k = 1;
  for (int i = 0; i < S; ++i) out.sentence.push_back(std::abs(p0 - han_probability(*in.cfg, c.logits, k++, in.target)));
  for (int i = 0; i < S; ++i) {
    std::vector<double> w;
    for (size_t t = 0; t < in.doc[i].size(); ++t) w.push_back(std::abs(p0 - han_probability(*in.cfg, c.logits, k++, in.target)));
    out.word.push_back(std::move(w));
  }
  return out;
}

}  // namespace attnlab
