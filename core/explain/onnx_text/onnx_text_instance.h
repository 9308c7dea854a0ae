// The debate's Instance for one text of a user's ONNX text transformer, built from the model's tokenizer output — the
// one rule the CLI (`attnlab experiment NAME --model DIR --data F.tsv`, cli/onnx_text_experiment.cpp) and the page
// (wasm/onnx_text_bindings.cpp, OnnxTextLab.experiment) share, so a one-line TSV gives the page's row: the ids, the
// vocabulary entries and the template's special-token flags (held fixed by OnnxAttentionModel), the index in the data
// set (the page's live text is instance 0) and the gold label (−1 when unknown: a live text, or a causal LM, whose class
// is its next token).
#pragma once
#include <utility>

#include "model/attention_model.h"
#include "text/subword_tokenizer.h"

namespace attnlab {

inline Instance onnx_text_instance(Tokenization t, int index, int label) {
  Instance in;
  in.index = index;
  in.label = label;
  in.tokens = std::move(t.tokens);
  in.ids = std::move(t.ids);
  in.special = std::move(t.special);
  return in;
}

}  // namespace attnlab
