// "Your transformer, explained" (issue 28): the shipped sst2-transformer exported to ONNX by the project's exporter
// (models/tools/export-transformer-onnx.mjs) and explained through the executor (`attnlab explain-onnx-text --ids`)
// gives the native path's numbers (`attnlab explain-text`): the class probability, every layer's attention found in
// the graph (nothing declared), rollout, flow, Chefer relevance, attention × gradient, integrated gradients,
// leave-one-out, value zeroing and ALTI (the values, residual Adds and block outputs found in the graph,
// core/explain/onnx/residual_stream.h) — within
// 1e-5. The attention methods are the same functions on both paths (explain/self_attention_maps.h); what this checks
// is that the executor finds the attention, orders the layers and heads, and differentiates to it like the native
// transformer. Negative control: the 4-layer model's ONNX against the 2-layer native model differs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CLI, ROOT } from './parity-lib.mjs';
import { exportTransformerOnnx } from '../../models/tools/export-transformer-onnx.mjs';

const skip = fs.existsSync(CLI) ? false : 'build/attnlab missing';
const lastJson = (text) => JSON.parse(text.trim().split('\n').pop());
const cli = (...args) => lastJson(execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
const maxDiff = (a, b) => {
  assert.equal(a.length, b.length);
  return Math.max(0, ...a.map((v, k) => Math.abs(v - b[k])));
};

test('the exported sst2-transformer explained through the executor equals the native path', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'onnx-text-'));
  const model = path.join(ROOT, 'models/text/sst2-transformer');
  const onnx = path.join(dir, 'sst2-transformer.onnx');
  exportTransformerOnnx(model, onnx);
  const text = 'a gorgeous , witty , seductive movie that never quite delivers .';
  const native = cli('explain-text', '--model', model, '--text', text, '--ig-steps', '20');
  const got = cli('explain-onnx-text', '--model', onnx, '--ids', native.ids.join(','), '--ig-steps', '20');
  const L = native.attention_layers.length;
  assert.equal(got.attention_found.length, L, 'one attention found per layer, none declared');
  assert.equal(got.attention_found[0].heads, native.attention_layers[0].length);
  assert.ok(Math.abs(got.probability - native.probability) < 1e-5, `${got.probability} vs ${native.probability}`);
  for (let l = 0; l < L; l++)
    for (let h = 0; h < native.attention_layers[l].length; h++)
      assert.ok(maxDiff(got.attention_layers[l][h].flat(), native.attention_layers[l][h].flat()) < 1e-5, `layer ${l} head ${h}`);
  for (const row of ['rollout', 'flow', 'relevance', 'grad_attention', 'leave_one_out', 'value_zeroing', 'alti'])
    assert.ok(maxDiff(got[row], native[row]) < 1e-5, `${row}: ${maxDiff(got[row], native[row])}`);
  // Integrated gradients: the same adaptive path (explain/integrated_gradients_path.h) over the executor's
  // forward_from at the scaled token embeddings; completeness as the native path reports it.
  assert.ok(maxDiff(got.integrated_gradients, native.integrated_gradients) < 1e-5,
    `integrated_gradients: ${maxDiff(got.integrated_gradients, native.integrated_gradients)}`);
  const sum = got.integrated_gradients.reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(sum - got.integrated_gradients_completeness.sum) < 1e-9);
  assert.ok(Math.abs(got.integrated_gradients_completeness.target - native.integrated_gradients_completeness.target) < 1e-5);
  assert.ok(Math.abs(sum - got.integrated_gradients_completeness.target) < 0.02, 'completeness within the path rule');
  // Negative control: another model's graph gives other numbers.
  const other = path.join(dir, 'four.onnx');
  exportTransformerOnnx(path.join(ROOT, 'models/text/sst2-transformer-4layer'), other);
  const wrong = cli('explain-onnx-text', '--model', other, '--ids', native.ids.join(','), '--no-loo', '--ig-steps', '20');
  assert.notEqual(wrong.attention_found.length, L);
  assert.ok(maxDiff(wrong.rollout, native.rollout) > 1e-3);
  assert.ok(maxDiff(wrong.integrated_gradients, native.integrated_gradients) > 1e-3);
  assert.ok(maxDiff(wrong.value_zeroing, native.value_zeroing) > 1e-3);
  assert.ok(maxDiff(wrong.alti, native.alti) > 1e-3);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('explain-onnx-text refuses what it cannot explain, with a message', { skip }, () => {
  const run = (...args) => {
    try { execFileSync(CLI, args, { encoding: 'utf8', stdio: 'pipe' }); return ''; } catch (e) { return String(e.stderr); }
  };
  // An image classifier is not a text model.
  assert.match(run('explain-onnx-text', '--model', path.join(ROOT, 'tests/fixtures/onnx/squeezenet1_1/model.onnx'), '--ids', '1,2'),
    /takes token ids/);
  assert.match(run('explain-onnx-text', '--model', path.join(ROOT, 'README.md'), '--ids', '1'), /not an ONNX model/);
  assert.match(run('explain-onnx-text', '--model', path.join(ROOT, 'tests/fixtures/onnx/squeezenet1_1/model.onnx')), /--text or --ids/);
});

