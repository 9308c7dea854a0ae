#!/usr/bin/env node
// bench-own-text-browser.mjs — issue 28's target "all importances for a 50-token sentence on the BERT-shaped fixture in
// the page ≤ 500 ms", measured in headless Debian Chromium: the Text tab's "Your model" with
// tests/fixtures/onnx-text/bert-sst2 dropped as its three files, then three reviews typed one after another (51, 46 and
// 42 tokens with [CLS] / [SEP]) and the first again; each line is the page's own status (#ot-status: the rows'
// time, then each job's "… ms more": leave-one-out when it runs apart, integrated gradients, value zeroing, ALTI).
// The first line includes the model's first run; read the later ones. Usage: node tests/bench/bench-own-text-browser.mjs
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../e2e/browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(REPO, 'tests/fixtures/onnx-text/bert-sst2');
const texts = [
  'the film is a quiet , patient portrait of a family that slowly comes apart , and although the second half drags in places , the performances are so honest and the writing so sharp that i was moved more than i expected to be by the end',
  'it is hard to imagine a more tedious way to spend two hours : the jokes land with a thud , the plot makes no sense , and even the usually reliable lead looks bored from the first scene to the last one',
  'a warm , funny and surprisingly wise comedy about growing older , with a cast that clearly enjoys every line and a director who knows exactly when to let a moment breathe and when to move on to the next',
];
const server = await startServer({ port: 0, root: REPO });
const ctx = await launchChromium({ viewport: { width: 1280, height: 900 } });
try {
  const page = await ctx.newPage();
  await page.goto(`${server.url}/web/#view=text&ottext=${encodeURIComponent(texts[0])}`);
  await page.locator('#own-text > summary').click();
  await page.setInputFiles('#ot-files', ['model.onnx', 'tokenizer.json', 'config.json'].map((f) => path.join(dir, f)));
  const done = () => page.waitForFunction(() => document.getElementById('own-text').dataset.status === 'ready' &&
    / ALTI \d+ ms more/.test(document.getElementById('ot-status').textContent), null, { timeout: 120_000 });
  await done();
  console.log(await page.textContent('#ot-status'));
  for (const t of [texts[1], texts[2], texts[0]]) {
    await page.evaluate(() => { document.getElementById('ot-status').textContent = ''; });
    await page.fill('#ot-text', t);
    await done();
    console.log(await page.textContent('#ot-status'));
  }
} finally {
  await ctx.closeAndClean();
  await server.close();
}
