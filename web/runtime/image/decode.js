// decode.js — a photo from a file to RGBA pixels, in a worker: the header read first (format, size, EXIF
// orientation), createImageBitmap with the orientation applied, no premultiplication, no colour conversion and
// a resize so the long side is at most MAX_SIDE (a huge photo never becomes a huge RGBA); and the pure helpers
// of the image lab. No DOM (OffscreenCanvas only in decodeBlob).
//
// Contract:
//   readImageHeader(bytes) → {format, width, height, orientation} | null
//   gifFrameCount(bytes) → the frames of a GIF's first bytes (0: not a GIF); an animated GIF gets a note
//   fitSize(w, h, maxSide) → {width, height, scaled}
//   argmax(a), topK(probs, k) → indices; planarToRgba(planar [3·H·W], H, W) → RGBA bytes
//   decodeBlob(blob, {allowResize}) → Promise<{rgba, width, height, notes}>; not an image / corrupt / an SVG
//     (never decoded: a document, not a photo) / over MAX_PIXELS → Error; a type that disagrees with the bytes
//     (a renamed file) is read by its bytes, with a note
//   describePixels(rgba, width, height, notes): adds notes (small, grayscale, transparent photo)
import { errText } from '../host/host.js';

export const MAX_SIDE = 1024;
export const MAX_PIXELS = 400e6; // refuse decoding beyond this (even with resizing, the decoder holds it)
export const S = 224;

const u16be = (b, i) => (b[i] << 8) | b[i + 1];
const u16le = (b, i) => b[i] | (b[i + 1] << 8);
const u32be = (b, i) => ((b[i] << 24) >>> 0) + (b[i + 1] << 16) + (b[i + 2] << 8) + b[i + 3];
const u32le = (b, i) => b[i] + (b[i + 1] << 8) + (b[i + 2] << 16) + ((b[i + 3] << 24) >>> 0);

function exifOrientation(b, start, end) {
  // start: the byte after 'Exif\0\0' (a TIFF header).
  if (start + 8 > end) return 1;
  const le = b[start] === 0x49 && b[start + 1] === 0x49;
  const be = b[start] === 0x4d && b[start + 1] === 0x4d;
  if (!le && !be) return 1;
  const r16 = (i) => (le ? u16le(b, i) : u16be(b, i));
  const r32 = (i) => (le ? u32le(b, i) : u32be(b, i));
  const ifd = start + r32(start + 4);
  if (ifd + 2 > end) return 1;
  const n = r16(ifd);
  for (let k = 0; k < n; k++) {
    const e = ifd + 2 + 12 * k;
    if (e + 12 > end) break;
    if (r16(e) === 0x0112) {
      const v = r16(e + 8);
      return v >= 1 && v <= 8 ? v : 1;
    }
  }
  return 1;
}

/** Format and size from the first bytes of a file (≥ 64 KB recommended for JPEG with big EXIF blocks).
 * → {format: 'png'|'jpeg'|'gif'|'webp'|'bmp', width, height, orientation (EXIF 1–8; 1 when none)} or null. */
