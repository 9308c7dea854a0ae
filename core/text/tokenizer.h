// Tokenizer matching the SST-2 files: ASCII lower-casing, PTB-style tokens (n't / 's split, -lrb- -rrb-,
// `` and '' quotes, \/ for slash, punctuation split off). Non-ASCII UTF-8 is kept intact inside tokens;
// invalid UTF-8 bytes are replaced by U+FFFD. Pure function, no state.
#pragma once
#include <string>
#include <vector>

namespace attnlab {

// Tokenises free text the way the SST files are tokenised. Already-tokenised SST lines map to themselves
// (split on spaces).
std::vector<std::string> tokenize(const std::string& text);

}  // namespace attnlab
