// File helpers for the CLI (the core never touches files).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/text_checkpoint.h"
#include "text/dataset.h"
#include "train/text_trainer.h"

namespace attnlab::cli {

// Reads a whole file — the one reader of every file the CLI opens; on failure returns false with a message naming
// the path: a directory, a device or socket (/dev/zero, /dev/urandom: refused before reading), a regular file over
// max_bytes (checked before reading), a FIFO or size-less file that gives more than max_bytes (read only up to
// the limit), or an unreadable path.
constexpr uint64_t kMaxInputFileBytes = uint64_t{2} << 30;  // 2 GiB
bool read_file(const std::string& path, std::string* out, std::string* error,
               uint64_t max_bytes = kMaxInputFileBytes);
bool write_file(const std::string& path, const std::string& data, std::string* error);
bool write_file(const std::string& path, const std::vector<uint8_t>& data, std::string* error);

// Prints "attnlab: MESSAGE" to stderr and exits 1.
[[noreturn]] void fail(const std::string& message);
// A `label<TAB>text` file, tokenised, each text cut to its first max_tokens tokens (0: no cut); fails with the
// path and line on a bad file (text/dataset.h limits) and on a file without any example.
std::vector<TextExample> load_tsv(const std::string& path, int max_tokens = 0);
// Token ids of the first `limit` examples (0: all); fails naming `path` on a label >= num_classes.
std::vector<EncodedExample> encode_examples(const Vocab& vocab, const std::vector<TextExample>& data, int num_classes,
                                            const std::string& path, int limit = 0);
// Reads a positions file (one line per example of `examples`, train-text --impermissible-positions) into each
// example's `marked`; fails naming `path` and the line when it does not fit. → how many positions fall inside the
// texts (all examples).
int attach_position_lists(const std::string& path, std::vector<TextExample>* examples);
// A model folder (config.json + model.safetensors); fails naming what is wrong.
TextModel load_model(const std::string& dir);

}  // namespace attnlab::cli