export function readImageHeader(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const n = b.length;
  if (n >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    return { format: 'png', width: u32be(b, 16), height: u32be(b, 20), orientation: 1 };
  }
  if (n >= 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) {
    return { format: 'gif', width: u16le(b, 6), height: u16le(b, 8), orientation: 1 };
  }
  if (n >= 26 && b[0] === 0x42 && b[1] === 0x4d) {
    const h = u32le(b, 22) | 0;
    return { format: 'bmp', width: u32le(b, 18) | 0, height: Math.abs(h), orientation: 1 };
  }
  if (n >= 30 && u32be(b, 0) === 0x52494646 && u32be(b, 8) === 0x57454250) {
    const chunk = String.fromCharCode(b[12], b[13], b[14], b[15]);
    if (chunk === 'VP8 ') return { format: 'webp', width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, orientation: 1 };
    if (chunk === 'VP8L') {
      const [b0, b1, b2, b3] = [b[21], b[22], b[23], b[24]];
      return { format: 'webp', width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0xf) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)), orientation: 1 };
    }
    if (chunk === 'VP8X') {
      return { format: 'webp', width: 1 + (b[24] | (b[25] << 8) | (b[26] << 16)), height: 1 + (b[27] | (b[28] << 8) | (b[29] << 16)), orientation: 1 };
    }
    return null;
  }
  if (n >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    let orientation = 1;
    while (i + 4 <= n) {
      if (b[i] !== 0xff) return null; // not at a marker: corrupt
      let m = b[i + 1];
      if (m === 0xff) { i += 1; continue; } // fill byte
      if (m === 0xd8 || (m >= 0xd0 && m <= 0xd7) || m === 0x01) { i += 2; continue; }
      const len = u16be(b, i + 2);
      if (len < 2) return null;
      if (m === 0xe1 && i + 10 <= n && b[i + 4] === 0x45 && b[i + 5] === 0x78 && b[i + 6] === 0x69 && b[i + 7] === 0x66) {
        orientation = exifOrientation(b, i + 10, Math.min(n, i + 2 + len));
      }
      const sof = m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;
      if (sof) {
        if (i + 9 > n) return null;
        return { format: 'jpeg', width: u16be(b, i + 7), height: u16be(b, i + 5), orientation };
      }
      if (m === 0xda) return null; // scan before a frame header
      i += 2 + len;
    }
    return null;
  }
  return null;
}

/** The number of frames of a GIF (its image descriptors), reading the block structure of the bytes given
 * (a prefix: frames past its end are not counted); 0 when the bytes are not a well-formed GIF start. */
export function gifFrameCount(bytes) {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (b.length < 13 || b[0] !== 0x47 || b[1] !== 0x49 || b[2] !== 0x46) return 0;
  let i = 13;
  if (b[10] & 0x80) i += 3 * (1 << ((b[10] & 7) + 1)); // global colour table
  const skipSubBlocks = () => {
    while (i < b.length && b[i] !== 0) i += 1 + b[i];
    i += 1;
  };
  let frames = 0;
  while (i < b.length) {
    const tag = b[i];
    if (tag === 0x3b) break; // trailer
    if (tag === 0x21) { // extension: label, then data sub-blocks
      i += 2;
      skipSubBlocks();
    } else if (tag === 0x2c) { // image descriptor (10 bytes), local colour table, LZW code size, data
      if (i + 10 > b.length) break;
      frames++;
      const packed = b[i + 9];
      i += 10;
      if (packed & 0x80) i += 3 * (1 << ((packed & 7) + 1));
      i += 1;
      skipSubBlocks();
    } else break; // not a block: corrupt or cut
  }
  return frames;
}

const FORMAT_OF_TYPE = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/bmp': 'bmp' };

/** The size to decode at: the long side at most maxSide, aspect kept, at least 1 px. */
export function fitSize(width, height, maxSide = MAX_SIDE) {
  const long = Math.max(width, height);
  if (long <= maxSide) return { width, height, scaled: false };
  const s = maxSide / long;
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)), scaled: true };
}

export function argmax(a) {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
  return best;
}

export function topK(probs, k = 5) {
  const idx = Array.from(probs.keys());
  idx.sort((a, b) => probs[b] - probs[a] || a - b);
  return idx.slice(0, k);
}

/** Planar RGB float [3,H,W] in 0–255 → RGBA bytes [H*W*4]. */
export function planarToRgba(planar, H = S, W = S) {
  const n = H * W;
  const out = new Uint8ClampedArray(n * 4);
  for (let i = 0; i < n; i++) {
    out[4 * i] = planar[i];
    out[4 * i + 1] = planar[n + i];
    out[4 * i + 2] = planar[2 * n + i];
    out[4 * i + 3] = 255;
  }
  return out;
}

