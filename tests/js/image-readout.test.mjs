// image-readout.test.mjs — the Image lab's readouts (web/analysis/image-readout.js): the pointing game's chance
// level equals a brute-force count of the core's rule (a peak is a hit when a mask pixel lies within the
// tolerance, core/metrics/localization.cpp) over every pixel as the peak; the centre baseline; the sentences
// use the formatter (no exponent). Run: node --test tests/js/image-readout.test.mjs (< 1 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { maskFromRgba, pointingChance, peakText, maskDropText, spearmanText } from '../../web/analysis/image-readout.js';
import { looksRaw } from '../../web/analysis/format.js';

// The core's pointing game for a peak at (bx, by), written out as in localization.cpp.
function coreHit(mask, w, h, bx, by, tol) {
  const r = Math.floor(Math.max(0, tol));
  for (let y = Math.max(0, by - r); y <= Math.min(h - 1, by + r); y++) {
    for (let x = Math.max(0, bx - r); x <= Math.min(w - 1, bx + r); x++) {
      if ((y - by) ** 2 + (x - bx) ** 2 <= tol * tol && mask[y * w + x] === 1) return true;
    }
  }
  return false;
}
function brute(mask, w, h, tol) {
  let hits = 0;
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (coreHit(mask, w, h, x, y, tol)) hits++;
  return hits / (w * h);
}
function lcg(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

test('pointingChance equals the brute-force share of pixels whose peak would be a hit', () => {
  const rand = lcg(7);
  for (const [w, h] of [[20, 17], [9, 31], [40, 40]]) {
    for (const density of [0.002, 0.02, 0.2]) {
      const mask = new Uint8Array(w * h).map(() => (rand() < density ? 1 : 0));
      for (const tol of [0, 1, 1.5, 3, 7.9, 15]) {
        const got = pointingChance(mask, w, h, tol);
        assert.equal(got.chance, brute(mask, w, h, tol), `${w}×${h} density ${density} tol ${tol}`);
        assert.equal(got.maskShare, mask.reduce((a, b) => a + b, 0) / (w * h));
        assert.equal(got.centre.hit, coreHit(mask, w, h, Math.floor(w / 2), Math.floor(h / 2), tol));
      }
    }
  }
});

test('pointingChance: closed forms — a single pixel, an empty mask, a full mask', () => {
  const w = 224;
  const one = new Uint8Array(w * w);
  one[100 * w + 100] = 1;
  // the disk of radius 15 around an interior pixel: count lattice points with dx² + dy² ≤ 225
  let disk = 0;
  for (let dy = -15; dy <= 15; dy++) for (let dx = -15; dx <= 15; dx++) if (dx * dx + dy * dy <= 225) disk++;
  assert.equal(disk, 709);
  const r = pointingChance(one, w, w, 15);
  assert.equal(r.chance, 709 / (w * w));
  assert.equal(r.maskShare, 1 / (w * w));
  assert.equal(r.centre.x, 112);
  assert.equal(r.centre.hit, false, '(112, 112) is 12√2 ≈ 16.97 px from (100, 100)');
  one[105 * w + 110] = 1; // √(4 + 49) ≈ 7.3 px from the centre
  assert.equal(pointingChance(one, w, w, 15).centre.hit, true);
});

test('pointingChance: centre miss, empty and full masks', () => {
  const w = 224;
  const one = new Uint8Array(w * w);
  one[90 * w + 100] = 1; // (100, 90) is √(144 + 484) ≈ 25 px from (112, 112)
  assert.equal(pointingChance(one, w, w, 15).centre.hit, false);
  const empty = pointingChance(new Uint8Array(w * w), w, w, 15);
  assert.equal(empty.chance, 0);
  assert.equal(empty.centre.hit, false);
  const full = pointingChance(new Uint8Array(w * w).fill(1), w, w, 15);
  assert.equal(full.chance, 1);
  assert.equal(full.maskShare, 1);
  assert.ok(Number.isNaN(pointingChance(null, w, w, 15).chance));
});

test('maskFromRgba reads the white object of the mask display', () => {
  const rgba = new Uint8ClampedArray(2 * 2 * 4);
  rgba.set([255, 255, 255, 255], 4);
  assert.deepEqual([...maskFromRgba(rgba, 2)], [0, 1, 0, 0]);
  assert.deepEqual([...maskFromRgba(null, 2)], [0, 0, 0, 0]);
});

test('readout sentences: the peak in words, the mask drop in plain words, ρ with n and the n/a reason', () => {
  assert.equal(peakText({ x: 48, y: 112 }), 'hottest point at x = 48, y = 112 of the 224 × 224 crop the network sees (x from the left, y from the top)');
  assert.match(maskDropText(0.5, 0.8), /^confidence rose from 50\.0 % to 80\.0 % when only the highlighted region was kept$/);
  assert.match(maskDropText(0.8, 0.2), /^confidence fell from 80\.0 % to 20\.0 % .*\(75\.0 % of it lost\)$/);
  assert.match(maskDropText(0.9, 0.9), /stayed at 90\.0 %/);
  assert.match(maskDropText(2.5e-5, 3e-9), /from 0\.0025 % to < 0\.0001 %/);
  for (const s of [maskDropText(2.5e-5, 1e-12), peakText({ x: 1, y: 2 })]) assert.ok(!looksRaw(s), s);
  assert.deepEqual(spearmanText(0.4234, 50176), { text: 'ρ = 0.42 · n = 50,176 pixels', na: false, reason: '' });
  const na = spearmanText(NaN, 50176);
  assert.equal(na.text, 'ρ n/a · n = 50,176 pixels');
  assert.ok(na.na);
  assert.match(na.reason, /constant/);
});

test('curveDomain: the y axis of the deletion / insertion charts follows the data (issue 29)', async () => {
  const { curveDomain } = await import('../../web/analysis/image-readout.js');
  assert.deepEqual(curveDomain([0.95, 0.5, 0.1]), [0, 1], 'a confident class keeps 0–1');
  const [lo, hi] = curveDomain([0.004, 0.0061, 0.001]);
  assert.equal(lo, 0);
  assert.ok(hi >= 0.0061 * 1.1 && hi <= 0.01, `top ${hi} just above the data's 0.0061`);
  const [, mid] = curveDomain([0.3, 0.12]);
  assert.ok(mid >= 0.33 && mid <= 0.4, `${mid}`);
  assert.deepEqual(curveDomain([0, 0, NaN]), [0, 1], 'nothing to scale to: 0–1');
  assert.ok(curveDomain([1e-9])[1] >= 1e-6);
});

test('nearUniform: a warning when the top probability is below twice a uniform guess', async () => {
  const { nearUniform } = await import('../../web/analysis/image-readout.js');
  assert.equal(nearUniform(0.946, 1001), null);
  assert.equal(nearUniform(0.25, 10), null, '2.5 × chance is not near-uniform');
  const u = nearUniform(0.13, 10);
  assert.ok(u && Math.abs(u.ratio - 1.3) < 1e-9 && u.chance === 0.1);
  assert.match(u.text, /near-uniform: its top probability is 13\.0 %, only 1\.30 × the 10\.0 % of a uniform guess over 10 classes/);
  assert.equal(nearUniform(0.5, 1), null);
  assert.equal(nearUniform(NaN, 10), null);
});
