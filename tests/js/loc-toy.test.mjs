// loc-toy.test.mjs — web/analysis/least-squares-toy.js against the closed form w_i·s²/(s² + σ_i²).
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  createRng, normal, expectedWeights, simulate, fitLeastSquares, growingFits,
} from '../../web/analysis/least-squares-toy.js';

test('toy: least squares recovers exact weights on noise-free, hand-made data', () => {
  // y = 2 z0 − 3 z1 exactly.
  const Z = Float64Array.from([1, 0, 0, 1, 1, 1, 2, -1, 0.5, 3]);
  const y = Float64Array.from([2, -3, -1, 7, -8]);
  const w = fitLeastSquares(Z, y, 2);
  assert.ok(Math.abs(w[0] - 2) < 1e-12 && Math.abs(w[1] + 3) < 1e-12, `got ${w}`);
});

test('toy: the closed form shrinks with the variance and is w at σ² = 0', () => {
  const e = expectedWeights([0, 1, 3, 9], [1, 1, 2, -1], 1);
  assert.deepEqual(Array.from(e), [1, 0.5, 0.5, -0.1]);
  const s2 = expectedWeights([1], [1], 4);
  assert.equal(s2[0], 0.8);
});

test('toy: fitted weights converge to the closed form as the data grows', () => {
  const variances = [0.1, 0.5, 1, 4];
  const weights = [1, 1, 1, 1];
  const want = expectedWeights(variances, weights);
  const fits = growingFits({ variances, weights, sizes: [20, 200, 20000, 200000], seed: 7 });
  const err = fits.map((f) => Math.max(...Array.from(f.w, (v, i) => Math.abs(v - want[i]))));
  assert.ok(err[3] < 0.01, `n = 200000: max error ${err[3]}`);
  assert.ok(err[3] < err[0], `error should fall with n: ${err}`);
  // The ordering the toy is about: noisier input, smaller weight.
  const w = fits[3].w;
  for (let i = 1; i < w.length; i++) assert.ok(w[i] < w[i - 1], `weights not decreasing: ${Array.from(w)}`);
});

test('toy: simulation is seeded and a longer sample extends a shorter one', () => {
  const a = simulate({ variances: [1, 2], weights: [1, -1], n: 50, seed: 3 });
  const b = simulate({ variances: [1, 2], weights: [1, -1], n: 80, seed: 3 });
  const c = simulate({ variances: [1, 2], weights: [1, -1], n: 50, seed: 4 });
  assert.deepEqual(Array.from(a.Z), Array.from(b.Z.subarray(0, 100)));
  assert.notDeepEqual(Array.from(a.Z), Array.from(c.Z));
  const rng = createRng(1);
  let m = 0, v = 0;
  const N = 20000;
  for (let k = 0; k < N; k++) {
    const x = normal(rng);
    m += x;
    v += x * x;
  }
  assert.ok(Math.abs(m / N) < 0.03 && Math.abs(v / N - 1) < 0.05, `normal: mean ${m / N}, var ${v / N}`);
});

test('toy: bad input gives clear errors', () => {
  assert.throws(() => expectedWeights([1, -1], [1, 1]), /noise variance must be a finite number ≥ 0/);
  assert.throws(() => expectedWeights([1, 2], [1]), /weights has 1 entries but variances has 2/);
  assert.throws(() => simulate({ variances: [1], weights: [1], n: 0 }), /n must be a positive integer/);
  assert.throws(() => fitLeastSquares(new Float64Array(2), new Float64Array(1), 2), /at least d = 2 samples/);
  assert.throws(() => fitLeastSquares(new Float64Array(4), new Float64Array(2), 2), /singular/);
  assert.throws(() => growingFits({ variances: [1], weights: [1], sizes: [10, 5] }), /ascending/);
});
