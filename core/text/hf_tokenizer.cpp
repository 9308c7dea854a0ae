// Hugging Face tokenizer.json reader and encoder (see hf_tokenizer.h). Nothing throws: JSON is parsed with
// exceptions off (a syntax error is a discarded value) and every value's type is checked before it is read.
#include "text/hf_tokenizer.h"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "io/config_fields.h"
#include "text/tokenizer_unicode.h"

namespace attnlab {
namespace {

using nlohmann::json;
using unicode::CodePoint;

constexpr int kHfMaxJsonDepth = 64;
constexpr size_t kHfMaxAddedTokens = 100000;

// A character of the normalized text and the input bytes [begin, end) it came from.
struct HfChar {
  uint32_t cp;
  int begin;
  int end;
};

enum class HfNormKind { kBert, kLowercase, kNfd, kStripAccents };
struct HfNormStep {
  HfNormKind kind;
  bool clean_text = false, chinese = false, strip_accents = false, lowercase = false;
};

enum class HfPreKind { kBert, kByteLevel, kWhitespaceSplit };

struct HfAddedToken {
  std::string content;
  int id = -1;
  bool special = false;
  bool lstrip = false, rstrip = false;
};

struct HfTemplateToken {
  int id;
  std::string token;
};

bool hf_is_chinese_char(uint32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool hf_is_bert_whitespace(uint32_t c) { return c == '\t' || c == '\n' || c == '\r' || unicode::is_white_space(c); }
bool hf_is_bert_control(uint32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  return unicode::is_other(c);
}
bool hf_is_bert_punctuation(uint32_t c) {
  const bool ascii = (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return ascii || unicode::is_punctuation(c);
}

// GPT-2's byte → printable character map (bytes_to_unicode).
std::vector<uint32_t> hf_byte_to_unicode() {
  std::vector<uint32_t> map(256, 0);
  uint32_t next = 256;
  for (uint32_t b = 0; b < 256; ++b) {
    const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
    map[b] = printable ? b : next++;
  }
  return map;
}

std::string hf_type_of(const json& j) {
  if (!j.is_object()) return "";
  auto t = j.find("type");
  return (t != j.end() && t->is_string()) ? t->get<std::string>() : "";
}

// *out = j[key] when present and boolean (null or absent keeps the default); false when of another type.
bool hf_bool(const json& j, const char* key, bool* out, std::string* error, const char* where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_boolean()) {
    *error = std::string("tokenizer.json: ") + where + " '" + key + "' must be true or false";
    return false;
  }
  *out = it->get<bool>();
  return true;
}

class HfTokenizer final : public SubwordTokenizer {
 public:
  bool load(const json& root, std::string* error);

  const char* kind() const override { return wordlevel_ ? "wordlevel" : wordpiece_ ? "wordpiece" : "bytelevel-bpe"; }
  bool encode(const std::string& text, bool add_special, Tokenization* out, std::string* error) const override;
  std::string decode(const std::vector<int>& ids) const override;
  std::string id_to_token(int id) const override {
    return (id >= 0 && id < static_cast<int>(vocab_.size())) ? vocab_[id] : std::string();
  }
  int token_to_id(const std::string& token) const override {
    auto it = index_.find(token);
    return it == index_.end() ? -1 : it->second;
  }
  int vocab_size() const override { return static_cast<int>(vocab_.size()); }

 private:
  bool load_model(const json& model, std::string* error);
  bool load_vocab(const json& vocab, std::string* error);
  bool load_merges(const json& merges, std::string* error);
  bool load_normalizer(const json& n, std::string* error);
  bool load_pre_tokenizer(const json& p, std::string* error);
  bool load_post_processor(const json& p, std::string* error);
  bool load_added_tokens(const json& a, std::string* error);
  bool template_pair(const json& p, const char* key, HfTemplateToken* out, std::string* error);

  std::vector<HfChar> normalize(const std::vector<CodePoint>& chars, size_t from, size_t to) const;
  std::vector<std::pair<size_t, size_t>> pre_tokenize(std::vector<HfChar>* chars) const;
  void wordpiece(const std::vector<HfChar>& word, Tokenization* out) const;
  void bpe(const std::vector<HfChar>& word, Tokenization* out) const;
  void push(Tokenization* out, int id, int begin, int end, int special) const;
  const HfAddedToken* match_added(const std::string& text, size_t at) const;

  bool wordpiece_ = true;
  bool wordlevel_ = false;  // WordLevel: a WordPiece model whose words are never split (whole word or unk)
  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int> index_;
  int unk_id_ = -1;
  std::string prefix_;  // continuing_subword_prefix
  std::string suffix_;  // BPE end_of_word_suffix
  int max_input_chars_per_word_ = 100;
  bool fuse_unk_ = false, ignore_merges_ = false;
  std::unordered_map<uint64_t, std::pair<int, int>> merges_;  // (left id << 32 | right id) → (rank, merged id)
  std::vector<HfNormStep> normalizers_;
  bool has_pre_tokenizer_ = false;
  HfPreKind pre_ = HfPreKind::kBert;
  bool add_prefix_space_ = false, use_regex_ = true;
  std::vector<uint32_t> byte_map_;    // byte → character
  std::vector<std::string> byte_str_;  // byte → that character in UTF-8
  std::unordered_map<uint32_t, int> unicode_to_byte_;
  std::vector<HfTemplateToken> before_, after_;
  std::vector<HfAddedToken> added_;  // sorted by content (bytes)
  std::unordered_set<int> special_ids_;
};

bool HfTokenizer::load(const json& root, std::string* error) {
  if (!root.is_object()) {
    *error = "tokenizer.json is not a JSON object";
    return false;
  }
  auto model = root.find("model");
  if (model == root.end() || !model->is_object()) {
    *error = "tokenizer.json has no 'model' object (is this a Hugging Face tokenizer.json?)";
    return false;
  }
  if (!load_model(*model, error)) return false;
  auto n = root.find("normalizer");
  if (n != root.end() && !n->is_null() && !load_normalizer(*n, error)) return false;
  auto p = root.find("pre_tokenizer");
  if (p != root.end() && !p->is_null() && !load_pre_tokenizer(*p, error)) return false;
  if (!wordpiece_ && (!has_pre_tokenizer_ || pre_ != HfPreKind::kByteLevel)) {
    *error = "tokenizer.json: a BPE model without the ByteLevel pre-tokenizer (SentencePiece-style BPE) is not "
             "supported; supported: byte-level BPE (GPT-2, RoBERTa)";
    return false;
  }
  auto a = root.find("added_tokens");
  if (a != root.end() && !a->is_null() && !load_added_tokens(*a, error)) return false;
  auto pp = root.find("post_processor");
  if (pp != root.end() && !pp->is_null() && !load_post_processor(*pp, error)) return false;
  if (!wordpiece_) {
    byte_map_ = hf_byte_to_unicode();
    for (int b = 0; b < 256; ++b) {
      std::string s;
      unicode::append_utf8(byte_map_[b], &s);
      byte_str_.push_back(s);
      unicode_to_byte_[byte_map_[b]] = b;
    }
  }
  return true;
}

bool HfTokenizer::load_vocab(const json& vocab, std::string* error) {
  if (!vocab.is_object()) {
    *error = "tokenizer.json: model 'vocab' must be an object {token: id}";
    return false;
  }
  if (vocab.size() > kMaxTokenizerVocab) {
    *error = "tokenizer.json: the vocabulary has " + std::to_string(vocab.size()) + " entries, more than the limit of " +
             std::to_string(kMaxTokenizerVocab);
    return false;
  }
  index_.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    long long id = 0;
    if (!json_int_in(it.value(), 0, static_cast<long long>(kMaxTokenizerVocab) - 1, &id)) {
      *error = "tokenizer.json: vocabulary entry '" + it.key().substr(0, 64) + "' has an id that is not an integer in [0, " +
               std::to_string(kMaxTokenizerVocab) + ")";
      return false;
    }
    if (it.key().size() > kMaxTokenizerTokenBytes) {
      *error = "tokenizer.json: a vocabulary entry is " + std::to_string(it.key().size()) + " bytes long, more than " +
               std::to_string(kMaxTokenizerTokenBytes);
      return false;
    }
    if (static_cast<size_t>(id) >= vocab_.size()) vocab_.resize(static_cast<size_t>(id) + 1);
    if (!vocab_[id].empty()) {
      *error = "tokenizer.json: id " + std::to_string(id) + " is given to two vocabulary entries";
      return false;
    }
    vocab_[id] = it.key();
    index_[it.key()] = static_cast<int>(id);
  }
  if (vocab_.empty()) {
    *error = "tokenizer.json: the vocabulary is empty";
    return false;
  }
  return true;
}

bool HfTokenizer::load_merges(const json& merges, std::string* error) {
  if (!merges.is_array()) {
    *error = "tokenizer.json: model 'merges' must be an array";
    return false;
  }
  if (merges.size() > kMaxTokenizerMerges) {
    *error = "tokenizer.json: " + std::to_string(merges.size()) + " merges, more than the limit of " +
             std::to_string(kMaxTokenizerMerges);
    return false;
  }
  merges_.reserve(merges.size());
  int rank = 0;
  for (const json& m : merges) {
    std::string a, b;
    if (m.is_string()) {
      const std::string& s = m.get_ref<const std::string&>();
      const size_t sp = s.find(' ');
      if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos) {
        *error = "tokenizer.json: merge " + std::to_string(rank) + " is not two tokens separated by one space";
        return false;
      }
      a = s.substr(0, sp);
      b = s.substr(sp + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      *error = "tokenizer.json: merge " + std::to_string(rank) + " is neither \"a b\" nor [\"a\", \"b\"]";
      return false;
    }
    const int ia = token_to_id(a), ib = token_to_id(b);
    if (ia < 0 || ib < 0) {
      *error = "tokenizer.json: merge " + std::to_string(rank) + " names a token that is not in the vocabulary";
      return false;
    }
    const std::string tail = b.compare(0, prefix_.size(), prefix_) == 0 ? b.substr(prefix_.size()) : b;
    const int merged = token_to_id(a + tail);
    if (merged < 0) {
      *error = "tokenizer.json: merge " + std::to_string(rank) + " gives a token that is not in the vocabulary";
      return false;
    }
    const uint64_t key = (static_cast<uint64_t>(ia) << 32) | static_cast<uint32_t>(ib);
    merges_.emplace(key, std::make_pair(rank, merged));  // the first (best) rank of a pair wins
    ++rank;
  }
  return true;
}

bool HfTokenizer::load_model(const json& model, std::string* error) {
  const std::string type = hf_type_of(model);
  auto vocab = model.find("vocab");
  auto merges = model.find("merges");
  std::string t = type;
  if (t.empty()) t = merges != model.end() ? "BPE" : (model.contains("max_input_chars_per_word") ? "WordPiece" : "");
  if (t != "WordPiece" && t != "BPE" && t != "WordLevel") {
    *error = "tokenizer.json: model type '" + (t.empty() ? std::string("(none)") : t.substr(0, 64)) +
             "' is not supported (supported: WordPiece, BPE, WordLevel)";
    return false;
  }
  wordlevel_ = t == "WordLevel";
  wordpiece_ = t == "WordPiece" || wordlevel_;
  if (vocab == model.end()) {
    *error = "tokenizer.json: the model has no 'vocab'";
    return false;
  }
  if (!load_vocab(*vocab, error)) return false;
  auto unk = model.find("unk_token");
  if (unk != model.end() && unk->is_string()) {
    unk_id_ = token_to_id(unk->get<std::string>());
    if (unk_id_ < 0) {
      *error = "tokenizer.json: the unk_token is not in the vocabulary";
      return false;
    }
  } else if (unk != model.end() && !unk->is_null()) {
    *error = "tokenizer.json: model 'unk_token' must be a string or null";
    return false;
  }
  auto prefix = model.find("continuing_subword_prefix");
  if (prefix != model.end() && prefix->is_string()) prefix_ = prefix->get<std::string>();
  else if (wordpiece_ && !wordlevel_) prefix_ = "##";
  if (wordpiece_) {
    if (unk_id_ < 0) {
      *error = std::string("tokenizer.json: a ") + (wordlevel_ ? "WordLevel" : "WordPiece") + " model needs an unk_token";
      return false;
    }
    auto mc = model.find("max_input_chars_per_word");
    long long v = 100;
    if (mc != model.end() && !mc->is_null() && !json_int_in(*mc, 1, 1 << 20, &v)) {
      *error = "tokenizer.json: 'max_input_chars_per_word' must be an integer in [1, 1048576]";
      return false;
    }
    max_input_chars_per_word_ = static_cast<int>(v);
    return true;
  }
  auto suffix = model.find("end_of_word_suffix");
  if (suffix != model.end() && suffix->is_string()) suffix_ = suffix->get<std::string>();
  auto dropout = model.find("dropout");
  if (dropout != model.end() && !dropout->is_null() && !(dropout->is_number() && dropout->get<double>() == 0.0)) {
    *error = "tokenizer.json: BPE dropout is not supported (encoding would not be deterministic)";
    return false;
  }
  bool byte_fallback = false;
  if (!hf_bool(model, "fuse_unk", &fuse_unk_, error, "model") ||
      !hf_bool(model, "ignore_merges", &ignore_merges_, error, "model") ||
      !hf_bool(model, "byte_fallback", &byte_fallback, error, "model"))
    return false;
  if (byte_fallback) {
    *error = "tokenizer.json: BPE byte_fallback (SentencePiece-style BPE) is not supported; supported: byte-level BPE";
    return false;
  }
  if (merges == model.end()) {
    *error = "tokenizer.json: the BPE model has no 'merges'";
    return false;
  }
  return load_merges(*merges, error);
}

bool HfTokenizer::load_normalizer(const json& n, std::string* error) {
  const std::string type = hf_type_of(n);
  if (type == "Sequence") {
    auto list = n.find("normalizers");
    if (list == n.end() || !list->is_array() || list->size() > 64) {
      *error = "tokenizer.json: a Sequence normalizer needs a 'normalizers' array (at most 64)";
      return false;
    }
    for (const json& m : *list) {
      if (hf_type_of(m) == "Sequence") {
        *error = "tokenizer.json: nested Sequence normalizers are not supported";
        return false;
      }
      if (!load_normalizer(m, error)) return false;
    }
    return true;
  }
  HfNormStep step;
  if (type == "BertNormalizer") {
    step.kind = HfNormKind::kBert;
    step.clean_text = step.chinese = step.lowercase = true;
    bool strip_set = false;
    auto sa = n.find("strip_accents");
    if (!hf_bool(n, "clean_text", &step.clean_text, error, "BertNormalizer") ||
        !hf_bool(n, "handle_chinese_chars", &step.chinese, error, "BertNormalizer") ||
        !hf_bool(n, "lowercase", &step.lowercase, error, "BertNormalizer") ||
        !hf_bool(n, "strip_accents", &strip_set, error, "BertNormalizer"))
      return false;
    // strip_accents null (or absent) follows lowercase, as in Hugging Face's BertNormalizer.
    step.strip_accents = (sa == n.end() || sa->is_null()) ? step.lowercase : strip_set;
  } else if (type == "Lowercase") {
    step.kind = HfNormKind::kLowercase;
  } else if (type == "NFD") {
    step.kind = HfNormKind::kNfd;
  } else if (type == "StripAccents") {
    step.kind = HfNormKind::kStripAccents;
  } else {
    *error = "tokenizer.json: normalizer '" + (type.empty() ? std::string("(no type)") : type.substr(0, 64)) +
             "' is not supported (supported: BertNormalizer, Lowercase, NFD, StripAccents, Sequence of those)";
    return false;
  }
  normalizers_.push_back(step);
  return true;
}

bool HfTokenizer::load_pre_tokenizer(const json& p, std::string* error) {
  const std::string type = hf_type_of(p);
  has_pre_tokenizer_ = true;
  if (type == "BertPreTokenizer") {
    pre_ = HfPreKind::kBert;
  } else if (type == "WhitespaceSplit") {
    pre_ = HfPreKind::kWhitespaceSplit;
  } else if (type == "ByteLevel") {
    pre_ = HfPreKind::kByteLevel;
    if (!hf_bool(p, "add_prefix_space", &add_prefix_space_, error, "ByteLevel") ||
        !hf_bool(p, "use_regex", &use_regex_, error, "ByteLevel"))
      return false;
  } else if (type == "Sequence" && p.contains("pretokenizers") && p["pretokenizers"].is_array() &&
             p["pretokenizers"].size() == 1) {
    return load_pre_tokenizer(p["pretokenizers"][0], error);
  } else {
    *error = "tokenizer.json: pre-tokenizer '" + (type.empty() ? std::string("(no type)") : type.substr(0, 64)) +
             "' is not supported (supported: BertPreTokenizer, ByteLevel, WhitespaceSplit)";
    return false;
  }
  if (wordpiece_ && pre_ == HfPreKind::kByteLevel) {
    *error = "tokenizer.json: a WordPiece model with the ByteLevel pre-tokenizer is not supported";
    return false;
  }
  return true;
}

bool HfTokenizer::template_pair(const json& p, const char* key, HfTemplateToken* out, std::string* error) {
  auto it = p.find(key);
  if (it == p.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_string()) {
    *error = std::string("tokenizer.json: post_processor '") + key + "' must be [token, id]";
    return false;
  }
  long long id = 0;
  if (!json_int_in((*it)[1], 0, static_cast<long long>(vocab_.size()) - 1, &id)) {
    *error = std::string("tokenizer.json: post_processor '") + key + "' has an id outside the vocabulary";
    return false;
  }
  *out = {static_cast<int>(id), (*it)[0].get<std::string>()};
  return true;
}

bool HfTokenizer::load_post_processor(const json& p, std::string* error) {
  const std::string type = hf_type_of(p);
  if (type == "ByteLevel") return true;  // offsets only
  if (type == "Sequence") {
    auto list = p.find("processors");
    if (list == p.end() || !list->is_array() || list->size() > 16) {
      *error = "tokenizer.json: a Sequence post_processor needs a 'processors' array (at most 16)";
      return false;
    }
    for (const json& q : *list) {
      if (hf_type_of(q) == "Sequence") {
        *error = "tokenizer.json: nested Sequence post-processors are not supported";
        return false;
      }
      if (!load_post_processor(q, error)) return false;
    }
    return true;
  }
  if (!before_.empty() || !after_.empty()) {
    *error = "tokenizer.json: more than one post-processor adds tokens";
    return false;
  }
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    HfTemplateToken cls{}, sep{};
    if (!template_pair(p, "cls", &cls, error) || !template_pair(p, "sep", &sep, error)) return false;
    before_.push_back(cls);
    after_.push_back(sep);
    special_ids_.insert(cls.id);
    special_ids_.insert(sep.id);
    return true;
  }
  if (type == "TemplateProcessing") {
    auto single = p.find("single");
    auto specials = p.find("special_tokens");
    if (single == p.end() || !single->is_array() || single->size() > 64) {
      *error = "tokenizer.json: TemplateProcessing needs a 'single' array (at most 64 pieces)";
      return false;
    }
    bool seen_sequence = false;
    for (const json& piece : *single) {
      if (!piece.is_object() || piece.size() != 1) {
        *error = "tokenizer.json: a TemplateProcessing piece must be {\"SpecialToken\": …} or {\"Sequence\": …}";
        return false;
      }
      if (piece.contains("Sequence")) {
        const json& s = piece["Sequence"];
        if (seen_sequence || !s.is_object() || !s.contains("id") || s["id"] != "A") {
          *error = "tokenizer.json: the 'single' template must hold sequence A exactly once";
          return false;
        }
        seen_sequence = true;
        continue;
      }
      const json& st = piece.contains("SpecialToken") ? piece["SpecialToken"] : json();
      if (!st.is_object() || !st.contains("id") || !st["id"].is_string()) {
        *error = "tokenizer.json: a TemplateProcessing piece must be {\"SpecialToken\": …} or {\"Sequence\": …}";
        return false;
      }
      const std::string name = st["id"].get<std::string>();
      std::vector<HfTemplateToken> toks;
      if (specials != p.end() && specials->is_object() && specials->contains(name)) {
        const json& sp = (*specials)[name];
        if (!sp.is_object() || !sp.contains("ids") || !sp["ids"].is_array() || sp["ids"].size() > 64) {
          *error = "tokenizer.json: TemplateProcessing special token '" + name.substr(0, 64) + "' has no 'ids' list";
          return false;
        }
        const json& ids = sp["ids"];
        const json* tokens = sp.contains("tokens") && sp["tokens"].is_array() ? &sp["tokens"] : nullptr;
        for (size_t i = 0; i < ids.size(); ++i) {
          long long id = 0;
          if (!json_int_in(ids[i], 0, static_cast<long long>(vocab_.size()) - 1, &id)) {
            *error = "tokenizer.json: TemplateProcessing special token '" + name.substr(0, 64) +
                     "' has an id outside the vocabulary";
            return false;
          }
          std::string tok = (tokens && i < tokens->size() && (*tokens)[i].is_string()) ? (*tokens)[i].get<std::string>()
                                                                                         : id_to_token(static_cast<int>(id));
          toks.push_back({static_cast<int>(id), tok});
        }
      } else if (token_to_id(name) >= 0) {
        toks.push_back({token_to_id(name), name});
      } else {
        *error = "tokenizer.json: TemplateProcessing special token '" + name.substr(0, 64) + "' is unknown";
        return false;
      }
      for (const auto& t : toks) {
        (seen_sequence ? after_ : before_).push_back(t);
        special_ids_.insert(t.id);
      }
    }
    if (!seen_sequence) {
      *error = "tokenizer.json: the 'single' template must hold sequence A exactly once";
      return false;
    }
    return true;
  }
  *error = "tokenizer.json: post_processor '" + (type.empty() ? std::string("(no type)") : type.substr(0, 64)) +
           "' is not supported (supported: TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence)";
  return false;
}

bool HfTokenizer::load_added_tokens(const json& a, std::string* error) {
  if (!a.is_array() || a.size() > kHfMaxAddedTokens) {
    *error = "tokenizer.json: 'added_tokens' must be an array of at most " + std::to_string(kHfMaxAddedTokens);
    return false;
  }
  for (const json& t : a) {
    HfAddedToken at;
    long long id = 0;
    if (!t.is_object() || !t.contains("content") || !t["content"].is_string() || !t.contains("id") ||
        !json_int_in(t["id"], 0, static_cast<long long>(kMaxTokenizerVocab) - 1, &id)) {
      *error = "tokenizer.json: an added token needs a string 'content' and an integer 'id' in range";
      return false;
    }
    at.content = t["content"].get<std::string>();
    at.id = static_cast<int>(id);
    if (at.content.empty() || at.content.size() > kMaxTokenizerTokenBytes) {
      *error = "tokenizer.json: an added token is empty or longer than " + std::to_string(kMaxTokenizerTokenBytes) +
               " bytes";
      return false;
    }
    if (!hf_bool(t, "special", &at.special, error, "added token") || !hf_bool(t, "lstrip", &at.lstrip, error, "added token") ||
        !hf_bool(t, "rstrip", &at.rstrip, error, "added token"))
      return false;
    if (static_cast<size_t>(at.id) >= vocab_.size()) vocab_.resize(static_cast<size_t>(at.id) + 1);
    if (vocab_[at.id].empty()) vocab_[at.id] = at.content;
    index_.emplace(at.content, at.id);
    if (at.special) special_ids_.insert(at.id);
    added_.push_back(at);
  }
  std::stable_sort(added_.begin(), added_.end(),
                   [](const HfAddedToken& x, const HfAddedToken& y) { return x.content < y.content; });
  return true;
}

std::vector<HfChar> HfTokenizer::normalize(const std::vector<CodePoint>& chars, size_t from, size_t to) const {
  std::vector<HfChar> cur;
  cur.reserve(to - from);
  for (size_t i = from; i < to; ++i) cur.push_back({chars[i].cp, chars[i].begin, chars[i].end});
  std::vector<HfChar> next;
  std::vector<uint32_t> buf;
  auto map_each = [&](auto&& fn) {
    next.clear();
    for (const HfChar& c : cur) {
      buf.clear();
      fn(c.cp, &buf);
      for (uint32_t cp : buf) next.push_back({cp, c.begin, c.end});
    }
    cur.swap(next);
  };
  auto strip = [](uint32_t cp, std::vector<uint32_t>* out) {
    std::vector<uint32_t> d;
    unicode::append_nfd(cp, &d);
    for (uint32_t x : d)
      if (!unicode::is_mark_nonspacing(x)) out->push_back(x);
  };
  for (const HfNormStep& s : normalizers_) {
    switch (s.kind) {
      case HfNormKind::kBert:
        if (s.clean_text)
          map_each([](uint32_t cp, std::vector<uint32_t>* out) {
            if (cp == 0 || cp == 0xFFFD || hf_is_bert_control(cp)) return;
            out->push_back(hf_is_bert_whitespace(cp) ? ' ' : cp);
          });
        if (s.chinese)
          map_each([](uint32_t cp, std::vector<uint32_t>* out) {
            if (hf_is_chinese_char(cp)) out->insert(out->end(), {' ', cp, ' '});
            else out->push_back(cp);
          });
        if (s.strip_accents) map_each(strip);
        if (s.lowercase) map_each(unicode::append_lower);
        break;
      case HfNormKind::kLowercase:
        map_each(unicode::append_lower);
        break;
      case HfNormKind::kNfd:
        map_each(unicode::append_nfd);
        break;
      case HfNormKind::kStripAccents:
        map_each([](uint32_t cp, std::vector<uint32_t>* out) {
          if (!unicode::is_mark_nonspacing(cp)) out->push_back(cp);
        });
        break;
    }
  }
  return cur;
}

// Words as [begin, end) ranges of *chars (ByteLevel may first insert the prefix space).
std::vector<std::pair<size_t, size_t>> HfTokenizer::pre_tokenize(std::vector<HfChar>* chars_in) const {
  std::vector<std::pair<size_t, size_t>> words;
  std::vector<HfChar>& c = *chars_in;
  const size_t n0 = c.size();
  if (!has_pre_tokenizer_) {
    if (n0) words.push_back({0, n0});
    return words;
  }
  if (pre_ == HfPreKind::kBert || pre_ == HfPreKind::kWhitespaceSplit) {
    size_t start = 0;
    for (size_t i = 0; i <= n0; ++i) {
      const bool end = i == n0;
      const bool ws = !end && hf_is_bert_whitespace(c[i].cp);
      const bool punct = !end && !ws && pre_ == HfPreKind::kBert && hf_is_bert_punctuation(c[i].cp);
      if (end || ws || punct) {
        if (i > start) words.push_back({start, i});
        if (punct) words.push_back({i, i + 1});
        start = i + 1;
      }
    }
    return words;
  }
  // ByteLevel
  if (add_prefix_space_ && !c.empty() && c[0].cp != ' ') c.insert(c.begin(), HfChar{' ', c[0].begin, c[0].begin});
  const size_t n = c.size();
  if (!use_regex_) {
    if (n) words.push_back({0, n});
    return words;
  }
  // GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
  auto is_l = [&](size_t i) { return unicode::is_letter(c[i].cp); };
  auto is_n = [&](size_t i) { return unicode::is_number(c[i].cp); };
  auto is_s = [&](size_t i) { return unicode::is_white_space(c[i].cp); };
  auto is_o = [&](size_t i) { return !is_l(i) && !is_n(i) && !is_s(i); };
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    const uint32_t cp = c[i].cp;
    if (cp == '\'' && i + 1 < n) {
      const uint32_t a = c[i + 1].cp, b = i + 2 < n ? c[i + 2].cp : 0;
      if (a == 's' || a == 't' || a == 'm' || a == 'd') j = i + 2;
      else if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) j = i + 3;
    }
    if (j == i) {
      const size_t k = (cp == ' ' && i + 1 < n) ? i + 1 : i;  // the optional leading space
      for (auto cls : {0, 1, 2}) {
        auto in = [&](size_t x) { return cls == 0 ? is_l(x) : cls == 1 ? is_n(x) : is_o(x); };
        size_t start = k;
        if (!in(start)) {
          if (k != i && in(i)) start = i;  // (only reachable when c[i] itself is in the class)
          else continue;
        }
        j = start;
        while (j < n && in(j)) ++j;
        break;
      }
    }
    if (j == i) {  // whitespace: \s+(?!\S) then \s+
      size_t e = i;
      while (e < n && is_s(e)) ++e;
      if (e == n || e - i == 1) j = e;
      else j = e - 1;
    }
    words.push_back({i, j});
    i = j;
  }
  return words;
}

