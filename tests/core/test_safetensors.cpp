// Tests for core/io/safetensors: F32/F16 round trips, a hand-built file in Python safetensors' layout, and
// every kind of bad input giving its own error message (never a crash).
#include "io/safetensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

using Bytes = std::vector<uint8_t>;

// u64 LE header length + header (optionally space-padded so the data starts 8-aligned) + data.
Bytes make_file(std::string header, const Bytes& data, bool pad = true) {
  if (pad) {
    while ((8 + header.size()) % 8 != 0) header.push_back(' ');
  }
  Bytes out(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(n >> (8 * i));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string read_error(const Bytes& b) {
  SafetensorsFile f;
  std::string err;
  const bool ok = read_safetensors(b.data(), b.size(), &f, &err);
  EXPECT_FALSE(ok) << "unexpectedly parsed";
  EXPECT_TRUE(f.tensors.empty());
  return err;
}

std::map<std::string, NamedTensor> sample_tensors() {
  std::mt19937 rng(42);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::map<std::string, NamedTensor> t;
  NamedTensor a;
  a.shape = {3, 4};
  for (int i = 0; i < 12; ++i) a.data.push_back(normal(rng) * 10.0f);
  t["encoder.forward.weight_ih"] = a;
  NamedTensor b;
  b.shape = {5};
  b.data = {0.0f, -0.0f, 1e-30f, -3.4e38f, 0.333333343f};
  t["decoder.bias"] = b;
  NamedTensor scalar;  // shape [] holds one element
  scalar.shape = {};
  scalar.data = {7.25f};
  t["scalar"] = scalar;
  NamedTensor empty;
  empty.shape = {0, 3};
  t["empty"] = empty;
  return t;
}

TEST(Safetensors, RoundTripF32IsExact) {
  const auto tensors = sample_tensors();
  const std::map<std::string, std::string> meta = {{"format", "attnlab"}, {"note", "\xC3\xA9t\xC3\xA9"}};
  const Bytes bytes = write_safetensors(tensors, StorageType::F32, meta);
  ASSERT_GE(bytes.size(), 8u);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[i];
  EXPECT_EQ((8 + header_len) % 8, 0u) << "data must start 8-byte aligned";
  // data size = 4 bytes * (12 + 5 + 1 + 0) elements
  EXPECT_EQ(bytes.size(), 8 + header_len + 4 * 18);

  SafetensorsFile f;
  std::string err = "stale";
  ASSERT_TRUE(read_safetensors(bytes.data(), bytes.size(), &f, &err)) << err;
  EXPECT_EQ(err, "");
  EXPECT_EQ(f.metadata, meta);
  ASSERT_EQ(f.tensors.size(), tensors.size());
  for (const auto& kv : tensors) {
    const auto it = f.tensors.find(kv.first);
    ASSERT_NE(it, f.tensors.end()) << kv.first;
    EXPECT_EQ(it->second.shape, kv.second.shape) << kv.first;
    ASSERT_EQ(it->second.data.size(), kv.second.data.size()) << kv.first;
    for (size_t i = 0; i < kv.second.data.size(); ++i) {
      // bitwise equality (distinguishes -0.0 from 0.0)
      EXPECT_EQ(std::memcmp(&it->second.data[i], &kv.second.data[i], 4), 0) << kv.first << "[" << i << "]";
    }
  }
}

TEST(Safetensors, RoundTripF16WithinHalfPrecision) {
  const auto tensors = sample_tensors();
  const Bytes bytes = write_safetensors(tensors, StorageType::F16);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[i];
  EXPECT_EQ(bytes.size(), 8 + header_len + 2 * 18);
  const auto header = nlohmann::json::parse(std::string(bytes.begin() + 8, bytes.begin() + 8 + header_len));
  EXPECT_EQ(header["decoder.bias"]["dtype"], "F16");
  EXPECT_FALSE(header.contains("__metadata__"));

  SafetensorsFile f;
  std::string err;
  ASSERT_TRUE(read_safetensors(bytes.data(), bytes.size(), &f, &err)) << err;
  const auto& a = tensors.at("encoder.forward.weight_ih").data;
  const auto& got = f.tensors.at("encoder.forward.weight_ih").data;
  ASSERT_EQ(got.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(got[i], round_to_half(a[i]));
    // half has an 11-bit significand: relative error <= 2^-11 in the normal range
    EXPECT_LE(std::fabs(got[i] - a[i]), std::ldexp(std::fabs(a[i]), -11)) << i;
  }
  const auto& b = f.tensors.at("decoder.bias").data;
  EXPECT_EQ(b[0], 0.0f);
  EXPECT_TRUE(std::signbit(b[1]));           // -0 survives
  EXPECT_EQ(b[2], 0.0f);                     // 1e-30 underflows
  EXPECT_EQ(b[3], -std::numeric_limits<float>::infinity());  // -3.4e38 overflows
  EXPECT_EQ(b[4], 0.333251953125f);          // nearest half to 1/3
  EXPECT_EQ(f.tensors.at("scalar").data, std::vector<float>{7.25f});
}

TEST(Safetensors, RoundToHalf) {
  EXPECT_EQ(round_to_half(1.0f), 1.0f);
  EXPECT_EQ(round_to_half(0.1f), 0.0999755859375f);
  EXPECT_EQ(round_to_half(65504.0f), 65504.0f);  // largest half
  EXPECT_EQ(round_to_half(70000.0f), std::numeric_limits<float>::infinity());
  // ties go to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 -> 1; 1 + 3*2^-11 -> 1 + 2^-9
  EXPECT_EQ(round_to_half(1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(round_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(round_to_half(std::ldexp(1.0f, -24)), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(round_to_half(std::ldexp(1.0f, -26)), 0.0f);
  EXPECT_TRUE(std::isnan(round_to_half(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(round_to_half(-2.5f), -2.5f);
}

TEST(Safetensors, ReadsPythonLayoutFile) {
  // What Python's safetensors.torch.save_file writes: compact JSON header with "__metadata__", padded with
  // spaces to a multiple of 8, little-endian data. Bytes written out by hand, not by write_safetensors.
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
      R"("b":{"dtype":"F16","shape":[3],"data_offsets":[16,22]},"c":{"dtype":"F64","shape":[1],"data_offsets":[22,30]}})";
  const Bytes data = {
      0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0xBF, 0x00, 0x00, 0x80, 0x3E,  // 1 2 -.5 .25
      0x00, 0x3C, 0x00, 0xC0, 0x00, 0x38,                                                              // 1 -2 .5
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x40,                                                  // 3.5
  };
  const Bytes file = make_file(header, data, /*pad=*/true);
  EXPECT_GT(file.size() - 8 - data.size(), header.size()) << "test header should need padding";
  SafetensorsFile f;
  std::string err;
  ASSERT_TRUE(read_safetensors(file.data(), file.size(), &f, &err)) << err;
  EXPECT_EQ(f.metadata.at("format"), "pt");
  EXPECT_EQ(f.tensors.at("a").shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(f.tensors.at("a").data, (std::vector<float>{1.0f, 2.0f, -0.5f, 0.25f}));
  EXPECT_EQ(f.tensors.at("b").data, (std::vector<float>{1.0f, -2.0f, 0.5f}));
  EXPECT_EQ(f.tensors.at("c").data, (std::vector<float>{3.5f}));
  // unpadded header is fine too
  const Bytes unpadded = make_file(header, data, /*pad=*/false);
  ASSERT_TRUE(read_safetensors(unpadded.data(), unpadded.size(), &f, &err)) << err;
  EXPECT_EQ(f.tensors.at("c").data, (std::vector<float>{3.5f}));
}

TEST(Safetensors, TooShort) {
  const Bytes five = {1, 2, 3, 4, 5};
  EXPECT_EQ(read_error(five), "file too short: 5 bytes, need at least 8 for the header length");
  SafetensorsFile f;
  std::string err;
  EXPECT_FALSE(read_safetensors(nullptr, 0, &f, &err));
  EXPECT_EQ(err, "file too short: 0 bytes, need at least 8 for the header length");
}

TEST(Safetensors, HeaderLengthBeyondFile) {
  Bytes b(120, ' ');
  const uint64_t n = 9999;
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(n >> (8 * i));
  EXPECT_EQ(read_error(b), "header length 9999 exceeds file size 120");
  // a huge length must not overflow the comparison
  for (int i = 0; i < 8; ++i) b[i] = 0xFF;
  EXPECT_EQ(read_error(b), "header length 18446744073709551615 exceeds file size 120");
}

TEST(Safetensors, HeaderNotJsonOrNotObject) {
  EXPECT_EQ(read_error(make_file("this is not json", {})), "header is not valid JSON");
  EXPECT_EQ(read_error(make_file("{\"a\": ", {})), "header is not valid JSON");
  EXPECT_EQ(read_error(make_file("{\"a\xFF\": 1}", {})), "header is not valid UTF-8 (byte 3 of the header)");
  EXPECT_EQ(read_error(make_file("[1, 2, 3]", {})), "header is not a JSON object");
  EXPECT_EQ(read_error(make_file("\"text\"", {})), "header is not a JSON object");
  EXPECT_EQ(read_error(make_file(std::string(100000, '[') + std::string(100000, ']'), {})),
            "header is nested too deeply");
}

TEST(Safetensors, MissingOrMistypedFields) {
  const Bytes d(8, 0);
  EXPECT_EQ(read_error(make_file(R"({"w":{"shape":[2],"data_offsets":[0,8]}})", d)), "tensor 'w': missing dtype");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","data_offsets":[0,8]}})", d)), "tensor 'w': missing shape");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[2]}})", d)), "tensor 'w': missing data_offsets");
  EXPECT_EQ(read_error(make_file(R"({"w":[1,2]})", d)), "tensor 'w': entry is not an object");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":4,"shape":[2],"data_offsets":[0,8]}})", d)),
            "tensor 'w': dtype is not a string");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":2,"data_offsets":[0,8]}})", d)),
            "tensor 'w': shape is not an array");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", d)),
            "tensor 'w': shape[0] is not an integer");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[1,"2"],"data_offsets":[0,8]}})", d)),
            "tensor 'w': shape[1] is not an integer");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", d)),
            "tensor 'w': data_offsets is not a [begin, end] pair");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,-8]}})", d)),
            "tensor 'w': data_offsets are not non-negative integers");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", d)),
            "tensor 'w': data_offsets [8, 0] have begin > end");
  EXPECT_EQ(read_error(make_file(R"({"__metadata__":[1]})", d)), "__metadata__ is not an object");
  EXPECT_EQ(read_error(make_file(R"({"__metadata__":{"k":1}})", d)), "__metadata__ entry 'k' is not a string");
}

