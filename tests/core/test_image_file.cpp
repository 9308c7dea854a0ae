// Image files (core/image/image_file, issue 29 "photos the CLI cannot read"): PNG and JPEG decode to the pixels of
// the PPM / PIL reference (tests/fixtures/image/files, made by make.py there with Debian's python3-pil), the EXIF
// orientation is applied, alpha is kept for preprocess_rgba to composite over white, and bad files — truncated,
// corrupt, too large in their header, a zlib bomb — give a message. The CLI end to end: explain-onnx on the PNG
// gives the logits of the PPM, the JPEG those of its PIL-decoded pixels.
#include "image/image_file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "image/preprocess.h"

namespace attnlab {
namespace {

std::string image_fixture(const std::string& name) {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/image/files/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

DecodedImage decode_ok(const std::string& bytes) {
  DecodedImage img;
  std::string error;
  EXPECT_TRUE(decode_image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &img, &error)) << error;
  return img;
}

std::string decode_error(const std::string& bytes) {
  DecodedImage img;
  std::string error;
  EXPECT_FALSE(decode_image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &img, &error));
  EXPECT_TRUE(img.rgba.empty());
  return error;
}

int max_rgb_difference(const DecodedImage& a, const DecodedImage& b) {
  int worst = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i)
    if (i % 4 != 3) worst = std::max(worst, std::abs(int(a.rgba[i]) - int(b.rgba[i])));
  return worst;
}

TEST(ImageFile, PngGivesExactlyThePixelsOfThePpm) {
  const DecodedImage ppm = decode_ok(image_fixture("photo.ppm")), png = decode_ok(image_fixture("photo.png"));
  EXPECT_EQ(ppm.format, "pnm");
  EXPECT_EQ(png.format, "png");
  ASSERT_EQ(png.width, 24);
  ASSERT_EQ(png.height, 16);
  EXPECT_EQ(png.rgba, ppm.rgba);
  const DecodedImage gray = decode_ok(image_fixture("photo_gray.png")), pgm = decode_ok(image_fixture("photo_gray.pgm"));
  EXPECT_EQ(gray.rgba, pgm.rgba);  // gray copied to R, G and B, alpha 255
  EXPECT_EQ(gray.rgba[0], gray.rgba[1]);
  EXPECT_EQ(gray.rgba[3], 255);
}

TEST(ImageFile, AlphaIsKeptAndCompositedOverWhiteLikeThePage) {
  const DecodedImage ppm = decode_ok(image_fixture("photo.ppm")), rgba = decode_ok(image_fixture("photo_rgba.png"));
  ASSERT_EQ(rgba.rgba.size(), ppm.rgba.size());
  for (int y = 0; y < rgba.height; ++y)
    for (int x = 0; x < rgba.width; ++x) {
      const size_t i = (static_cast<size_t>(y) * rgba.width + x) * 4;
      ASSERT_EQ(rgba.rgba[i + 3], (x * 11 + y * 7) % 256) << x << "," << y;  // make.py's alpha, not premultiplied
      for (int c = 0; c < 3; ++c) ASSERT_EQ(rgba.rgba[i + c], ppm.rgba[i + c]);
    }
  // preprocess_rgba composites over white: a fully transparent image is white.
  DecodedImage clear = rgba;
  for (size_t i = 3; i < clear.rgba.size(); i += 4) clear.rgba[i] = 0;
  std::vector<float> planar;
  std::string error;
  ASSERT_TRUE(preprocess_rgba(clear.rgba.data(), clear.width, clear.height, &planar, &error)) << error;
  for (float v : planar) ASSERT_FLOAT_EQ(v, 255.f);
}

TEST(ImageFile, JpegIsWithinTwoLevelsOfLibjpegAndUpright) {
  const DecodedImage jpg = decode_ok(image_fixture("photo.jpg")), pil = decode_ok(image_fixture("photo_jpg_pil.ppm"));
  EXPECT_EQ(jpg.format, "jpeg");
  ASSERT_EQ(jpg.width, pil.width);
  ASSERT_EQ(jpg.height, pil.height);
  EXPECT_LE(max_rgb_difference(jpg, pil), 2);
  EXPECT_EQ(jpg.orientation, 1);
  // EXIF orientation 6 (rotate 90° clockwise to display): 24x16 stored, 16x24 upright, as PIL's exif_transpose.
  const std::string exif6 = image_fixture("photo_exif6.jpg");
  EXPECT_EQ(jpeg_exif_orientation(reinterpret_cast<const uint8_t*>(exif6.data()), exif6.size()), 6);
  const DecodedImage up = decode_ok(exif6), pil6 = decode_ok(image_fixture("photo_exif6_pil.ppm"));
  EXPECT_EQ(up.orientation, 6);
  ASSERT_EQ(up.width, 16);
  ASSERT_EQ(up.height, 24);
  ASSERT_EQ(pil6.width, 16);
  EXPECT_LE(max_rgb_difference(up, pil6), 2);
}

