#include "files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace attnlab::cli {

bool read_file(const std::string& path, std::string* out, std::string* error, uint64_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(status)) {
    *error = "cannot read '" + path + "': it is a directory, not a file";
    return false;
  }
  if (!ec && std::filesystem::is_regular_file(status)) {
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes) {
      *error = "cannot read '" + path + "': " + std::to_string(size) + " bytes, more than the limit of " +
               std::to_string(max_bytes) + " bytes";
      return false;
    }
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
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
    out.push_back({data[i].label, vocab.ids(data[i].tokens)});
  }
  return out;
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
