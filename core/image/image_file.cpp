// Image files → RGBA (image_file.h). Compiled alone (CMakeLists.txt: not in a unity batch, so stb_image's
// macros and static functions stay in this file; not in the wasm build).
#include "image/image_file.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "image/preprocess.h"

// Every allocation of stb_image goes through these, capped per decode (image_file_decode_stb): a PNG whose zlib
// data inflate past the size its header declares (a "zip bomb") fails with "outofmem" instead of growing.
namespace {
thread_local size_t image_file_alloc_cap = 0;
void* image_file_malloc(size_t n) { return n > image_file_alloc_cap ? nullptr : std::malloc(n); }
void* image_file_realloc(void* p, size_t n) { return n > image_file_alloc_cap ? nullptr : std::realloc(p, n); }
// stb_image's internal consistency checks (STBI_ASSERT) flag the decode instead of aborting (the shipped
// builds compile assert() out; the sanitized build keeps it, and a corrupt JPEG Huffman code tripped one in
// stbi__jpeg_huff_decode — fuzz_image_file). A decode that tripped one is refused as corrupt.
thread_local bool image_file_stb_inconsistent = false;
void image_file_stb_check(bool ok) {
  if (!ok) image_file_stb_inconsistent = true;
}
}  // namespace
#define STBI_ASSERT(x) image_file_stb_check(static_cast<bool>(x))
#define STBI_MALLOC(n) image_file_malloc(n)
#define STBI_REALLOC(p, n) image_file_realloc(p, n)
#define STBI_FREE(p) std::free(p)
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS 16384  // check_image_size's side limit; the pixel count is checked before decoding
// stb_image 2.27 (Debian 12) shifts by more than 31 when a JPEG's entropy-coded data run out mid-block
// (stbi__grow_buffer_unsafe: `b << (24 - code_bits)` once code_bits went negative; later stb versions return zero
// bits instead). It happens only after the data ran out, when b is 0, so the decoded pixels do not depend on it —
// but it is undefined behaviour that UBSan's shift-exponent check stops on (fuzz_image_file found it). That one
// check is switched off for stb's own functions only; every other check, and ours, stays on.
#ifdef __clang__
#pragma clang attribute push(__attribute__((no_sanitize("shift-exponent"))), apply_to = function)
#endif
#include <stb/stb_image.h>
#ifdef __clang__
#pragma clang attribute pop
#endif

