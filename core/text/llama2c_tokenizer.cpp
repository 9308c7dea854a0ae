// llama2.c tokenizer (see llama2c_tokenizer.h).
#include "text/llama2c_tokenizer.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <queue>
#include <unordered_map>
#include <vector>

namespace attnlab {
namespace {

constexpr int kL2cBos = 1;
constexpr int kL2cEos = 2;
constexpr int kL2cByteBase = 3;  // <0x00> … <0xFF> follow <unk>, <s>, </s>
constexpr float kL2cMinScore = -1e10f;

uint32_t l2c_u32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

// "<0xXX>" → the byte, else -1.
int l2c_byte_piece(const std::string& s) {
  if (s.size() != 6 || s.compare(0, 3, "<0x") != 0 || s[5] != '>') return -1;
  auto hex = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int hi = hex(s[3]), lo = hex(s[4]);
  return (hi < 0 || lo < 0) ? -1 : hi * 16 + lo;
}

class Llama2cTokenizer final : public SubwordTokenizer {
 public:
  bool load(const std::string& bytes, std::string* error);
  const char* kind() const override { return "llama2c-bpe"; }
  bool encode(const std::string& text, bool add_special, Tokenization* out, std::string* error) const override;
  std::string decode(const std::vector<int>& ids) const override;
  std::string id_to_token(int id) const override {
    return (id >= 0 && id < vocab_size()) ? vocab_[id] : std::string();
  }
  int token_to_id(const std::string& token) const override {
    auto it = index_.find(token);
    return it == index_.end() ? -1 : it->second;
  }
  int vocab_size() const override { return static_cast<int>(vocab_.size()); }

