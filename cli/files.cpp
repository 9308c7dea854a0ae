#include "files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "train/explanation_penalties.h"

namespace attnlab::cli {

// The one reader of every file the CLI opens (data, models, checkpoints, images, trees). A regular file is read
// in one allocation of its size; anything else (a device such as /dev/zero or /dev/urandom, a socket) is refused,
// except a FIFO (`<(…)`, a pipe on /dev/stdin), which is read only up to max_bytes. A file that grows while it
// is read, or reports a size of 0 (/proc), is likewise read only up to max_bytes.
bool read_file(const std::string& path, std::string* out, std::string* error, uint64_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  uint64_t expected = 0;
  if (!ec) {
    const auto type = status.type();
    if (type == std::filesystem::file_type::directory) {
      *error = "cannot read '" + path + "': it is a directory, not a file";
      return false;
    }
    if (type == std::filesystem::file_type::character || type == std::filesystem::file_type::block ||
        type == std::filesystem::file_type::socket) {
      const char* kind = type == std::filesystem::file_type::character ? "a character device"
                         : type == std::filesystem::file_type::block   ? "a block device"
                                                                       : "a socket";
      *error = "cannot read '" + path + "': it is " + kind + ", not a regular file";
      return false;
    }
    if (type == std::filesystem::file_type::regular) {
      const uint64_t size = std::filesystem::file_size(path, ec);
      if (!ec && size > max_bytes) {
        *error = "cannot read '" + path + "': " + std::to_string(size) + " bytes, more than the limit of " +
                 std::to_string(max_bytes) + " bytes";
        return false;
      }
      if (!ec) expected = size;
    }
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  out->clear();
  out->resize(static_cast<size_t>(expected));
  size_t got = expected > 0 ? std::fread(out->data(), 1, out->size(), f) : 0;
  out->resize(got);
  // Whatever comes after the expected size (a pipe, /proc, a growing file): in chunks, never past the limit.
  char buf[1 << 16];
  bool failed = std::ferror(f) != 0;
  while (!failed && !std::feof(f)) {
    const size_t n = std::fread(buf, 1, sizeof buf, f);
    failed = std::ferror(f) != 0;
    if (out->size() + n > max_bytes) {
      std::fclose(f);
      out->clear();
      out->shrink_to_fit();
      *error = "cannot read '" + path + "': it gives more than the limit of " + std::to_string(max_bytes) +
               " bytes (" + (expected > 0 ? "the file grew while it was read" : "not a regular file, or one without a size") + ")";
      return false;
    }
    out->append(buf, n);
  }
  const int read_errno = errno;
  std::fclose(f);
  if (failed) {
    *error = "cannot read '" + path + "': " + std::strerror(read_errno);
    out->clear();
    return false;
  }
  return true;
}

static bool write_bytes(const std::string& path, const char* data, size_t n, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !out.write(data, static_cast<std::streamsize>(n))) {
    *error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

bool write_file(const std::string& path, const std::string& data, std::string* error) {
  return write_bytes(path, data.data(), data.size(), error);
}

bool write_file(const std::string& path, const std::vector<uint8_t>& data, std::string* error) {
  return write_bytes(path, reinterpret_cast<const char*>(data.data()), data.size(), error);
}

void fail(const std::string& message) {
  std::cerr << "attnlab: " << message << "\n";
  std::exit(1);
}

std::vector<TextExample> load_tsv(const std::string& path, int max_tokens) {
  std::string content, error;
  if (!read_file(path, &content, &error)) fail(error);
  std::vector<TextExample> out;
  if (!parse_labeled_tsv(content, &out, &error, max_tokens)) fail(path + ": " + error);
  if (out.empty()) fail(path + ": no examples (the file is empty or has only blank lines)");
  return out;
}

std::vector<EncodedExample> encode_examples(const Vocab& vocab, const std::vector<TextExample>& data, int num_classes,
                                            const std::string& path, int limit) {
  std::vector<EncodedExample> out;
  for (size_t i = 0; i < data.size() && (limit == 0 || static_cast<int>(i) < limit); ++i) {
    if (data[i].label < 0 || data[i].label >= num_classes)
      fail(path + ": label " + std::to_string(data[i].label) + " is not a class of the model (0.." +
           std::to_string(num_classes - 1) + ")");
    EncodedExample ex{data[i].label, vocab.ids(data[i].tokens), {}};
    if (!data[i].marked.empty()) ex.marked = marked_flags(data[i].marked, ex.ids.size(), nullptr);
    out.push_back(std::move(ex));
  }
  return out;
}

int attach_position_lists(const std::string& path, std::vector<TextExample>* examples) {
  std::string content, error;
  std::vector<std::vector<int>> lists;
  if (!read_file(path, &content, &error)) fail(error);
  if (!parse_position_lists(content, examples->size(), &lists, &error)) fail(path + ": " + error);
  int inside = 0;
  for (size_t i = 0; i < examples->size(); ++i) {
    int kept = 0;
    marked_flags(lists[i], (*examples)[i].tokens.size(), &kept);
    inside += kept;
    (*examples)[i].marked = std::move(lists[i]);
  }
  return inside;
}

TextModel load_model(const std::string& dir) {
  std::string config, weights, error;
  if (!read_file(dir + "/config.json", &config, &error)) fail(error);
  if (!read_file(dir + "/model.safetensors", &weights, &error)) fail(error);
  TextModel model;
  if (!load_text_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &model, &error))
    fail(dir + ": " + error);
  return model;
}

}  // namespace attnlab::cli
