// HAN gradient importance (Jain & Wallace style at each level, attention detached; han_importance.h).
#include <cmath>

#include "explain/han/han_importance.h"

namespace attnlab {

HanImportance han_gradient_importance(const HanExplainInput& in) {
  HanImportance out;
  if (!han_input_ok(in)) return out;
  HanCache<float> c;
  han_forward(*in.cfg, *in.params, {in.doc}, c);
  HanBackwardOptions opt;
  opt.detach_word_attention = opt.detach_sentence_attention = true;
  HanGradients<float> g;
  han_backward<float>(*in.cfg, *in.params, c, han_d_probability(*in.cfg, c.logits, in.target), opt, nullptr, &g);
  double ssum = 0, wsum = 0;
  for (int i = 0; i < c.S; ++i) {
    out.sentence.push_back(std::abs(double(g.d_sentence_vectors.col(i).cast<double>().dot(c.sentence_vectors.col(i).cast<double>()))));
    ssum += out.sentence.back();
    std::vector<double> w;
    for (size_t t = 0; t < in.doc[i].size(); ++t) {
      const Eigen::Index col = static_cast<Eigen::Index>(t);
      w.push_back(std::abs(double(g.d_words[i].col(col).cast<double>().dot(in.params->embedding.col(in.doc[i][t]).cast<double>()))));
      wsum += w.back();
    }
    out.word.push_back(std::move(w));
  }
  if (ssum > 0)
    for (double& v : out.sentence) v /= ssum;
  if (wsum > 0)
    for (auto& w : out.word)
      for (double& v : w) v /= wsum;
  return out;
}

}  // namespace attnlab
