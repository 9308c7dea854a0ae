// explain_cap.test.mjs — the wasm core's explanation limits (issue 13: a 200k-token `explain` filled the 2 GiB
// heap and threw a bare Number). Through the real wasm (web/gen, or $ATTNLAB_WASM_DIR):
//   - TextLab.explain of a 200,000-token text with maxTokens 0 ("no cut") or over the cap returns an explanation
//     of the first 1,000 tokens (core/explain/explain_text.h kMaxExplainTokens) with truncated: true and
//     num_tokens_total = 200,000 — never a throw; the live experiments and predict take the same text too;
//   - the wasm memory stays small while it does (leave-one-out and integrated gradients run in bounded chunks):
//     a tiny model trained here (TextTraining, 4-dimensional) keeps the heap under 256 MiB.
// Skips when web/gen is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { hasWasm, loadCore } from './parity-lib.mjs';

const CAP = 1000;
const MiB = 1 << 20;

function tinyLab(M) {
  const lines = [];
  for (let i = 0; i < 40; i++) lines.push(`${i % 2}\t${i % 2 ? 'a good film' : 'a bad film'} ${i % 3 ? 'very' : 'not'}`);
  const tsv = `${lines.join('\n')}\n`;
  const t = new M.TextTraining(tsv, tsv, { epochs: 1, embedding_dim: 4, hidden_dim: 4, seed: 1 });
  for (let guard = 0; guard < 1000 && !t.step(100).done; guard++);
  const lab = new M.TextLab(t.configJson(), t.weights());
  t.delete();
  return lab;
}

test('wasm explain: a 200k-token text is cut to the cap with the cut reported, in bounded memory', { skip: !hasWasm() && 'no web/gen' }, async () => {
  const M = await loadCore();
  const lab = tinyLab(M);
  const text = 'good film '.repeat(100000); // 200,000 tokens
  for (const maxTokens of [0, 5000]) {
    const r = lab.explain(text, maxTokens, 2);
    assert.equal(r.tokens.length, CAP, `maxTokens ${maxTokens}`);
    assert.equal(r.truncated, true);
    assert.equal(r.num_tokens_total, 200000);
    for (const k of ['attention', 'gradient', 'leave_one_out', 'integrated_gradients']) {
      assert.equal(r[k].length, CAP, k);
      assert.ok(r[k].every(Number.isFinite), `${k}: finite`);
    }
  }
  const short = lab.explain('good film', 0, 2);
  assert.equal(short.truncated, false);
  assert.equal(short.tokens.length, 2);
  const row = lab.experiment('kendall', text, {}, 1, 0);
  assert.equal(row.tokens.length, CAP);
  assert.ok(Number.isFinite(lab.predict(text)));
  const heap = (M.wasmMemory ?? M.HEAPU8).buffer.byteLength;
  assert.ok(heap < 256 * MiB, `wasm memory ${heap / MiB} MiB`);
  lab.delete();
});
