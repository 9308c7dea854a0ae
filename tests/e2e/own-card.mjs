// own-card.mjs — what the browser tests of "Your model" (the Images tab's last card) share: the demo cat as a PPM for
// `build/attnlab explain-onnx` (the photo the page shows, in a format the CLI reads without the page's decoder), the
// CLI's last JSON line, the relative difference of two maps, and waiting for the card's map.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';

// web/images/cat.png as DIR/cat.ppm (RGB, alpha dropped); → the file's path.
export function catPpm(repo, dir) {
  const png = PNG.sync.read(fs.readFileSync(path.join(repo, 'web/images/cat.png')));
  const rgb = Buffer.alloc(png.width * png.height * 3);
  for (let i = 0; i < png.width * png.height; i++) for (let c = 0; c < 3; c++) rgb[3 * i + c] = png.data[4 * i + c];
  const file = path.join(dir, 'cat.ppm');
  fs.writeFileSync(file, Buffer.concat([Buffer.from(`P6\n${png.width} ${png.height}\n255\n`), rgb]));
  return file;
}

export const lastJson = (text) => JSON.parse(text.trim().split('\n').pop());

// max |a − b| / max |b| (Infinity when the lengths differ).
export function relErr(a, b) {
  let d = 0, s = 0;
  for (let i = 0; i < b.length; i++) { d = Math.max(d, Math.abs(a[i] - b[i])); s = Math.max(s, Math.abs(b[i])); }
  return a.length === b.length ? d / (s || 1) : Infinity;
}

// Waits until the card shows `method`'s map (or a message, which fails the test); → the canvas's dataset.
export async function waitOwnMap(page, method, timeout) {
  await page.waitForFunction((m) => {
    const c = document.getElementById('own-canvas');
    const s = document.getElementById('own-model').dataset.status;
    return (c.dataset.method === m && c.dataset.peakX && s === 'ready') || !document.getElementById('own-message').hidden;
  }, method, { timeout });
  const msg = await page.evaluate(() => document.getElementById('own-message').textContent);
  assert.equal(msg, '', `the panel failed: ${msg}`);
  return page.evaluate(() => ({ ...document.getElementById('own-canvas').dataset }));
}
