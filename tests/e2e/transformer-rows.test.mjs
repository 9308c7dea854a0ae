// transformer-rows.test.mjs — the Text tab on sst2-transformer shows the rows the README's tour promises (issue 29):
// after attention, gradient, leave-one-out and integrated gradients, the self-attention readings rollout, attention
// flow, relevance (Chefer et al.) and attention norm (Kobayashi et al.), then AttnLRP and CP-LRP (with their
// conservation line), value zeroing and ALTI (issue 30), each with one cell per token, its colour bar and its Kendall τ
// against attention, with the values the wasm core's TextLab.explain gives in Node; a BiLSTM keeps its four rows.
// Run: node --test tests/e2e/transformer-rows.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { loadCore } from '../node/parity-lib.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL = path.join(REPO, 'models/text/sst2-transformer');
const TIMEOUT = 180_000;
const TEXT = 'a gorgeous , witty , seductive movie .';
const SKIP = !fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? 'needs web/gen' : !fs.existsSync(path.join(MODEL, 'config.json')) ? 'needs models/text/sst2-transformer' : false;

test('sst2-transformer: rollout, flow, relevance, attention-norm, AttnLRP, CP-LRP, value-zeroing and ALTI rows with their colour bars', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const M = await loadCore();
  const lab = new M.TextLab(fs.readFileSync(path.join(MODEL, 'config.json'), 'utf8'), new Uint8Array(fs.readFileSync(path.join(MODEL, 'model.safetensors'))));
  const raw = lab.explain(TEXT, 0, 20);
  const want = typeof raw === 'string' ? JSON.parse(raw) : raw;
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=text&model=sst2-transformer&text=${encodeURIComponent(TEXT)}`);
    await page.waitForFunction(() => document.getElementById('view-text').dataset.status === 'ready', null, { timeout: TIMEOUT });
    const rows = await page.$$eval('.measure-row', (rs) => rs.map((r) => r.dataset.measure));
    const extra = ['rollout', 'flow', 'relevance', 'attention_norm', 'attnlrp', 'cp_lrp', 'value_zeroing', 'alti'];
    assert.deepEqual(rows, ['attention', 'gradient', 'leave_one_out', 'integrated_gradients', ...extra]);
    for (const key of extra) {
      const row = `.measure-row[data-measure=${key}]`;
      const vals = await page.$$eval(`${row} .tok`, (cs) => cs.map((c) => Number(c.dataset.value)));
      assert.equal(vals.length, want.tokens.length, `${key}: a cell per token`);
      vals.forEach((v, i) => assert.ok(Math.abs(v - want[key][i]) < 1e-6, `${key}[${i}] ${v} vs the core's ${want[key][i]}`));
      assert.equal(await page.locator(`${row} .colorbar`).count(), 1, `${key}: its colour bar`);
      assert.ok((await page.textContent(`${row} .measure-label`)).length > 3, `${key}: labelled`);
      // its Kendall τ against the attention row, the core's value (signed rules by |value|)
      const k = want.kendall[`attention_${key}`];
      assert.ok(k, `${key}: the core gives τ(attention, ${key})`);
      const tauText = await page.textContent(`${row} .measure-tau`);
      const shown = Number(/τ = ([−-]?\d+\.\d+)/.exec(tauText)?.[1].replace('−', '-'));
      assert.ok(Math.abs(shown - k.tau) <= 0.005 + 1e-9, `${key}: τ shown ${tauText} vs the core's ${k.tau}`);
    }
    // the propagation rules say how the logit is split (conservation reported, not assumed)
    for (const key of ['attnlrp', 'cp_lrp']) {
      const note = await page.textContent(`.measure-row[data-measure=${key}] .measure-label`);
      assert.match(note, /words .* \+ positions\/\[CLS\] .* \+ biases .* = logit /, `${key}: conservation line`);
      const c = want[`${key}_conservation`];
      assert.ok(Math.abs(c.tokens + c.embeddings + c.unexplained - c.logit) < 1e-4 * Math.max(1, Math.abs(c.logit)), `${key}: the parts add up`);
      assert.ok(Math.abs(want[key].reduce((a, b) => a + b, 0) - c.tokens) < 1e-4 * Math.max(1, Math.abs(c.tokens)), `${key}: tokens sum`);
    }
    // keyboard readout names the new rows too
    await page.focus('.measure-row[data-measure=relevance] .tok[tabindex="0"]');
    assert.match(await page.textContent('.token-readout'), /Relevance .* · Attention norm /);
    // a BiLSTM has no such rows
    await page.evaluate(() => { location.hash = '#view=text&model=sst2-tanh'; });
    await page.waitForFunction(() => document.getElementById('view-text').dataset.status === 'ready' && document.getElementById('text-status').textContent.startsWith('sst2-tanh'), null, { timeout: TIMEOUT });
    assert.equal(await page.locator('.measure-row').count(), 4);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