 private:
  std::vector<std::string> vocab_;
  std::vector<float> scores_;
  std::unordered_map<std::string, int> index_;  // the first id of each piece (run.c's bsearch may pick any)
  std::unordered_map<uint64_t, int> pairs_;     // (left id << 32 | right id) → id of left + right, when a piece
  int dummy_prefix_ = -1;                       // the id of " "
};

bool Llama2cTokenizer::load(const std::string& bytes, std::string* error) {
  if (bytes.size() > kMaxTokenizerFileBytes) {
    *error = "the llama2.c tokenizer file is " + std::to_string(bytes.size()) + " bytes, more than the limit of " +
             std::to_string(kMaxTokenizerFileBytes);
    return false;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  if (n < 4) {
    *error = "the llama2.c tokenizer file is truncated: " + std::to_string(n) + " bytes, no max_token_length";
    return false;
  }
  const uint32_t max_len = l2c_u32(p);
  if (max_len == 0 || max_len > kMaxTokenizerTokenBytes) {
    *error = "the llama2.c tokenizer file starts with max_token_length " + std::to_string(max_len) +
             ", outside [1, " + std::to_string(kMaxTokenizerTokenBytes) +
             "] (is this a llama2.c tok*.bin? a tokenizer.json must be a JSON object)";
    return false;
  }
  size_t pos = 4;
  while (pos < n) {
    const size_t id = vocab_.size();
    if (id >= kMaxTokenizerVocab) {
      *error = "the llama2.c tokenizer file has more than " + std::to_string(kMaxTokenizerVocab) + " tokens";
      return false;
    }
    if (n - pos < 8) {
      *error = "the llama2.c tokenizer file is truncated in token " + std::to_string(id) + " (at byte " +
               std::to_string(pos) + " of " + std::to_string(n) + ")";
      return false;
    }
    float score;
    const uint32_t bits = l2c_u32(p + pos);
    std::memcpy(&score, &bits, 4);
    const uint32_t len = l2c_u32(p + pos + 4);
    pos += 8;
    if (len > max_len) {
      *error = "the llama2.c tokenizer file: token " + std::to_string(id) + " is " + std::to_string(len) +
               " bytes long, more than max_token_length " + std::to_string(max_len);
      return false;
    }
    if (n - pos < len) {
      *error = "the llama2.c tokenizer file is truncated in token " + std::to_string(id) + " (" + std::to_string(len) +
               " bytes announced, " + std::to_string(n - pos) + " left)";
      return false;
    }
    if (score != score) score = kL2cMinScore;  // NaN never wins a merge
    vocab_.emplace_back(bytes, pos, len);
    scores_.push_back(score);
    index_.emplace(vocab_.back(), static_cast<int>(id));
    pos += len;
  }
  if (vocab_.size() < static_cast<size_t>(kL2cByteBase + 256)) {
    *error = "the llama2.c tokenizer file has " + std::to_string(vocab_.size()) +
             " tokens; it needs at least 259 (<unk>, <s>, </s> and the 256 byte tokens)";
    return false;
  }
  auto it = index_.find(" ");
  dummy_prefix_ = it == index_.end() ? -1 : it->second;
  // Every split of every piece into two pieces: the merges encode can make, without building strings.
  for (size_t id = 0; id < vocab_.size(); ++id) {
    const std::string& v = vocab_[id];
    if (index_[v] != static_cast<int>(id)) continue;  // a duplicate: lookups give the first id
    for (size_t k = 1; k < v.size(); ++k) {
      auto a = index_.find(v.substr(0, k));
      auto b = index_.find(v.substr(k));
      if (a != index_.end() && b != index_.end())
        pairs_.emplace((static_cast<uint64_t>(a->second) << 32) | static_cast<uint32_t>(b->second), static_cast<int>(id));
    }
  }
  return true;
}

bool Llama2cTokenizer::encode(const std::string& text, bool add_special, Tokenization* out, std::string* error) const {
  *out = Tokenization();
  if (text.size() > kMaxTokenizerTextBytes) {
    *error = "the text is " + std::to_string(text.size()) + " bytes long, more than the tokenizer's limit of " +
             std::to_string(kMaxTokenizerTextBytes) + " bytes";
    return false;
  }
  struct Sym {
    int id, prev, next, begin, end;
  };
  std::vector<Sym> sym;
  auto add = [&](int id, int b, int e) {
    const int k = static_cast<int>(sym.size());
    sym.push_back({id, k - 1, k + 1, b, e});
  };
  if (!text.empty() && dummy_prefix_ >= 0) add(dummy_prefix_, 0, 0);
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;  // a byte and up to 3 continuation bytes, as run.c groups them
    while (j < n && (p[j] & 0xC0) == 0x80 && j - i < 4) ++j;
    auto it = index_.find(text.substr(i, j - i));
    if (it != index_.end()) {
      add(it->second, static_cast<int>(i), static_cast<int>(j));
    } else {
      for (size_t k = i; k < j; ++k) add(p[k] + kL2cByteBase, static_cast<int>(k), static_cast<int>(k + 1));
    }
    i = j;
  }
  if (!sym.empty()) sym.back().next = -1;
  // Repeatedly merge the adjacent pair whose concatenation scores best (leftmost on ties): a max-heap on
  // (score, -left position) over the linked list, stale entries skipped.
  struct Cand {
    float score;
    int pos, right, merged;
    bool operator<(const Cand& o) const { return score != o.score ? score < o.score : pos > o.pos; }
  };
  std::priority_queue<Cand> heap;
  auto consider = [&](int a) {
    const int b = sym[a].next;
    if (b < 0) return;
    auto it = pairs_.find((static_cast<uint64_t>(sym[a].id) << 32) | static_cast<uint32_t>(sym[b].id));
    if (it != pairs_.end() && scores_[it->second] > kL2cMinScore) heap.push({scores_[it->second], a, b, it->second});
  };
  for (int k = 0; k + 1 < static_cast<int>(sym.size()); ++k) consider(k);
  std::vector<char> alive(sym.size(), 1);
  while (!heap.empty()) {
    const Cand c = heap.top();
    heap.pop();
    if (!alive[c.pos] || !alive[c.right] || sym[c.pos].next != c.right) continue;
    // The right symbol may have merged with its own right since: then this entry is stale.
    const auto it = pairs_.find((static_cast<uint64_t>(sym[c.pos].id) << 32) | static_cast<uint32_t>(sym[c.right].id));
    if (it == pairs_.end() || it->second != c.merged) continue;
    Sym& s = sym[c.pos];
    const Sym& r = sym[c.right];
    s.id = c.merged;
    s.begin = std::min(s.begin, r.begin);
    s.end = std::max(s.end, r.end);
    s.next = r.next;
    alive[c.right] = 0;
    if (s.next >= 0) sym[s.next].prev = c.pos;
    if (s.prev >= 0) consider(s.prev);
    consider(c.pos);
  }
  if (add_special) {
    out->ids.push_back(kL2cBos);
    out->tokens.push_back(id_to_token(kL2cBos));
    out->offsets.push_back({0, 0});
    out->special.push_back(1);
  }
  for (int k = sym.empty() ? -1 : 0; k >= 0; k = sym[k].next) {
    out->ids.push_back(sym[k].id);
    out->tokens.push_back(vocab_[sym[k].id]);
    out->offsets.push_back({sym[k].begin, sym[k].end});
    out->special.push_back(0);
  }
  return true;
}

std::string Llama2cTokenizer::decode(const std::vector<int>& ids) const {
  std::string out;
  int prev = -1;
  for (int id : ids) {
    if (id < 0 || id >= vocab_size()) continue;
    if (id == kL2cBos || id == kL2cEos) {
      prev = id;
      continue;
    }
    const std::string& piece = vocab_[id];
    size_t from = (prev == kL2cBos && !piece.empty() && piece[0] == ' ') ? 1 : 0;
    const int byte = l2c_byte_piece(piece);
    if (byte >= 0 && from == 0) out.push_back(static_cast<char>(byte));
    else out.append(piece, from, std::string::npos);
    prev = id;
  }
  return out;
}

}  // namespace

std::unique_ptr<SubwordTokenizer> load_llama2c_tokenizer(const std::string& bytes, std::string* error) {
  auto t = std::make_unique<Llama2cTokenizer>();
  if (!t->load(bytes, error)) return nullptr;
  return t;
}

}  // namespace attnlab