void HfTokenizer::push(Tokenization* out, int id, int begin, int end, int special) const {
  out->ids.push_back(id);
  out->tokens.push_back(id_to_token(id));
  out->offsets.push_back({begin, end});
  out->special.push_back(special);
}

// The longest added token that starts at text[at], or nullptr. The candidates sharing the first d bytes with the
// text are a range of the sorted list; one that is exactly d bytes long sorts first in it.
const HfAddedToken* HfTokenizer::match_added(const std::string& text, size_t at) const {
  const HfAddedToken* best = nullptr;
  auto lo = added_.begin(), hi = added_.end();
  size_t d = 0;
  while (lo != hi) {
    if (lo->content.size() == d) {
      best = &*lo;
      while (lo != hi && lo->content.size() == d) ++lo;
    }
    if (lo == hi || at + d >= text.size()) break;
    const unsigned char c = static_cast<unsigned char>(text[at + d]);
    lo = std::lower_bound(lo, hi, c, [d](const HfAddedToken& t, unsigned char v) {
      return static_cast<unsigned char>(t.content[d]) < v;
    });
    hi = std::upper_bound(lo, hi, c, [d](unsigned char v, const HfAddedToken& t) {
      return v < static_cast<unsigned char>(t.content[d]);
    });
    ++d;
  }
  return best;
}

