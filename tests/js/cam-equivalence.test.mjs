// web/analysis/cam-equivalence.js on hand-computed cases (the CAM identity and Grad-CAM's factor), with the
// controls that must show a mismatch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { camEquivalence, formatEquivalence, probeEquivalences } from '../../web/analysis/cam-equivalence.js';

test('mean of CAM + bias, and the Grad-CAM factor on the K=2, 2×2 example', () => {
  // class 0 of tests/core/test_image_head.cpp's Tiny: cam = [1, 0, 1, 4], Grad-CAM = ReLU(cam)/4
  const e = camEquivalence({ cam: [1, 0, 1, 4], bias: 0.1, logit: 1.6, gradcam: [0.25, 0, 0.25, 1] });
  assert.equal(e.camMean, 1.5);
  assert.ok(Math.abs(e.camPlusBias - 1.6) < 1e-12);
  assert.ok(Math.abs(e.difference) < 1e-12);
  assert.equal(e.gradcam.scale, 0.25);
  assert.equal(e.gradcam.expected, 0.25);
  assert.equal(e.gradcam.maxDeviation, 0);
  assert.equal(e.gradcam.positive, 3);
  const f = formatEquivalence(e);
  assert.equal(f.logit, '1.6000');
  assert.equal(f.camPlusBias, '1.6000');
  assert.match(f.line, /class score \(logit\) = 1\.6000; mean of CAM \+ bias = 1\.5000 \+ 0\.1000 = 1\.6000/);
  assert.match(f.scaleLine, /Grad-CAM = 0\.2500 × ReLU\(CAM\) \(1\/4 = 0\.2500: 1 over the 4 positions; largest deviation below 0\.01 % of the peak\)/);
});

test('negative values: Grad-CAM is zero there and the factor ignores them; a non-proportional map shows', () => {
  const e = camEquivalence({ cam: [-2, 2, 6, -1], bias: -1, logit: 0.25, gradcam: [0, 0.5, 1.5, 0], hw: 4 });
  assert.equal(e.camMean, 1.25);
  assert.equal(e.camPlusBias, 0.25);
  assert.equal(e.gradcam.scale, 0.25);
  assert.equal(e.gradcam.maxDeviation, 0);
  assert.match(formatEquivalence(e).line, /mean of CAM \+ bias = 1\.2500 − 1\.0000 = 0\.2500$/);
  // control: a Grad-CAM that is not ReLU(cam)·s (a value where cam < 0) gives a deviation
  const bad = camEquivalence({ cam: [-2, 2, 6, -1], bias: -1, logit: 0.25, gradcam: [0.3, 0.5, 1.5, 0] });
  assert.ok(bad.gradcam.maxDeviation > 0.1);
  // control: the wrong logit shows as a difference
  assert.equal(camEquivalence({ cam: [1, 0, 1, 4], bias: 0.1, logit: 2 }).difference.toFixed(4), '-0.4000');
});

test('bad input is an Error', () => {
  assert.throws(() => camEquivalence({ cam: [], bias: 0, logit: 0 }), /empty/);
  assert.throws(() => camEquivalence({ cam: [1, NaN], bias: 0, logit: 0 }), /cam\[1\]/);
  assert.throws(() => camEquivalence({ cam: [1], bias: undefined, logit: 0 }), /bias/);
  assert.throws(() => camEquivalence({ cam: [1, 2], bias: 0, logit: 0, gradcam: [1] }), /positions/);
});

test('probeEquivalences reads the Localization probes', () => {
  const probes = { n: 2, cam: { h: 1, w: 2, data: Float32Array.from([1, 3, -2, 0]) }, logits: [2.5, -1], biases: [0.5, 0] };
  const eq = probeEquivalences(probes);
  assert.equal(eq.length, 2);
  assert.equal(eq[0].camPlusBias, 2.5);
  assert.equal(eq[1].camPlusBias, -1);
  assert.deepEqual(probeEquivalences({ n: 1, cam: probes.cam }), []);
});
