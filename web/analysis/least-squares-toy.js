// least-squares-toy.js — the seed material's least-squares argument as a simulation (pure; no DOM, works in
// Node). Model: x ~ N(0, s²·I) (d independent inputs), y = wᵀx (the true weights w), but the learner only
// sees z = x + ε with ε_i ~ N(0, σ_i²) independent of x. Least squares of y on z then converges to
//     ŵ_i = w_i · s² / (s² + σ_i²) = w_i · (1/σ_i²) / (1/σ_i² + 1/s²)
// (regression dilution: Cov(z_i, y) = w_i s², Var(z_i) = s² + σ_i², and the z_i are uncorrelated), so the
// weight on an input shrinks as its noise variance grows — the model "attends" to what is reliable.
//
// Contract:
//   createRng(seed) → () => uniform in [0, 1) (mulberry32; seed an integer ≥ 0)
//   normal(rng) → one N(0, 1) draw (Box–Muller)
//   expectedWeights(variances, weights, signalVar = 1) → the limit above, per input
//   simulate({ variances, weights, n, seed, signalVar = 1 }) → { Z: Float64Array[n·d] (row-major), y: Float64Array[n] }
//       — one seeded stream: the first n samples are the same for any longer n
//   fitLeastSquares(Z, y, d) → Float64Array[d] (normal equations, no intercept, Gaussian elimination with
//       partial pivoting; throws when fewer than d samples or the system is singular)
//   growingFits({ variances, weights, sizes, seed, signalVar = 1 }) → [{ n, w: Float64Array[d] }] — the fit on
//       the first n samples of one stream, for each n in sizes (ascending)
// Bad input (non-finite or negative variances, lengths that disagree, n < 1) → a clear Error.
export function createRng(seed) {
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function normal(rng) {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

function checkInputs(variances, weights, signalVar) {
  if (!Array.isArray(variances) && !ArrayBuffer.isView(variances)) throw new Error('variances must be an array');
  if (variances.length < 1) throw new Error('variances must have at least one entry');
  if (weights.length !== variances.length) {
    throw new Error(`weights has ${weights.length} entries but variances has ${variances.length}`);
  }
  for (const v of variances) if (!(Number.isFinite(v) && v >= 0)) throw new Error(`a noise variance must be a finite number ≥ 0, got ${v}`);
  for (const w of weights) if (!Number.isFinite(w)) throw new Error(`a weight must be finite, got ${w}`);
  if (!(Number.isFinite(signalVar) && signalVar > 0)) throw new Error(`signalVar must be > 0, got ${signalVar}`);
}

export function expectedWeights(variances, weights, signalVar = 1) {
  checkInputs(variances, weights, signalVar);
  return Float64Array.from(variances, (v, i) => (weights[i] * signalVar) / (signalVar + v));
}

export function simulate({ variances, weights, n, seed = 1, signalVar = 1 }) {
  checkInputs(variances, weights, signalVar);
  if (!(Number.isInteger(n) && n >= 1)) throw new Error(`n must be a positive integer, got ${n}`);
  const d = variances.length;
  const rng = createRng(seed);
  const Z = new Float64Array(n * d);
  const y = new Float64Array(n);
  const s = Math.sqrt(signalVar);
  for (let k = 0; k < n; k++) {
    let t = 0;
    for (let i = 0; i < d; i++) {
      const x = s * normal(rng);
      t += weights[i] * x;
      Z[k * d + i] = x + Math.sqrt(variances[i]) * normal(rng);
    }
    y[k] = t;
  }
  return { Z, y };
}

export function fitLeastSquares(Z, y, d, n = y.length) {
  if (!(Number.isInteger(d) && d >= 1)) throw new Error(`d must be a positive integer, got ${d}`);
  if (Z.length < n * d || y.length < n) throw new Error(`Z must hold n·d = ${n * d} values and y n = ${n}`);
  if (n < d) throw new Error(`least squares needs at least d = ${d} samples, got ${n}`);
  // A = ZᵀZ | Zᵀy, solved in place.
  const A = Array.from({ length: d }, () => new Float64Array(d + 1));
  for (let k = 0; k < n; k++) {
    const row = k * d;
    for (let i = 0; i < d; i++) {
      const zi = Z[row + i];
      for (let j = 0; j < d; j++) A[i][j] += zi * Z[row + j];
      A[i][d] += zi * y[k];
    }
  }
  for (let c = 0; c < d; c++) {
    let p = c;
    for (let r = c + 1; r < d; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    if (!(Math.abs(A[p][c]) > 1e-12 * Math.max(1, Math.abs(A[c][c])))) throw new Error('the least-squares system is singular');
    [A[c], A[p]] = [A[p], A[c]];
    for (let r = 0; r < d; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      if (f !== 0) for (let j = c; j <= d; j++) A[r][j] -= f * A[c][j];
    }
  }
  return Float64Array.from({ length: d }, (_, i) => A[i][d] / A[i][i]);
}

export function growingFits({ variances, weights, sizes, seed = 1, signalVar = 1 }) {
  if (!Array.isArray(sizes) || sizes.length === 0) throw new Error('sizes must be a non-empty array');
  for (let i = 1; i < sizes.length; i++) if (!(sizes[i] > sizes[i - 1])) throw new Error('sizes must be ascending');
  const d = variances.length;
  const { Z, y } = simulate({ variances, weights, n: sizes[sizes.length - 1], seed, signalVar });
  return sizes.map((n) => ({ n, w: fitLeastSquares(Z, y, d, n) }));
}
