// The crafted hostile ONNX models of issue 27 (tests/fixtures/onnx-hostile/) through the wasm core, as the page's
// "Your model" runs them: onnxInfo, then new OnnxLab (load), setPhoto (forward), explain('gradient') (backward).
// Each must stop at the stage cases.json names (a forward-stage case at construction, which runs a forward pass)
// with a message matching its pattern — the same expectations as the
// native test (tests/core/test_onnx_hostile.cpp) — or run through ("ok"); no trap, no silent success, and the
// module still runs a good model afterwards. Also: make-cases.mjs regenerates the committed bytes exactly.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, hasWasm, loadCore } from './parity-lib.mjs';
import { cases as generated } from '../fixtures/onnx-hostile/make-cases.mjs';

const DIR = path.join(ROOT, 'tests/fixtures/onnx-hostile');
const manifest = JSON.parse(fs.readFileSync(path.join(DIR, 'cases.json'), 'utf8'));
const skip = hasWasm() ? false : 'web/gen not built';

test('make-cases.mjs regenerates the committed hostile models byte for byte', () => {
  assert.equal(generated.length, manifest.length);
  for (const c of generated) {
    const committed = fs.readFileSync(path.join(DIR, `${c.name}.onnx`));
    assert.ok(Buffer.from(c.bytes).equals(committed), `${c.name}.onnx differs from make-cases.mjs`);
  }
});

// "" when the case behaved as expected, else what went wrong.
function runCase(M, bytes, stage, expect) {
  try { M.onnxInfo(bytes); } catch (e) { if (!(e instanceof Error) || !e.message) return `onnxInfo threw ${e}`; }
  const stopped = (at, e) => {
    if (!(e instanceof Error) || e instanceof WebAssembly.RuntimeError) return `${at}: a trap or a non-Error: ${e}`;
    // OnnxLab's constructor runs a forward pass on a blank photo (to list the layers), so a case that natively
    // stops in forward stops in wasm at construction — with the same message.
    const same = stage === at || (stage === 'forward' && at === 'load');
    if (!same) return `stopped at ${at} (expected ${stage}): ${e.message}`;
    if (!new RegExp(expect, 'i').test(e.message)) return `message at ${at} does not match /${expect}/: ${e.message}`;
    return '';
  };
  let lab;
  try { lab = new M.OnnxLab(bytes); } catch (e) { return stopped('load', e); }
  try {
    try { lab.setPhoto(new Float32Array(3 * 224 * 224).fill(0.5), 'raw'); } catch (e) { return stopped('forward', e); }
    try { lab.explain('gradient'); } catch (e) { return stopped('backward', e); }
  } finally {
    lab.delete?.();
  }
  return stage === 'ok' ? '' : `ran through backward (expected to stop at ${stage})`;
}

test('every hostile case stops where expected in wasm, and the module still runs a good model', { skip }, async () => {
  const M = await loadCore();
  const failures = [];
  for (const c of manifest) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(DIR, c.file)));
    const r = runCase(M, bytes, c.stage, c.expect);
    if (r) failures.push(`${c.name} (${c.class}): ${r}`);
  }
  assert.deepEqual(failures, []);
  // Negative control: a wrong expectation is reported.
  const wraps = new Uint8Array(fs.readFileSync(path.join(DIR, 'reshape-count-wraps.onnx')));
  assert.equal(runCase(M, wraps, 'forward', 'cannot reshape'), '');
  assert.notEqual(runCase(M, wraps, 'ok', ''), '');
  // After every hostile case the same module instance still runs a real model.
  const lab = new M.OnnxLab(new Uint8Array(fs.readFileSync(path.join(ROOT, 'tests/fixtures/onnx/squeezenet1_1/model.onnx'))));
  const logits = lab.setPhoto(new Float32Array(3 * 224 * 224).fill(0.5), 'raw');
  assert.ok(logits.length > 0 && Array.from(logits).every(Number.isFinite));
  lab.delete?.();
});