namespace attnlab {
namespace {

unsigned image_file_be16(const uint8_t* b) { return (unsigned(b[0]) << 8) | b[1]; }

// Netpbm P2/P3/P5/P6 → RGBA. maxval ≤ 255 only.
bool image_file_read_pnm(const uint8_t* bytes, size_t size, DecodedImage* out, std::string* err) {
  size_t p = 2;
  auto is_space = [](uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  auto skip = [&]() {
    while (p < size) {
      if (is_space(bytes[p])) ++p;
      else if (bytes[p] == '#') { while (p < size && bytes[p] != '\n') ++p; }
      else break;
    }
  };
  auto num = [&](long* v) {
    skip();
    if (p >= size || bytes[p] < '0' || bytes[p] > '9') return false;
    *v = 0;
    while (p < size && bytes[p] >= '0' && bytes[p] <= '9' && *v < 1000000) *v = *v * 10 + (bytes[p++] - '0');
    return true;
  };
  const char kind = static_cast<char>(bytes[1]);
  long W, H, maxv;
  if (!num(&W) || !num(&H) || !num(&maxv) || maxv < 1 || maxv > 255) {
    *err = "bad PPM/PGM header (only maxval ≤ 255 is read)";
    return false;
  }
  if (!check_image_size(static_cast<int>(W), static_cast<int>(H), err)) return false;
  const int ch = (kind == '3' || kind == '6') ? 3 : 1;
  const size_t n = static_cast<size_t>(W) * H * ch;
  std::vector<uint8_t> v(n);
  if (kind == '5' || kind == '6') {
    ++p;  // one whitespace after maxval
    if (size < p + n) {
      *err = "truncated PPM/PGM data";
      return false;
    }
    std::memcpy(v.data(), bytes + p, n);
  } else {
    for (size_t k = 0; k < n; ++k) {
      long x;
      if (!num(&x) || x > maxv) {
        *err = "bad ASCII PPM/PGM data";
        return false;
      }
      v[k] = static_cast<uint8_t>(x);
    }
  }
  out->rgba.resize(static_cast<size_t>(W) * H * 4);
  for (size_t q = 0; q < static_cast<size_t>(W) * H; ++q) {
    for (int c = 0; c < 3; ++c) out->rgba[q * 4 + c] = static_cast<uint8_t>(v[q * ch + (ch == 3 ? c : 0)] * 255 / maxv);
    out->rgba[q * 4 + 3] = 255;
  }
  out->width = static_cast<int>(W);
  out->height = static_cast<int>(H);
  return true;
}

// The orientation tag of a TIFF header at b[start, end) (the page's exifOrientation, decode.js).
int image_file_tiff_orientation(const uint8_t* b, size_t start, size_t end) {
  if (start + 8 > end) return 1;
  const bool le = b[start] == 0x49 && b[start + 1] == 0x49;
  const bool be = b[start] == 0x4d && b[start + 1] == 0x4d;
  if (!le && !be) return 1;
  auto r16 = [&](size_t i) -> unsigned { return le ? (b[i] | (unsigned(b[i + 1]) << 8)) : image_file_be16(b + i); };
  auto r32 = [&](size_t i) -> uint64_t {
    return le ? (b[i] | (uint64_t(b[i + 1]) << 8) | (uint64_t(b[i + 2]) << 16) | (uint64_t(b[i + 3]) << 24))
              : ((uint64_t(b[i]) << 24) | (uint64_t(b[i + 1]) << 16) | (uint64_t(b[i + 2]) << 8) | b[i + 3]);
  };
  const uint64_t ifd = start + r32(start + 4);
  if (ifd + 2 > end) return 1;
  const unsigned n = r16(static_cast<size_t>(ifd));
  for (unsigned k = 0; k < n; ++k) {
    const uint64_t e = ifd + 2 + 12 * uint64_t{k};
    if (e + 12 > end) break;
    if (r16(static_cast<size_t>(e)) == 0x0112) {
      const unsigned v = r16(static_cast<size_t>(e + 8));
      return v >= 1 && v <= 8 ? static_cast<int>(v) : 1;
    }
  }
  return 1;
}

// check_image_size on a header's (unsigned) size.
bool image_file_check_size(uint64_t w, uint64_t h, std::string* err) {
  if (w <= INT_MAX && h <= INT_MAX) return check_image_size(static_cast<int>(w), static_cast<int>(h), err);
  *err = "image size " + std::to_string(w) + "x" + std::to_string(h) +
         " is not supported (each side 1..16384, at most 67108864 pixels)";
  return false;
}

// Offset of a JPEG's first SOS marker (0 when the marker walk fails before it).
size_t image_file_jpeg_scan_start(const uint8_t* b, size_t n, int* orientation, uint64_t* width = nullptr,
                                  uint64_t* height = nullptr) {
  size_t i = 2;
  while (i + 4 <= n) {
    if (b[i] != 0xff) return 0;
    const uint8_t m = b[i + 1];
    if (m == 0xff) { i += 1; continue; }
    if (m == 0xd8 || (m >= 0xd0 && m <= 0xd7) || m == 0x01) { i += 2; continue; }
    if (m == 0xda) return i;
    const unsigned len = image_file_be16(b + i + 2);
    if (len < 2) return 0;
    if (orientation && m == 0xe1 && i + 10 <= n && std::memcmp(b + i + 4, "Exif", 4) == 0)
      *orientation = image_file_tiff_orientation(b, i + 10, std::min(n, i + 2 + len));
    const bool sof = m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
    if (sof && width && height && i + 9 <= n) {
      *height = image_file_be16(b + i + 5);
      *width = image_file_be16(b + i + 7);
    }
    i += 2 + len;
  }
  return 0;
}

// Every Huffman table of a JPEG declares at most 256 codes, and every scan uses only tables defined before it.
// stb_image 2.27 (Debian 12) checks neither: a table declaring more writes past its arrays, and a scan naming a
// table no DHT segment defined decodes with that table's uninitialised memory, reading past its code-length array
// (stbi__jpeg_huff_decode's loop over maxcode[]; both found by fuzzing this reader under ASan + UBSan). Refused here
// before decoding; *why says which (malformed | undefined).
bool image_file_jpeg_tables_ok(const uint8_t* b, size_t n, std::string* why) {
  bool defined[2][4] = {};  // [DC, AC][table id], defined by a DHT segment so far
  bool progressive = false;
  *why = "a Huffman table or segment is malformed";
  size_t i = 2;
  while (i + 4 <= n) {
    if (b[i] != 0xff) return false;
    const uint8_t m = b[i + 1];
    if (m == 0xff) { i += 1; continue; }
    if (m == 0xd8 || (m >= 0xd0 && m <= 0xd7) || m == 0x01) { i += 2; continue; }
    if (m == 0x00) {  // a stuffed byte after fill bytes (FF FF 00): still entropy-coded data, as stb_image reads it
      i += 2;
      while (i + 1 < n && !(b[i] == 0xff && b[i + 1] != 0 && b[i + 1] != 0xff && !(b[i + 1] >= 0xd0 && b[i + 1] <= 0xd7))) ++i;
      continue;
    }
    if (m == 0xd9) return true;
    const size_t len = image_file_be16(b + i + 2);
    if (len < 2) return false;
    const size_t end = std::min(n, i + 2 + len);
    if (m == 0xc4) {
      for (size_t p = i + 4; p < end;) {
        if (p + 17 > end) return false;
        size_t codes = 0;
        for (int k = 1; k <= 16; ++k) codes += b[p + k];
        if (codes > 256) return false;
        const unsigned tc = b[p] >> 4, th = b[p] & 15;
        if (tc > 1 || th > 3) return false;
        defined[tc][th] = true;
        p += 17 + codes;
      }
    }
    if (m == 0xc2 || m == 0xc6) progressive = true;
    if (m == 0xda) {  // SOS: Ns, then (component, DC table << 4 | AC table) per component, then Ss, Se, Ah/Al
      if (i + 5 > end) return false;
      const size_t ns = b[i + 4];
      if (i + 5 + 2 * ns + 3 > end) return false;
      const unsigned ss = b[i + 5 + 2 * ns], se = b[i + 6 + 2 * ns];
      // a baseline scan decodes both tables; a progressive scan the DC table when it starts at coefficient 0, else
      // the AC table
      const bool uses_dc = !progressive || ss == 0, uses_ac = !progressive || (ss > 0 && se > 0);
      for (size_t c = 0; c < ns; ++c) {
        const unsigned td = b[i + 6 + 2 * c] >> 4, ta = b[i + 6 + 2 * c] & 15;
        if (td > 3 || ta > 3) return false;
        if ((uses_dc && !defined[0][td]) || (uses_ac && !defined[1][ta])) {
          *why = "a scan uses a Huffman table that the file never defines";
          return false;
        }
      }
    }
    i += 2 + len;
    if (m == 0xda)  // the entropy-coded data runs to the next marker (0xFF 0x00 is a stuffed byte, RSTn inside)
      while (i + 1 < n && !(b[i] == 0xff && b[i + 1] != 0 && !(b[i + 1] >= 0xd0 && b[i + 1] <= 0xd7))) ++i;
  }
  return true;
}

// A PNG without its empty IDAT chunks (legal, but stb_image 2.27 then memcpy's 0 bytes to a null buffer, undefined
// behaviour that UBSan reports); false when there is none (the bytes are used as they are).
bool image_file_png_without_empty_idat(const uint8_t* b, size_t n, std::string* out) {
  bool found = false;
  for (size_t i = 8; i + 12 <= n;) {
    const uint64_t len = (uint64_t(b[i]) << 24) | (uint64_t(b[i + 1]) << 16) | (uint64_t(b[i + 2]) << 8) | b[i + 3];
    if (len == 0 && std::memcmp(b + i + 4, "IDAT", 4) == 0) {
      if (!found) out->assign(reinterpret_cast<const char*>(b), i);
      found = true;
      i += 12;
      continue;
    }
    const uint64_t next = std::min<uint64_t>(n, i + 12 + len);
    if (found) out->append(reinterpret_cast<const char*>(b) + i, static_cast<size_t>(next - i));
    i = static_cast<size_t>(next);
    if (found && i + 12 > n && i < n) out->append(reinterpret_cast<const char*>(b) + i, n - i);
  }
  return found;
}

// RGBA rotated / mirrored upright from EXIF orientation o (2–8), as browsers do.
void image_file_orient(DecodedImage* img, int o) {
  const int W = img->width, H = img->height;
  const bool swap = o >= 5;
  const int OW = swap ? H : W, OH = swap ? W : H;
  std::vector<uint8_t> dst(img->rgba.size());
  for (int y = 0; y < OH; ++y)
    for (int x = 0; x < OW; ++x) {
      int sx = x, sy = y;
      switch (o) {
        case 2: sx = W - 1 - x; break;
        case 3: sx = W - 1 - x; sy = H - 1 - y; break;
        case 4: sy = H - 1 - y; break;
        case 5: sx = y; sy = x; break;
        case 6: sx = y; sy = H - 1 - x; break;
        case 7: sx = W - 1 - y; sy = H - 1 - x; break;
        case 8: sx = W - 1 - y; sy = x; break;
        default: break;
      }
      std::memcpy(&dst[(static_cast<size_t>(y) * OW + x) * 4], &img->rgba[(static_cast<size_t>(sy) * W + sx) * 4], 4);
    }
  img->rgba.swap(dst);
  img->width = OW;
  img->height = OH;
  img->orientation = o;
}

bool image_file_decode_stb(const uint8_t* bytes, size_t size, const std::string& format, DecodedImage* out,
                           std::string* err) {
  const std::string name = format == "png" ? "PNG" : "JPEG";
  std::string filtered;
  if (format == "png" && image_file_png_without_empty_idat(bytes, size, &filtered)) {
    bytes = reinterpret_cast<const uint8_t*>(filtered.data());
    size = filtered.size();
  }
  if (size > static_cast<size_t>(INT_MAX)) {
    *err = "the " + name + " file is over 2 GiB";
    return false;
  }
  const int len = static_cast<int>(size);
  // The size in the header, checked before stb_image reads anything (its own limit would say only "too large").
  uint64_t hw = 0, hh = 0;
  if (format == "png" && size >= 24 && std::memcmp(bytes + 12, "IHDR", 4) == 0) {
    hw = (uint64_t(bytes[16]) << 24) | (uint64_t(bytes[17]) << 16) | (uint64_t(bytes[18]) << 8) | bytes[19];
    hh = (uint64_t(bytes[20]) << 24) | (uint64_t(bytes[21]) << 16) | (uint64_t(bytes[22]) << 8) | bytes[23];
  } else if (format == "jpeg") {
    image_file_jpeg_scan_start(bytes, size, nullptr, &hw, &hh);
  }
  if ((hw > 0 || hh > 0) && !image_file_check_size(hw, hh, err)) return false;
  int orientation = 1;
  if (format == "jpeg") {
    const size_t sos = image_file_jpeg_scan_start(bytes, size, &orientation);
    bool end = false;  // the end-of-image marker after the scans (0xFF 0xD9 never occurs inside entropy-coded data)
    for (size_t i = sos; sos > 0 && i + 1 < size && !end; ++i) end = bytes[i] == 0xff && bytes[i + 1] == 0xd9;
    if (!end) {
      *err = "truncated or corrupt JPEG file: no end-of-image marker after the image data";
      return false;
    }
    std::string why;
    if (!image_file_jpeg_tables_ok(bytes, size, &why)) {
      *err = "corrupt JPEG file (" + why + ")";
      return false;
    }
  }
  int w = 0, h = 0, comp = 0;
  image_file_alloc_cap = size_t{1} << 20;  // reading the header needs only the decoder's tables
  const int info_ok = stbi_info_from_memory(bytes, len, &w, &h, &comp);
  image_file_alloc_cap = 0;
  if (!info_ok) {
    *err = "corrupt " + name + " file: its header cannot be read (" + stbi_failure_reason() + ")";
    return false;
  }
  if (!check_image_size(w, h, err)) return false;  // before any pixel is decoded
  // Each buffer stb_image needs is at most the image at 16 bits x 4 channels, padded to whole 32-pixel MCUs,
  // plus the compressed data (≤ the file) and 1 MiB of tables.
  image_file_alloc_cap = (static_cast<size_t>(w) + 32) * (static_cast<size_t>(h) + 32) * 8 + size + (size_t{1} << 20);
  image_file_stb_inconsistent = false;
  unsigned char* px = stbi_load_from_memory(bytes, len, &w, &h, &comp, 4);
  image_file_alloc_cap = 0;
  if (px && image_file_stb_inconsistent) {
    stbi_image_free(px);
    *err = "corrupt " + name + " file (its compressed data do not match its own code tables)";
    return false;
  }
  if (!px) {
    *err = "corrupt " + name + " file (" + std::string(stbi_failure_reason()) + ")";
    return false;
  }
  out->rgba.assign(px, px + static_cast<size_t>(w) * h * 4);
  stbi_image_free(px);
  out->width = w;
  out->height = h;
  if (orientation > 1) image_file_orient(out, orientation);
  return true;
}

}  // namespace

std::string sniff_image_format(const uint8_t* b, size_t n) {
  if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) return "png";
  if (n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff) return "jpeg";
  if (n >= 2 && b[0] == 'P' && std::strchr("2356", b[1]) && b[1] != 0) return "pnm";
  return "";
}

int jpeg_exif_orientation(const uint8_t* bytes, size_t size) {
  if (sniff_image_format(bytes, size) != "jpeg") return 1;
  int orientation = 1;
  image_file_jpeg_scan_start(bytes, size, &orientation);
  return orientation;
}

bool decode_image(const uint8_t* bytes, size_t size, DecodedImage* out, std::string* error) {
  *out = DecodedImage{};
  const std::string format = sniff_image_format(bytes, size);
  if (format.empty()) {
    std::string what = "not a PNG, JPEG or PPM/PGM (P2, P3, P5, P6) file";
    if (size >= 6 && (std::memcmp(bytes, "GIF8", 4) == 0)) what = "a GIF: the CLI reads PNG, JPEG and PPM/PGM";
    else if (size >= 12 && std::memcmp(bytes, "RIFF", 4) == 0 && std::memcmp(bytes + 8, "WEBP", 4) == 0)
      what = "a WebP: the CLI reads PNG, JPEG and PPM/PGM";
    else if (size >= 2 && bytes[0] == 'B' && bytes[1] == 'M') what = "a BMP: the CLI reads PNG, JPEG and PPM/PGM";
    *error = what + "; convert it first (e.g. `convert photo.webp photo.png`)";
    return false;
  }
  out->format = format;
  const bool ok = format == "pnm" ? image_file_read_pnm(bytes, size, out, error)
                                  : image_file_decode_stb(bytes, size, format, out, error);
  if (!ok) {
    out->rgba.clear();
    out->width = out->height = 0;
  }
  return ok;
}

}  // namespace attnlab
