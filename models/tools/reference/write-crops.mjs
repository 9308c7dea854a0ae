#!/usr/bin/env node
// write-crops.mjs — writes the uint8 input crops the Python int8 reference reads (development-time fixture tool).
//
// Usage: node models/tools/reference/write-crops.mjs --data ../shared/data --out DIR [--demo] [--samples [STEP]]
//   --demo:    the lossless PNG demo photos cat, bird, dragonfly, grace_hopper, sunflower (images/*.png)
//   --samples: imagenet_samples photos (every STEP-th, default 1 = all 1000; shorter side 256) with their labels
// Each crop is the exact centre 224×224 window (left = floor((W − 224)/2), top = floor((H − 224)/2); no resampling),
// written as DIR/NAME.bin (224·224·3 bytes, HWC RGB); DIR/crops.json lists them for tflite_int8_reference.py.
import fs from 'node:fs';
import path from 'node:path';
import { decodeImageFile, centerCropRgb, centerCropBox, readImagenetSamples } from '../../../scripts/lib/image-files.mjs';

export const DEMO_PHOTOS = ['cat.png', 'bird.png', 'dragonfly.png', 'grace_hopper.png', 'sunflower.png'];

const argv = process.argv.slice(2);
const get = (k) => { const i = argv.indexOf(k); return i >= 0 ? argv[i + 1] : undefined; };
const data = get('--data'), out = get('--out');
if (!data || !out) { console.error('usage: write-crops.mjs --data DIR --out DIR [--demo] [--samples [STEP]]'); process.exit(1); }
fs.mkdirSync(out, { recursive: true });
const items = [];
const add = (name, source, file, label) => {
  const im = decodeImageFile(file);
  const crop = centerCropBox(im.width, im.height, 224);
  const bin = path.join(out, `${name}.bin`);
  fs.writeFileSync(bin, centerCropRgb(im.rgba, im.width, im.height, 224));
  items.push({ name, source, width: im.width, height: im.height, crop, bin: path.resolve(bin), label });
};
if (argv.includes('--demo')) for (const f of DEMO_PHOTOS) add(f.replace(/\.png$/, ''), `images/${f}`, path.join(data, 'images', f), null);
if (argv.includes('--samples')) {
  const s = get('--samples');
  const step = s && !s.startsWith('--') ? Number(s) : 1;
  readImagenetSamples(data).forEach((x, i) => {
    if (i % step === 0) add(path.basename(x.name, '.jpg'), `imagenet_samples/${x.name}`, x.file, x.coralIndex);
  });
}
fs.writeFileSync(path.join(out, 'crops.json'), JSON.stringify({ size: 224, items }, null, 1) + '\n');
console.log(`${items.length} crops → ${out}`);