// A real pretrained causal LM no one here wrote (stories260K, Llama-2 architecture: RMSNorm, rotary positions,
// grouped-query attention, SwiGLU): its attention found in the graph (5 layers × 8 heads, no extra outputs), the
// explained next token equal to `attnlab generate`'s greedy token after the same prompt, and every row one value
// per token (the explained last position has none from the attention methods).
test('stories260K: the next token explained, attention found in a Llama graph', { skip }, () => {
  const dir = path.join(ROOT, 'models/text/stories260K');
  const prompt = 'Once upon a time';
  const got = cli('explain-onnx-text', '--model', dir, '--text', prompt, '--no-loo', '--ig-steps', '0');
  assert.equal(got.causal, true);
  assert.equal(got.attention_found.length, 5);
  assert.ok(got.attention_found.every((a) => a.heads === 8 && a.positions === got.ids.length));
  const gen = cli('generate', '--model', path.join(dir, 'model.onnx'), '--tokenizer', path.join(dir, 'tokenizer.bin'),
    '--prompt', prompt, '--steps', String(got.ids.length + 1));
  assert.equal(got.target, gen.ids[got.ids.length], 'the explained token is the greedy next token');
  for (const row of ['rollout', 'flow', 'relevance', 'grad_attention', 'gradient', 'gradient_x_input']) {
    assert.equal(got[row].length, got.ids.length, row);
    assert.ok(got[row].slice(0, -1).every(Number.isFinite) || row.startsWith('gradient'), row);
  }
  assert.equal(got.rollout.at(-1), null, 'the explained position itself has no attention score');
  assert.ok(got.gradient.some((v) => v > 0), 'gradients reach the token embeddings');
});

test('explain-onnx-text cuts a text longer than the model reads, and refuses a tokenizer too large for the model', { skip }, () => {
  const bert = path.join(ROOT, 'tests/fixtures/onnx-text/bert-sst2');
  // config.json says max_position_embeddings 128: the text is cut there, [SEP] kept last, and the answer says where.
  const long = Array.from({ length: 200 }, (_, k) => (k % 2 ? 'good' : 'movie')).join(' ');
  const got = cli('explain-onnx-text', '--model', bert, '--text', long, '--no-loo', '--ig-steps', '0');
  assert.equal(got.ids.length, 128);
  assert.equal(got.tokens.length, 128);
  assert.equal(got.tokens.at(-1), '[SEP]');
  assert.deepEqual(got.truncated, { kept: 128, total: 202, at_byte: got.offsets[126][1], max_positions: 128,
    source: 'config.json max_position_embeddings' });
  assert.equal(long.slice(0, got.truncated.at_byte).split(' ').length, 126);
  // Negative control: a short text is not cut.
  assert.equal(cli('explain-onnx-text', '--model', bert, '--text', 'a good movie', '--no-loo', '--ig-steps', '0').truncated, undefined);
  // GPT-2's 50,257-token vocabulary on BERT's 30,522-row embedding table: "Hello" is already id 31414 there (the
  // binding's test, onnx_text_wasm.test.mjs, covers a vocabulary whose short text fits and whose last id does not).
  let stderr = '';
  try {
    execFileSync(CLI, ['explain-onnx-text', '--model', path.join(bert, 'model.onnx'), '--tokenizer',
      path.join(ROOT, 'tests/fixtures/onnx-text/gpt2-sst2/tokenizer.json'), '--text', 'hi'], { encoding: 'utf8', stdio: 'pipe' });
  } catch (e) { stderr = String(e.stderr); }
  assert.match(stderr, /tokenizer\.json with .*model\.onnx: the model does not run on a short text.*index 31414 out of range for axis of size 30522/);
});