void HfTokenizer::wordpiece(const std::vector<HfChar>& word, Tokenization* out) const {
  if (word.empty()) return;
  if (wordlevel_) {  // the whole word, or unk
    std::string w;
    for (const HfChar& c : word) unicode::append_utf8(c.cp, &w);
    const int id = token_to_id(w);
    push(out, id >= 0 ? id : unk_id_, word.front().begin, word.back().end, 0);
    return;
  }
  if (static_cast<int>(word.size()) > max_input_chars_per_word_) {
    push(out, unk_id_, word.front().begin, word.back().end, 0);
    return;
  }
  std::vector<std::string> ch(word.size());
  for (size_t i = 0; i < word.size(); ++i) unicode::append_utf8(word[i].cp, &ch[i]);
  Tokenization pieces;
  size_t start = 0;
  while (start < word.size()) {
    int found = -1;
    size_t end = word.size();
    for (; end > start; --end) {
      std::string s = start > 0 ? prefix_ : std::string();
      for (size_t k = start; k < end; ++k) s += ch[k];
      found = token_to_id(s);
      if (found >= 0) break;
    }
    if (found < 0) {
      push(out, unk_id_, word.front().begin, word.back().end, 0);
      return;
    }
    int b = word[start].begin, e = word[start].end;
    for (size_t k = start; k < end; ++k) {
      b = std::min(b, word[k].begin);
      e = std::max(e, word[k].end);
    }
    push(&pieces, found, b, e, 0);
    start = end;
  }
  for (size_t k = 0; k < pieces.size(); ++k) push(out, pieces.ids[k], pieces.offsets[k].first, pieces.offsets[k].second, 0);
}

