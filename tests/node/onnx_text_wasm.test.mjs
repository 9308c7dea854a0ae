// "Your model" on the Text tab (issue 28), the wasm part: Module.OnnxTextLab (wasm/onnx_text_bindings.cpp) on the
// shipped stories260K and on small crafted graphs.
// Contract:
//   - explain(text) / explainIds(ids) give the object `attnlab explain-onnx-text` prints (same keys; integers and
//     strings equal, numbers within 1e-5; value zeroing and ALTI when asked, and contextMixingLayer per layer +
//     contextMixingRollout = the CLI's value_zeroing / alti rows); negative control: another text's CLI object is told apart.
//   - 200 greedy steps from BOS (greedyStep, the loop of `attnlab generate --steps 200`) decode to
//     ../shared/data/stories260K/greedy200.expected.txt exactly; 199 steps do not.
//   - top(ids, 5): the arg-max first (= explain's target), its probability = explain's; leaveOneOut in pieces =
//     explain's leave_one_out; attentionMaps = explain's attention_layers, its last layer's rollout / flow rows =
//     explain's rollout / flow rows.
//   - a text longer than the model's 512 positions is cut to 512 (found by trying) and says where.
//   - bad input gives its message (not JSON, unknown tokenizer type, vocabulary larger than the embedding table,
//     several outputs none named logits, opset too high, external data, an image model, a 500 MB file, config.json
//     not JSON); a graph without attention loads and explains with the gradient rows and a note; after all of them
//     the same module instance still explains stories260K.
// Skips (with the reason) only when web/gen is not built, the CLI is missing (CLI comparisons) or ../shared lacks
// the greedy text (that test).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import onnxPkg from 'onnx-proto';
import { ROOT, CLI, hasWasm, loadCore } from './parity-lib.mjs';

const { onnx } = onnxPkg;
const DT = onnx.TensorProto.DataType;
const STORIES = path.join(ROOT, 'models/text/stories260K');
const GREEDY = process.env.ATTNLAB_DATA_DIR ? path.resolve(process.env.ATTNLAB_DATA_DIR, 'stories260K/greedy200.expected.txt')
  : path.resolve(ROOT, '../shared/data/stories260K/greedy200.expected.txt');
const skip = hasWasm() ? false : 'web/gen not built';
const noCli = !hasWasm() ? 'web/gen not built' : fs.existsSync(CLI) ? false : `${CLI} missing`;
const TOL = 1e-5;

const modelBytes = () => new Uint8Array(fs.readFileSync(path.join(STORIES, 'model.onnx')));
const tokBytes = () => new Uint8Array(fs.readFileSync(path.join(STORIES, 'tokenizer.bin')));
const enc = (s) => new TextEncoder().encode(s);

