// llama2.c's tokenizer file (tok512.bin, tokenizer.bin) and its encoder / decoder, as llama2.c's run.c does
// them (docs/DESIGN.md "Tokenizers").
//
// File: int32 max_token_length, then for each token float32 score, int32 byte length, the bytes (little-endian);
// the vocabulary is every entry up to the end of the file. Ids 0, 1, 2 are <unk>, BOS, EOS; bytes without a piece
// fall back to the byte tokens <0xXX> = byte + 3.
// encode: optional BOS; a dummy prefix " " token when the text is not empty; one token per UTF-8 code point
// (a lead byte plus up to 3 continuation bytes) or its bytes' fallback tokens; then, while any adjacent pair
// concatenates to a vocabulary entry, the pair whose entry scores highest (the leftmost on ties, scores must
// exceed -1e10) is merged. Done with a heap over a linked list (O(n log n)) instead of run.c's rescans, with the
// same result. Unlike run.c (C strings) a NUL byte is encoded (as <0x00>) rather than ending the text.
// decode: a piece after BOS loses its leading space; "<0xXX>" pieces are that raw byte; BOS / EOS print nothing.
#pragma once
#include <memory>
#include <string>

#include "text/subword_tokenizer.h"

namespace attnlab {

// Parses tok*.bin bytes; nullptr with *error set (truncated entry, bad lengths, too many entries, …).
std::unique_ptr<SubwordTokenizer> load_llama2c_tokenizer(const std::string& bytes, std::string* error);

}  // namespace attnlab