void HfTokenizer::bpe(const std::vector<HfChar>& word, Tokenization* out) const {
  // The word's bytes, each with the input bytes it stands for.
  struct Byte {
    uint8_t b;
    int begin, end;
  };
  std::vector<Byte> bytes;
  for (const HfChar& c : word) {
    std::string s;
    unicode::append_utf8(c.cp, &s);
    const bool exact = c.end - c.begin == static_cast<int>(s.size());  // the input bytes themselves
    for (size_t k = 0; k < s.size(); ++k) {
      const int b = exact ? c.begin + static_cast<int>(k) : c.begin;
      const int e = exact ? b + 1 : c.end;
      bytes.push_back({static_cast<uint8_t>(s[k]), b, e});
    }
  }
  if (bytes.empty()) return;
  if (ignore_merges_) {
    std::string whole;
    for (const Byte& b : bytes) whole += byte_str_[b.b];
    const int id = token_to_id(whole);
    if (id >= 0) {
      push(out, id, bytes.front().begin, bytes.back().end, 0);
      return;
    }
  }
  struct Sym {
    int id, prev, next, len, begin, end;
  };
  std::vector<Sym> sym;
  sym.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string s = (i > 0 ? prefix_ : std::string()) + byte_str_[bytes[i].b];
    if (i + 1 == bytes.size()) s += suffix_;
    int id = token_to_id(s);
    if (id < 0) {
      if (unk_id_ < 0) continue;  // dropped, as Hugging Face's BPE without an unk token does
      if (fuse_unk_ && !sym.empty() && sym.back().id == unk_id_) {
        sym.back().end = std::max(sym.back().end, bytes[i].end);
        ++sym.back().len;
        continue;
      }
      id = unk_id_;
    }
    const int k = static_cast<int>(sym.size());
    sym.push_back({id, k - 1, k + 1, 1, bytes[i].begin, bytes[i].end});
  }
  if (sym.empty()) return;
  sym.back().next = -1;
  struct Cand {
    int rank, pos, merged;
    bool operator<(const Cand& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }  // min-heap
  };
  auto find_merge = [&](int a, int b) -> const std::pair<int, int>* {
    auto it = merges_.find((static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b));
    return it == merges_.end() ? nullptr : &it->second;
  };
  std::priority_queue<Cand> heap;
  for (size_t i = 0; i + 1 < sym.size(); ++i)
    if (const auto* m = find_merge(sym[i].id, sym[i + 1].id)) heap.push({m->first, static_cast<int>(i), m->second});
  while (!heap.empty()) {
    const Cand top = heap.top();
    heap.pop();
    Sym& s = sym[top.pos];
    if (s.len == 0 || s.next < 0) continue;
    Sym& r = sym[s.next];
    const auto* m = find_merge(s.id, r.id);
    if (!m || m->second != top.merged) continue;  // stale
    s.id = top.merged;
    s.len += r.len;
    s.begin = std::min(s.begin, r.begin);
    s.end = std::max(s.end, r.end);
    r.len = 0;
    s.next = r.next;
    if (s.next >= 0) sym[s.next].prev = top.pos;
    if (s.prev >= 0)
      if (const auto* pm = find_merge(sym[s.prev].id, s.id)) heap.push({pm->first, s.prev, pm->second});
    if (s.next >= 0)
      if (const auto* nm = find_merge(s.id, sym[s.next].id)) heap.push({nm->first, top.pos, nm->second});
  }
  for (int i = 0; i >= 0 && i < static_cast<int>(sym.size()); i = sym[i].next) push(out, sym[i].id, sym[i].begin, sym[i].end, 0);
}

