// Hugging Face tokenizer.json: reader and encoder (docs/DESIGN.md "Tokenizers").
//
// Implemented, with Hugging Face `tokenizers`' behaviour (conformance: tests/core/test_hf_tokenizer.cpp, the 46
// strings of llama.cpp's test vectors for bert-base-uncased and roberta-base give HF's ids):
//   model          WordPiece (unk_token, continuing_subword_prefix, max_input_chars_per_word: a word with a
//                  missing piece, or longer than that, is one unk token) and BPE (merges "a b" or ["a", "b"],
//                  applied by rank; continuing_subword_prefix, end_of_word_suffix, unk_token, fuse_unk) and
//                  WordLevel (a whole word or unk_token; what models/tools/export-transformer-onnx.mjs writes for
//                  attnlab's own word-level vocabularies)
//   normalizer     null, BertNormalizer (clean_text, handle_chinese_chars, strip_accents: null = lowercase,
//                  lowercase), Lowercase, NFD, StripAccents, Sequence of those
//   pre_tokenizer  BertPreTokenizer, ByteLevel (add_prefix_space, use_regex: GPT-2's regex, by hand over code
//                  points), WhitespaceSplit
//   post_processor TemplateProcessing (single), BertProcessing, RobertaProcessing, ByteLevel (no-op), Sequence
//   added_tokens   found in the raw text first (leftmost, longest), lstrip / rstrip honoured
// A BPE model needs the ByteLevel pre-tokenizer (what GPT-2 / RoBERTa use). Anything else (Unigram,
// Metaspace, NFKC, …) is refused by name.
// Offsets are byte offsets into the text given to encode: a token covers exactly the input bytes it came from
// (a byte-level token that holds part of a character covers those bytes; HF's trim_offsets is not applied).
#pragma once
#include <memory>
#include <string>

#include "text/subword_tokenizer.h"

namespace attnlab {

// Parses tokenizer.json text. nullptr with *error set when the file is not JSON, over the limits, or uses a
// component listed above as unsupported.
std::unique_ptr<SubwordTokenizer> load_hf_tokenizer(const std::string& json_text, std::string* error);

}  // namespace attnlab
