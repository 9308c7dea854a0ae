// Subword tokenizers of pretrained models: one interface over Hugging Face tokenizer.json (WordPiece, byte-level
// BPE; core/text/hf_tokenizer.h) and llama2.c's tok*.bin (SentencePiece-style BPE with byte fallback;
// core/text/llama2c_tokenizer.h). docs/DESIGN.md "Tokenizers".
//
// Nothing throws out of this API: loaders return nullptr and encode returns false with *error set.
// Outside input is bounded (kMaxTokenizerFileBytes, kMaxTokenizerVocab, kMaxTokenizerMerges,
// kMaxTokenizerTextBytes); invalid UTF-8 in a text is read as U+FFFD, one per bad byte.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

constexpr size_t kMaxTokenizerFileBytes = size_t{64} << 20;  // 64 MiB (bert-base's tokenizer.json: 0.7 MB)
constexpr size_t kMaxTokenizerVocab = 1000000;               // entries (Gemma's: 256k)
constexpr size_t kMaxTokenizerMerges = 1000000;              // BPE merges (GPT-2 / RoBERTa: 50k)
constexpr size_t kMaxTokenizerTokenBytes = 4096;             // bytes of one vocabulary entry
constexpr size_t kMaxTokenizerTextBytes = size_t{1} << 20;   // 1 MiB of text per encode

// One encoded text. All vectors have the same length.
struct Tokenization {
  std::vector<int> ids;
  std::vector<std::string> tokens;               // the vocabulary entries, as the tokenizer spells them
  std::vector<std::pair<int, int>> offsets;      // [begin, end) byte offsets into the encoded text
  std::vector<int> special;                      // 1 where the template added the token ([CLS], <s>, BOS)
  size_t size() const { return ids.size(); }
};

class SubwordTokenizer {
 public:
  virtual ~SubwordTokenizer() = default;
  // "wordpiece", "bytelevel-bpe" or "llama2c-bpe".
  virtual const char* kind() const = 0;
  // Encodes UTF-8 text. add_special: the template's tokens ([CLS] … [SEP], <s> … </s>, BOS for llama2.c).
  // Added tokens carry offsets [0, 0) (template start) or [n, n) (end). False only for text over
  // kMaxTokenizerTextBytes (*error says so); *out is then empty.
  virtual bool encode(const std::string& text, bool add_special, Tokenization* out, std::string* error) const = 0;
  // Text of ids (ids outside the vocabulary are skipped); template tokens are left out.
  virtual std::string decode(const std::vector<int>& ids) const = 0;
  // The vocabulary entry of id ("" outside the vocabulary); token_to_id: -1 when absent.
  virtual std::string id_to_token(int id) const = 0;
  virtual int token_to_id(const std::string& token) const = 0;
  virtual int vocab_size() const = 0;
};

// A neutral token for baselines (integrated gradients on a user's transformer): the first of [PAD], <pad>, <unk>,
// [UNK], <|endoftext|> in the vocabulary; −1 when none is.
int neutral_token(const SubwordTokenizer& tok);

// Reads a tokenizer from the bytes of a file (the core reads no files; over kMaxTokenizerFileBytes is refused): a JSON object is a Hugging Face tokenizer.json, anything else is
// read as llama2.c's tok*.bin. nullptr with *error naming the problem (and the unsupported part, e.g. "model
// type 'Unigram' is not supported").
std::unique_ptr<SubwordTokenizer> load_tokenizer(const std::string& bytes, std::string* error);

}  // namespace attnlab