bool HfTokenizer::encode(const std::string& text, bool add_special, Tokenization* out, std::string* error) const {
  *out = Tokenization();
  if (text.size() > kMaxTokenizerTextBytes) {
    *error = "the text is " + std::to_string(text.size()) + " bytes long, more than the tokenizer's limit of " +
             std::to_string(kMaxTokenizerTextBytes) + " bytes";
    return false;
  }
  const int n = static_cast<int>(text.size());
  if (add_special)
    for (const auto& t : before_) push(out, t.id, 0, 0, 1);
  const std::vector<CodePoint> chars = unicode::decode_utf8(text);
  // Split on added tokens (leftmost, longest), then normalize, pre-tokenize and run the model on the rest.
  auto run_segment = [&](size_t from, size_t to) {
    if (from >= to) return;
    std::vector<HfChar> norm = normalize(chars, from, to);
    const auto words = pre_tokenize(&norm);
    std::vector<HfChar> w;
    for (const auto& r : words) {
      w.assign(norm.begin() + static_cast<std::ptrdiff_t>(r.first), norm.begin() + static_cast<std::ptrdiff_t>(r.second));
      if (wordpiece_) wordpiece(w, out);
      else bpe(w, out);
    }
  };
  size_t seg = 0;
  for (size_t i = 0; i < chars.size(); ++i) {
    const HfAddedToken* hit = nullptr;
    const size_t at = static_cast<size_t>(chars[i].begin);
    if (!added_.empty() && chars[i].cp != 0xFFFD) hit = match_added(text, at);
    if (!hit) continue;
    size_t j = i;  // first char after the token
    while (j < chars.size() && static_cast<size_t>(chars[j].begin) < at + hit->content.size()) ++j;
    if (j < chars.size() && static_cast<size_t>(chars[j].begin) != at + hit->content.size()) continue;  // mid-char
    size_t left = i, right = j;
    if (hit->lstrip)
      while (left > seg && unicode::is_white_space(chars[left - 1].cp)) --left;
    if (hit->rstrip)
      while (right < chars.size() && unicode::is_white_space(chars[right].cp)) ++right;
    run_segment(seg, left);
    const int b = left < chars.size() ? chars[left].begin : n;
    const int e = right > 0 ? chars[right - 1].end : 0;
    push(out, hit->id, b, e, 0);
    seg = right;
    i = right - 1;
  }
  run_segment(seg, chars.size());
  if (add_special)
    for (const auto& t : after_) push(out, t.id, n, n, 1);
  for (size_t k = 0; k < out->size(); ++k)
    if (out->special[k]) out->tokens[k] = id_to_token(out->ids[k]).empty() ? out->tokens[k] : id_to_token(out->ids[k]);
  return true;
}