TEST(Safetensors, UnknownDtype) {
  const Bytes d(8, 0);
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"Q7","shape":[2],"data_offsets":[0,8]}})", d)),
            "tensor 'w': unsupported dtype 'Q7' (supported: F32, F16, F64)");
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})", d)),
            "tensor 'w': unsupported dtype 'I32' (supported: F32, F16, F64)");
}

TEST(Safetensors, OffsetsOutOfRange) {
  const Bytes d(8, 0);
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", d)),
            "tensor 'w': data_offsets [8, 16] exceed the data size 8 (file truncated?)");
}

TEST(Safetensors, OffsetsNotMatchingShape) {
  const Bytes d(12, 0);
  EXPECT_EQ(read_error(make_file(R"({"decoder.bias":{"dtype":"F32","shape":[2],"data_offsets":[0,12]}})", d)),
            "tensor 'decoder.bias': data_offsets [0, 12] do not match dtype F32 and shape [2] (8 bytes)");
  EXPECT_EQ(read_error(make_file(R"({"h":{"dtype":"F16","shape":[2,3],"data_offsets":[0,8]}})", d)),
            "tensor 'h': data_offsets [0, 8] do not match dtype F16 and shape [2, 3] (12 bytes)");
  // an element count that overflows 64 bits cannot match anything
  EXPECT_EQ(read_error(make_file(
                R"({"x":{"dtype":"F64","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}})", d)),
            "tensor 'x': data_offsets [0, 8] do not match dtype F64 and shape [4294967296, 4294967296, 4] "
            "(too many bytes)");
}

