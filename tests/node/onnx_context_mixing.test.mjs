// Context mixing on a user's ONNX transformer (issue 30): `attnlab explain-onnx-text`'s value_zeroing and alti rows,
// whose values, residual Adds and block outputs the core finds in the graph (core/explain/onnx/residual_stream.h),
// against an independent reference: ONNX Runtime Web (wasm EP, 1 thread) on the same model.onnx, instrumented, with the
// tensors named by the torch module that made them (the exporter keeps the module scope in the node names):
//   value zeroing: a mask multiplied into each layer's value projection (zeroing position j's row there zeroes its
//     value vector in every head) and each layer's output exposed — bert-sst2 (post-LN): /m/layers.l/ln2; gpt2-sst2
//     (pre-LN): the residual sum after the FFN, /layers.l/Add_3 (the last layer's too: ln_f is not part of the block);
//     C_l[i, j] = 1 − cos(out_l[i], out_l[i] with v_j zeroed), computed here in double;
//   ALTI: each layer's attention distribution fed as an input (the Softmax's consumers read it), the attention
//     sublayer's output projection (/attention/dense), its input (the skip) and the residual sum exposed; the share of
//     source j = dense(A kept in column j) − dense(A = 0), plus x_j at j; bert-sst2 through the LayerNorm that follows
//     (ln1: γ from its initializer, σ from the sum, ε from the node), gpt2-sst2 as is; C_l[i, j] = max(0, ‖ȳ_i‖₁ −
//     ‖ȳ_i − T̃_i(x_j)‖₁), computed here.
// Both: rows normalised, rolled out from the explained position (BERT: [CLS], 0; the causal LM: the last token).
// Tolerance: max |Δ| ≤ 2e-5 · max |reference| (float32 tensors on both sides). Negative controls, the same comparison
// required to fail: value zeroing with BERT's outputs read before their LayerNorm (/m/layers.l/Add_2) and GPT-2's last
// output read after ln_f; ALTI on BERT without the LayerNorm (the sum itself), and on GPT-2 with the output projection's
// bias counted in every share.
// The exported sst2-transformer's rows equal the native path's (tests/node/onnx_text_parity.test.mjs).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import onnxPkg from 'onnx-proto';
import * as ort from 'onnxruntime-web';

const { onnx } = onnxPkg;
ort.env.wasm.numThreads = 1;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIX = path.join(ROOT, 'tests/fixtures/onnx-text');
const CLI = process.env.ATTNLAB_CLI ? path.resolve(process.env.ATTNLAB_CLI) : path.join(ROOT, 'build/attnlab');
const skip = fs.existsSync(CLI) ? false : `${CLI} missing`;
const TEXT = 'a gorgeous, witty, seductive movie that never quite delivers.';
const LAYERS = 4;
const lastJson = (text) => JSON.parse(text.trim().split('\n').pop());

const session = (bytes) => ort.InferenceSession.create(bytes);
function feedsFor(sess, ids) {
  const int = (v) => new ort.Tensor('int64', BigInt64Array.from(v, BigInt), [1, v.length]);
  const feeds = { input_ids: int(ids), attention_mask: int(ids.map(() => 1)) };
  if (sess.inputNames.includes('token_type_ids')) feeds.token_type_ids = int(ids.map(() => 0));
  return feeds;
}
const exposeOutput = (g, name) => {
  assert.ok(g.node.some((n) => n.output.includes(name)), `${name} is in the graph`);
  if (!g.output.some((o) => o.name === name)) g.output.push(onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: 1 } } }));
};
const normaliseRows = (C) => {
  for (const r of C) {
    const s = r.reduce((a, b) => a + b, 0);
    if (s > 0) for (let j = 0; j < r.length; j++) r[j] /= s;
  }
};
// C_L[e, :] · C_{L−1} ··· C_1, null at e.
function rollout(C, e) {
  const T = C[0].length;
  let r = C[C.length - 1][e];
  for (let l = C.length - 2; l >= 0; l--) r = [...Array(T).keys()].map((j) => r.reduce((acc, v, i) => acc + v * C[l][i][j], 0));
  return r.map((v, t) => (t === e ? null : v));
}
const rows = (data, T) => [...Array(T).keys()].map((i) => Array.from(data.subarray((i * data.length) / T, ((i + 1) * data.length) / T)));

// ---- value zeroing: input vzm<l> [1, T, 1] multiplied into `value(l)`, `output(l)` exposed for every layer.
function vzGraph(file, value, output) {
  const m = onnx.ModelProto.decode(fs.readFileSync(file));
  const g = m.graph;
  for (let l = 0; l < LAYERS; l++) {
    const v = value(l);
    const masked = `${v}__vz`;
    for (const n of g.node) n.input = n.input.map((i) => (i === v ? masked : i));
    const at = g.node.findIndex((n) => n.output.includes(v));
    assert.ok(at >= 0, `${v} is in the graph`);
    g.node.splice(at + 1, 0, onnx.NodeProto.create({ opType: 'Mul', name: `vz_mul_${l}`, input: [v, `vzm${l}`], output: [masked] }));
    g.input.push(onnx.ValueInfoProto.create({ name: `vzm${l}`, type: { tensorType: { elemType: 1 } } }));
    exposeOutput(g, output(l));
  }
  return onnx.ModelProto.encode(m).finish();
}

