// contrast.test.mjs — text on coloured cells reaches WCAG AA (4.5 : 1) over the whole of both token colour
// scales (web/render/colors.js), sampled at 1,001 points each. Run: node --test tests/js/contrast.test.mjs (< 1 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sequentialColor, divergingColor, contrastRatio, luminance, rankScale, logScale } from '../../web/render/colors.js';

const rgbOf = (css) => css.match(/\d+/g).slice(0, 3).map(Number);
const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));

test('contrastRatio matches WCAG reference values', () => {
  assert.ok(Math.abs(contrastRatio([0, 0, 0], [255, 255, 255]) - 21) < 1e-9);
  assert.ok(Math.abs(contrastRatio([255, 255, 255], [255, 255, 255]) - 1) < 1e-9);
  // #767676 on white is the classic 4.54 : 1
  assert.ok(Math.abs(contrastRatio(hex('#767676'), [255, 255, 255]) - 4.54) < 0.01);
  assert.ok(luminance([255, 255, 255]) === 1);
});

test('every cell colour of both scales has text at ≥ 4.5 : 1', () => {
  let worst = Infinity;
  for (let i = 0; i <= 1000; i++) {
    const t = i / 1000;
    for (const c of [sequentialColor(t), divergingColor(2 * t - 1)]) {
      const r = contrastRatio(rgbOf(c.background), hex(c.foreground));
      worst = Math.min(worst, r);
      assert.ok(r >= 4.5, `t=${t}: ${c.background} with ${c.foreground} is ${r.toFixed(2)} : 1`);
    }
  }
  assert.ok(worst >= 4.5);
});

test('negative control: the old rule (white below luminance 0.3, else #1a1a1a) fails somewhere', () => {
  let fails = 0;
  for (let i = 0; i <= 1000; i++) {
    for (const c of [sequentialColor(i / 1000), divergingColor(2 * i / 1000 - 1)]) {
      const bg = rgbOf(c.background);
      const old = luminance(bg) < 0.3 ? [255, 255, 255] : hex('#1a1a1a');
      if (contrastRatio(bg, old) < 4.5) fails++;
    }
  }
  assert.ok(fails > 0, 'the old rule had cells below 4.5 : 1 (e.g. white on the IG red)');
});

test('rank and log scales', () => {
  assert.deepEqual(rankScale([0.1, 0.7, 0.2], false), [0, 1, 0.5]);
  assert.deepEqual(rankScale([0.5, 0.5], false), [0.5, 0.5], 'ties share their rank');
  assert.deepEqual(rankScale([-0.3, 0.1, 0.2], true), [-1, 0, 0.5]);
  assert.equal(logScale(1, 1), 1);
  assert.equal(logScale(0, 1), 0);
  assert.ok(logScale(0.001, 1) > 0.09 && logScale(0.001, 1) < 0.11, 'a value 1/1000 of the max is still visible');
  assert.ok(logScale(-0.5, 1) < 0);
});
