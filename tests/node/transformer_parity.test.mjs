// transformer_parity.test.mjs — the transformer text model against two references:
// (1) ONNX Runtime Web (wasm EP, 1 thread) running the graph models/tools/export-transformer-onnx.mjs builds from
//     the same checkpoint: on the first 100 sentences of ../shared/data/sst2/test.tsv, max |Δprobability|,
//     max |Δattention| (the last layer's head-averaged [CLS] row) and max |Δ| over every layer's and head's
//     attention probabilities (attention_layers vs the attention_layerL outputs) must be ≤ 1e-5 against
//     TextLab.explain(text, 1000, 0) (the native CLI's explain-text --ig-steps 0 when web/gen is not built, so the
//     ONNX check runs on a native-only checkout too). Negative control: one query weight of the last layer + 1 must
//     be seen.
// (2) the native CLI: 10 sentences through `build/attnlab explain-text` and TextLab.explain(text, 200, 20):
//     every field (incl. rollout, flow, relevance, grad_attention, attention_norm, attnlrp, cp_lrp, value_zeroing, alti,
//     the conservation records) within 1e-5 (IG 1e-4).
// Model: models/text/sst2-transformer (ATTNLAB_TEXT_MODELS overrides the folder). Skips only when the model,
// web/gen or build/attnlab is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as ort from 'onnxruntime-web';
import { readTransformerCheckpoint, buildTransformerModel } from '../../models/tools/export-transformer-onnx.mjs';
import { CLI, modelDir, hasModel, hasWasm, openSession, sstSentences, vocabIndex, tokenIds, maxAbsDiff } from './parity-lib.mjs';
import fs from 'node:fs';

ort.env.wasm.numThreads = 1;
const TOL = 1e-5;
const NAME = process.env.ATTNLAB_TRANSFORMER_MODEL || 'sst2-transformer';

function nativeExplain(dir, text) {
  const res = spawnSync(CLI, ['explain-text', '--model', dir, '--text', text, '--max-tokens', '1000', '--ig-steps', '0'],
    { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  return JSON.parse(res.stdout.trim().split('\n').at(-1));
}

function coreResults(core, index, sentences) {
  const out = [];
  for (const text of sentences) {
    const r = core.explain(text, 1000, 0);
    assert.equal(r.error, '', `core error on "${text}"`);
    if (r.tokens.length === 0) continue;
    out.push({ text, ids: tokenIds(index, r.tokens), r });
  }
  return out;
}

async function compare(results, session, layers) {
  let dp = 0, da = 0, dl = 0;
  for (const { ids, r, text } of results) {
    const out = await session.run({ token_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]) });
    const p = out.probability ? out.probability.data[0] : out.probabilities.data[r.predicted_class];
    dp = Math.max(dp, Number.isNaN(p) ? Infinity : Math.abs(p - r.probability));
    da = Math.max(da, maxAbsDiff(Array.from(out.attention.data), r.attention, `attention of "${text}"`));
    for (let l = 0; l < layers; l++) {
      const flat = r.attention_layers[l].flat(2);
      dl = Math.max(dl, maxAbsDiff(Array.from(out[`attention_layer${l}`].data), flat, `attention_layer${l} of "${text}"`));
    }
  }
  return { dp, da, dl };
}

