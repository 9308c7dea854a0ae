// val-test.test.mjs — the Localization lab's validation-vs-test sentence (web/analysis/val-test.js): silent within
// 3 points; the confounder named when p > 0; with p = 0 the standard error of the difference (checked against
// the closed form) and a warning when the gap exceeds 3 of them. Run: node --test tests/js/val-test.test.mjs (< 1 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valTestNote } from '../../web/analysis/val-test.js';
import { looksRaw } from '../../web/analysis/format.js';

test('within 3 points or missing values: no sentence', () => {
  assert.equal(valTestNote({ val: 0.95, valSize: 500, test: 0.93 }), '');
  assert.equal(valTestNote({ val: NaN, valSize: 500, test: 0.5 }), '');
  assert.equal(valTestNote(), '');
});

test('a confounded model: the validation set follows the training distribution, the test set is de-correlated', () => {
  const s = valTestNote({ val: 0.876, valSize: 500, test: 0.678, confounder: 0.95, confounded: 0.91 });
  assert.match(s, /^Validation 87\.6 % vs test 67\.8 %: the 500 validation images are drawn like the training images/);
  assert.match(s, /p = 0\.95/);
  assert.match(s, /de-correlated/);
  assert.match(s, /On confounded test images \(p = 0\.95\) the accuracy is 91\.0 %\.$/);
  assert.ok(!looksRaw(s), s);
});

test('no confounder: sampling, with the standard error of the difference', () => {
  // se = √(0.9·0.1/100 + 0.86·0.14/1000) = √(0.0009 + 0.0001204) = 0.03194 → 3.2 points; gap 4 < 3 se
  const s = valTestNote({ val: 0.9, valSize: 100, test: 0.86 });
  assert.match(s, /only sampling separates them — validation has 100 images, the test 1,000; the standard error of the difference is 3\.2 points\.$/);
  const big = valTestNote({ val: 0.98, valSize: 500, test: 0.9 });
  assert.match(big, /more than sampling explains/);
});
