// Cold start (issue 29; web/runtime/boot.js): on a cold open the first view's worker and model download start
// before the page's own modules have loaded, the view says what is loading meanwhile, and the page's clients take
// the started workers over (one core host, not two; the image view's load joins the one boot.js started).
// app.js is held back by the test (served only when the test lets it), so "before the page's modules" is certain.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium, openRecordingPage, hostWorkers, imageLabMissing } from './browser.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const TIMEOUT = 180_000;

// Opens hash with app.js held back; → { page, requests (paths in request order), release() }.
async function openHeld(ctx, server, hash) {
  const requests = [];
  let release;
  const held = new Promise((r) => { release = r; });
  const page = await openRecordingPage(ctx, 'about:blank');
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.route('**/web/app.js', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${server.url}/web/${hash}`, { waitUntil: 'commit' });
  return { page, requests, release };
}

test('cold start: boot.js starts the text model before app.js, shows what loads, and hands its worker over', { timeout: TIMEOUT }, async () => {
  const server = await startServer({ port: 0, root });
  const ctx = await launchChromium();
  try {
    const { page, requests, release } = await openHeld(ctx, server, '');
    // app.js is not served yet: the view is shown, its status line says what is loading, the model is on its way
    await page.waitForFunction(() => /Loading sst2-tanh: \d+ % of 4\.\d MB|Compiling the WebAssembly core|Starting the WebAssembly core|Initialising|Checking/
      .test(document.getElementById('text-status')?.textContent ?? ''), null, { timeout: TIMEOUT });
    // shown once the document is parsed, which does not wait for app.js
    await page.waitForFunction(() => document.readyState !== 'loading', null, { timeout: TIMEOUT });
    assert.equal(await page.isVisible('#text-status'), true, 'the status line is visible before app.js runs');
    const sawModel = () => requests.some((p) => p.endsWith('/models/text/sst2-tanh/model.safetensors'));
    for (let i = 0; i < 600 && !sawModel(); i++) await page.waitForTimeout(100);
    assert.ok(sawModel(), `the model download starts before app.js is served (requests: ${requests.join(' ')})`);
    assert.equal(await page.evaluate(() => document.getElementById('text-results').hidden), true, 'no prediction before app.js');

    release();
    await page.waitForFunction(() => ['ready', 'error'].includes(document.getElementById('view-text').dataset.status), null, { timeout: TIMEOUT });
    assert.equal(await page.evaluate(() => document.getElementById('view-text').dataset.status), 'ready',
      await page.evaluate(() => document.getElementById('text-message').textContent));
    const names = await Promise.all(hostWorkers(page).map((w) => w.evaluate(() => self.name)));
    assert.equal(names.filter((n) => n === 'attnlab-core').length, 1, `one core host worker (the one boot.js started): ${names.join(', ')}`);
    assert.equal(requests.filter((p) => p.endsWith('/models/text/sst2-tanh/model.safetensors')).length, 1, 'the model is downloaded once');
    assert.deepEqual(page.errors, []);
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});

test('cold start: the Images tab starts its model before app.js and the view joins that load', { timeout: TIMEOUT, skip: imageLabMissing(root) }, async () => {
  const server = await startServer({ port: 0, root });
  const ctx = await launchChromium();
  try {
    const { page, requests, release } = await openHeld(ctx, server, '#view=image&backend=wasm');
    await page.waitForFunction(() => !document.getElementById('image-load-row').hidden &&
      document.getElementById('image-load-text').textContent !== '', null, { timeout: TIMEOUT });
    const sawOnnx = () => requests.some((p) => p.endsWith('/models/image/mobilenet_v2.onnx'));
    for (let i = 0; i < 1200 && !sawOnnx(); i++) await page.waitForTimeout(100);
    assert.ok(sawOnnx(), `the image model download starts before app.js is served (requests: ${requests.join(' ')})`);

    release();
    await page.waitForFunction(() => document.getElementById('image-canvas')?.dataset.peakX ||
      document.getElementById('view-image').dataset.status === 'error', null, { timeout: TIMEOUT });
    assert.ok(await page.evaluate(() => document.getElementById('image-canvas').dataset.peakX),
      await page.evaluate(() => document.getElementById('image-message').textContent));
    const names = await Promise.all(hostWorkers(page).map((w) => w.evaluate(() => self.name)));
    assert.equal(names.filter((n) => n === 'attnlab-image').length, 1, `one image host worker: ${names.join(', ')}`);
    assert.equal(requests.filter((p) => p.endsWith('/models/image/mobilenet_v2.onnx')).length, 1, 'the image model is downloaded once');
    assert.match(await page.textContent('#image-backend'), /Backend: WebAssembly/);
    assert.deepEqual(page.errors, []);
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
