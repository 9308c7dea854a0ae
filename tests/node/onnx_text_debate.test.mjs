// The debate on a user's ONNX transformer (issue 28): `attnlab experiment NAME --model DIR` with DIR the shipped
// sst2-transformer exported as a user would bring it (models/tools/export-transformer-onnx.mjs exportTransformerFolder:
// model.onnx + a WordLevel tokenizer.json + config.json) runs every experiment written on the attention-model interface
// (core/model/attention_model.h) through the executor's interventions on the found attention
// (core/explain/onnx_text/onnx_attention_model.h), and gives the native model's rows: Kendall τ against gradient and
// leave-one-out, erase-max, erase-until-flip by every ranking (S&S's and the later readings both paths define), permutation
// and the adversarial search — the same decisions and the same numbers within 1e-5. Negative control: the 4-layer model's export against the 2-layer native
// rows differs. ERASER, written on the interface's token measures, gives the native rows for the measures both define.
// A causal LM (the shipped stories260K) runs them on its next-token prediction with BOS held fixed; the experiments
// that read a trained model's parameters are refused by name.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT } from './parity-lib.mjs';
import { exportTransformerFolder } from '../../models/tools/export-transformer-onnx.mjs';

const skip = fs.existsSync(CLI) ? false : 'build/attnlab missing';
const DATA = path.join(ROOT, '../shared/data/sst2/test.tsv');
const run = (name, model, extra = []) => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'debate-')), 'out.json');
  execFileSync(CLI, ['experiment', name, '--model', model, '--data', DATA, '--limit', '12', '--out', out, ...extra],
    { encoding: 'utf8', stdio: 'pipe' });
  return JSON.parse(fs.readFileSync(out, 'utf8'));
};
// Every number of two rows (nested objects and arrays flattened by key path), the largest difference; booleans and
// integers must be equal.
function rowDiff(a, b, where = '') {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isInteger(a) && Number.isInteger(b) && !where.match(/jsd|tvd|tau|delta|fraction|attention|p_|curve|prob/))
      assert.equal(a, b, where);
    return Math.abs(a - b);
  }
  if (a === null || typeof a !== 'object') {
    assert.deepEqual(a, b, where);
    return 0;
  }
  let worst = 0;
  for (const k of Object.keys(a)) worst = Math.max(worst, rowDiff(a[k], b?.[k], `${where}.${k}`));
  return worst;
}

const experiments = [['kendall', ['--param', 'ig_steps=20']], ['erase-max'], ['erase-until-flip', ['--param', 'ig_steps=20']],
  ['permutation', ['--param', 'permutations=20']], ['adversarial', ['--param', 'steps=40']]];
// The later readings kendall and erase-until-flip set beside attention: the ONNX path has gradient × input and no
// attention norm (its projections are not located in a graph); the others are defined the same way (ERASER below).
function withoutNativeOnly(row) {
  const { attention_norm: _, ...rest } = row;
  if (rest.readings) {
    const { attention_norm: __, ...readings } = rest.readings;
    rest.readings = readings;
  }
  return rest;
}

