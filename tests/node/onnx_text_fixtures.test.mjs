// Real models no one here wrote (issue 28): BERT-, RoBERTa- and GPT-2-shaped transformers built and trained in
// PyTorch (models/tools/make-text-fixtures.py; tests/fixtures/onnx-text/<name>/: model.onnx from torch.onnx.export
// under Hugging Face's names, tokenizer.json, config.json, reference.json of torch tensors), explained through the
// core's executor (`attnlab explain-onnx-text --model DIR --text …`).
// Contract, per model and per reference sentence (torch is not run here: its tensors are in reference.json):
//   - the ids the core's tokenizer gives equal the ids torch was fed (the script's own Python WordPiece / byte-level
//     BPE); control: the other tokenizer of the pair gives other ids;
//   - the executor's logits of the explained position equal ONNX Runtime Web's (wasm EP, 1 thread) on the same ids,
//     max |Δ| / max |ORT| ≤ 1e-4 (all V logits for the causal LM); control: ORT on the ids with one token changed
//     fails it;
//   - they equal torch's: ≤ 1e-4 relative (the causal LM: 200+ sampled logits, the sum and sum of squares of all V);
//     control: another sentence's torch logits fail the same comparison;
//   - attention_layers [layer][head][query][key] equal the torch module's attention probabilities, max |Δ| ≤ 1e-5;
//     control: the heads of each layer in reverse order fail it;
//   - gradient (‖∂logit/∂x_t‖ on the token embeddings) and gradient × input equal torch autograd's, ≤ 1e-4
//     relative; control: the gradient of another target (the runner-up logit) fails it;
//   - relevance equals the torch re-implementation of Chefer et al. (positive part per head, then the head mean),
//     ≤ 1e-4 relative; controls: another target fails it, and the positive part taken after the head mean (torch,
//     in reference.json) fails it on at least one of the model's sentences (the two readings coincide where no
//     head's gradient-weighted attention changes sign).
// Every control is the same comparison with the same tolerance, required to fail.
// Skips only when the CLI binary (build/attnlab or $ATTNLAB_CLI) is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';

ort.env.wasm.numThreads = 1;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIX = path.join(ROOT, 'tests/fixtures/onnx-text');
const CLI = process.env.ATTNLAB_CLI ? path.resolve(process.env.ATTNLAB_CLI) : path.join(ROOT, 'build/attnlab');
const skip = fs.existsSync(CLI) ? false : `${CLI} missing`;
const MODELS = ['bert-sst2', 'roberta-sst2', 'gpt2-sst2'];
const TOL = 1e-4;
const lastJson = (text) => JSON.parse(text.trim().split('\n').pop());
const cli = (...args) => lastJson(execFileSync(CLI, args, { encoding: 'utf8', maxBuffer: 256 << 20 }));
const reference = (name) => JSON.parse(fs.readFileSync(path.join(FIX, name, 'reference.json'), 'utf8'));

/** max |a − b| / max |b| over the positions where b is a number (null: no value, must be null in a too). */
function rel(a, b) {
  assert.equal(a.length, b.length, 'lengths');
  let d = 0, m = 0;
  b.forEach((v, k) => {
    if (v === null) { assert.equal(a[k], null, `position ${k} has a value where the reference has none`); return; }
    const e = Math.abs(a[k] - v);
    d = Math.max(d, Number.isNaN(e) ? Infinity : e);
    m = Math.max(m, Math.abs(v));
  });
  return d / m;
}
const maxAbs = (a, b) => {
  assert.equal(a.length, b.length);
  return Math.max(0, ...a.map((v, k) => Math.abs(v - b[k])));
};

async function ortLogits(session, name, ids, causal) {
  const t = (v) => new ort.Tensor('int64', BigInt64Array.from(v, BigInt), [1, v.length]);
  const feeds = { input_ids: t(ids), attention_mask: t(ids.map(() => 1)) };
  if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = t(ids.map(() => 0));
  assert.deepEqual([...session.inputNames].sort(), Object.keys(feeds).sort(), `${name}: Hugging Face's input names`);
  assert.deepEqual(session.outputNames, ['logits'], `${name}: one output, logits`);
  const out = await session.run(feeds);
  const y = out.logits;
  if (!causal) return Array.from(y.data);
  const V = y.dims[2];
  assert.deepEqual(y.dims, [1, ids.length, V]);
  return Array.from(y.data.subarray((ids.length - 1) * V));
}

