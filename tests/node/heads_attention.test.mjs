// heads_attention.test.mjs — TextLab.attentionMaps (wasm/text_bindings.cpp; the head and model views' data) against
// the native core: on the first 12 sentences of ../shared/data/sst2/test.tsv, the [layers][heads][n][n] tensor
// equals `build/attnlab explain-text`'s attention_layers (max |Δ| ≤ 1e-5), every row sums to 1 (±1e-5); the last
// layer's rollout [CLS] row equals the CLI's `rollout`, the last layer's flow its `flow`, and the last layer's
// heads-averaged [CLS] row renormalised over the tokens its `attention` (≤ 1e-5); the CLI has only the top layer, so
// rollout through layer 1 is checked by its closed form (0.5·mean_0 + 0.5·I: the rows of mean_0 already sum to 1).
// Negative controls: the same comparison with two heads swapped, and with the tensor read key-major, must fail.
// Errors: a BiLSTM model, an empty text and a negative maxTokens throw readable Errors; a long text is cut to
// max_len (n = max_len + 1, truncated). The page's explain form (TextLab.explain(…, false)) is the full object less
// attention_layers, with attention_layers_shape [L, H, n, n]. Skips only when the model, web/gen or build/attnlab is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, modelDir, hasModel, hasWasm, loadCore, sstSentences } from './parity-lib.mjs';

const NAME = process.env.ATTNLAB_TRANSFORMER_MODEL || 'sst2-transformer';
const TOL = 1e-5; // wasm and native round differently in the last bits (seen: 7.8e-7)
const TOL_DERIVED = 1e-5;

function openLab(Module, dir) {
  return new Module.TextLab(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'),
    new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))));
}