TEST(ImageFile, BadFilesGiveAMessage) {
  const std::string png = image_fixture("photo.png"), jpg = image_fixture("photo.jpg");
  ASSERT_FALSE(png.empty());
  // Truncated: PNG inside its image data, JPEG in its scan.
  EXPECT_NE(decode_error(png.substr(0, png.size() / 2)).find("corrupt PNG file"), std::string::npos);
  EXPECT_NE(decode_error(png.substr(0, 30)).find("PNG"), std::string::npos);
  EXPECT_EQ(decode_error(jpg.substr(0, jpg.size() - 100)),
            "truncated or corrupt JPEG file: no end-of-image marker after the image data");
  EXPECT_NE(decode_error(jpg.substr(0, 20)).find("JPEG"), std::string::npos);
  // Not an image the CLI reads.
  EXPECT_EQ(decode_error("hello"), "not a PNG, JPEG or PPM/PGM (P2, P3, P5, P6) file; convert it first (e.g. `convert photo.webp photo.png`)");
  EXPECT_NE(decode_error("GIF89a\x01\x00\x01\x00").find("a GIF"), std::string::npos);
  EXPECT_NE(decode_error("").find("not a PNG"), std::string::npos);
  // A header that declares more pixels than check_image_size allows: refused before decoding (the IHDR's width
  // patched to 20000 x 16 is fine by size; 16384 x 16384 is over 2^26 pixels).
  std::string big = png;
  auto put32 = [&](size_t at, uint32_t v) {
    for (int k = 0; k < 4; ++k) big[at + k] = static_cast<char>(v >> (24 - 8 * k));
  };
  put32(16, 16384);
  put32(20, 16384);
  EXPECT_EQ(decode_error(big), "image size 16384x16384 is not supported (each side 1..16384, at most 67108864 pixels)");
  put32(16, 100000);
  put32(20, 1);
  EXPECT_EQ(decode_error(big), "image size 100000x1 is not supported (each side 1..16384, at most 67108864 pixels)");
  put32(16, 0xFFFFFFFFu);
  EXPECT_EQ(decode_error(big), "image size 4294967295x1 is not supported (each side 1..16384, at most 67108864 pixels)");
  // A 1x1 PNG whose data inflate to 16 MiB: stopped at the allocation cap, not grown.
  EXPECT_NE(decode_error(image_fixture("bomb.png")).find("corrupt PNG file"), std::string::npos);
  // A JPEG whose header gives 0 x 0.
  std::string zero = jpg;
  const size_t sof = zero.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  zero[sof + 5] = zero[sof + 6] = zero[sof + 7] = zero[sof + 8] = 0;
  EXPECT_FALSE(decode_error(zero).empty());
  // Found by fuzzing under ASan + UBSan: a Huffman table declaring more than 256 codes (stb_image 2.27 writes past
  // its arrays) is refused; an empty IDAT chunk (legal; stb_image copies 0 bytes to a null pointer) is dropped.
  std::string huff = jpg;
  const size_t dht = huff.find("\xFF\xC4");
  ASSERT_NE(dht, std::string::npos);
  huff[dht + 5 + 14] = huff[dht + 5 + 15] = static_cast<char>(0xFF);  // 510 codes of lengths 15, 16
  EXPECT_EQ(decode_error(huff), "corrupt JPEG file (a Huffman table or segment is malformed)");
  // Also found by fuzz_image_file (tests/fixtures/reliability/fuzz/image_file/): a scan whose Huffman codes do not
  // match the file's own tables trips one of stb_image's consistency checks (an abort in the sanitized build, whose
  // assert() is on) — refused as corrupt either way.
  std::ifstream mismatch_in(std::string(ATTNLAB_SOURCE_DIR) +
                                "/tests/fixtures/reliability/fuzz/image_file/jpeg-huffman-code-mismatch",
                            std::ios::binary);
  const std::string mismatch((std::istreambuf_iterator<char>(mismatch_in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(mismatch.empty());
  EXPECT_EQ(decode_error(mismatch).rfind("corrupt JPEG file (", 0), 0u) << decode_error(mismatch);
  // Also found by fuzz_image_file (committed as jpeg-undefined-huffman-table): a scan naming a Huffman table that no
  // DHT segment defined (stb_image 2.27 then decodes with that table's uninitialised memory and reads past its
  // maxcode[] array, which UBSan stops on) is refused before decoding; so is the same change made to a good file,
  // whose own scan (the negative control) decodes.
  std::ifstream undefined_in(std::string(ATTNLAB_SOURCE_DIR) +
                                 "/tests/fixtures/reliability/fuzz/image_file/jpeg-undefined-huffman-table",
                             std::ios::binary);
  const std::string undefined((std::istreambuf_iterator<char>(undefined_in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(undefined.empty());
  const std::string undefined_message = "corrupt JPEG file (a scan uses a Huffman table that the file never defines)";
  EXPECT_EQ(decode_error(undefined), undefined_message);
  std::string no_table = jpg;
  const size_t sos = no_table.find("\xFF\xDA");
  ASSERT_NE(sos, std::string::npos);
  EXPECT_FALSE(decode_ok(no_table).rgba.empty());
  no_table[sos + 6] = static_cast<char>((no_table[sos + 6] & 0xF0) | 3);  // the first component's AC table: 3
  EXPECT_EQ(decode_error(no_table), undefined_message);
  std::string empty_idat = png;
  const size_t idat = empty_idat.find("IDAT");
  ASSERT_NE(idat, std::string::npos);
  empty_idat.insert(idat - 4, std::string("\0\0\0\0IDAT\x35\xAF\x06\x1E", 12));
  EXPECT_EQ(decode_ok(empty_idat).rgba, decode_ok(png).rgba);
  // Every prefix of the files: a message or an image, never a crash.
  for (const std::string* f : {&png, &jpg})
    for (size_t n = 0; n < f->size(); ++n) {
      DecodedImage img;
      std::string error;
      if (!decode_image(reinterpret_cast<const uint8_t*>(f->data()), n, &img, &error)) ASSERT_FALSE(error.empty());
    }
}

// The CLI: `explain-onnx --image` reads PNG and JPEG (it answered "convert the image first" before).
nlohmann::json image_file_cli(const std::string& image, int* rc) {
  const std::string out = ::testing::TempDir() + "/attnlab-image-file-cli.txt";
  const std::string cmd = std::string("'") + ATTNLAB_CLI + "' explain-onnx --model '" + ATTNLAB_SOURCE_DIR +
                          "/tests/fixtures/onnx/squeezenet1_1/model.onnx' --method gradcam --image '" + ATTNLAB_SOURCE_DIR +
                          "/tests/fixtures/image/files/" + image + "' >'" + out + "' 2>&1";
  const int status = std::system(cmd.c_str());
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  std::ifstream in(out);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  nlohmann::json j = nlohmann::json::parse(last, nullptr, false);
  return j.is_discarded() ? nlohmann::json{{"text", last}} : j;
}

TEST(ImageFile, CliReadsPngAndJpegLikeThePpm) {
  int rc = 0;
  const nlohmann::json ppm = image_file_cli("photo.ppm", &rc);
  ASSERT_EQ(rc, 0) << ppm.dump();
  const nlohmann::json png = image_file_cli("photo.png", &rc);
  ASSERT_EQ(rc, 0) << png.dump();
  EXPECT_EQ(png["logits"], ppm["logits"]);  // the same pixels: the same logits, exactly
  EXPECT_EQ(png["map"], ppm["map"]);
  const nlohmann::json jpg = image_file_cli("photo.jpg", &rc), pil = image_file_cli("photo_jpg_pil.ppm", &rc);
  ASSERT_EQ(rc, 0) << pil.dump();
  ASSERT_EQ(jpg["logits"].size(), pil["logits"].size());
  double scale = 0, worst = 0;
  for (size_t k = 0; k < pil["logits"].size(); ++k) {
    scale = std::max(scale, std::abs(pil["logits"][k].get<double>()));
    worst = std::max(worst, std::abs(jpg["logits"][k].get<double>() - pil["logits"][k].get<double>()));
  }
  EXPECT_LT(worst, 0.02 * scale) << jpg["logits"].dump() << " vs " << pil["logits"].dump();
  // A truncated PNG: one line naming the file and the problem.
  const std::string cut = ::testing::TempDir() + "/attnlab-cut.png", whole = image_fixture("photo.png");
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
  const std::string out = ::testing::TempDir() + "/attnlab-image-file-cut.txt";
  const int status = std::system((std::string("'") + ATTNLAB_CLI + "' explain-onnx --model '" + ATTNLAB_SOURCE_DIR +
                                  "/tests/fixtures/onnx/squeezenet1_1/model.onnx' --image '" + cut + "' >'" + out + "' 2>&1")
                                     .c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : 128, 1);
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find(cut + ": corrupt PNG file"), std::string::npos) << ss.str();
}

}  // namespace
}  // namespace attnlab