async function valueZeroing(bytes, ids, output, e) {
  const sess = await session(bytes);
  const T = ids.length;
  const feeds = feedsFor(sess, ids);
  const masks = (l, j) => Object.fromEntries([...Array(LAYERS).keys()].map((k) =>
    [`vzm${k}`, new ort.Tensor('float32', Float32Array.from({ length: T }, (_, t) => (k === l && t === j ? 0 : 1)), [1, T, 1])]));
  const run = async (l, j) => (await sess.run({ ...feeds, ...masks(l, j) }))[output(l)].data;
  const C = [];
  for (let l = 0; l < LAYERS; l++) {
    const base = rows(await run(l, -1), T);
    const c = [...Array(T)].map(() => new Array(T).fill(0));
    for (let j = 0; j < T; j++) {
      const z = rows(await run(l, j), T);
      for (let i = 0; i < T; i++) {
        let ab = 0, aa = 0, bb = 0;
        z[i].forEach((a, k) => { const b = base[i][k]; ab += a * b; aa += a * a; bb += b * b; });
        c[i][j] = 1 - ab / Math.sqrt(aa * bb);
      }
    }
    normaliseRows(c);
    C.push(c);
  }
  return rollout(C, e);
}

// ---- ALTI: input A<l> replaces each layer's Softmax output; the skip, the branch (dense) and the sum exposed.
function altiGraph(file, c) {
  const m = onnx.ModelProto.decode(fs.readFileSync(file));
  const g = m.graph;
  for (let l = 0; l < LAYERS; l++) {
    const sm = c.softmax(l);
    for (const n of g.node) n.input = n.input.map((i) => (i === sm ? `A${l}` : i));
    g.input.push(onnx.ValueInfoProto.create({ name: `A${l}`, type: { tensorType: { elemType: 1 } } }));
    for (const v of [c.skip(l), c.branch(l), c.sum(l), ...(c.ln ? [`${c.ln(l)}_output_0`] : [])]) exposeOutput(g, v);
  }
  return { bytes: onnx.ModelProto.encode(m).finish(), model: m };
}
const initializer = (m, name) => {
  const t = m.graph.initializer.find((i) => i.name === name);
  assert.ok(t, `${name} is an initializer`);
  const raw = Buffer.from(t.rawData);
  return Float32Array.from({ length: raw.length / 4 }, (_, k) => raw.readFloatLE(4 * k));
};

async function alti(file, ids, c, e, { withLayerNorm = true, subtractBias = true } = {}) {
  const T = ids.length;
  const plainM = onnx.ModelProto.decode(fs.readFileSync(file));
  for (let l = 0; l < LAYERS; l++) exposeOutput(plainM.graph, c.softmax(l));
  const plain = await session(onnx.ModelProto.encode(plainM).finish());
  const orig = await plain.run(feedsFor(plain, ids));
  const { bytes, model } = altiGraph(file, c);
  const sess = await session(bytes);
  const feeds = feedsFor(sess, ids);
  const A = [...Array(LAYERS).keys()].map((l) => orig[c.softmax(l)]);
  const run = async (l, keep) => {
    const a = A.map((t, k) => {
      if (k !== l || keep === 'all') return t;
      const d = Float32Array.from(t.data, (v, q) => (keep >= 0 && q % T === keep ? v : 0));
      return new ort.Tensor('float32', d, t.dims);
    });
    return sess.run({ ...feeds, ...Object.fromEntries(a.map((t, k) => [`A${k}`, t])) });
  };
  const C = [];
  for (let l = 0; l < LAYERS; l++) {
    const all = await run(l, 'all');
    const x = rows(all[c.skip(l)].data, T), y = rows(all[c.sum(l)].data, T);
    const zero = rows((await run(l, -1))[c.branch(l)].data, T);
    let ybar = y, scale = null;
    if (c.ln && withLayerNorm) {
      const node = model.graph.node.find((n) => n.name === c.ln(l));
      const gamma = initializer(model, node.input[1]);
      const eps = node.attribute.find((a) => a.name === 'epsilon')?.f ?? 1e-5;
      scale = y.map((v) => {
        const mu = v.reduce((a, b) => a + b, 0) / v.length;
        const sigma = Math.sqrt(v.reduce((a, b) => a + (b - mu) ** 2, 0) / v.length + eps);
        return Array.from(gamma, (g) => g / sigma);
      });
      ybar = rows(all[`${c.ln(l)}_output_0`].data, T);
    }
    const cl = [...Array(T)].map(() => new Array(T).fill(0));
    for (let j = 0; j < T; j++) {
      const fj = rows((await run(l, j))[c.branch(l)].data, T);
      for (let i = 0; i < T; i++) {
        let t = fj[i].map((v, k) => v - (subtractBias ? zero[i][k] : 0) + (i === j ? x[i][k] : 0));
        if (scale) {
          const mu = t.reduce((a, b) => a + b, 0) / t.length;
          t = t.map((v, k) => scale[i][k] * (v - mu));
        }
        const l1 = (v) => v.reduce((a, b) => a + Math.abs(b), 0);
        cl[i][j] = Math.max(0, l1(ybar[i]) - l1(ybar[i].map((v, k) => v - t[k])));
      }
    }
    normaliseRows(cl);
    C.push(cl);
  }
  return rollout(C, e);
}

