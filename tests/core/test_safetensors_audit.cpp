// The safetensors cases from the safetensors project's own tests and its 2023 audit (issue 13): each bad
// file gets a clear error naming the problem; the odd-but-valid files (scalar shape [], [2, 0] at [0, 0],
// whitespace after "{}") are accepted.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/safetensors.h"

namespace attnlab {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes with_length(uint64_t n, const std::string& header, const Bytes& data = {}) {
  Bytes out;  // reserved whole: GCC 12 reads a growing insert as an overread (-Wstringop-overread, a false alarm)
  out.reserve(8 + header.size() + data.size());
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(n >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

Bytes file(const std::string& header, const Bytes& data = {}) { return with_length(header.size(), header, data); }

std::string error_of(const Bytes& b) {
  SafetensorsFile f;
  std::string err;
  EXPECT_FALSE(read_safetensors(b.data(), b.size(), &f, &err)) << "unexpectedly parsed";
  EXPECT_TRUE(f.tensors.empty());
  EXPECT_FALSE(err.empty());
  return err;
}

SafetensorsFile parse_ok(const Bytes& b) {
  SafetensorsFile f;
  std::string err;
  EXPECT_TRUE(read_safetensors(b.data(), b.size(), &f, &err)) << err;
  return f;
}

TEST(SafetensorsAudit, EmptyInput) {
  EXPECT_EQ(error_of({}), "file too short: 0 bytes, need at least 8 for the header length");
}

TEST(SafetensorsAudit, HeaderLengthWithNoBody) {
  EXPECT_EQ(error_of(with_length(64, "")), "header length 64 exceeds file size 8");
}

TEST(SafetensorsAudit, HeaderLengthAllOnes) {
  EXPECT_EQ(error_of(with_length(0xffffffffffffffffull, "{}")),
            "header length 18446744073709551615 exceeds file size 10");
}

TEST(SafetensorsAudit, HeaderLengthOverTheLimit) {
  // The length fits the buffer but is over the 100 MB header limit: refused before the header is read.
  Bytes b = with_length(100000001, "");
  b.resize(8 + 100000001, ' ');
  EXPECT_EQ(error_of(b), "header length 100000001 exceeds the limit of 100000000 bytes");
}

TEST(SafetensorsAudit, NonUtf8Header) {
  EXPECT_EQ(error_of(file("{\"w\xC3\x28\":1}")), "header is not valid UTF-8 (byte 3 of the header)");
  EXPECT_EQ(error_of(file("{\"\xED\xA0\x80\":1}")), "header is not valid UTF-8 (byte 2 of the header)");  // surrogate
  EXPECT_EQ(error_of(file("{\"\xC0\xAF\":1}")), "header is not valid UTF-8 (byte 2 of the header)");      // overlong
}

TEST(SafetensorsAudit, HeaderOpenBrace) { EXPECT_EQ(error_of(file("{")), "header is not valid JSON"); }

TEST(SafetensorsAudit, TenTensorsAtTheSameOffsets) {
  std::string h = "{";
  for (int i = 0; i < 10; ++i)
    h += std::string(i ? "," : "") + "\"t" + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}";
  h += "}";
  EXPECT_EQ(error_of(file(h, Bytes(8, 0))), "tensor 't1': data_offsets [0, 8] overlap tensor 't0' (which ends at 8)");
}

TEST(SafetensorsAudit, PartlyOverlappingTensors) {
  const std::string h = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})";
  EXPECT_EQ(error_of(file(h, Bytes(12, 0))), "tensor 'b': data_offsets [4, 12] overlap tensor 'a' (which ends at 8)");
}

TEST(SafetensorsAudit, GapBetweenTensors) {
  const std::string h = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})";
  EXPECT_EQ(error_of(file(h, Bytes(12, 0))), "tensor 'b': data_offsets [8, 12] leave bytes 4..8 of the data unused");
}

