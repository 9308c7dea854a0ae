// Value zeroing on a user's ONNX transformer (issue 30): `attnlab explain-onnx-text`'s value_zeroing row, whose values
// and block outputs the core finds in the graph (core/explain/onnx/residual_stream.h), against an independent
// reference: ONNX Runtime Web (wasm EP, 1 thread) on the same model.onnx with a mask multiplied into each layer's value
// projection (zeroing position j's row there zeroes its value vector in every head) and each layer's output exposed,
// both named by the torch module that made them (the exporter keeps the module scope in the node names):
//   bert-sst2 (post-LN, BERT-shaped): the output of layer l is its second LayerNorm, /m/layers.l/ln2;
//   gpt2-sst2 (pre-LN, GPT-2-shaped): the residual sum after the FFN, /layers.l/Add_3 (the last layer's too: ln_f is
//     not part of the block).
// The reference computes Mohebbi et al.'s C_l[i, j] = 1 − cos(out_l[i], out_l[i] with v_j zeroed) in double here,
// normalises the rows and rolls out from the explained position (BERT: [CLS], 0; the causal LM: the last token).
// Tolerance: max |Δ| ≤ 2e-5 · max |reference| (float32 outputs on both sides). Negative controls, the same comparison
// required to fail: BERT's outputs read before their LayerNorm (/m/layers.l/Add_2: the pre-LN reading), and GPT-2's
// last output read after ln_f.
// The exported sst2-transformer's value zeroing equals the native path's (tests/node/onnx_text_parity.test.mjs).
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

// model.onnx with input vzm<l> [1, T, 1] multiplied into `value(l)` and `output(l)` exposed for every layer.
function instrumented(file, value, output) {
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
    assert.ok(g.node.some((n) => n.output.includes(output(l))), `${output(l)} is in the graph`);
    g.output.push(onnx.ValueInfoProto.create({ name: output(l), type: { tensorType: { elemType: 1 } } }));
  }
  return onnx.ModelProto.encode(m).finish();
}

// Value zeroing rolled out from position e, through ONNX Runtime.
async function reference(bytes, ids, output, e) {
  const session = await ort.InferenceSession.create(bytes);
  const T = ids.length;
  const int = (v) => new ort.Tensor('int64', BigInt64Array.from(v, BigInt), [1, v.length]);
  const feeds = { input_ids: int(ids), attention_mask: int(ids.map(() => 1)) };
  if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = int(ids.map(() => 0));
  const masks = (l, j) => Object.fromEntries([...Array(LAYERS).keys()].map((k) =>
    [`vzm${k}`, new ort.Tensor('float32', Float32Array.from({ length: T }, (_, t) => (k === l && t === j ? 0 : 1)), [1, T, 1])]));
  const run = async (l, j) => (await session.run({ ...feeds, ...masks(l, j) }))[output(l)].data;
  const C = [];
  for (let l = 0; l < LAYERS; l++) {
    const base = await run(l, -1);
    const d = base.length / T;
    const rows = [...Array(T)].map(() => new Array(T).fill(0));
    for (let j = 0; j < T; j++) {
      const z = await run(l, j);
      for (let i = 0; i < T; i++) {
        let ab = 0, aa = 0, bb = 0;
        for (let k = 0; k < d; k++) {
          const a = z[i * d + k], b = base[i * d + k];
          ab += a * b; aa += a * a; bb += b * b;
        }
        rows[i][j] = 1 - ab / Math.sqrt(aa * bb);
      }
    }
    for (const r of rows) {
      const s = r.reduce((a, b) => a + b, 0);
      if (s > 0) for (let j = 0; j < T; j++) r[j] /= s;
    }
    C.push(rows);
  }
  let r = C[LAYERS - 1][e];
  for (let l = LAYERS - 2; l >= 0; l--) r = [...Array(T).keys()].map((j) => r.reduce((acc, v, i) => acc + v * C[l][i][j], 0));
  return r.map((v, t) => (t === e ? null : v));
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
  { name: 'bert-sst2', value: (l) => `/m/layers.${l}/attention/value/Add_output_0`, output: (l) => `/m/layers.${l}/ln2/LayerNormalization_output_0`,
    control: (l) => `/m/layers.${l}/Add_2_output_0`, causal: false },
  { name: 'gpt2-sst2', value: (l) => `/layers.${l}/attention/value/Add_output_0`, output: (l) => `/layers.${l}/Add_3_output_0`,
    control: (l) => (l === LAYERS - 1 ? '/ln_f/LayerNormalization_output_0' : `/layers.${l}/Add_3_output_0`), causal: true },
];

for (const c of CASES) {
  test(`${c.name}: value zeroing through the executor equals ONNX Runtime's with the module's values and outputs`, { skip, timeout: 300_000 }, async () => {
    const dir = path.join(FIX, c.name);
    const got = lastJson(execFileSync(CLI, ['explain-onnx-text', '--model', dir, '--text', TEXT, '--ig-steps', '0', '--no-loo'],
      { encoding: 'utf8', maxBuffer: 256 << 20 }));
    assert.equal(got.value_zeroing_note, undefined);
    assert.deepEqual(got.value_zeroing_outputs.layer_outputs, [...Array(LAYERS).keys()].map(c.output), 'the block outputs found are the modules\'');
    assert.equal(got.value_zeroing_outputs.post_norm, !c.causal);
    const e = c.causal ? got.ids.length - 1 : 0;
    const file = path.join(dir, 'model.onnx');
    const ref = await reference(instrumented(file, c.value, c.output), got.ids, c.output, e);
    const d = relDiff(got.value_zeroing, ref);
    assert.ok(d <= 2e-5, `${c.name}: max |Δ| / max |ref| = ${d}`);
    // Negative control: the outputs read elsewhere.
    const wrong = await reference(instrumented(file, c.value, c.control), got.ids, c.control, e);
    const dw = relDiff(got.value_zeroing, wrong);
    assert.ok(dw > 2e-5, `${c.name} control: ${dw} must exceed the tolerance`);
    console.log(`# ${c.name}: value zeroing vs ONNX Runtime ${d.toExponential(2)} (control ${dw.toExponential(2)})`);
  });
}
