// llama2c-reference.mjs — an independent reference of llama2.c's forward (run.c's math, one position at a time with a
// key/value cache, in float64), reading the v0 checkpoint directly; no ONNX involved. Used to check the graph that
// models/tools/llama2c-to-onnx.mjs writes (models/tools/check-stories260k.mjs, tests/node/stories260k.test.mjs).
// Exported:
//   loadReference(binBytes)        → model {cfg, ...weights as Float64Array, [out, in] row-major}
//   referenceLogits(model, ids)    → Array of T Float64Array(vocab): the logits after each position
//   readVocab(tokBytes)            → Array of Uint8Array pieces (tok*.bin: int32 max_len; per token f32 score, i32 len, bytes)
//   decodePieces(vocab, ids)       → string: ids[0] is BOS; a piece right after BOS loses its leading space; "<0xXX>" → byte
//   referenceGreedy(model, steps)  → ids from BOS, argmax at each position, stopping at BOS (as run.c) or EOS

export function loadReference(binBytes) {
  const dv = new DataView(binBytes.buffer, binBytes.byteOffset, binBytes.byteLength);
  const hdr = Array.from({ length: 7 }, (_, i) => dv.getInt32(4 * i, true));
  const [dim, hidden, layers, heads, kvHeads, vocabSigned, seqLen] = hdr;
  const vocab = Math.abs(vocabSigned), hs = dim / heads, kvDim = (dim * kvHeads) / heads;
  let off = 28;
  const take = (n) => {
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++, off += 4) a[i] = dv.getFloat32(off, true);
    return a;
  };
  const m = { cfg: { dim, hidden, layers, heads, kvHeads, vocab, seqLen, hs, kvDim } };
  m.emb = take(vocab * dim);
  m.rmsAtt = take(layers * dim);
  m.wq = take(layers * dim * dim);
  m.wk = take(layers * kvDim * dim);
  m.wv = take(layers * kvDim * dim);
  m.wo = take(layers * dim * dim);
  m.rmsFfn = take(layers * dim);
  m.w1 = take(layers * hidden * dim);
  m.w2 = take(layers * dim * hidden);
  m.w3 = take(layers * hidden * dim);
  m.rmsFinal = take(dim);
  off += 4 * seqLen * hs; // freq_cis_real, freq_cis_imag (unused: computed below as run.c does)
  m.wcls = vocabSigned > 0 ? m.emb : take(vocab * dim);
  return m;
}

// out[i] = Σ_j W[base + i·n + j] x[j]   (W is (d, n) row-major: run.c's matmul)
function matvec(W, base, x, n, d) {
  const out = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    let s = 0;
    const r = base + i * n;
    for (let j = 0; j < n; j++) s += W[r + j] * x[j];
    out[i] = s;
  }
  return out;
}

function rmsnorm(x, w, base) {
  let ss = 0;
  for (const v of x) ss += v * v;
  const k = 1 / Math.sqrt(ss / x.length + 1e-5);
  return x.map((v, j) => w[base + j] * (k * v));
}

/** A decoder with its key/value cache: step(token) runs the next position and returns its logits. */
export function referenceDecoder(m) {
  const { dim, hidden, layers, heads, kvHeads, hs, kvDim } = m.cfg;
  const kvMul = heads / kvHeads;
  const keyCache = Array.from({ length: layers }, () => []), valueCache = Array.from({ length: layers }, () => []);
  let pos = 0;
  const step = (token) => {
    let x = Float64Array.from(m.emb.subarray(token * dim, (token + 1) * dim));
    for (let l = 0; l < layers; l++) {
      const xb = rmsnorm(x, m.rmsAtt, l * dim);
      const q = matvec(m.wq, l * dim * dim, xb, dim, dim);
      const k = matvec(m.wk, l * kvDim * dim, xb, dim, kvDim);
      const v = matvec(m.wv, l * kvDim * dim, xb, dim, kvDim);
      // rotary: pair (i, i+1) of each head turned by pos · 10000^(−(i mod hs)/hs)
      for (let i = 0; i < dim; i += 2) {
        const freq = 1 / Math.pow(10000, (i % hs) / hs), val = pos * freq, c = Math.cos(val), s = Math.sin(val);
        for (const vec of i < kvDim ? [q, k] : [q]) {
          const a = vec[i], b = vec[i + 1];
          vec[i] = a * c - b * s;
          vec[i + 1] = a * s + b * c;
        }
      }
      keyCache[l].push(k);
      valueCache[l].push(v);
      const att = new Float64Array(dim);
      for (let h = 0; h < heads; h++) {
        const kh = Math.floor(h / kvMul) * hs;
        const scores = new Float64Array(pos + 1);
        let mx = -Infinity;
        for (let t = 0; t <= pos; t++) {
          let s = 0;
          for (let i = 0; i < hs; i++) s += q[h * hs + i] * keyCache[l][t][kh + i];
          scores[t] = s / Math.sqrt(hs);
          mx = Math.max(mx, scores[t]);
        }
        let sum = 0;
        for (let t = 0; t <= pos; t++) { scores[t] = Math.exp(scores[t] - mx); sum += scores[t]; }
        for (let t = 0; t <= pos; t++) {
          const a = scores[t] / sum;
          for (let i = 0; i < hs; i++) att[h * hs + i] += a * valueCache[l][t][kh + i];
        }
      }
      const o = matvec(m.wo, l * dim * dim, att, dim, dim);
      x = x.map((vx, j) => vx + o[j]);
      const hb = rmsnorm(x, m.rmsFfn, l * dim);
      const g = matvec(m.w1, l * hidden * dim, hb, dim, hidden);
      const u = matvec(m.w3, l * hidden * dim, hb, dim, hidden);
      const hh = g.map((a, i) => (a / (1 + Math.exp(-a))) * u[i]);
      const f = matvec(m.w2, l * dim * hidden, hh, hidden, dim);
      x = x.map((vx, j) => vx + f[j]);
    }
    const xf = rmsnorm(x, m.rmsFinal, 0);
    pos++;
    return matvec(m.wcls, 0, xf, dim, m.cfg.vocab);
  };
  return { step };
}

export function referenceLogits(m, ids) {
  const dec = referenceDecoder(m);
  return ids.map((t) => dec.step(t));
}

export function readVocab(tokBytes) {
  const dv = new DataView(tokBytes.buffer, tokBytes.byteOffset, tokBytes.byteLength);
  const pieces = [];
  let off = 4;
  while (off + 8 <= tokBytes.byteLength) {
    const len = dv.getInt32(off + 4, true);
    off += 8;
    pieces.push(tokBytes.subarray(off, off + len));
    off += len;
  }
  return pieces;
}

export function decodePieces(vocab, ids) {
  const bytes = [];
  for (let i = 1; i < ids.length; i++) {
    let p = vocab[ids[i]];
    const s = new TextDecoder('latin1').decode(p);
    const raw = /^<0x([0-9A-Fa-f]{2})>$/.exec(s);
    if (raw) { bytes.push(parseInt(raw[1], 16)); continue; }
    if (ids[i - 1] === 1 && p[0] === 0x20) p = p.subarray(1);
    bytes.push(...p);
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

export function argmax(a) {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
  return best;
}

/** Greedy from BOS, `steps` positions as run.c counts them (each forward yields one token). */
export function referenceGreedy(m, steps) {
  const ids = [1];
  const dec = referenceDecoder(m);
  for (let pos = 0; pos < steps; pos++) {
    const next = argmax(dec.step(ids[ids.length - 1]));
    if (next === 1 || next === 2) break;
    ids.push(next);
  }
  return ids;
}
