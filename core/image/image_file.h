// An image file's bytes → 8-bit RGBA pixels, for the CLI (`explain-onnx --image`): PNG and JPEG (stb_image of
// Debian's libstb-dev, compiled alone in core/image/image_file.cpp; not in the wasm build: the page decodes with
// the browser, web/runtime/image/decode.js) and Netpbm P2 / P3 / P5 / P6 (maxval ≤ 255).
// The page's rules, so that a photo gives the CLI the pixels it gives the page:
//  - 8-bit RGB out; gray is copied to R, G and B; the alpha channel is kept un-premultiplied in RGBA and
//    composited over white by preprocess_rgba (core/image/preprocess.h), as in the page;
//  - a JPEG's EXIF orientation (1–8) is applied (the page: createImageBitmap imageOrientation "from-image");
//  - no colour management: ICC profiles and PNG gAMA / cHRM are ignored (the page: colorSpaceConversion "none").
// Where they differ: a 16-bit PNG keeps the high byte of each sample (a browser may round instead: ≤ 1 level); a
// PNG's eXIf orientation is ignored (the page's header reader reads none either); a photo over 1024 px is not
// shrunk first (the page decodes it at ≤ 1024 px, then both resize to 256 / crop 224); GIF, WebP and BMP are
// refused (the page reads them).
// Bounded: the size in the header is checked against check_image_size (each side ≤ 16384, ≤ 2^26 pixels) before
// any pixel is decoded, and every allocation of stb_image is capped near that size (a zlib bomb stops); a truncated
// or corrupt file gives a message, never a crash. Two defects of Debian 12's stb_image 2.27, found by fuzzing
// this reader under ASan + UBSan (2.7 M mutants of the fixtures, then clean), are kept away from it: a JPEG
// Huffman table declaring more than 256 codes (written past its arrays) is refused, and empty IDAT chunks of a PNG
// (a null memcpy) are dropped before decoding. No exceptions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

struct DecodedImage {
  std::vector<uint8_t> rgba;  // width * height * 4
  int width = 0, height = 0;
  std::string format;         // "png", "jpeg", "pnm"
  int orientation = 1;        // the EXIF orientation that was applied (JPEG; 1 = none)
};

// The format by the first bytes ("png", "jpeg", "pnm", "" when none of them).
std::string sniff_image_format(const uint8_t* bytes, size_t size);

// The EXIF orientation (1–8) of a JPEG's APP1 segment; 1 when there is none or the bytes are not a JPEG.
int jpeg_exif_orientation(const uint8_t* bytes, size_t size);

bool decode_image(const uint8_t* bytes, size_t size, DecodedImage* out, std::string* error);

}  // namespace attnlab
