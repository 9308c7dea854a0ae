// image-files.mjs — image files built byte by byte for the browser tests (no image library needed for these):
// valid PNGs of any size (pngSolid: RGBA rows from a function; pngSingleColour: a huge one-colour PNG whose
// 30000×30000 pixels never exist in memory) and an animated GIF (gifAnimated: n solid frames, LZW
// written with a clear code every two pixels so every code stays 3 bits wide).
import zlib from 'node:zlib';

const CRC = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
function crc32(buf) {
  let c = -1;
  for (const b of buf) c = CRC[(c ^ b) & 255] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
function ihdr(width, height, colorType) {
  const h = Buffer.alloc(13);
  h.writeUInt32BE(width, 0);
  h.writeUInt32BE(height, 4);
  h.set([8, colorType, 0, 0, 0], 8);
  return chunk('IHDR', h);
}

/** An 8-bit RGBA PNG whose every row is [rgba(0), …, rgba(width − 1)]. */
export function pngSolid(width, height, rgba) {
  const row = Buffer.alloc(1 + width * 4);
  for (let x = 0; x < width; x++) row.set(rgba(x), 1 + 4 * x);
  const raw = Buffer.alloc(row.length * height);
  for (let y = 0; y < height; y++) row.copy(raw, y * row.length);
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height, 6), chunk('IDAT', zlib.deflateSync(raw, { level: 1 })), chunk('IEND', Buffer.alloc(0))]);
}

/** A valid 8-bit RGB PNG of one colour, any size, built in milliseconds: the first row holds the colour, every
 * other row is filter "Up" with zero differences. The zlib stream is deflated in pieces of 100 rows, each
 * ending in a full flush (no reference before it), so the identical middle pieces are compressed once and
 * repeated; the Adler-32 of the 3·w·h raw bytes is computed row by row in closed form. */
export function pngSingleColour(width, height, [r, g, b]) {
  const rowBytes = 1 + 3 * width;
  const first = Buffer.alloc(rowBytes);
  for (let x = 0; x < width; x++) first.set([r, g, b], 1 + 3 * x);
  const upRows = (n) => {
    const buf = Buffer.alloc(rowBytes * n);
    for (let i = 0; i < n; i++) buf[i * rowBytes] = 2;
    return buf;
  };
  const piece = (buf) => zlib.deflateRawSync(buf, { level: 9, memLevel: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const PER = 100;
  const rest = height - 1;
  const parts = [piece(first)];
  const full = Math.floor(rest / PER);
  if (full > 0) {
    const same = piece(upRows(PER));
    for (let k = 0; k < full; k++) parts.push(same);
  }
  if (rest % PER) parts.push(piece(upRows(rest % PER)));
  parts.push(zlib.deflateRawSync(Buffer.alloc(0))); // the final (empty) block
  // Adler-32: a = 1 + Σ bytes, b = Σ of the running a, both mod 65521
  const MOD = 65521;
  let a = 1;
  let s = 0;
  for (const v of first) {
    a = (a + v) % MOD;
    s = (s + a) % MOD;
  }
  for (let y = 1; y < height; y++) {
    a = (a + 2) % MOD; // the filter byte
    s = (s + a) % MOD;
    s = (s + ((rowBytes - 1) % MOD) * a) % MOD; // the zero differences leave a unchanged
  }
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((s << 16) | a) >>> 0);
  const idat = Buffer.concat([Buffer.from([0x78, 0xda]), ...parts, adler]);
  return Buffer.concat([PNG_SIGNATURE, ihdr(width, height, 2), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** An animated GIF89a (loops forever, 0.5 s a frame): frame k is one solid colour, colours[k] an index into
 * the 4-entry palette (black, red, green, blue). */
export function gifAnimated(width, height, colours) {
  const out = [];
  const u16 = (v) => [v & 255, v >> 8];
  out.push(...Buffer.from('GIF89a'), ...u16(width), ...u16(height), 0xf1, 0, 0); // global table of 4 colours
  out.push(0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255);
  out.push(0x21, 0xff, 11, ...Buffer.from('NETSCAPE2.0'), 3, 1, 0, 0, 0); // loop forever
  for (const c of colours) {
    out.push(0x21, 0xf9, 4, 0, 50, 0, 0, 0); // graphic control: 0.5 s
    out.push(0x2c, 0, 0, 0, 0, ...u16(width), ...u16(height), 0);
    // LZW, minimum code size 2: clear = 4, end = 5; a clear after every two pixels keeps codes 3 bits wide
    const codes = [4];
    for (let p = 0; p < width * height; p++) {
      codes.push(c);
      if (p % 2 === 1) codes.push(4);
    }
    codes.push(5);
    const bytes = [];
    let acc = 0;
    let bits = 0;
    for (const code of codes) {
      acc |= code << bits;
      bits += 3;
      while (bits >= 8) {
        bytes.push(acc & 255);
        acc >>= 8;
        bits -= 8;
      }
    }
    if (bits) bytes.push(acc & 255);
    out.push(2);
    for (let i = 0; i < bytes.length; i += 255) {
      const block = bytes.slice(i, i + 255);
      out.push(block.length, ...block);
    }
    out.push(0);
  }
  out.push(0x3b);
  return Buffer.from(out);
}
