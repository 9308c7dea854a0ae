// Browser benchmark runner: serves the app, exports the text model to ONNX, opens web/bench/text.html in
// headless Debian Chromium (cross-origin isolated, so ORT can use 2 threads) and prints the results as a
// markdown table and one JSON line. Usage: node tests/bench/bench-browser.mjs [--model sst2-tanh] [--runs 50]
// A transformer model (config.json "encoder": "transformer") is exported by export-transformer-onnx.mjs.
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium } from '../e2e/browser.mjs';
import { buildModel, readCheckpoint } from '../../models/tools/export-onnx.mjs';
import { buildTransformerModel, readTransformerCheckpoint } from '../../models/tools/export-transformer-onnx.mjs';
import { startServer } from '../../scripts/serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const model = opt('--model', 'sst2-tanh');
const runs = opt('--runs', '50');
const root = path.resolve(import.meta.dirname, '../..');

const dir = path.join(root, 'models/text', model);
const transformer = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8')).encoder === 'transformer';
const onnx = transformer ? buildTransformerModel(readTransformerCheckpoint(dir)) : buildModel(readCheckpoint(dir));
const server = await startServer({ port: 0, root });
const context = await launchChromium();
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.route('**/web/bench/model.onnx', (route) =>
    route.fulfill({ body: Buffer.from(onnx), contentType: 'application/octet-stream',
      headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } }));
  await page.goto(`${server.url}/web/bench/text.html?model=${model}&runs=${runs}`);
  await page.waitForFunction(() => window.__benchResults, null, { timeout: 300_000 });
  const r = await page.evaluate(() => window.__benchResults);
  if (r.error) throw new Error(r.error);
  const v = (x) => (typeof x === 'number' ? x.toFixed(3) : String(x));
  console.log(`| measure (Chromium ${context.browser()?.version() ?? ''}, ${model}, 50 tokens) | value |`);
  console.log('| --- | --- |');
  for (const [k, x] of Object.entries(r)) console.log(`| ${k} | ${v(x)} |`);
  if (r.ort_wasm_1t_forward_ms)
    console.log(`| ratio ORT wasm 1 thread / core forward | ${(r.ort_wasm_1t_forward_ms / r.core_forward_ms).toFixed(2)} |`);
  console.log(JSON.stringify(r));
} finally {
  await context.closeAndClean();
  await server.close();
}
