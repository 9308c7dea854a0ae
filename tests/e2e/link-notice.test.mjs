// link-notice.test.mjs — a link whose values the page cannot use as given (web/state.js parseWithNotices):
// `n=1e23` (not a whole number → 200), `target=99999` (above 1000 → 1000), `epochs=100000` (above 30 → 30).
// The one notice line (#link-notice, app.js) names every field on whichever view the link opens, the view still
// works with the values the schema used (Debate: Sentences = 200 and a run of 3 sentences finishes; Train: Epochs
// = 30), Dismiss hides it, and a clean link shows none. A crafted link (traversal names, prototype keys, markup
// in the text) falls back with the views' own notices and fetches nothing outside the served tree. Run: node --test tests/e2e/link-notice.test.mjs
// (≈ 20–40 s on the 2-core machine).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const TIMEOUT = 120_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen (bash scripts/build-wasm.sh)';
const BAD = 'n=1e23&target=99999&epochs=100000';
// the debate run uses kendall (fast) on 3 sentences

async function expectNotice(page) {
  const notice = page.locator('#link-notice');
  await notice.waitFor({ state: 'visible', timeout: TIMEOUT });
  const text = await page.locator('#link-notice-text').textContent();
  assert.match(text, /n=1e23 in the link is not a whole number: 200 is used\./, text);
  assert.match(text, /target=99999 in the link is above the largest value, 1000: 1000 is used\./, text);
  assert.match(text, /epochs=100000 in the link is above the largest value, 30: 30 is used\./, text);
  assert.equal(await notice.getAttribute('data-fields'), 'n epochs target');
  // near the top of the page: above the view, right under the header
  const box = await notice.boundingBox();
  const main = await page.locator('main').boundingBox();
  assert.ok(box && main && box.y < main.y, `the notice (y ${box?.y}) is above the view (y ${main?.y})`);
  return notice;
}

if (SKIP) test('link notices', { skip: SKIP }, () => {});
else describe('link notices', { timeout: 5 * 60_000 }, () => {
  let server;
  let ctx;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium({ viewport: { width: 1280, height: 800 } });
    fs.mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  test('debate: the notice names n, target and epochs; the view runs with n = 200; Dismiss hides it', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=debate&experiment=kendall&${BAD}`);
    const notice = await expectNotice(page);
    await page.waitForFunction(() => document.querySelectorAll('#debate-experiment option').length > 3 &&
      !document.getElementById('debate-n').disabled, null, { timeout: TIMEOUT });
    assert.equal(await page.inputValue('#debate-n'), '200');
    await page.screenshot({ path: path.join(OUT, 'link-notice-debate.png') });
    // the page still works: a short run finishes
    await page.fill('#debate-n', '3');
    await page.locator('#debate-n').dispatchEvent('change');
    await page.click('#debate-run');
    await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.getElementById('view-debate').dataset.status),
      null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#view-debate').getAttribute('data-status'), 'done', await page.locator('#debate-message').textContent());
    assert.equal(await page.locator('#debate-result').getAttribute('data-rows'), '3');
    // the Kendall headline τ carries its n
    assert.match(await page.textContent('.headline-item[data-label="τ attention–gradient (mean ± std)"] .headline-note'), /^n = \d+ sentences with a defined τ/);
    // the link the page writes now holds the used values, not the refused ones
    assert.doesNotMatch(await page.evaluate(() => location.hash), /1e23|99999|100000/);
    await page.click('#link-notice .link-notice-close');
    assert.equal(await notice.isVisible(), false, 'Dismiss hides the notice');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  // docs/RELIABILITY.md "Bad input in the page": traversal strings where a name belongs, prototype keys, a
  // script in a value. Each name is only ever looked up in a list (the model manifest, the demo photos, the
  // lessons): an unknown one falls back with a notice, and no request leaves the served tree.
  test('crafted links: traversal names fall back with a notice, prototype keys do nothing, nothing outside is fetched', { timeout: TIMEOUT }, async () => {
    const requests = [];
    const page = await openRecordingPage(ctx, 'about:blank');
    page.on('request', (r) => requests.push(r.url()));
    const crafted = `#model=${encodeURIComponent('../../../../etc/passwd')}&text=${encodeURIComponent('<img src=x onerror="window.__pwned=1">fine')}`
      + '&__proto__=polluted&constructor=x&toString=1&hasOwnProperty=0';
    await page.goto(`${server.url}/web/${crafted}`);
    await page.waitForFunction(() => ['ready', 'error'].includes(document.getElementById('view-text').dataset.status), null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#view-text').getAttribute('data-status'), 'ready');
    assert.equal(await page.inputValue('#model-select'), 'sst2-tanh');
    assert.match(await page.textContent('#text-notice'), /not available here; showing sst2-tanh instead/);
    assert.equal(await page.evaluate(() => window.__pwned), undefined, 'the markup in the text never ran');
    assert.equal(await page.evaluate(() => ({}).polluted), undefined, 'no prototype pollution');
    assert.equal(await page.inputValue('#text-input'), '<img src=x onerror="window.__pwned=1">fine');

    await page.evaluate(() => { location.hash = `#view=image&image=${encodeURIComponent('../../../etc/passwd')}&backend=wasm`; });
    await page.waitForFunction(() => /no demo photo/.test(document.getElementById('image-notice').textContent), null, { timeout: TIMEOUT });
    assert.match(await page.textContent('#image-notice'), /There is no demo photo “\.\.\/\.\.\/\.\.\/etc\/passwd”; showing the cat\./);
    await page.waitForFunction(() => document.getElementById('view-image').dataset.photo === 'cat', null, { timeout: TIMEOUT });

    const origin = new URL(server.url).origin;
    const outside = requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('blob:') && !u.startsWith('data:') && u !== 'about:blank');
    assert.deepEqual(outside, [], 'no request to another origin');
    assert.deepEqual(requests.filter((u) => /passwd|\.\.\//.test(decodeURIComponent(u))), [], 'no request for a crafted name');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('train: the same notice; Epochs shows 30; a clean link shows no notice', { timeout: TIMEOUT }, async () => {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=train&${BAD}`);
    await expectNotice(page);
    await page.waitForFunction(() => document.getElementById('view-train').dataset.status !== 'loading', null, { timeout: TIMEOUT });
    assert.notEqual(await page.locator('#view-train').getAttribute('data-status'), 'error', await page.locator('#app-message').textContent());
    assert.equal(await page.inputValue('#train-epochs'), '30');
    // a pasted link with good values only: the notice goes away
    await page.evaluate(() => { location.hash = '#view=train&epochs=3'; });
    await page.waitForFunction(() => document.getElementById('link-notice').hidden, null, { timeout: TIMEOUT });
    assert.equal(await page.inputValue('#train-epochs'), '3');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
});