function cliExplain(args) {
  const out = execFileSync(CLI, ['explain-onnx-text', '--model', STORIES, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  return JSON.parse(out.trim().split('\n').pop());
}

// '' when a and b are equal (numbers within tol; a null equals a null), else where they first differ.
function diff(a, b, tol = TOL, at = '$') {
  if (typeof a === 'number' && typeof b === 'number') {
    return Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)) ? '' : `${at}: ${a} vs ${b}`;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return `${at}: length ${a?.length} vs ${b?.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = diff(a[i], b[i], tol, `${at}[${i}]`);
      if (d) return d;
    }
    return '';
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    if (ka.join() !== kb.join()) return `${at}: keys ${ka.join(',')} vs ${kb.join(',')}`;
    for (const k of ka) {
      const d = diff(a[k], b[k], tol, `${at}.${k}`);
      if (d) return d;
    }
    return '';
  }
  return a === b ? '' : `${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

let core = null;
let stories = null;
async function setup() {
  core ??= await loadCore();
  stories ??= new core.OnnxTextLab(modelBytes(), tokBytes(), '', { tokenizerName: 'tokenizer.bin' });
  return { M: core, lab: stories };
}

test('info: a causal LM, 5 layers × 8 heads found, the llama2.c tokenizer, BOS / EOS stop', { skip }, async () => {
  const { lab } = await setup();
  const info = lab.info();
  assert.equal(info.task, 'causal-lm');
  assert.equal(info.causal, true);
  assert.equal(info.output, 'logits');
  assert.equal(info.outputs, 512);
  assert.equal(info.layers, 5);
  assert.equal(info.heads, 8);
  assert.equal(info.attention_found.length, 5);
  assert.deepEqual(info.tokenizer, { kind: 'llama2c-bpe', vocab_size: 512 });
  assert.deepEqual(info.stop_ids, [1, 2]);
  assert.equal(info.summary.nodes, 259);
  assert.equal(info.summary.attention.length, 5);
  assert.equal(info.labels, null);
});

test('explain and explainIds give the CLI’s explain-onnx-text object (1e-5)', { skip: noCli }, async () => {
  const { lab } = await setup();
  const cases = [
    { text: 'Once upon a time', target: 'next', args: [] },
    { text: 'The little cat was very sad because she lost her red ball in the park.', target: 'next', args: [] },
    { text: 'Tom and Lily', target: 407, args: ['--target', '407'] },
  ];
  for (const c of cases) {
    // integrated gradients (explain-onnx-text's default 50 segments; the page's explain leaves them to a job)
    const want = cliExplain(['--text', c.text, ...c.args]);
    const got = lab.explain(c.text, c.target, { igSteps: 50, contextMixing: true });
    assert.equal(diff(got, want), '', c.text);
    // the page's job, given the template's special tokens (kept in a token baseline): the same row and baseline
    const ig = lab.integratedGradients(want.ids, want.target, 50, { special: want.special });
    assert.equal(diff(ig, { values: want.integrated_gradients, completeness: want.integrated_gradients_completeness,
      baseline: want.integrated_gradients_baseline }), '');
    // stories260K's zero-embedding path cannot be integrated, so auto took <unk>'s; the zero baseline gives the sums
    // the row reports for it (and misses completeness: the negative control)
    assert.equal(want.integrated_gradients_baseline.kind, 'token');
    assert.equal(want.integrated_gradients_baseline.piece, '<unk>');
    const zero = lab.integratedGradients(want.ids, want.target, 50, { igBaseline: 'zero' });
    assert.equal(diff(zero.completeness, want.integrated_gradients_baseline.zero_completeness), '');
    assert.ok(Math.abs(zero.completeness.sum - zero.completeness.target) > 0.05 * Math.max(Math.abs(zero.completeness.target), 0.01));
    const { sum, target } = want.integrated_gradients_completeness;
    assert.ok(Math.abs(sum - target) <= 0.05 * Math.max(Math.abs(target), 0.01), `${sum} vs ${target}`);
    // value zeroing and ALTI as the page's jobs compute them: one layer a call, then the rollout
    for (const method of ['value_zeroing', 'alti']) {
      const layers = [...Array(lab.info().layers).keys()].map((l) => lab.contextMixingLayer(want.ids, method, l).values);
      assert.equal(diff(lab.contextMixingRollout(want.ids, layers), { values: want[method] }), '', method);
    }
    const byIds = lab.explainIds(want.ids, c.target);
    const wantIds = cliExplain(['--ids', want.ids.join(','), '--ig-steps', '0', '--no-context-mixing', ...c.args]);
    assert.equal(diff(byIds, wantIds), '', `ids of ${c.text}`);
  }
  // negative controls: another text's object, and a changed number beyond 1e-5, are told apart
  const a = lab.explain('Once upon a time');
  assert.notEqual(diff(a, cliExplain(['--text', 'Once upon a tree', '--ig-steps', '0', '--no-context-mixing'])), '');
  const b = structuredClone(a);
  b.rollout[1] += 1e-3;
  assert.notEqual(diff(b, a), '');
  // the page's form: the same without attention_layers
  const lean = lab.explain('Once upon a time', 'next', { attentionLayers: false });
  assert.equal('attention_layers' in lean, false);
  delete a.attention_layers;
  assert.equal(diff(lean, a, 0), '');
});

test('200 greedy steps from BOS decode to greedy200.expected.txt exactly', {
  skip: skip || (fs.existsSync(GREEDY) ? false : `${GREEDY} missing`),
}, async () => {
  const { lab } = await setup();
  const expected = fs.readFileSync(GREEDY, 'utf8');
  const run = (steps) => {
    const ids = [1];
    while (ids.length < steps + 1) {
      const s = lab.greedyStep(ids);
      if (s.stop) break;
      ids.push(s.id);
    }
    return lab.decode(ids);
  };
  const text = run(200);
  assert.ok(text === expected || `${text}\n` === expected, `the greedy text differs:\n${text}`);
  const short = run(199);
  assert.notEqual(short, text);
  assert.ok(text.startsWith(short));
});

test('top-5, leave-one-out in pieces and the attention maps agree with explain', { skip }, async () => {
  const { lab } = await setup();
  const e = lab.explain('Once upon a time, there was a little girl');
  const ids = e.ids;
  const t = lab.top(ids, 5);
  assert.equal(t.top.length, 5);
  assert.equal(t.greedy, e.target);
  assert.equal(t.top[0].id, e.target);
  assert.ok(Math.abs(t.top[0].probability - e.probability) < 1e-6);
  for (let k = 1; k < 5; k++) assert.ok(t.top[k].logit <= t.top[k - 1].logit);
  assert.equal(t.top[0].text, lab.pieces([e.target]).texts[0]);
  // leave-one-out in three pieces
  const loo = [];
  for (let b = 0; b < ids.length; b += 4) loo.push(...lab.leaveOneOut(ids, e.target, e.probability, b, Math.min(4, ids.length - b)).values);
  assert.equal(diff(loo, e.leave_one_out, 1e-9), '');
  // attention maps: the data in the graph's order, the last layer's rollout and flow = explain's rows
  const m = lab.attentionMaps(ids);
  const { n, layers: L, heads: H } = m;
  assert.equal(n, ids.length);
  assert.equal(m.explained, n - 1);
  const flat = e.attention_layers.flat(3);
  assert.equal(m.data.length, L * H * n * n);
  assert.equal(diff(Array.from(m.data), flat, 1e-6), '');
  for (let p = 0; p < n - 1; p++) {
    assert.ok(Math.abs(m.rollout[((L - 1) * n + (n - 1)) * n + p] - e.rollout[p]) < 1e-5, `rollout ${p}`);
    assert.ok(Math.abs(m.flow[(L - 1) * (n - 1) + p] - e.flow[p]) < 1e-5, `flow ${p}`);
  }
  // negative control: a head-swapped reading differs
  const swapped = Array.from(m.data);
  const size = n * n;
  for (let k = 0; k < size; k++) [swapped[k], swapped[size + k]] = [swapped[size + k], swapped[k]];
  assert.notEqual(diff(swapped, flat, 1e-6), '');
});

test('top, greedyStep and leave-one-out (inference passes: the tail on the last position, after prefixes) equal the whole graph’s as bits', { skip }, async () => {
  const { M, lab } = await setup();
  const whole = new M.OnnxTextLab(modelBytes(), tokBytes(), '', { tokenizerName: 'tokenizer.bin', lastPositionTail: false });
  try {
    const ids = lab.tokenize('Once upon a time, there was a little girl named Lily who loved', true).ids;
    for (const k of [1, ids.length]) { // one position (nothing to cut), then the whole prompt
      const a = lab.top(ids.slice(0, k), 5), b = whole.top(ids.slice(0, k), 5);
      assert.deepEqual(a.top.map((t) => t.logit), b.top.map((t) => t.logit));
      assert.deepEqual(lab.greedyStep(ids.slice(0, k)), whole.greedyStep(ids.slice(0, k)));
    }
    // the explanation after an inference pass runs its own full pass: the same object as on the whole-graph lab
    const e = lab.explainIds(ids, 'next', { leaveOneOut: false }), f = whole.explainIds(ids, 'next', { leaveOneOut: false });
    assert.equal(diff(e.gradient, f.gradient, 0), '');
    // leave-one-out's batches after a prefix (onnx/suffix_pass.h: each batch runs the positions from its first deletion
    // on, with the keys and values of those before it from the run on the text): the whole graph's values as bits, on
    // the first call (checked once) and after it; the values move (a comparison that says something)
    const target = e.target;
    for (let k = 0; k < 2; k++) {
      const a = lab.leaveOneOut(ids, target, e.probability, 0, ids.length), b = whole.leaveOneOut(ids, target, e.probability, 0, ids.length);
      assert.equal(diff(a.values.map((v) => v ?? 0), b.values.map((v) => v ?? 0), 0), '', `call ${k + 1}`);
      assert.ok(Math.max(...a.values.map((v) => v ?? 0)) > 1e-3);
    }
    // the page's "next": the text one token longer, each deletion's new position after the keys and values the call
    // before kept (OnnxTextModel::deletions), three steps — the whole graph's bits
    let longer = ids;
    for (let k = 0; k < 3; k++) {
      longer = [...longer, lab.top(longer, 1).top[0].id];
      const x = lab.explainIds(longer, 'next', { leaveOneOut: true }), y = whole.explainIds(longer, 'next', { leaveOneOut: true });
      assert.equal(diff(x.leave_one_out.map((v) => v ?? 0), y.leave_one_out.map((v) => v ?? 0), 0), '', `step ${k + 1}`);
    }
    assert.throws(() => new M.OnnxTextLab(modelBytes(), tokBytes(), '', { lastPositionTail: 'no' }), /lastPositionTail must be true or false/);
  } finally {
    whole.delete();
  }
});

test('explainStep (the page\'s step) equals explainIds, top and attentionMaps value for value, with no passes of its own', { skip }, async () => {
  const { M, lab } = await setup();
  const same = (a, b, what) => {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), what);
    for (const k of Object.keys(a)) {
      const x = ArrayBuffer.isView(a[k]) ? Array.from(a[k]) : a[k], y = ArrayBuffer.isView(b[k]) ? Array.from(b[k]) : b[k];
      assert.equal(JSON.stringify(x), JSON.stringify(y), `${what}.${k}`);
    }
  };
  const opts = { leaveOneOut: true, contextMixing: false, attentionLayers: false };
  const bert = path.join(ROOT, 'tests/fixtures/onnx-text/bert-sst2');
  const classifier = new M.OnnxTextLab(new Uint8Array(fs.readFileSync(path.join(bert, 'model.onnx'))),
    new Uint8Array(fs.readFileSync(path.join(bert, 'tokenizer.json'))), fs.readFileSync(path.join(bert, 'config.json'), 'utf8'), {});
  try {
    const story = lab.tokenize('Once upon a time, there was a little girl named Lily. She loved to play in the park with her red ball and her dog.', true).ids;
    for (const [l, ids, k] of [[lab, story, 5], [lab, story.slice(0, 1), 5], [classifier, classifier.tokenize('a gripping , funny and moving film', true).ids, 2]]) {
      const step = l.explainStep(ids, 'next', { ...opts, top: k });
      const e = l.explainIds(ids, 'next', opts);
      assert.equal(JSON.stringify(step.explain), JSON.stringify(e), 'the explanation, the flow row included');
      assert.deepEqual(step.top, l.top(ids, k));
      same(step.maps, l.attentionMaps(ids), 'maps');
      if (ids.length > 3) {
        // negative control: the flow row is compared: the per-layer flows' layer before the last differ from it
        const n = step.maps.n, L = step.maps.layers;
        const before = Array.from(step.maps.flow.slice((L - 2) * (n - 1), (L - 1) * (n - 1)));
        const last = Array.from(step.maps.flow.slice((L - 1) * (n - 1), L * (n - 1)));
        assert.notEqual(JSON.stringify(before), JSON.stringify(last));
      }
    }
    // integrated gradients inside the explanation move the model's pass: the maps then come from a pass of their own
    const withIg = lab.explainStep(story, 'next', { ...opts, leaveOneOut: false, igSteps: 4 });
    same(withIg.maps, lab.attentionMaps(story), 'maps after integrated gradients');
    assert.throws(() => lab.explainStep(story, 'next', { top: 0 }), /options.top must be an integer in 1..1000/);
  } finally {
    classifier.delete();
  }
});

test('a text longer than the model’s 512 positions is cut there and says where', { skip }, async () => {
  const { lab } = await setup();
  const text = 'Once upon a time, there was a little girl named Lily. '.repeat(60);
  const tok = lab.tokenize(text);
  assert.ok(tok.ids.length > 512);
  const e = lab.explain(text, 'next', { leaveOneOut: false, attentionLayers: false });
  assert.equal(e.ids.length, 512);
  assert.equal(e.tokens.length, 512);
  assert.deepEqual(e.truncated, { kept: 512, total: tok.ids.length, at_byte: tok.offsets[511][1], max_positions: 512, source: 'tried' });
  assert.equal(lab.info().max_positions, 512);
  // attention flow (one max-flow per position through 5 layers: ~40 s here) is left out with a note; rollout stays
  assert.ok(e.flow.every((v) => v === null));
  assert.match(e.flow_note, /^Attention flow is left out: .*512 positions × 5 layers .*up to 229 positions/);
  assert.ok(e.rollout.some((v) => v !== null));
  // later calls cut at once
  assert.equal(lab.top(tok.ids, 1).ids_used, 512);
});

// ---- crafted graphs ----------------------------------------------------------------------------------------
function f32(name, dims, values) {
  const raw = Buffer.alloc(4 * values.length);
  values.forEach((v, k) => raw.writeFloatLE(v, 4 * k));
  return onnx.TensorProto.create({ name, dims, dataType: DT.FLOAT, rawData: raw });
}
const vi = (name, type, dims) => onnx.ValueInfoProto.create({
  name, type: { tensorType: { elemType: type, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
});
// input_ids → Gather(emb [V, 4]) → ReduceMean over the tokens → MatMul → logits [1, 2] (outputs renamed / added on request)
function bagModel({ V = 8, opset = 13, outputs = ['logits'], external = false } = {}) {
  const emb = f32('emb', [V, 4], Array.from({ length: V * 4 }, (_, k) => Math.sin(k + 1)));
  if (external) {
    emb.rawData = new Uint8Array(0);
    emb.dataLocation = onnx.TensorProto.DataLocation.EXTERNAL;
    emb.externalData = [onnx.StringStringEntryProto.create({ key: 'location', value: 'weights.bin' })];
  }
  const nodes = [
    onnx.NodeProto.create({ opType: 'Gather', input: ['emb', 'input_ids'], output: ['x'], name: 'Gather_emb' }),
    onnx.NodeProto.create({ opType: 'ReduceMean', input: ['x'], output: ['m'], name: 'mean',
      attribute: [{ name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [1] }, { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] }),
    ...outputs.map((o, k) => onnx.NodeProto.create({ opType: 'MatMul', input: ['m', `w${k}`], output: [o], name: `head_${k}` })),
  ];
  const graph = onnx.GraphProto.create({
    name: 'bag', node: nodes,
    initializer: [emb, ...outputs.map((_, k) => f32(`w${k}`, [4, 2], [0.5, -0.25, 0.1 * (k + 1), 0.3, -0.2, 0.4, 0.7, -0.6]))],
    input: [vi('input_ids', DT.INT64, [1, 'T'])],
    output: outputs.map((o) => vi(o, DT.FLOAT, [1, 2])),
  });
  return onnx.ModelProto.encode(onnx.ModelProto.create({
    irVersion: 8, producerName: 'onnx_text_wasm.test', graph, opsetImport: [{ domain: '', version: opset }],
  })).finish();
}
function wordpiece(words) {
  const vocab = Object.fromEntries(['[PAD]', '[UNK]', '[CLS]', '[SEP]', ...words].map((w, i) => [w, i]));
  return enc(JSON.stringify({
    version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] },
    decoder: null,
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  }));
}
const TOK4 = wordpiece(['a', 'b', 'c', 'd']); // 8 entries = the bag model's table

test('a graph without attention loads, says so, and its gradient rows still run', { skip }, async () => {
  const { M } = await setup();
  const lab = new M.OnnxTextLab(bagModel(), TOK4, JSON.stringify({ id2label: { 0: 'NEG', 1: 'POS' }, model_type: 'bag' }));
  const info = lab.info();
  assert.equal(info.task, 'classifier');
  assert.equal(info.layers, 0);
  assert.match(info.attention_note, /no attention was found/);
  assert.deepEqual(info.labels, ['NEG', 'POS']);
  const e = lab.explain('a b c');
  assert.deepEqual(e.tokens, ['[CLS]', 'a', 'b', 'c', '[SEP]']);
  assert.match(e.attention_note, /no attention was found/);
  assert.equal(e.gradient.length, 5);
  assert.ok(e.gradient.every(Number.isFinite));
  assert.equal(e.leave_one_out.length, 5);
  assert.equal(lab.top(e.ids, 2).top[0].token, e.target === 1 ? 'POS' : 'NEG');
  assert.throws(() => lab.attentionMaps(e.ids), /no attention was found/);
  assert.throws(() => lab.greedyStep(e.ids), /causal language model/);
  lab.delete();
});

test('bad input gets a clear message, nothing thrown but an Error, and the module still works', { skip }, async () => {
  const { M } = await setup();
  const squeeze = new Uint8Array(fs.readFileSync(path.join(ROOT, 'tests/fixtures/onnx/squeezenet1_1/model.onnx')));
  const cases = [
    ['tokenizer not JSON', () => new M.OnnxTextLab(bagModel(), enc('{"model": {"type": "WordPiece", "vocab": {'), '', { tokenizerName: 'tokenizer.json' }),
      /tokenizer\.json: tokenizer\.json is not valid JSON/],
    ['unknown tokenizer model type', () => new M.OnnxTextLab(bagModel(), enc('{"model":{"type":"Unigram","vocab":[["a",0.1]]}}')),
      /model type 'Unigram' is not supported/],
    ['vocabulary larger than the embedding table', () => new M.OnnxTextLab(bagModel(), wordpiece(['a', 'b', 'c', 'd', 'e', 'f', 'g'])),
      /vocabulary \(11 tokens\) is larger than the model's embedding table.*index 10 out of range/],
    ['several outputs, none named logits', () => new M.OnnxTextLab(bagModel({ outputs: ['a', 'b'] }), TOK4),
      /several outputs \(a, b\) and none is named 'logits'/],
    ['opset too high', () => new M.OnnxTextLab(bagModel({ opset: 22 }), TOK4), /opset 22 .*outside the supported range 1 to 21/],
    ['external data', () => new M.OnnxTextLab(bagModel({ external: true }), TOK4), /external_data is refused/],
    ['an image model', () => new M.OnnxTextLab(squeeze, TOK4), /is FLOAT: a text model takes token ids/],
    ['not ONNX', () => new M.OnnxTextLab(TOK4, TOK4), /the model: /],
    ['a 500 MB file', () => new M.OnnxTextLab(new Uint8Array(500e6), TOK4), /the model file is 500\.0 MB; at most 268\.4 MB/],
    ['config.json not JSON', () => new M.OnnxTextLab(bagModel(), TOK4, '{"id2label": '), /config\.json is not a JSON object/],
    ['no tokenizer', () => new M.OnnxTextLab(bagModel()), /a tokenizer is needed/],
    ['bad ids', () => stories.explainIds([1, -3]), /ids\[1\] is not a token id/],
    ['bad target', () => stories.explain('Once', 'last'), /target must be/],
    ['id outside the vocabulary', () => stories.explainIds([1, 600]), /index 600 out of range/],
  ];
  for (const [name, fn] of cases) {
    let err = null;
    try {
      const r = fn();
      r?.delete?.();
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof Error && !(err instanceof WebAssembly.RuntimeError), `${name}: expected an Error, got ${err}`);
    assert.match(err.message, cases.find((c) => c[0] === name)[2], name);
  }
  // negative control: a good pair does not throw
  new M.OnnxTextLab(bagModel(), TOK4).delete();
  // the same instance still explains stories260K, and loads it again
  const e = stories.explain('Once upon a time', 'next', { leaveOneOut: false });
  assert.equal(e.ids.length, 5);
  const again = new M.OnnxTextLab(modelBytes(), tokBytes());
  assert.equal(again.explain('Once upon a time').target, e.target);
  again.delete();
});
