// image-files.mjs — Node-only image helpers for tests, tools and the eval script (never used by the page).
//
//   decodeImageFile(path) → { rgba: Uint8Array [H*W*4], width, height }   JPEG (jpeg-js) or PNG (pngjs; grey,
//       grey+alpha and palette PNGs come out expanded to RGBA; 16-bit PNGs are reduced to 8 bits).
//   centerCropRgb(rgba, width, height, size = 224) → Uint8Array [size*size*3] HWC RGB: the exact centre
//       window (no resampling), left = floor((width − size)/2), top = floor((height − size)/2); alpha is dropped
//       after compositing over white. Throws if the image is smaller than size.
//   centerCropBox(width, height, size = 224) → { left, top, size }
//   hwcToChw255(u8, size = 224) → Float32Array [3*size*size] planar RGB, values 0–255 (the model input).
//   readImagenetSamples(dataDir) → [{ file (absolute path), name, coralIndex, imagenetIndex, label }] from
//       dataDir/imagenet_samples/labels.tsv (dataDir = ../shared/data).

import fs from 'node:fs';
import path from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/** Decodes a JPEG or PNG file (by its signature, not its name) to RGBA. */
export function decodeImageFile(file) {
  const buf = fs.readFileSync(file);
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) {
    const img = jpeg.decode(buf, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
    return { rgba: new Uint8Array(img.data.buffer, img.data.byteOffset, img.data.byteLength), width: img.width, height: img.height };
  }
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47) {
    // pngjs expands palette / grey / grey+alpha to RGBA and reduces 16-bit to 8-bit with these options
    const img = PNG.sync.read(buf, { skipRescale: false });
    const data = img.data;
    if (data.length !== img.width * img.height * 4) throw new Error(`${file}: unexpected PNG decode size`);
    return { rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: img.width, height: img.height };
  }
  throw new Error(`${file}: not a JPEG or PNG file`);
}

export function centerCropBox(width, height, size = 224) {
  if (width < size || height < size) throw new Error(`image ${width}×${height} is smaller than the ${size}×${size} crop`);
  return { left: Math.floor((width - size) / 2), top: Math.floor((height - size) / 2), size };
}

/** Exact centre size×size window of an RGBA image → HWC RGB bytes (alpha composited over white). */
export function centerCropRgb(rgba, width, height, size = 224) {
  if (rgba.length !== width * height * 4) throw new Error(`rgba has ${rgba.length} bytes, expected ${width}·${height}·4`);
  const { left, top } = centerCropBox(width, height, size);
  const out = new Uint8Array(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const s = ((top + y) * width + left + x) * 4, d = (y * size + x) * 3;
      const a = rgba[s + 3];
      for (let k = 0; k < 3; k++) out[d + k] = a === 255 ? rgba[s + k] : Math.round((rgba[s + k] * a + 255 * (255 - a)) / 255);
    }
  }
  return out;
}

/** HWC RGB bytes → planar float32 0–255. */
export function hwcToChw255(u8, size = 224) {
  const n = size * size;
  if (u8.length !== 3 * n) throw new Error(`expected ${3 * n} bytes, got ${u8.length}`);
  const out = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) out[k * n + i] = u8[3 * i + k];
  return out;
}

/** The 1000 ImageNet sample photos and their model output index (coral index = ImageNet index + 1). */
export function readImagenetSamples(dataDir) {
  const dir = path.join(dataDir, 'imagenet_samples');
  const lines = fs.readFileSync(path.join(dir, 'labels.tsv'), 'utf8').split('\n').filter((l) => l.length);
  const head = lines[0].split('\t');
  const col = (n) => { const i = head.indexOf(n); if (i < 0) throw new Error(`labels.tsv: no column ${n}`); return i; };
  const [cf, ci, cc, cl] = [col('file'), col('imagenet_index'), col('coral_index'), col('label')];
  return lines.slice(1).map((l) => {
    const f = l.split('\t');
    return { file: path.join(dir, f[cf]), name: f[cf], imagenetIndex: Number(f[ci]), coralIndex: Number(f[cc]), label: f[cl] };
  });
}
