#include "files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace attnlab::cli {

bool read_file(const std::string& path, std::string* out, std::string* error) {
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

}  // namespace attnlab::cli