export async function decodeBlob(blob, { allowResize = true } = {}) {
  const notes = [];
  const prefix = new Uint8Array(await blob.slice(0, 1 << 20).arrayBuffer());
  const head = readImageHeader(prefix);
  if (!head && (!blob.type || !blob.type.startsWith('image/'))) {
    throw new Error('This file is not an image the page can read (PNG, JPEG, GIF, WebP or BMP).');
  }
  if (!head && (blob.type === 'image/svg+xml' || /^\s*</.test(new TextDecoder().decode(prefix.subarray(0, 256))))) {
    // never decoded: an SVG is a document (it may hold scripts), not a photo
    throw new Error('This is an SVG drawing (or another text file), not a photo: the page reads PNG, JPEG, GIF, WebP or BMP.');
  }
  const opts = { imageOrientation: 'from-image', premultiplyAlpha: 'none', colorSpaceConversion: 'none' };
  if (head) {
    if (!(head.width > 0 && head.height > 0)) throw new Error('This image file is corrupt: its header gives no size.');
    if (head.width * head.height > MAX_PIXELS) {
      throw new Error(`This image is too large to decode (${head.width}×${head.height} px; the limit is ${MAX_PIXELS / 1e6} megapixels).`);
    }
    const swap = head.orientation >= 5;
    const w = swap ? head.height : head.width;
    const h = swap ? head.width : head.height;
    const fit = fitSize(w, h);
    if (fit.scaled && allowResize) {
      opts.resizeWidth = fit.width;
      opts.resizeHeight = fit.height;
      opts.resizeQuality = 'high';
      notes.push(`A large photo (${w}×${h} px): decoded at ${fit.width}×${fit.height} before preprocessing.`);
    }
    if (head.orientation !== 1) notes.push(`Rotated upright from its EXIF orientation (${head.orientation}).`);
    const said = FORMAT_OF_TYPE[blob.type];
    if (said && said !== head.format) {
      notes.push(`The file says it is ${said.toUpperCase()} (${blob.type}) but its bytes are ${head.format.toUpperCase()}: it was read as ${head.format.toUpperCase()}.`);
    }
    if (head.format === 'gif') {
      const frames = gifFrameCount(prefix);
      if (frames > 1) notes.push(`An animated GIF (${frames}${prefix.length < blob.size ? '+' : ''} frames): only its first frame is classified and explained.`);
    }
  }
  let bitmap;
  try {
    bitmap = await createImageBitmap(blob, opts);
  } catch (e) {
    if (!head) {
      throw new Error(`This file is not an image the page can read: its bytes are not PNG, JPEG, GIF, WebP or BMP, whatever its name or type says (${blob.type}; ${errText(e)}).`);
    }
    throw new Error(`This image could not be decoded — the file is corrupt or in a format this browser cannot read (${errText(e)}).`);
  }
  const { width, height } = bitmap;
  if (!head && Math.max(width, height) > MAX_SIDE) {
    // no header to read the size from: scale the decoded bitmap down
    const fit = fitSize(width, height);
    const small = await createImageBitmap(bitmap, { resizeWidth: fit.width, resizeHeight: fit.height, resizeQuality: 'high' });
    bitmap.close();
    bitmap = small;
  }
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(bitmap, 0, 0);
  const rgba = new Uint8Array(ctx.getImageData(0, 0, bitmap.width, bitmap.height).data.buffer);
  const out = { rgba, width: bitmap.width, height: bitmap.height, notes };
  bitmap.close();
  return out;
}

export function describePixels(rgba, width, height, notes) {
  let gray = true;
  let alpha = false;
  for (let i = 0; i < rgba.length; i += 4) {
    if (gray && (rgba[i] !== rgba[i + 1] || rgba[i] !== rgba[i + 2])) gray = false;
    if (!alpha && rgba[i + 3] !== 255) alpha = true;
    if (!gray && alpha) break;
  }
  if (Math.min(width, height) < S) {
    notes.push(`A small photo (${width}×${height} px): enlarged to fill 224×224, so the model sees a blurred picture.`);
  }
  if (gray) notes.push('A grayscale photo: the model gets the same value in R, G and B.');
  if (alpha) notes.push('A transparent photo: composited over white.');
}