const relDiff = (got, ref) => {
  let max = 0, scale = 0;
  for (let t = 0; t < ref.length; t++) {
    if (ref[t] === null) { assert.equal(got[t], null, `position ${t}: null`); continue; }
    max = Math.max(max, Math.abs(got[t] - ref[t]));
    scale = Math.max(scale, Math.abs(ref[t]));
  }
  return max / scale;
};

const CASES = [
  { name: 'bert-sst2', causal: false, value: (l) => `/m/layers.${l}/attention/value/Add_output_0`,
    output: (l) => `/m/layers.${l}/ln2/LayerNormalization_output_0`, vzControl: (l) => `/m/layers.${l}/Add_2_output_0`,
    softmax: (l) => `/m/layers.${l}/attention/Softmax_output_0`,
    skip: (l) => (l === 0 ? '/m/emb_ln/LayerNormalization_output_0' : `/m/layers.${l - 1}/ln2/LayerNormalization_output_0`),
    branch: (l) => `/m/layers.${l}/attention/dense/Add_output_0`, sum: (l) => `/m/layers.${l}/Add_output_0`,
    ln: (l) => `/m/layers.${l}/ln1/LayerNormalization`, altiControl: { withLayerNorm: false } },
  { name: 'gpt2-sst2', causal: true, value: (l) => `/layers.${l}/attention/value/Add_output_0`,
    output: (l) => `/layers.${l}/Add_3_output_0`,
    vzControl: (l) => (l === LAYERS - 1 ? '/ln_f/LayerNormalization_output_0' : `/layers.${l}/Add_3_output_0`),
    softmax: (l) => `/layers.${l}/attention/Softmax_output_0`,
    skip: (l) => (l === 0 ? '/Add_output_0' : `/layers.${l - 1}/Add_3_output_0`),
    branch: (l) => `/layers.${l}/attention/dense/Add_output_0`, sum: (l) => `/layers.${l}/Add_output_0`,
    ln: null, altiControl: { subtractBias: false } },
];

for (const c of CASES) {
  test(`${c.name}: value zeroing and ALTI through the executor equal ONNX Runtime's on the modules' tensors`, { skip, timeout: 300_000 }, async () => {
    const dir = path.join(FIX, c.name);
    const got = lastJson(execFileSync(CLI, ['explain-onnx-text', '--model', dir, '--text', TEXT, '--ig-steps', '0', '--no-loo'],
      { encoding: 'utf8', maxBuffer: 256 << 20 }));
    assert.equal(got.value_zeroing_note, undefined);
    assert.equal(got.alti_note, undefined);
    assert.deepEqual(got.context_mixing_found.layer_outputs, [...Array(LAYERS).keys()].map(c.output), 'the block outputs found are the modules\'');
    assert.equal(got.context_mixing_found.post_norm, !c.causal);
    const e = c.causal ? got.ids.length - 1 : 0;
    const file = path.join(dir, 'model.onnx');
    const vz = relDiff(got.value_zeroing, await valueZeroing(vzGraph(file, c.value, c.output), got.ids, c.output, e));
    const vzWrong = relDiff(got.value_zeroing, await valueZeroing(vzGraph(file, c.value, c.vzControl), got.ids, c.vzControl, e));
    const al = relDiff(got.alti, await alti(file, got.ids, c, e));
    const alWrong = relDiff(got.alti, await alti(file, got.ids, c, e, c.altiControl));
    console.log(`# ${c.name} vs ONNX Runtime: value zeroing ${vz.toExponential(2)} (control ${vzWrong.toExponential(2)}), ` +
      `ALTI ${al.toExponential(2)} (control ${alWrong.toExponential(2)})`);
    assert.ok(vz <= 2e-5, `${c.name} value zeroing: max |Δ| / max |ref| = ${vz}`);
    assert.ok(vzWrong > 2e-5, `${c.name} value zeroing control: ${vzWrong} must exceed the tolerance`);
    assert.ok(al <= 2e-5, `${c.name} ALTI: max |Δ| / max |ref| = ${al}`);
    assert.ok(alWrong > 2e-5, `${c.name} ALTI control: ${alWrong} must exceed the tolerance`);
  });
}