TEST(SafetensorsAudit, OffsetsTooShortForDtypeAndShape) {
  EXPECT_EQ(error_of(file(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", Bytes(20, 0))),
            "tensor 'w': data_offsets [0, 20] do not match dtype F32 and shape [2, 3] (24 bytes)");
}

TEST(SafetensorsAudit, ValidFilePlusTrailingBytes) {
  EXPECT_EQ(error_of(file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", Bytes(7, 0))),
            "the data has 3 trailing bytes after the last tensor (4 of 7 bytes used)");
  EXPECT_EQ(error_of(file("{}", Bytes(1, 0))), "the data has 1 trailing bytes after the last tensor (0 of 1 bytes used)");
}

TEST(SafetensorsAudit, FileTwoBytesShort) {
  EXPECT_EQ(error_of(file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", Bytes(6, 0))),
            "tensor 'w': data_offsets [0, 8] exceed the data size 6 (file truncated?)");
}

TEST(SafetensorsAudit, ShapeProductOverflows) {
  EXPECT_EQ(error_of(file(R"({"w":{"dtype":"F32","shape":[2,18446744073709551614],"data_offsets":[0,4]}})", Bytes(4, 0))),
            "tensor 'w': shape[1] is not an integer");  // > int64 max
  EXPECT_EQ(error_of(file(R"({"w":{"dtype":"F32","shape":[2,9223372036854775807],"data_offsets":[0,4]}})", Bytes(4, 0))),
            "tensor 'w': data_offsets [0, 4] do not match dtype F32 and shape [2, 9223372036854775807] (too many bytes)");
}

TEST(SafetensorsAudit, DuplicateKeys) {
  const std::string h = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  EXPECT_EQ(error_of(file(h, Bytes(4, 0))), "header has the key 'w' twice");
  // inside a tensor entry too (which dtype would count?)
  EXPECT_EQ(error_of(file(R"({"w":{"dtype":"F16","dtype":"F32","shape":[1],"data_offsets":[0,4]}})", Bytes(4, 0))),
            "header has the key 'dtype' twice");
  // the same key in two different objects is fine
  const std::string ok = R"({"__metadata__":{"w":"x"},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  EXPECT_EQ(parse_ok(file(ok, Bytes(4, 0))).tensors.size(), 1u);
}

TEST(SafetensorsAudit, AcceptsScalarShape) {
  const Bytes data = {0x00, 0x00, 0xE8, 0x40};  // 7.25f
  const SafetensorsFile f = parse_ok(file(R"({"s":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})", data));
  ASSERT_EQ(f.tensors.count("s"), 1u);
  EXPECT_TRUE(f.tensors.at("s").shape.empty());
  EXPECT_EQ(f.tensors.at("s").data, std::vector<float>{7.25f});
}

TEST(SafetensorsAudit, AcceptsZeroSizeTensor) {
  const SafetensorsFile f = parse_ok(file(R"({"e":{"dtype":"F32","shape":[2,0],"data_offsets":[0,0]}})"));
  EXPECT_EQ(f.tensors.at("e").shape, (std::vector<int64_t>{2, 0}));
  EXPECT_TRUE(f.tensors.at("e").data.empty());
  // next to a real tensor, at its start or its end
  const std::string h = R"({"e":{"dtype":"F32","shape":[2,0],"data_offsets":[0,0]},)"
                        R"("w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                        R"("z":{"dtype":"F16","shape":[0],"data_offsets":[4,4]}})";
  EXPECT_EQ(parse_ok(file(h, Bytes(4, 0))).tensors.size(), 3u);
}

TEST(SafetensorsAudit, AcceptsWhitespaceAfterEmptyObject) {
  EXPECT_TRUE(parse_ok(file("{}      ")).tensors.empty());
  EXPECT_TRUE(parse_ok(file("{} \t\n\r ")).tensors.empty());
}

}  // namespace
}  // namespace attnlab
