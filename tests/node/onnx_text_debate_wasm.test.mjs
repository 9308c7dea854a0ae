// The debate on a user's ONNX text model in the page (issue 28): OnnxTextLab.experiment (wasm/onnx_text_bindings.cpp)
// runs one experiment of the registry on one text and returns the core's row — the row `attnlab experiment NAME
// --model DIR --data F.tsv` writes for a one-line TSV of the same text (the same Instance:
// core/explain/onnx_text/onnx_text_instance.h). Checked on the shipped stories260K for every experiment the page shows
// (kendall, erase-max, erase-until-flip, permutation, adversarial with few steps), two texts, two seeds, the last and
// another layer: every number within 1e-5, booleans and integers equal. Negative controls: another layer's, another
// seed's and a BOS-not-held row differ from the CLI's. Errors: an experiment that needs a model attnlab trained (the
// core's check_experiment_model message), bad parameters / seed / layer / special flags — each a message, the lab
// still usable.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, CLI, hasWasm, loadCore } from './parity-lib.mjs';

const DIR = path.join(ROOT, 'models/text/stories260K');
const skip = !hasWasm() ? 'web/gen wasm missing (bash scripts/build-wasm.sh)'
  : !fs.existsSync(CLI) ? 'build/attnlab missing' : false;

const TEXTS = ['Once upon a time, there was a little girl', 'Lily and Ben went to the park. They'];

// Largest difference of two rows (numbers by key path); booleans, strings, integer counts and key sets must be equal.
function rowDiff(a, b, where = '') {
  if (typeof a === 'number' && typeof b === 'number') {
    if (/(^|\.)(index|num_tokens|predicted|removed|label)$/.test(where)) assert.equal(a, b, where);
    return Math.abs(a - b);
  }
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') {
    assert.deepEqual(a, b, where);
    return 0;
  }
  assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), `${where}: keys`);
  let worst = 0;
  for (const k of Object.keys(a)) worst = Math.max(worst, rowDiff(a[k], b[k], `${where}.${k}`));
  return worst;
}
// A row that must differ: a structural difference counts as different.
function differs(a, b) {
  try {
    return rowDiff(a, b) > 1e-6;
  } catch {
    return true;
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ot-debate-wasm-'));
function cliRow(name, text, { seed = 1, layer = -1, params = {} } = {}) {
  const tsv = path.join(tmp, 'one.tsv');
  fs.writeFileSync(tsv, `0\t${text}\n`);
  const out = path.join(tmp, 'out.json');
  const args = ['experiment', name, '--model', DIR, '--data', tsv, '--out', out, '--seed', String(seed)];
  if (layer >= 0) args.push('--layer', String(layer));
  for (const [k, v] of Object.entries(params)) args.push('--param', `${k}=${v}`);
  execFileSync(CLI, args, { stdio: 'pipe' });
  const r = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(r.rows.length, 1);
  return r.rows[0];
}

let lab = null;
async function setup() {
  if (lab) return lab;
  const M = await loadCore();
  lab = new M.OnnxTextLab(new Uint8Array(fs.readFileSync(path.join(DIR, 'model.onnx'))),
    new Uint8Array(fs.readFileSync(path.join(DIR, 'tokenizer.bin'))), '', { tokenizerName: 'tokenizer.bin' });
  return lab;
}

const CASES = [
  { name: 'kendall' },
  { name: 'erase-max' },
  { name: 'erase-until-flip' },
  { name: 'permutation' },
  { name: 'adversarial', params: { steps: 3 } },
];

test('every debate experiment on stories260K: the wasm row equals the CLI row on a one-line TSV (1e-5)', { skip }, async () => {
  const l = await setup();
  for (const { name, params = {} } of CASES) {
    for (const [k, text] of TEXTS.entries()) {
      const opt = { seed: k === 0 ? 1 : 7, layer: -1, params };
      const want = cliRow(name, text, opt);
      const got = l.experiment(name, text, opt);
      const worst = rowDiff(want, got, `${name}[${k}]`);
      assert.ok(worst <= 1e-5, `${name} on “${text}”: largest difference ${worst}`);
      assert.equal(got.index, 0);
      assert.ok(!('label' in got), 'a causal LM has no gold label');
      // The page passes ids + the template's flags (what it explained): the same row as from the text.
      const t = l.tokenize(text, true);
      assert.deepEqual(l.experiment(name, { ids: t.ids, special: t.special }, opt), got, `${name}: ids + special`);
    }
  }
});

test('another layer equals the CLI’s --layer; negative controls: another layer, seed or no BOS held differ', { skip }, async () => {
  const l = await setup();
  const text = TEXTS[0];
  for (const name of ['kendall', 'erase-until-flip']) {
    const want = cliRow(name, text, { layer: 2 });
    const got = l.experiment(name, text, { layer: 2 });
    assert.ok(rowDiff(want, got, name) <= 1e-5, `${name} --layer 2`);
    assert.ok(differs(want, l.experiment(name, text, { layer: -1 })), `${name}: the last layer's row must differ from layer 2's`);
  }
  const perm = cliRow('permutation', text, { seed: 1 });
  assert.ok(differs(perm, l.experiment('permutation', text, { seed: 2 })), 'permutation: seed 2 must differ from seed 1');
  const t = l.tokenize(text, true);
  assert.equal(t.special[0], 1, 'llama2.c BOS is a template token');
  const free = l.experiment('erase-until-flip', { ids: t.ids, special: t.ids.map(() => 0) }, {});
  const held = cliRow('erase-until-flip', text);
  assert.equal(free.num_tokens, held.num_tokens + 1, 'BOS not held: one more unit');
  assert.ok(differs(held, free), 'BOS not held fixed must give another row');
});

test('bad requests get messages and the lab keeps working', { skip }, async () => {
  const l = await setup();
  const text = TEXTS[0];
  const bad = [
    [() => l.experiment('randomization', text, {}), /randomization reads the parameters of a model attnlab trained/],
    [() => l.experiment('no-such', text, {}), /unknown experiment 'no-such'.*kendall/],
    [() => l.experiment('adversarial', text, { params: { steps: 0 } }), /steps/],
    [() => l.experiment('permutation', text, { params: { permutations: 'many' } }), /permutations/],
    [() => l.experiment('kendall', text, { layer: 5 }), /layer must be −1 .* 0\.\.4/],
    [() => l.experiment('kendall', text, { seed: -1 }), /seed/],
    [() => l.experiment('kendall', { ids: [1, 403], special: [1] }, {}), /special must be an array with one 0 \/ 1 per id \(2\)/],
    [() => l.experiment('kendall', { ids: [] }, {}), /ids is empty/],
    [() => l.experiment('kendall', 42, {}), /input must be a text or \{ids, special\}/],
  ];
  for (const [call, re] of bad) assert.throws(call, re);
  const single = l.experiment('erase-max', { ids: [1, 403], special: [1, 0] }, {});
  assert.match(String(single.skipped), /single/, 'one unit left: the core skips with why');
  assert.ok(Number.isFinite(l.experiment('kendall', text, {}).tau_gradient), 'still usable');
});
