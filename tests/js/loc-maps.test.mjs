// loc-maps.test.mjs — the pure pixel helpers of web/render/loc-maps.js and the view's URL → trainer options.
import test from 'node:test';
import assert from 'node:assert/strict';
import { planarToRgba, minmax, mapToRgba } from '../../web/render/loc-maps.js';
import { parse } from '../../web/state.js';

test('planarToRgba: planar [3,S,S] floats in [0,1] → RGBA bytes, k-th image by offset', () => {
  const S = 2, P = 4;
  const planar = new Float32Array(2 * 3 * P);
  for (let i = 0; i < planar.length; i++) planar[i] = (i % 5) / 4;
  const rgba = planarToRgba(planar, S, 3 * P);
  assert.equal(rgba.length, 16);
  for (let i = 0; i < P; i++) {
    assert.equal(rgba[4 * i], Math.round(planar[3 * P + i] * 255));
    assert.equal(rgba[4 * i + 1], Math.round(planar[3 * P + P + i] * 255));
    assert.equal(rgba[4 * i + 2], Math.round(planar[3 * P + 2 * P + i] * 255));
    assert.equal(rgba[4 * i + 3], 255);
  }
});

test('minmax: normalises a slice to [0, 1]; a constant map gives zeros', () => {
  assert.deepEqual(Array.from(minmax(Float32Array.from([9, 2, 4, 6, 9]), 1, 3)), [0, 0.5, 1]);
  assert.deepEqual(Array.from(minmax(Float32Array.from([3, 3, 3]))), [0, 0, 0]);
});

test('mapToRgba: the ramp ends and alpha grows with the value', () => {
  const c = mapToRgba(Float32Array.from([0, 1, 0.5]));
  assert.deepEqual(Array.from(c.subarray(0, 3)), [13, 8, 135]);
  assert.deepEqual(Array.from(c.subarray(4, 7)), [240, 249, 33]);
  assert.ok(c[3] < c[11] && c[11] < c[7]);
});

test('state: localization fields parse with defaults and bounds', async () => {
  const { trainOptions, RECIPES } = await import('../../web/views/localization-view.js');
  const s = parse('#view=localization&lochead=gmp&loccbam=stage2&locconf=95&locepochs=99&locseed=7&locrecipe=bogus');
  assert.equal(s.lochead, 'gmp');
  assert.equal(s.loccbam, 'stage2');
  assert.equal(s.locconf, 95);
  assert.equal(s.locepochs, 30);
  assert.equal(s.locrecipe, 'page');
  if (trainOptions) {
    const o = trainOptions(s);
    assert.equal(o.confounder, 0.95);
    assert.equal(o.seed, 7);
    assert.deepEqual(o.widths, RECIPES.page.widths);
  }
});
