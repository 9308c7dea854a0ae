// histogram.test.mjs — web/analysis/histogram.js: fixed-width binning (edges, outside values, degenerate
// domains) and order statistics (median, quantiles, mean).
import test from 'node:test';
import assert from 'node:assert/strict';
import { histogram, extent, quantile, median, mean } from '../../web/analysis/histogram.js';

test('bins are half-open, the last bin is closed', () => {
  const h = histogram([0, 0.1, 0.5, 0.99, 1], { domain: [0, 1], bins: 2 });
  assert.deepEqual(h.bins.map((b) => [b.x0, b.x1, b.count]), [[0, 0.5, 2], [0.5, 1, 3]]);
  assert.equal(h.n, 5);
  assert.equal(h.outside, 0);
});

test('tau on [-1, 1] in 20 bins: edges land where expected', () => {
  const h = histogram([-1, -0.85, 0, 0.049, 0.1, 1], { domain: [-1, 1], bins: 20 });
  assert.equal(h.bins.length, 20);
  assert.equal(h.bins[0].count, 1); // -1
  assert.equal(h.bins[1].count, 1); // -0.85
  assert.equal(h.bins[10].count, 2); // 0 and 0.049
  assert.equal(h.bins[11].count, 1); // 0.1
  assert.equal(h.bins[19].count, 1); // 1 (closed last bin)
  assert.equal(h.bins.reduce((a, b) => a + b.count, 0), 6);
});

test('non-finite values are ignored; out-of-domain values are counted, not binned', () => {
  const h = histogram([NaN, null, undefined, Infinity, 'x', 2, -0.1, 0.5], { domain: [0, 1], bins: 4 });
  assert.equal(h.n, 1);
  assert.equal(h.outside, 2);
});

test('degenerate domains: all-equal data still gives bins; reversed domain is swapped', () => {
  const h = histogram([0, 0, 0], { domain: [0, 0], bins: 5 });
  assert.equal(h.n, 3);
  assert.ok(h.bins[0].x1 > h.bins[0].x0);
  assert.equal(h.bins[0].count, 3);
  const r = histogram([0.25], { domain: [1, 0], bins: 2 });
  assert.equal(r.bins[0].x0, 0);
  assert.equal(r.bins[0].count, 1);
  const d = histogram([1, 2, 3], { bins: 2 }); // domain from the data
  assert.equal(d.n, 3);
  assert.equal(histogram([], { bins: 3 }).n, 0);
});

test('extent, quantile, median, mean', () => {
  assert.deepEqual(extent([3, NaN, -1, 2]), [-1, 3]);
  assert.equal(extent([NaN]), null);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(quantile([1, 2, 3, 4, 5], 0), 1);
  assert.equal(quantile([1, 2, 3, 4, 5], 1), 5);
  assert.equal(quantile([1, 2, 3, 4, 5], 0.25), 2);
  assert.ok(Number.isNaN(median([])));
  assert.equal(mean([1, 2, NaN, 3]), 2);
  assert.ok(Number.isNaN(mean([])));
});
