// han_wasm_parity.test.mjs — the wasm HanLab (web/gen) and the native CLI (build/attnlab) give the same HAN
// explanation. Contract: for models/text/imdb-han and three IMDB test reviews (../shared/data/imdb/test.tsv lines
// 369, 453 and 101 — two plain, one with <br /><br /> markup), `build/attnlab explain-text --model DIR --text TEXT
// --ig-steps 50` (last stdout line = one JSON object) and HanLab.explain(TEXT, 50) must agree field by field:
// strings / booleans / array lengths exactly, every number (probabilities, both levels of attention, gradient,
// leave-one-out, integrated gradients, completeness, Kendall τ / p / n) to |Δ| ≤ 1e-5 (see TOL). Negative
// controls: the wasm explanation of another review, and of the same review with the classifier bias's sign
// flipped in the weights, must both differ from the CLI's (a comparison that cannot fail checks nothing).
// Also: the facade's errors (a flat-model config, a bad igSteps) are readable Errors, and the splitter's cut of a
// 10,000-sentence document is stated in `notes`, not a crash. Skips only when the model, web/gen, build/attnlab
// or the IMDB test file is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, hasWasm, loadCore } from './parity-lib.mjs';
import { tauSlack, hanLevelVector, pairMeasures } from './tau-slack.mjs';

const DIR = path.join(ROOT, 'models/text/imdb-han');
const IMDB_TEST = process.env.ATTNLAB_IMDB_TEST || path.resolve(ROOT, '../shared/data/imdb/test.tsv');
const LINES = [369, 453, 101]; // 1-based lines of test.tsv
const TOL = 1e-5;
const IG_STEPS = 50;

function reviews() {
  const lines = fs.readFileSync(IMDB_TEST, 'utf8').split('\n');
  return LINES.map((n) => {
    const l = lines[n - 1];
    return { line: n, label: Number(l.slice(0, l.indexOf('\t'))), text: l.slice(l.indexOf('\t') + 1) };
  });
}