test(`ONNX Runtime Web (exported transformer) vs wasm core: ${NAME}`, async (t) => {
  const dir = modelDir(NAME);
  if (!hasModel(dir)) { t.skip(`${dir} missing`); return; }
  const wasm = hasWasm() && process.env.ATTNLAB_TRANSFORMER_CORE !== 'native';  // env: force the native side
  if (!wasm && !fs.existsSync(CLI)) { t.skip('neither web/gen nor build/attnlab is built'); return; }
  const ckpt = readTransformerCheckpoint(dir);
  const core = wasm ? await openSession(dir) : { explain: (text) => nativeExplain(dir, text) };
  if (wasm) t.after(() => core.delete());
  console.log(`transformer onnx-parity: core side = ${wasm ? 'wasm TextLab' : 'native CLI'}`);
  const session = await ort.InferenceSession.create(buildTransformerModel(ckpt));
  t.after(() => session.release());
  const L = ckpt.config.layers;
  for (let l = 0; l < L; l++) assert.ok(session.outputNames.includes(`attention_layer${l}`));
  const results = coreResults(core, vocabIndex(ckpt.config), sstSentences(100));
  assert.ok(results.length >= 95, `only ${results.length} sentences had tokens`);
  const { dp, da, dl } = await compare(results, session, L);
  console.log(`transformer onnx-parity ${NAME}: ${results.length} sentences, max |Δprobability| = ${dp.toExponential(3)}, `
    + `max |Δattention| = ${da.toExponential(3)}, max |Δattention_layers| = ${dl.toExponential(3)} (tol ${TOL})`);
  assert.ok(dp <= TOL, `max |Δprobability| ${dp}`);
  assert.ok(da <= TOL, `max |Δattention| ${da}`);
  assert.ok(dl <= TOL, `max |Δattention_layers| ${dl}`);

  await t.test('negative control: one perturbed query weight of the last layer is detected', async () => {
    const w = ckpt.tensors[`transformer.layers.${L - 1}.attention.q.weight`].data;
    const saved = w[0];
    w[0] += 1;
    let bytes;
    try { bytes = buildTransformerModel(ckpt); } finally { w[0] = saved; }
    const bad = await ort.InferenceSession.create(bytes);
    const r = await compare(results, bad, L);
    await bad.release();
    console.log(`transformer onnx-parity negative control: ${JSON.stringify(r)}`);
    assert.ok(Math.max(r.dp, r.da, r.dl) > TOL, 'perturbed graph was not detected — comparison is blind');
  });
});

function diff(a, b, where, field, maxes, problems) {
  const tol = field === 'integrated_gradients' ? 1e-4 : field === 'integrated_gradients_completeness' ? 1e-3 : TOL;
  if (typeof a === 'number' && typeof b === 'number') {
    const d = Math.abs(a - b);
    maxes[field] = Math.max(maxes[field] ?? 0, Number.isNaN(d) ? Infinity : d);
    if (!(d <= tol)) problems.push(`${where}: ${a} vs ${b}`);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) { problems.push(`${where}: length ${a.length} vs ${b.length}`); return; }
    a.forEach((x, i) => diff(x, b[i], `${where}[${i}]`, field, maxes, problems));
  } else if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(k in a) || !(k in b)) { problems.push(`${where}.${k}: only on one side`); continue; }
      if (k === 'kendall') continue;  // τ is a step function of near-tied orders (see wasm_native_parity.test.mjs)
      diff(a[k], b[k], `${where}.${k}`, field ?? k, maxes, problems);
    }
  } else if (a !== b) problems.push(`${where}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
}

test(`wasm core = native CLI on the transformer: ${NAME}`, async (t) => {
  const dir = modelDir(NAME);
  if (!hasModel(dir)) { t.skip(`${dir} missing`); return; }
  if (!hasWasm()) { t.skip('web/gen missing'); return; }
  if (!fs.existsSync(CLI)) { t.skip('build/attnlab missing'); return; }
  const core = await openSession(dir);
  t.after(() => core.delete());
  const maxes = {}, problems = [];
  for (const text of sstSentences(10)) {
    const res = spawnSync(CLI, ['explain-text', '--model', dir, '--text', text, '--max-tokens', '200', '--ig-steps', '20'],
      { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    const native = JSON.parse(res.stdout.trim().split('\n').at(-1));
    const wasm = core.explain(text, 200, 20);
    for (const k of ['rollout', 'flow', 'relevance', 'grad_attention', 'attention_norm', 'attention_layers', 'attnlrp', 'cp_lrp',
      'value_zeroing', 'alti'])
      assert.ok(Array.isArray(wasm[k]) && wasm[k].length > 0, `wasm result has ${k}`);
    diff(native, wasm, text.slice(0, 30), null, maxes, problems);
  }
  console.log(`transformer wasm vs native ${NAME}: max |Δ| per field ${JSON.stringify(maxes)}`);
  assert.deepEqual(problems.slice(0, 10), []);
});
