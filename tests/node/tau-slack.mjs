// How far a Kendall τ may move between two builds that agree on its input vectors to about 1e-7: each pair of
// positions whose values are within `eps` in either vector (a near-tie) can be ordered the other way by such a
// difference, and one flipped pair moves τ by at most 2 / P (P = n(n − 1) / 2 pairs). The native CLI and the wasm
// core differ at that level on some CPUs (-march=native: AVX2 + FMA here, AVX-512 on other hosts), so a τ over
// near-tied importances is compared with this slack and everything else exactly. Pure; used by the parity tests.
export function nearTiePairs(x, y, eps = 1e-6) {
  let k = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) if (Math.abs(x[i] - x[j]) < eps || Math.abs(y[i] - y[j]) < eps) k++;
  }
  return k;
}

export function tauSlack(x, y, eps = 1e-6) {
  const n = x.length, pairs = (n * (n - 1)) / 2;
  return pairs > 0 ? (2 * nearTiePairs(x, y, eps)) / pairs : 0;
}

// A HAN explanation's importance vector at one level ('sentence' | 'word', words of all sentences in order), as its
// Kendall τ reads it (integrated gradients by magnitude, as the core's).
export function hanLevelVector(r, level, measure) {
  const v = r[`${level}_${measure}`];
  const flat = level === 'word' ? v.flat() : v;
  return measure === 'integrated_gradients' ? flat.map(Math.abs) : flat;
}

// The two measures of a τ key ('attention_leave_one_out' → ['attention', 'leave_one_out']).
export function pairMeasures(pair) {
  for (const first of ['attention', 'gradient', 'leave_one_out', 'integrated_gradients']) {
    if (pair.startsWith(`${first}_`)) return [first, pair.slice(first.length + 1)];
  }
  return null;
}