function cliExplain(dir, text) {
  const res = spawnSync(CLI, ['explain-text', '--model', dir, '--text', text, '--ig-steps', '0'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(res.status, 0, res.stderr);
  return JSON.parse(res.stdout.trim().split('\n').at(-1));
}

// max |wasm − native| over the attention tensor, reading the wasm data through `index(l, h, i, j)`.
function tensorDiff(m, layers, index) {
  const { n } = m;
  let d = 0;
  layers.forEach((heads, l) => heads.forEach((rows, h) => {
    assert.equal(rows.length, n);
    rows.forEach((row, i) => row.forEach((v, j) => { d = Math.max(d, Math.abs(m.data[index(l, h, i, j)] - v)); }));
  }));
  return d;
}

test(`TextLab.attentionMaps = native explain-text: ${NAME}`, async (t) => {
  const dir = modelDir(NAME);
  if (!hasModel(dir)) { t.skip(`${dir} missing`); return; }
  if (!hasWasm()) { t.skip('web/gen missing (bash scripts/build-wasm.sh)'); return; }
  if (!fs.existsSync(CLI)) { t.skip('build/attnlab missing'); return; }
  const Module = await loadCore();
  const lab = openLab(Module, dir);
  t.after(() => lab.delete());
  const { layers: L, heads: H } = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const maxes = { tensor: 0, rowsum: 0, rollout: 0, flow: 0, attention: 0, rollout0: 0 };
  let checked = 0;
  const kept = [];
  for (const text of sstSentences(12)) {
    const m = lab.attentionMaps(text, 200);
    const native = cliExplain(dir, text);
    assert.deepEqual(m.tokens, native.tokens, `tokens of "${text}"`);
    const n = native.tokens.length + 1, T = n - 1;
    assert.equal(m.layers, L);
    assert.equal(m.heads, H);
    assert.equal(m.n, n);
    assert.deepEqual(m.shape, [L, H, n, n]);
    for (const k of ['data', 'mean', 'rollout', 'flow']) assert.ok(m[k] instanceof Float32Array, `${k} is a Float32Array`);
    assert.equal(m.data.length, L * H * n * n);
    assert.equal(m.mean.length, L * n * n);
    assert.equal(m.rollout.length, L * n * n);
    assert.equal(m.flow.length, L * T);
    const at = (l, h, i, j) => ((l * H + h) * n + i) * n + j;
    maxes.tensor = Math.max(maxes.tensor, tensorDiff(m, native.attention_layers, at));
    for (let r = 0; r < L * H * n; r++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += m.data[r * n + j];
      maxes.rowsum = Math.max(maxes.rowsum, Math.abs(s - 1));
    }
    const top = L - 1;
    for (let j = 0; j < T; j++) {
      maxes.rollout = Math.max(maxes.rollout, Math.abs(m.rollout[(top * n) * n + j + 1] - native.rollout[j]));
      maxes.flow = Math.max(maxes.flow, Math.abs(m.flow[top * T + j] - native.flow[j]));
    }
    let clsSum = 0;
    for (let j = 1; j < n; j++) clsSum += m.mean[(top * n) * n + j];
    for (let j = 0; j < T; j++) {
      maxes.attention = Math.max(maxes.attention, Math.abs(m.mean[(top * n) * n + j + 1] / clsSum - native.attention[j]));
    }
    // rollout through layer 0 = 0.5·mean_0 + 0.5·I (rows of mean_0 sum to 1, so no renormalisation is needed)
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const want = 0.5 * m.mean[i * n + j] + (i === j ? 0.5 : 0);
        maxes.rollout0 = Math.max(maxes.rollout0, Math.abs(m.rollout[i * n + j] - want));
      }
    }
    kept.push({ m, native, at });
    checked++;
  }
  console.log(`heads attentionMaps ${NAME}: ${checked} sentences, max |Δtensor| = ${maxes.tensor.toExponential(2)}, `
    + `max |row sum − 1| = ${maxes.rowsum.toExponential(2)}, max |Δrollout| = ${maxes.rollout.toExponential(2)}, `
    + `max |Δflow| = ${maxes.flow.toExponential(2)}, max |Δattention| = ${maxes.attention.toExponential(2)}, `
    + `max |rollout_0 − (½A + ½I)| = ${maxes.rollout0.toExponential(2)}`);
  assert.equal(checked, 12);
  assert.ok(maxes.tensor <= TOL, `attention tensor differs by ${maxes.tensor}`);
  assert.ok(maxes.rowsum <= 1e-5, `a row sums to 1 ± ${maxes.rowsum}`);
  assert.ok(maxes.rollout <= TOL_DERIVED, `rollout differs by ${maxes.rollout}`);
  assert.ok(maxes.flow <= TOL_DERIVED, `flow differs by ${maxes.flow}`);
  assert.ok(maxes.attention <= TOL_DERIVED, `attention differs by ${maxes.attention}`);
  assert.ok(maxes.rollout0 <= TOL_DERIVED, `rollout through layer 1 differs by ${maxes.rollout0}`);

  await t.test('negative controls: swapped heads and a key-major reading are detected', () => {
    let swapped = 0, keyMajor = 0;
    for (const { m, native, at } of kept) {
      swapped = Math.max(swapped, tensorDiff(m, native.attention_layers, (l, h, i, j) => at(l, h === 0 ? 1 : h === 1 ? 0 : h, i, j)));
      keyMajor = Math.max(keyMajor, tensorDiff(m, native.attention_layers, (l, h, i, j) => at(l, h, j, i)));
    }
    console.log(`heads attentionMaps negative controls: heads 1 and 2 swapped max |Δ| = ${swapped.toExponential(2)}, `
      + `key-major max |Δ| = ${keyMajor.toExponential(2)}`);
    assert.ok(swapped > 1e-3, 'swapping two heads was not detected — the comparison is blind to the head order');
    assert.ok(keyMajor > 1e-3, 'reading the tensor key-major was not detected — the comparison is blind to the layout');
  });

  await t.test('bad input: readable errors, long text cut to max_len', () => {
    assert.throws(() => lab.attentionMaps('', 200), /no tokens/);
    assert.throws(() => lab.attentionMaps('a fine film', -1), /maxTokens/);
    const maxLen = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).max_len;
    const long = Array.from({ length: maxLen + 30 }, (_, i) => (i % 2 ? 'good' : 'film')).join(' ');
    const m = lab.attentionMaps(long, 200);
    assert.equal(m.truncated, true);
    assert.equal(m.n, maxLen + 1);
    assert.equal(m.num_tokens_total, maxLen + 30);
    const bilstm = modelDir('sst2-tanh');
    if (hasModel(bilstm)) {
      const other = openLab(Module, bilstm);
      try {
        assert.throws(() => other.attentionMaps('a fine film', 200), /need a transformer model/);
      } finally {
        other.delete();
      }
    }
  });

  await t.test("the page's explain form: the same object without attention_layers, their shape instead", () => {
    const text = sstSentences(1)[0];
    const full = lab.explain(text, 200, 10), lean = lab.explain(text, 200, 10, false);
    const n = full.tokens.length + 1;
    assert.deepEqual(lean.attention_layers_shape, [L, H, n, n]);
    assert.equal('attention_layers' in lean, false);
    assert.equal('attention_layers_shape' in full, false);
    const { attention_layers: layers, ...rest } = full;
    assert.equal(layers.length, L);
    const { attention_layers_shape: shape, ...leanRest } = lean;
    assert.deepEqual(leanRest, rest); // every other field the same (the same run's values)
    assert.notDeepEqual(lab.explain(`${text} bad`, 200, 10, false), lean); // negative control: another text differs
    const bilstm = modelDir('sst2-tanh');
    if (hasModel(bilstm)) { // no self-attention: both forms are the same object
      const other = openLab(Module, bilstm);
      try {
        assert.deepEqual(other.explain(text, 200, 10, false), other.explain(text, 200, 10));
      } finally {
        other.delete();
      }
    }
  });
});
