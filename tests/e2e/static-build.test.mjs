// static-build.test.mjs — `npm run build` gives a folder a plain static host can serve: built into a temporary
// folder, served by a tiny node:http server written here that sends no COOP/COEP/CORP or any other special
// header (only Content-Type), and the tour basics run on it: the page says it runs single-threaded (no
// cross-origin isolation), the text view explains a sentence, the debate tab lists its experiments, a shipped
// lesson opens from a link, the image view classifies a demo photo.
// Run: node --test tests/e2e/static-build.test.mjs (≈ 40–70 s on the 2-core machine; the build copies ~95 MB).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 180_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen (bash scripts/build-wasm.sh)';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.wasm': 'application/wasm', '.png': 'image/png', '.jpg': 'image/jpeg', '.svg': 'image/svg+xml', '.tsv': 'text/plain', '.txt': 'text/plain' };

// The plainest static server: files under root, index.html for folders, Content-Type only.
function plainServer(root) {
  const server = http.createServer((req, res) => {
    let p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = path.join(root, p);
    if (!file.startsWith(root)) { res.writeHead(403); res.end(); return; }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
      if (!p.endsWith('/')) { res.writeHead(301, { Location: p + '/' }); res.end(); return; }
      file = path.join(file, 'index.html');
    }
    if (!fs.existsSync(file)) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

if (SKIP) test('static build on a plain host', { skip: SKIP }, () => {});
else describe('static build on a plain host', { timeout: 10 * 60_000 }, () => {
  let out, srv, ctx;
  before(async () => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-dist-'));
    const line = execFileSync(process.execPath, [path.join(REPO, 'scripts/build-static.mjs'), '--out', out], { encoding: 'utf8' }).trim().split('\n').pop();
    const summary = JSON.parse(line);
    assert.ok(summary.files > 50, `built ${summary.files} files`);
    srv = await plainServer(out);
    ctx = await launchChromium({ viewport: { width: 1280, height: 800 } });
  });
  after(async () => {
    await ctx?.closeAndClean();
    srv?.server.close();
    fs.rmSync(out, { recursive: true, force: true });
  });

  test('the folder has the page, the wasm core, the models, the vendor files and the lessons', () => {
    for (const f of ['index.html', 'web/index.html', 'web/gen/attnlab_core.wasm', 'web/coi.js', 'web/lessons/index.json', 'models/text/manifest.json',
      'models/image/manifest.json', 'models/cnn/manifest.json', 'vendor/ort/ort.wasm.min.mjs', 'vendor/d3/d3.min.js', 'vendor/plot/plot.umd.min.js']) {
      assert.ok(fs.existsSync(path.join(out, f)), f);
    }
    assert.ok(!fs.existsSync(path.join(out, 'web/bench')), 'no benchmark page');
  });

  test('tour basics without COOP/COEP headers: single-threaded note, text, debate, lesson, image', { timeout: TIMEOUT }, async () => {
    const res = await fetch(`${srv.url}/web/`);
    assert.equal(res.headers.get('cross-origin-embedder-policy'), null, 'the host sends no COEP');
    const page = await openRecordingPage(ctx, `${srv.url}/`);
    await page.waitForURL(/\/web\/$/, { timeout: TIMEOUT });
    assert.equal(await page.evaluate(() => window.crossOriginIsolated), false);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.isolation), 'single-threaded');
    assert.match(await page.textContent('#isolation-note'), /runs single-threaded/);
    await page.waitForFunction(() => document.getElementById('view-text').dataset.status === 'ready', null, { timeout: TIMEOUT });
    assert.ok(Number.isFinite(Number(await page.getAttribute('#probability', 'data-probability'))));
    assert.equal(await page.locator('.measure-row').count(), 4);
    await page.click('.view-tab[data-view=debate]');
    await page.waitForFunction(() => document.querySelectorAll('#debate-experiment option').length > 3, null, { timeout: TIMEOUT });
    await page.evaluate(() => { location.hash = 'lesson=where-cnn-looks'; });
    await page.waitForSelector('#lesson-player:not([hidden])', { timeout: TIMEOUT });
    await page.waitForFunction(() => !document.getElementById('view-image').hidden, null, { timeout: TIMEOUT });
    await page.waitForSelector('#image-top5 .top5-row', { timeout: TIMEOUT });
    assert.equal(await page.locator('#image-top5 .top5-row').count(), 5);
    // the redirect page at / has no favicon: the plain server answers /favicon.ico with 404
    const errors = page.errors.filter((e) => !/status of 404/.test(e));
    assert.deepEqual(errors, []);
    await page.close();
  });
});
