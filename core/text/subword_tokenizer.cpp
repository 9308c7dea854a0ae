// load_tokenizer: tokenizer.json or llama2.c tok*.bin, told apart by the first byte that is not white space.
#include "text/subword_tokenizer.h"

#include "text/hf_tokenizer.h"
#include "text/llama2c_tokenizer.h"

namespace attnlab {

std::unique_ptr<SubwordTokenizer> load_tokenizer(const std::string& bytes, std::string* error) {
  if (bytes.size() > kMaxTokenizerFileBytes) {
    *error = "the tokenizer file is " + std::to_string(bytes.size()) + " bytes, more than the limit of " +
             std::to_string(kMaxTokenizerFileBytes) + " bytes";
    return nullptr;
  }
  if (bytes.empty()) {
    *error = "the tokenizer file is empty";
    return nullptr;
  }
  size_t i = 0;
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r')) ++i;
  if (i < bytes.size() && (bytes[i] == '{' || bytes[i] == '[')) return load_hf_tokenizer(bytes, error);
  return load_llama2c_tokenizer(bytes, error);
}

int neutral_token(const SubwordTokenizer& tok) {
  for (const char* name : {"[PAD]", "<pad>", "<unk>", "[UNK]", "<|endoftext|>"})
    if (const int id = tok.token_to_id(name); id >= 0) return id;
  return -1;
}

}  // namespace attnlab