std::string HfTokenizer::decode(const std::vector<int>& ids) const {
  std::vector<std::string> toks;
  for (int id : ids) {
    if (id < 0 || id >= vocab_size() || special_ids_.count(id)) continue;
    toks.push_back(vocab_[id]);
  }
  std::string out;
  if (wordpiece_) {
    for (size_t i = 0; i < toks.size(); ++i) {
      const std::string& t = toks[i];
      if (!prefix_.empty() && t.compare(0, prefix_.size(), prefix_) == 0) out += t.substr(prefix_.size());
      else out += (i ? " " : "") + t;
    }
    // The WordPiece decoder's cleanup.
    static const std::pair<const char*, const char*> kRules[] = {
        {" .", "."},     {" ?", "?"},     {" !", "!"},     {" ,", ","},       {" ' ", "'"},   {" n't", "n't"},
        {" 'm", "'m"},   {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : kRules) {
      const std::string f = from, t = to;
      std::string r;
      size_t pos = 0, hit;
      while ((hit = out.find(f, pos)) != std::string::npos) {
        r.append(out, pos, hit - pos);
        r += t;
        pos = hit + f.size();
      }
      r.append(out, pos, std::string::npos);
      out.swap(r);
    }
    return out;
  }
  std::string raw;
  for (const std::string& t : toks)
    for (const CodePoint& c : unicode::decode_utf8(t)) {
      auto it = unicode_to_byte_.find(c.cp);
      if (it != unicode_to_byte_.end()) raw.push_back(static_cast<char>(it->second));
      else unicode::append_utf8(c.cp, &raw);
    }
  for (const CodePoint& c : unicode::decode_utf8(raw)) unicode::append_utf8(c.cp, &out);  // lossy, as HF
  return out;
}

}  // namespace

std::unique_ptr<SubwordTokenizer> load_hf_tokenizer(const std::string& json_text, std::string* error) {
  if (json_text.size() > kMaxTokenizerFileBytes) {
    *error = "tokenizer.json is " + std::to_string(json_text.size()) + " bytes, more than the limit of " +
             std::to_string(kMaxTokenizerFileBytes) + " bytes";
    return nullptr;
  }
  if (json_nesting_depth(json_text, kHfMaxJsonDepth) > kHfMaxJsonDepth) {
    *error = "tokenizer.json is nested more than " + std::to_string(kHfMaxJsonDepth) + " levels deep";
    return nullptr;
  }
  const json root = json::parse(json_text, nullptr, false);
  if (root.is_discarded()) {
    *error = "tokenizer.json is not valid JSON";
    return nullptr;
  }
  auto t = std::make_unique<HfTokenizer>();
  if (!t->load(root, error)) return nullptr;
  return t;
}

}  // namespace attnlab