/** The torch logits of a case compared with the executor's: [C] directly; a causal LM through its sample + sums. */
function logitsRel(got, ref) {
  if (Array.isArray(ref)) return rel(got, ref);
  assert.equal(got.length, ref.vocabulary);
  const ids = Object.keys(ref.sample).map(Number);
  const sample = rel(ids.map((i) => got[i]), ids.map((i) => ref.sample[i]));
  const sum = got.reduce((s, v) => s + v, 0), sq = got.reduce((s, v) => s + v * v, 0);
  return Math.max(sample, Math.abs(sum - ref.sum) / ref.sum_abs, Math.abs(sq - ref.sum_of_squares) / ref.sum_of_squares);
}

const second = (logits, target) => {
  let best = -1;
  logits.forEach((v, k) => { if (k !== target && (best < 0 || v > logits[best])) best = k; });
  return best;
};

for (const name of MODELS) {
  test(`${name}: the executor equals ONNX Runtime and torch (logits, attention, gradients, relevance)`, { skip }, async () => {
    const dir = path.join(FIX, name);
    const ref = reference(name);
    const causal = name.startsWith('gpt2');
    const session = await ort.InferenceSession.create(fs.readFileSync(path.join(dir, 'model.onnx')));
    const worst = { ort: 0, torch: 0, attention: 0, gradient: 0, gradient_x_input: 0, relevance: 0 };
    const controls = { heads_reversed: Infinity, relevance_mean_then_positive: Infinity, other_target_gradient: Infinity,
      other_target_relevance: Infinity, ort_changed_ids: Infinity, other_sentence_logits: Infinity,
      relevance_mean_then_positive_max: 0 };
    for (const [k, c] of ref.cases.entries()) {
      const got = cli('explain-onnx-text', '--model', dir, '--text', c.text, '--target', String(c.target), '--no-loo', '--ig-steps', '0');
      // The tokenizer: the core's ids are the ids torch was fed.
      assert.deepEqual(got.ids, c.ids, `${name} "${c.text}": ids`);
      assert.equal(got.causal, causal);
      assert.equal(got.target, c.target);
      // Logits vs ORT (all of the explained position's) and vs torch.
      const o = await ortLogits(session, name, c.ids, causal);
      const dOrt = rel(got.logits, o);
      assert.ok(dOrt <= TOL, `${name} "${c.text}": executor vs ORT logits ${dOrt}`);
      const dTorch = logitsRel(got.logits, c.logits);
      assert.ok(dTorch <= TOL, `${name} "${c.text}": executor vs torch logits ${dTorch}`);
      // Attention found in the graph vs the torch module's probabilities, layers x heads in order.
      assert.equal(got.attention_layers.length, c.attention.length, 'layers');
      let dA = 0, dAswap = Infinity;
      for (let l = 0; l < c.attention.length; l++) {
        const H = c.attention[l].length;
        assert.equal(got.attention_layers[l].length, H, 'heads');
        let swapped = 0;
        for (let h = 0; h < H; h++) {
          dA = Math.max(dA, maxAbs(got.attention_layers[l][h].flat(), c.attention[l][h].flat()));
          swapped = Math.max(swapped, maxAbs(got.attention_layers[l][h].flat(), c.attention[l][H - 1 - h].flat()));
        }
        dAswap = Math.min(dAswap, swapped);
      }
      assert.ok(dA <= 1e-5, `${name} "${c.text}": attention ${dA}`);
      assert.ok(dAswap > 1e-5, `negative control: heads in reverse order must differ (${dAswap})`);
      // Gradients on the token embeddings and Chefer relevance.
      const dG = rel(got.gradient, c.gradient), dGx = rel(got.gradient_x_input, c.gradient_x_input);
      const dR = rel(got.relevance, c.relevance);
      assert.ok(dG <= TOL, `${name} "${c.text}": gradient ${dG}`);
      assert.ok(dGx <= TOL, `${name} "${c.text}": gradient x input ${dGx}`);
      assert.ok(dR <= TOL, `${name} "${c.text}": relevance ${dR}`);
      Object.assign(worst, {
        ort: Math.max(worst.ort, dOrt), torch: Math.max(worst.torch, dTorch), attention: Math.max(worst.attention, dA),
        gradient: Math.max(worst.gradient, dG), gradient_x_input: Math.max(worst.gradient_x_input, dGx),
        relevance: Math.max(worst.relevance, dR),
      });
      // Negative controls, each of the comparisons above on something else must fail.
      const relAlt = rel(got.relevance, c.relevance_head_mean_then_positive);  // checked over the cases, below
      const other = cli('explain-onnx-text', '--model', dir, '--text', c.text, '--no-loo', '--ig-steps', '0',
        '--target', String(second(got.logits, c.target)));
      const gOther = rel(other.gradient, c.gradient), rOther = rel(other.relevance, c.relevance);
      assert.ok(gOther > TOL, `negative control: another target's gradient must differ (${gOther})`);
      assert.ok(rOther > TOL, `negative control: another target's relevance must differ (${rOther})`);
      const changed = c.ids.slice();
      const at = causal ? changed.length - 1 : 1;
      changed[at] = changed[at] === c.ids[0] ? changed[at] + 1 : c.ids[0] + 7;
      const ortChanged = rel(got.logits, await ortLogits(session, name, changed, causal));
      assert.ok(ortChanged > TOL, `negative control: ORT on changed ids must differ (${ortChanged})`);
      const otherCase = ref.cases[(k + 1) % ref.cases.length];
      const torchOther = logitsRel(got.logits, otherCase.logits);
      assert.ok(torchOther > TOL, `negative control: another sentence's torch logits must differ (${torchOther})`);
      const low = { heads_reversed: dAswap, relevance_mean_then_positive: relAlt, other_target_gradient: gOther,
        other_target_relevance: rOther, ort_changed_ids: ortChanged, other_sentence_logits: torchOther };
      for (const [key, v] of Object.entries(low)) controls[key] = Math.min(controls[key], v);
      controls.relevance_mean_then_positive_max = Math.max(controls.relevance_mean_then_positive_max, relAlt);
    }
    // The two readings of the rule coincide where no head's gradient-weighted attention changes sign at a
    // position; the sentences must tell them apart somewhere.
    assert.ok(controls.relevance_mean_then_positive_max > TOL,
      `negative control: the positive part after the head mean must differ (${controls.relevance_mean_then_positive_max})`);
    console.log(`# ${name}: largest differences ${JSON.stringify(worst)}; smallest control differences ${JSON.stringify(controls)}`);
  });
}