function cli(text) {
  const run = spawnSync(CLI, ['explain-text', '--model', DIR, '--text', text, '--ig-steps', String(IG_STEPS)],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(run.status, 0, `CLI failed: ${run.stderr}`);
  const out = run.stdout.trim().split('\n');
  return JSON.parse(out[out.length - 1]);
}

/** Walks two JSON values; records max numeric |Δ| per top-level field; collects mismatches. */
function diff(a, b, where, field, maxes, problems) {
  if (typeof a === 'number' && typeof b === 'number') {
    const d = Math.abs(a - b);
    maxes[field] = Math.max(maxes[field] ?? 0, Number.isNaN(d) ? Infinity : d);
    if (!(d <= TOL)) problems.push(`${where}: ${a} vs ${b}`);
  } else if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) { problems.push(`${where}: length ${a.length} vs ${b.length}`); return; }
    a.forEach((x, i) => diff(x, b[i], `${where}[${i}]`, field, maxes, problems));
  } else if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(k in a) || !(k in b)) { problems.push(`${where}.${k}: only in ${k in a ? 'native' : 'wasm'}`); continue; }
      diff(a[k], b[k], `${where}.${k}`, field ?? k, maxes, problems);
    }
  } else if (a !== b) {
    problems.push(`${where}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
}

/**
 * A τ (and its p) over near-tied importances may differ by the pairs such ties let flip (tau-slack.mjs); removes
 * those mismatches when the importances themselves matched and |Δτ| is within that slack.
 */
function excuseNearTiedTaus(native, wasm, problems) {
  if (problems.some((m) => !m.includes('.kendall.'))) return;
  for (let k = problems.length - 1; k >= 0; k--) {
    const m = problems[k].match(/\.kendall\.(sentence|word)\.([a-z_]+)\.(tau|p):/);
    const measures = m && pairMeasures(m[2]);
    if (!measures) continue;
    const [level, pair] = [m[1], m[2]];
    const x = hanLevelVector(native, level, measures[0]), y = hanLevelVector(native, level, measures[1]);
    const dt = Math.abs(native.kendall[level][pair].tau - wasm.kendall[level][pair].tau);
    if (dt <= tauSlack(x, y) + 1e-12) problems.splice(k, 1);
  }
}

/** The weights with the sign of classifier.bias[0] flipped (F16 or F32, little-endian). */
function flippedBias(bytes) {
  const out = new Uint8Array(bytes);
  const n = Number(new DataView(out.buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(out.subarray(8, 8 + n)));
  const t = header['classifier.bias'];
  const width = { F16: 2, BF16: 2, F32: 4 }[t.dtype];
  out[8 + n + t.data_offsets[0] + width - 1] ^= 0x80;
  return out;
}

const missing = [
  [!fs.existsSync(path.join(DIR, 'config.json')), 'models/text/imdb-han'],
  [!hasWasm(), 'web/gen/attnlab_core.{mjs,wasm} (bash scripts/build-wasm.sh)'],
  [!fs.existsSync(CLI), 'build/attnlab (the native CLI)'],
  [!fs.existsSync(IMDB_TEST), IMDB_TEST],
].filter(([m]) => m).map(([, what]) => what);
const SKIP = missing.length ? `needs ${missing.join(', ')}` : false;

test('HanLab.explain equals `attnlab explain-text` on imdb-han for IMDB test reviews', { skip: SKIP }, async () => {
  const Module = await loadCore();
  const config = fs.readFileSync(path.join(DIR, 'config.json'), 'utf8');
  const weights = new Uint8Array(fs.readFileSync(path.join(DIR, 'model.safetensors')));
  const lab = new Module.HanLab(config, weights);
  const flipped = new Module.HanLab(config, flippedBias(weights));
  try {
    const docs = reviews();
    const natives = [];
    for (const doc of docs) {
      const native = cli(doc.text);
      const wasm = lab.explain(doc.text, IG_STEPS);
      natives.push(native);
      assert.equal(native.model_kind, 'han');
      assert.equal(native.error, '');
      assert.ok(native.sentences.length >= 2, `line ${doc.line}: at least two sentences`);
      const maxes = {};
      const problems = [];
      diff(native, wasm, `line ${doc.line}`, undefined, maxes, problems);
      excuseNearTiedTaus(native, wasm, problems);
      console.log(`han wasm-native line ${doc.line} (${native.sentences.length} sentences, label ${doc.label}, ` +
        `p = ${native.probability.toFixed(4)}): max |Δ| ` +
        Object.entries(maxes).map(([k, v]) => `${k} ${v.toExponential(1)}`).join(', '));
      assert.deepEqual(problems.slice(0, 20), [], `line ${doc.line}: ${problems.length} mismatches`);
    }
    // Negative control 1: another document's explanation differs from this one's.
    const other = lab.explain(docs[1].text, IG_STEPS);
    const p1 = [];
    diff(natives[0], other, 'other document', undefined, {}, p1);
    assert.ok(p1.length > 0, 'the comparison must notice a different document');
    // Negative control 2: a perturbed weight (classifier bias sign) changes the explanation of the same text.
    const perturbed = flipped.explain(docs[0].text, IG_STEPS);
    const p2 = [];
    diff(natives[0], perturbed, 'flipped bias', undefined, {}, p2);
    assert.ok(p2.some((m) => m.includes('.probability')), `the comparison must notice a perturbed weight: ${p2.slice(0, 3)}`);
  } finally {
    lab.delete();
    flipped.delete();
  }
});

test('HanLab: readable errors and stated cuts', { skip: hasWasm() && fs.existsSync(path.join(DIR, 'config.json')) ? false : 'needs web/gen and imdb-han' }, async () => {
  const Module = await loadCore();
  const config = fs.readFileSync(path.join(DIR, 'config.json'), 'utf8');
  const weights = new Uint8Array(fs.readFileSync(path.join(DIR, 'model.safetensors')));
  assert.throws(() => new Module.HanLab('{"format": "attnlab-text-v1"}', weights), /not a HAN model/);
  assert.throws(() => new Module.HanLab(config, new Uint8Array(10)), /./);
  assert.throws(() => new Module.HanLab(config, [1, 2, 3]), /weights must be a Uint8Array/);
  const lab = new Module.HanLab(config, weights);
  try {
    assert.throws(() => lab.explain('A fine film.', -1), /igSteps/);
    const info = lab.info();
    assert.equal(info.format, 'attnlab-han-v1');
    assert.equal(info.vocab, undefined);
    assert.equal(info.max_sentences, 100);
    const empty = lab.explain('', 0);
    assert.deepEqual([empty.error, empty.sentences], ['', []]);
    const big = lab.explain(Array.from({ length: 10000 }, () => 'Good.').join(' '), 0);
    assert.equal(big.sentences.length, 100);
    assert.equal(big.num_sentences_total, 10000);
    assert.equal(big.truncated, true);
    assert.match(big.notes.join(' '), /cut to the first 100 of 10000 sentences/);
    const markup = lab.explain('Great premise.<br /><br />Poor execution.', 0);
    assert.deepEqual(markup.sentences, [['great', 'premise', '.'], ['poor', 'execution', '.']]);
  } finally {
    lab.delete();
  }
});

// The Documents view's stepwise calls (explainStart / explainStep / explainResult: core HanExplainJob) give explain()'s
// object exactly, one measure per step; a job replaced by a newer start is refused with a readable Error.
test('HanLab.explainStart/Step/Result: one measure per step, then explain()\'s object', { skip: hasWasm() && fs.existsSync(path.join(DIR, 'config.json')) ? false : 'needs web/gen and imdb-han' }, async () => {
  const Module = await loadCore();
  const config = fs.readFileSync(path.join(DIR, 'config.json'), 'utf8');
  const lab = new Module.HanLab(config, new Uint8Array(fs.readFileSync(path.join(DIR, 'model.safetensors'))));
  try {
    const text = 'A wonderful film. The acting is superb. I would watch it again.';
    let s = lab.explainStart(text, 20);
    assert.deepEqual([s.finished, s.done, s.total, s.stage], [false, 0, 4, 'attention']);
    const stages = [];
    while (!s.finished) {
      stages.push(s.stage);
      s = lab.explainStep(s.job);
    }
    assert.deepEqual(stages, ['attention', 'gradient', 'leave-one-out', 'integrated gradients']);
    assert.deepEqual(lab.explainResult(s.job), lab.explain(text, 20));
    // a newer start replaces the job: the old number is refused, the new one runs
    const a = lab.explainStart(text, 0);
    const b = lab.explainStart('Dull.', 0);
    assert.notEqual(a.job, b.job);
    assert.throws(() => lab.explainStep(a.job), /replaced by another/);
    assert.throws(() => lab.explainResult(b.job), /not finished/);
    assert.throws(() => lab.explainStart(text, -1), /igSteps/);
    const none = lab.explainStart('<br />', 0);
    assert.deepEqual([none.finished, none.total], [true, 0]);
    assert.deepEqual(lab.explainResult(none.job).sentences, []);
  } finally {
    lab.delete();
  }
});