test('every interface experiment on the exported sst2-transformer equals the native model', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-debate-'));
  const folder = path.join(dir, 'sst2-transformer');
  exportTransformerFolder(path.join(ROOT, 'models/text/sst2-transformer'), folder);
  const other = path.join(dir, 'four');
  exportTransformerFolder(path.join(ROOT, 'models/text/sst2-transformer-4layer'), other);
  for (const [name, extra = []] of experiments) {
    const native = run(name, path.join(ROOT, 'models/text/sst2-transformer'), extra);
    const onnx = run(name, folder, extra);
    assert.equal(onnx.rows.length, native.rows.length);
    let worst = 0;
    native.rows.forEach((r, k) => { worst = Math.max(worst, rowDiff(withoutNativeOnly(r), onnx.rows[k], `${name}[${k}]`)); });
    if (name === 'kendall') assert.ok(onnx.rows.every((r) => r.skipped || 'attnlrp' in (r.readings ?? {})), 'kendall: readings on every row');
    assert.ok(worst < 1e-5, `${name}: largest difference ${worst}`);
    // Negative control: another model's graph gives other rows.
    const wrong = run(name, other, extra);
    let far = 0;
    native.rows.forEach((r, k) => {
      try { far = Math.max(far, rowDiff(r, wrong.rows[k])); } catch { far = Infinity; }
    });
    assert.ok(far > 1e-3, `${name}: the 4-layer model's rows should differ (${far})`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

// ERASER (written on the interface's token measures, core/experiments/eraser.cpp): the measures both paths define the
// same way give the native rows (the ONNX path's `gradient` is ‖∂logit/∂x‖, not J&W's, and it adds gradient × input);
// negative control: the 4-layer model's graph.
test('ERASER on the exported sst2-transformer equals the native rows for the measures both define', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-eraser-'));
  const folder = path.join(dir, 'sst2-transformer');
  exportTransformerFolder(path.join(ROOT, 'models/text/sst2-transformer'), folder);
  const other = path.join(dir, 'four');
  exportTransformerFolder(path.join(ROOT, 'models/text/sst2-transformer-4layer'), other);
  const shared = ['attention', 'rollout', 'flow', 'relevance', 'grad_attention', 'attnlrp', 'cp_lrp', 'value_zeroing', 'alti',
    'integrated_gradients', 'leave_one_out', 'random'];
  const native = run('eraser', path.join(ROOT, 'models/text/sst2-transformer'), ['--param', 'ig_steps=20']);
  const onnx = run('eraser', folder, ['--param', 'ig_steps=20']);
  const wrong = run('eraser', other, ['--param', 'ig_steps=20']);
  assert.deepEqual(Object.keys(onnx.summary.measures).sort(), [...shared, 'gradient', 'gradient_x_input'].sort());
  let worst = 0, far = 0;
  native.rows.forEach((r, k) => {
    assert.deepEqual(onnx.rows[k].rationale_size, r.rationale_size);
    assert.equal(onnx.rows[k].predicted, r.predicted);
    for (const m of shared) {
      worst = Math.max(worst, rowDiff(r.measures[m], onnx.rows[k].measures[m], `eraser[${k}].${m}`));
      far = Math.max(far, rowDiff(r.measures[m], wrong.rows[k].measures[m]));
    }
  });
  assert.ok(worst < 1e-5, `eraser: largest difference ${worst}`);
  assert.ok(far > 1e-3, `eraser: the 4-layer model's rows should differ (${far})`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a causal LM runs the debate on its next token; parameter experiments are refused by name', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lm-debate-'));
  const tsv = path.join(dir, 'prompts.tsv');
  fs.writeFileSync(tsv, '0\tOnce upon a time, there was a little girl\n0\tLily and Ben went to the park. They\n');
  const out = path.join(dir, 'o.json');
  const model = path.join(ROOT, 'models/text/stories260K');
  execFileSync(CLI, ['experiment', 'erase-until-flip', '--model', model, '--data', tsv, '--out', out], { stdio: 'pipe' });
  const r = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(r.summary.causal, true);
  assert.equal(r.rows.length, 2);
  for (const row of r.rows) {
    assert.ok(!('label' in row), 'a causal LM has no gold label');
    const generated = JSON.parse(execFileSync(CLI, ['explain-onnx-text', '--model', model, '--text',
      row.index === 0 ? 'Once upon a time, there was a little girl' : 'Lily and Ben went to the park. They', '--no-loo', '--ig-steps', '0'],
    { encoding: 'utf8' }).trim().split('\n').pop());
    // The BOS token the tokenizer adds is held fixed: one unit fewer than tokens.
    assert.equal(row.num_tokens, generated.ids.length - 1);
    for (const k of ['attention', 'gradient', 'leave_one_out', 'random']) assert.ok(row[k].fraction > 0 && row[k].fraction <= 1);
  }
  let message = '';
  try {
    execFileSync(CLI, ['experiment', 'randomization', '--model', model, '--data', tsv], { stdio: 'pipe' });
  } catch (e) { message = String(e.stderr); }
  assert.match(message, /randomization reads the parameters of a model attnlab trained; on this model run kendall/);
  fs.rmSync(dir, { recursive: true, force: true });
});