TEST(Safetensors, NegativeShape) {
  const Bytes d(8, 0);
  EXPECT_EQ(read_error(make_file(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", d)),
            "tensor 'w': negative dimension -2 in shape");
}

TEST(Safetensors, TruncatedFile) {
  const Bytes good = write_safetensors(sample_tensors(), StorageType::F32, {{"format", "attnlab"}});
  ASSERT_FALSE(good.empty());
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | good[i];
  // Cut the last 4 bytes: the last tensor in the data ("scalar" sorts last) no longer fits.
  Bytes cut(good.begin(), good.end() - 4);
  const std::string err = read_error(cut);
  EXPECT_NE(err.find("tensor 'scalar': data_offsets"), std::string::npos) << err;
  EXPECT_NE(err.find("exceed the data size"), std::string::npos) << err;
  // Cut inside the header.
  Bytes in_header(good.begin(), good.begin() + 8 + header_len / 2);
  EXPECT_EQ(read_error(in_header), "header length " + std::to_string(header_len) + " exceeds file size " +
                                       std::to_string(in_header.size()));
  // Every proper prefix fails cleanly with some message.
  for (size_t len = 0; len < good.size(); ++len) {
    SafetensorsFile f;
    std::string e;
    ASSERT_FALSE(read_safetensors(good.data(), len, &f, &e)) << "prefix " << len;
    ASSERT_FALSE(e.empty()) << "prefix " << len;
  }
}

TEST(Safetensors, RandomCorruptionNeverCrashes) {
  const Bytes good = write_safetensors(sample_tensors(), StorageType::F16);
  std::mt19937 rng(7);
  int failures = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    Bytes b = good;
    const int flips = 1 + trial % 4;
    for (int k = 0; k < flips; ++k) b[rng() % b.size()] = static_cast<uint8_t>(rng());
    SafetensorsFile f;
    std::string e;
    if (!read_safetensors(b.data(), b.size(), &f, &e)) {
      ++failures;
      ASSERT_FALSE(e.empty());
      ASSERT_TRUE(f.tensors.empty());
    }
  }
  EXPECT_GT(failures, 0);  // the corruption did hit the header sometimes
}

TEST(Safetensors, WriterRejectsInvalidTensors) {
  std::map<std::string, NamedTensor> t;
  t["w"].shape = {2, 3};
  t["w"].data = std::vector<float>(5, 1.0f);
  EXPECT_TRUE(write_safetensors(t, StorageType::F32).empty());
  Bytes out = {1};
  std::string err;
  EXPECT_FALSE(write_safetensors_checked(t, StorageType::F32, {}, &out, &err));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(err, "tensor 'w': shape [2, 3] has 6 elements but data has 5");
  t["w"].shape = {-5};
  EXPECT_FALSE(write_safetensors_checked(t, StorageType::F32, {}, &out, &err));
  EXPECT_EQ(err, "tensor 'w': negative dimension -5 in shape");
  t.clear();
  t["__metadata__"].shape = {0};
  EXPECT_FALSE(write_safetensors_checked(t, StorageType::F16, {}, &out, &err));
  EXPECT_EQ(err, "tensor '__metadata__': the name is reserved");
  // no tensors at all is a valid (empty) file
  t.clear();
  ASSERT_TRUE(write_safetensors_checked(t, StorageType::F32, {}, &out, &err)) << err;
  SafetensorsFile f;
  ASSERT_TRUE(read_safetensors(out.data(), out.size(), &f, &err)) << err;
  EXPECT_TRUE(f.tensors.empty());
}

}  // namespace
}  // namespace attnlab
