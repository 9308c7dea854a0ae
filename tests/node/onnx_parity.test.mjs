// onnx_parity.test.mjs — independent reference check: the wasm core vs ONNX Runtime Web (wasm EP, 1 thread)
// running the graph that models/tools/export-onnx.mjs builds from the same checkpoint.
// Contract: for each of models/text/sst2-{tanh,dot,uniform} that exists, export it to a temp .onnx with the
// exporter's CLI, run the first 100 sentences of ../shared/data/sst2/test.tsv through
// TextLab.explain(text, 1000, 0) and through ORT (token ids = config.vocab index of the tokens the core
// returns, unknown → 1), and require max |Δprobability| ≤ 1e-5 and max |Δattention| ≤ 1e-5 (printed).
// A negative control adds 1 to one recurrent weight and requires the same comparison to see it (> 1e-5).
// Skips (with the reason) only when a model folder or web/gen/attnlab_core.{mjs,wasm} is missing; any other
// problem (export failure, load error, length mismatch, NaN) fails.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as ort from 'onnxruntime-web';
import { readCheckpoint, buildModel } from '../../models/tools/export-onnx.mjs';
import {
  ROOT, TEXT_MODELS, modelDir, hasModel, hasWasm, openSession, sstSentences, vocabIndex, tokenIds, maxAbsDiff,
} from './parity-lib.mjs';

ort.env.wasm.numThreads = 1;
const TOL = 1e-5;
const N = 100;
const EXPORTER = path.join(ROOT, 'models/tools/export-onnx.mjs');

/** Runs sentences through the core once: [{ text, ids, probability, attention, predicted_class }]. */
function coreResults(core, index, sentences) {
  const out = [];
  for (const text of sentences) {
    const r = core.explain(text, 1000, 0);
    assert.equal(r.error, '', `core error on "${text}"`);
    if (r.tokens.length === 0) continue;                       // nothing to run (ONNX needs T ≥ 1)
    assert.equal(r.truncated, false, `core truncated "${text}"`);
    assert.equal(r.attention.length, r.tokens.length, `core attention length for "${text}"`);
    const ids = tokenIds(index, r.tokens);
    ids.forEach((id, i) => {
      if (r.tokens[i] !== '<unk>') {
        assert.equal(id === 1, Boolean(r.unknown[i]), `unknown flag of token "${r.tokens[i]}" in "${text}"`);
      }
    });
    out.push({
      text, ids, probability: r.probability, probabilities: r.probabilities, attention: r.attention,
      predicted_class: r.predicted_class,
    });
  }
  return out;
}

/** Max |Δprobability| and |Δattention| between cached core results and an ORT session. */
async function compare(results, ortSession) {
  let dp = 0, da = 0;
  for (const r of results) {
    const feeds = { token_ids: new ort.Tensor('int64', BigInt64Array.from(r.ids, BigInt), [1, r.ids.length]) };
    const out = await ortSession.run(feeds);
    const p = out.probability ? out.probability.data[0] : out.probabilities.data[r.predicted_class];
    const d = Math.abs(p - r.probability);
    dp = Math.max(dp, Number.isNaN(d) ? Infinity : d);
    if (out.probabilities && r.probabilities) {                // multi-class: every class probability
      dp = Math.max(dp, maxAbsDiff(Array.from(out.probabilities.data), r.probabilities, `probabilities of "${r.text}"`));
    }
    da = Math.max(da, maxAbsDiff(Array.from(out.attention.data), r.attention, `attention of "${r.text}"`));
  }
  return { dp, da };
}

for (const name of TEXT_MODELS) {
  test(`ONNX Runtime Web (exported graph) vs wasm core: ${name}`, async (t) => {
    const dir = modelDir(name);
    if (!hasModel(dir)) { t.skip(`models/text/${name} is missing (config.json + model.safetensors)`); return; }
    if (!hasWasm()) { t.skip('web/gen/attnlab_core.{mjs,wasm} missing — build the wasm target first'); return; }

    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-onnx-'));
    const core = await openSession(dir);
    t.after(() => { core.delete(); fs.rmSync(tmp, { recursive: true, force: true }); });

    const onnxPath = path.join(tmp, `${name}.onnx`);
    execFileSync(process.execPath, [EXPORTER, dir, onnxPath], { stdio: ['ignore', 'ignore', 'inherit'] });
    const session = await ort.InferenceSession.create(onnxPath);
    t.after(() => session.release());
    assert.ok(session.outputNames.includes('attention'), 'exported graph has an "attention" output');

    const ckpt = readCheckpoint(dir);
    const index = vocabIndex(ckpt.config);
    const sentences = sstSentences(N);
    assert.equal(sentences.length, N, 'SST test file has ≥ 100 sentences');

    const results = coreResults(core, index, sentences);
    const used = results.length;
    const unknownTokens = results.reduce((n, r) => n + r.ids.filter((id) => id === 1).length, 0);
    const { dp, da } = await compare(results, session);
    console.log(`onnx-parity ${name}: ${used} sentences (${unknownTokens} unknown tokens), `
      + `max |Δprobability| = ${dp.toExponential(3)}, max |Δattention| = ${da.toExponential(3)} (tol ${TOL})`);
    assert.ok(used >= 95, `only ${used} of ${N} sentences had tokens`);
    assert.ok(dp <= TOL, `max |Δprobability| ${dp} > ${TOL}`);
    assert.ok(da <= TOL, `max |Δattention| ${da} > ${TOL}`);

    await t.test('negative control: one perturbed recurrent weight is detected', async () => {
      const w = ckpt.tensors['encoder.forward.weight_hh'].data;
      const saved = w[0];
      w[0] += 1;                                                // W_hh(input gate unit 0 ← h_0)
      let bytes;
      try { bytes = buildModel(ckpt); } finally { w[0] = saved; }
      const bad = await ort.InferenceSession.create(bytes);
      const r = await compare(results, bad);
      await bad.release();
      console.log(`onnx-parity ${name} negative control: max |Δprobability| = ${r.dp.toExponential(3)}, `
        + `max |Δattention| = ${r.da.toExponential(3)}`);
      assert.ok(Math.max(r.dp, r.da) > TOL, 'perturbed graph was not detected — comparison is blind');
    });
  });
}
