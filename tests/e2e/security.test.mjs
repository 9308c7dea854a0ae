// security.test.mjs — the page under its Content-Security-Policy (issue 13), headless Chromium.
//
// Starts scripts/serve.mjs in-process on port 0 and checks:
//   - the headers on the page, a worker script, the wasm and a model file: CSP (no 'unsafe-eval', no inline
//     script), COOP / COEP / CORP, nosniff;
//   - every tab works under that CSP and logs no CSP violation (a `securitypolicyviolation` listener in the
//     page, console errors — Chromium reports a refused eval / wasm compile / script as one — and uncaught
//     errors): Text (an explanation + live panels), Debate (a 2-sentence run with its figure), Train (start,
//     one progress step, cancel), Images (the wasm backend: ORT with its threads + the core; a classified
//     photo and its CAM), Localization (the tiny recipe: training steps drawn, then cancel);
//   - every request of the page, its workers included, goes to its own origin (or data: / blob:);
//   - negative control: served without 'wasm-unsafe-eval', the Text tab fails and Chromium reports the CSP.
// ~2–3 min on the shared 2-core machine (mostly the image model and the training steps).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from './browser.mjs';
import { startServer, CSP } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 240_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.mjs')) ? false : 'web/gen is not built (bash scripts/build-wasm.sh)';

