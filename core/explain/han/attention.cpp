// HAN attention importance: sentence beta_i, word alpha_it (han_importance.h).
#include "explain/han/han_importance.h"

namespace attnlab {

HanImportance han_attention_importance(const HanExplainInput& in) {
  HanImportance out;
  if (!han_input_ok(in)) return out;
  HanCache<float> c;
  han_forward(*in.cfg, *in.params, {in.doc}, c);
  for (int i = 0; i < c.doc_count[0]; ++i) {
    out.sentence.push_back(c.sentence_attention.alpha(i, 0));
    const std::vector<float> a = han_word_alpha(c, i);
    out.word.emplace_back(a.begin(), a.end());
  }
  return out;
}

}  // namespace attnlab
