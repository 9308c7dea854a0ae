// gallery-thumbs.test.mjs — the Image tab's gallery buttons show small thumbnails, not the photos (issue 29: a cold
// open fetched 2.9 MB of photos for ten 64-px buttons): every GALLERY entry has web/images/thumbs/NAME.jpg, a 128 x 128
// JPEG of a few KB, whose colours are its photo's (mean RGB within 12 levels of the photo's centre square — so a
// thumbnail left from another photo fails: the negative control pairs each thumbnail with another photo).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { GALLERY, thumbOf } from '../../web/views/image/methods.js';

const WEB = path.resolve(import.meta.dirname, '../../web');

function decode(file) {
  const buf = fs.readFileSync(file);
  return file.endsWith('.png') ? PNG.sync.read(buf) : jpeg.decode(buf, { useTArray: true, maxMemoryUsageInMB: 512 });
}
// mean RGB of the centred square (what the thumbnail shows)
function centreMean({ width, height, data }) {
  const s = Math.min(width, height);
  const x0 = Math.floor((width - s) / 2);
  const y0 = Math.floor((height - s) / 2);
  const sum = [0, 0, 0];
  for (let y = y0; y < y0 + s; y += 2) for (let x = x0; x < x0 + s; x += 2) for (let c = 0; c < 3; c++) sum[c] += data[4 * (y * width + x) + c];
  const n = Math.ceil(s / 2) ** 2;
  return sum.map((v) => v / n);
}
const far = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));

test('every gallery photo has a 128 x 128 thumbnail of a few KB that shows that photo', () => {
  const means = [];
  for (const g of GALLERY) {
    const thumb = path.join(WEB, thumbOf(g));
    assert.ok(fs.existsSync(thumb), `${thumbOf(g)} is missing: run /usr/bin/python3 scripts/make-thumbnails.py`);
    assert.ok(fs.statSync(thumb).size < 16 * 1024, `${thumbOf(g)} is ${fs.statSync(thumb).size} bytes`);
    const t = decode(thumb);
    assert.deepEqual([t.width, t.height], [128, 128]);
    const tm = centreMean(t);
    const pm = centreMean(decode(path.join(WEB, 'images', g.file)));
    assert.ok(far(tm, pm) < 12, `${g.name}: thumbnail mean ${tm.map(Math.round)} vs photo ${pm.map(Math.round)}`);
    means.push({ tm, pm });
  }
  // negative control: paired with the next photo, most thumbnails do not match
  const swapped = means.filter((m, i) => far(m.tm, means[(i + 1) % means.length].pm) >= 12).length;
  assert.ok(swapped >= means.length / 2, `the colour check tells the photos apart (${swapped} of ${means.length} swapped pairs)`);
});