test('the core tokenises the fixtures\' sentences into the ids torch used; the other tokenizer does not', { skip }, () => {
  const tokenize = (tj, text) => cli('tokenize', '--tokenizer', path.join(FIX, tj, 'tokenizer.json'), '--text', text).ids;
  // pairs: each model's sentences through another model's tokenizer.json (WordPiece vs byte-level BPE; RoBERTa's
  // <s> … </s> vs the LM's <s> …)
  for (const [name, other] of [['bert-sst2', 'roberta-sst2'], ['roberta-sst2', 'gpt2-sst2'], ['gpt2-sst2', 'roberta-sst2']]) {
    for (const c of reference(name).cases) {
      assert.deepEqual(tokenize(name, c.text), c.ids, `${name} "${c.text}"`);
      assert.notDeepEqual(tokenize(other, c.text), c.ids, `negative control: ${other}'s tokenizer on "${c.text}"`);
    }
  }
});

test('the fixtures are what the manifest says (sizes, sha256) and small', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(FIX, 'manifest.json'), 'utf8'));
  let total = 0;
  for (const name of MODELS) {
    const m = manifest.models[name];
    assert.ok(m, `${name} in manifest.json`);
    for (const [file, f] of Object.entries(m.files)) {
      const b = fs.readFileSync(path.join(FIX, name, file));
      assert.equal(b.length, f.bytes, `${name}/${file} size`);
      assert.equal(createHash('sha256').update(b).digest('hex'), f.sha256, `${name}/${file} sha256`);
      total += b.length;
    }
  }
  assert.ok(total < 40e6, `the fixtures hold ${total} bytes`);
});