describe('security: CSP, isolation headers, same-origin requests', { skip: SKIP }, () => {
  let server;
  let ctx;
  const requests = []; // every URL any page or worker asked for

  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium();
    ctx.on('request', (r) => requests.push(r.url()));
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  // A page that records CSP violations (from the first script on), console errors and uncaught errors.
  async function openTab(hash) {
    const page = await ctx.newPage();
    page.problems = [];
    page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) page.problems.push(`console: ${m.text()}`);
    });
    page.on('worker', (w) => w.on?.('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) page.problems.push(`worker console: ${m.text()}`);
    }));
    await page.addInitScript(() => {
      window.__csp = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`));
    });
    await page.goto(`${server.url}/web/${hash}`);
    return page;
  }
  async function checkClean(page, what) {
    const csp = await page.evaluate(() => window.__csp);
    assert.deepEqual(csp, [], `${what}: CSP violations`);
    assert.deepEqual(page.problems, [], `${what}: console errors`);
  }
  const status = (page, id) => page.locator(id).getAttribute('data-status');
  const waitStatus = (page, id, wanted) =>
    page.waitForFunction(([sel, w]) => w.includes(document.querySelector(sel)?.dataset.status), [id, wanted], { timeout: TIMEOUT });

  test('headers on the page, a worker, the wasm and a model', async () => {
    for (const p of ['/web/', '/web/runtime/host/worker.js', '/web/gen/attnlab_core.wasm',
      '/models/text/manifest.json', '/vendor/ort/ort.wasm.min.mjs']) {
      const r = await fetch(`${server.url}${p}`, { method: 'HEAD' });
      assert.equal(r.status, 200, p);
      const csp = r.headers.get('content-security-policy');
      assert.equal(csp, CSP, p);
      assert.doesNotMatch(csp, /'unsafe-eval'/, p);
      assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'(;|$)/, p);
      assert.equal(r.headers.get('cross-origin-opener-policy'), 'same-origin', p);
      assert.equal(r.headers.get('cross-origin-embedder-policy'), 'require-corp', p);
      assert.equal(r.headers.get('cross-origin-resource-policy'), 'same-origin', p);
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', p);
    }
    // the glue has no eval left (built with -sDYNAMIC_EXECUTION=0)
    const glue = fs.readFileSync(path.join(REPO, 'web/gen/attnlab_core.mjs'), 'utf8');
    assert.doesNotMatch(glue, /new Function\(|\beval\(/);
  });

  test('Text tab: an explanation and the live panels', { timeout: TIMEOUT }, async () => {
    const page = await openTab('#view=text&text=a%20gorgeous%20%2C%20witty%20film');
    await waitStatus(page, '#view-text', ['ready', 'error']);
    assert.equal(await status(page, '#view-text'), 'ready', await page.textContent('#text-message'));
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    await page.waitForFunction(() => [...document.querySelectorAll('.live-panel[data-experiment]')].some((p) => p.dataset.status === 'ready'), null, { timeout: TIMEOUT })
      .catch(() => {}); // a build without live panels still counts
    await checkClean(page, 'text');
    await page.close();
  });

  test('Debate tab: a 2-sentence run and its figure', { timeout: TIMEOUT }, async () => {
    const page = await openTab('#view=debate&experiment=permutation&n=2');
    await waitStatus(page, '#view-debate', ['idle', 'error']);
    assert.equal(await status(page, '#view-debate'), 'idle', await page.textContent('#debate-message'));
    await page.click('#debate-run');
    await waitStatus(page, '#view-debate', ['done', 'error', 'cancelled']);
    assert.equal(await status(page, '#view-debate'), 'done', await page.textContent('#debate-message'));
    await checkClean(page, 'debate');
    await page.close();
  });

  test('Train tab: start, one progress step, cancel', { timeout: TIMEOUT }, async () => {
    const page = await openTab('#view=train&epochs=1');
    await waitStatus(page, '#view-train', ['idle', 'error']);
    assert.equal(await status(page, '#view-train'), 'idle');
    await page.click('#train-run');
    await page.waitForFunction(() => Number(document.querySelector('#train-epoch-progress')?.value) > 0, null, { timeout: TIMEOUT });
    await page.click('#train-cancel');
    await waitStatus(page, '#view-train', ['cancelled', 'done', 'idle']);
    await checkClean(page, 'train');
    await page.close();
  });

  test('Images tab (wasm backend): a photo classified and its CAM drawn', { timeout: TIMEOUT }, async () => {
    const page = await openTab('#view=image&image=cat&backend=wasm');
    await page.waitForFunction(() => ['ready', 'error'].includes(document.getElementById('view-image').dataset.status) &&
      document.getElementById('view-image').dataset.photo, null, { timeout: TIMEOUT });
    assert.equal(await status(page, '#view-image'), 'ready', await page.textContent('#image-message'));
    await page.waitForFunction(() => document.getElementById('image-canvas').dataset.peakX, null, { timeout: TIMEOUT });
    await checkClean(page, 'image');
    await page.close();
  });

  test('Localization tab: training steps drawn, then cancel', { timeout: TIMEOUT }, async () => {
    const page = await openTab('#view=localization&locrecipe=tiny&locepochs=1');
    await page.click('#loc-train');
    await page.waitForFunction(() => Number(document.querySelector('#loc-charts [data-chart="loc-loss"]')?.dataset.n) > 0, null, { timeout: TIMEOUT });
    if (await page.isEnabled('#loc-cancel')) await page.click('#loc-cancel');
    await waitStatus(page, '#view-localization', ['ready', 'idle', 'cancelled', 'error']);
    assert.notEqual(await status(page, '#view-localization'), 'error', await page.textContent('#loc-message'));
    await checkClean(page, 'localization');
    await page.close();
  });

  test('negative control: without \'wasm-unsafe-eval\' the same checks fail', { timeout: TIMEOUT }, async () => {
    const strict = await startServer({ port: 0, csp: CSP.replace(" 'wasm-unsafe-eval'", '') });
    try {
      const page = await ctx.newPage();
      const seen = [];
      page.on('console', (m) => seen.push(m.text()));
      await page.goto(`${strict.url}/web/#view=text&text=fine`);
      await page.waitForFunction(() => ['ready', 'error', 'empty'].includes(document.querySelector('#view-text')?.dataset.status), null, { timeout: TIMEOUT });
      assert.equal(await status(page, '#view-text'), 'error', 'the core loaded although wasm compilation is forbidden');
      assert.ok(seen.some((t) => /Content Security Policy|WebAssembly/i.test(t)), `no CSP report in the console: ${seen.join(' | ')}`);
      await page.close();
    } finally {
      await strict.close();
    }
  });

  test('no request left the page\'s own origin', () => {
    assert.ok(requests.length > 20, `only ${requests.length} requests recorded`);
    const foreign = requests.filter((u) => !/^http:\/\/127\.0\.0\.1:\d+\//.test(u) && !/^(data|blob):/.test(u));
    assert.ok(requests.some((u) => u.includes('/vendor/ort/')) && requests.some((u) => u.includes('attnlab_core.wasm')),
      'the ORT bundle and the core were requested');
    assert.deepEqual(foreign, []);
  });
});
