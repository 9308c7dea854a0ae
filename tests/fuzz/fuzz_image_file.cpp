// libFuzzer target: the CLI's image reader (core/image/image_file.h: PNG and JPEG through stb_image, Netpbm by
// hand) on any bytes. Checks: no crash / UB / leak / allocation past the image limit; a failure has a message; a
// decoded image has width · height · 4 bytes within the limit (each side ≤ 16384, ≤ 2^26 pixels) and its sniffed
// format. Seeds: the fixtures of tests/fixtures/image/files (tiny PNG, JPEG with EXIF, PPM, PGM, a zlib bomb).
#include "fuzz_common.h"
#include "image/image_file.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput) return -1;
  DecodedImage img;
  std::string error;
  (void)jpeg_exif_orientation(data, size);
  if (!decode_image(data, size, &img, &error)) {
    fuzz::require(!error.empty());
    return 0;
  }
  fuzz::require(img.width > 0 && img.height > 0 && img.width <= 16384 && img.height <= 16384);
  fuzz::require(static_cast<int64_t>(img.width) * img.height <= (int64_t(1) << 26));
  fuzz::require(img.rgba.size() == static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 4);
  fuzz::require(img.format == sniff_image_format(data, size));
  return 0;
}
