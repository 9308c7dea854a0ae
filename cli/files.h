// File helpers for the CLI (the core never touches files).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::cli {

// Reads a whole file; on failure returns false with a message naming the path.
bool read_file(const std::string& path, std::string* out, std::string* error);
bool write_file(const std::string& path, const std::string& data, std::string* error);
bool write_file(const std::string& path, const std::vector<uint8_t>& data, std::string* error);

}  // namespace attnlab::cli
