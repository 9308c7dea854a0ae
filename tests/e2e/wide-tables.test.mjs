// wide-tables.test.mjs — no table wider than its card (issue 29), at 1,366 px and at 390 px: the Localization
// metrics (a tiny CNN trained with a confounder, CBAM after every stage: it was ≈ 2,300 px wide), the Text tab's
// erasing tables (the live panels under the default sentence: erase the top weight, until the decision flips,
// ERASER with its per-k table opened) and the transformer's "what [CLS] reads" tables. Each table's full width
// (all its columns, no scrolling needed) fits the room inside its card, the card does not overflow and the page
// does not scroll sideways. Run:
// node --test tests/e2e/wide-tables.test.mjs
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TIMEOUT = 240_000;
const SKIP = fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ? false : 'needs web/gen (bash scripts/build-wasm.sh)';

// → {tables: [{table, card, width, room, cardOverflow}], page} for every table matched by `sel` that is shown:
// its own width (scrollWidth: all its columns) against the room inside its card (content box), whether the card
// overflows, and whether the page scrolls sideways.
function measure(page, sel) {
  return page.evaluate((s) => {
    for (const d of document.querySelectorAll('details.eraser-k')) d.open = true; // the per-k table counts too
    const out = [];
    for (const t of document.querySelectorAll(s)) {
      if (!t.getClientRects().length) continue;
      const card = t.closest('.card, .live-panel');
      const cs = getComputedStyle(card);
      const room = card.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      // and how far its right edge lies past the card's content box (a table in a grid cell narrower than itself
      // spills over its neighbour and the card's edge without being wider than the card)
      const cardRight = card.getBoundingClientRect().right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight);
      out.push({ table: t.className || t.tagName, card: card.className, width: Math.ceil(t.getBoundingClientRect().width), scroll: t.scrollWidth,
        room: Math.floor(room), cardOverflow: card.scrollWidth - card.clientWidth,
        pastEdge: Math.ceil(t.getBoundingClientRect().left + Math.max(t.getBoundingClientRect().width, t.scrollWidth) - cardRight) });
    }
    return { tables: out, page: document.documentElement.scrollWidth - document.documentElement.clientWidth };
  }, sel);
}

function check(what, m, width) {
  assert.ok(m.tables.length > 0, `${what}: tables drawn`);
  for (const t of m.tables) {
    assert.ok(Math.max(t.width, t.scroll) <= t.room + 1, `${what} at ${width} px: ${t.table} is ${Math.max(t.width, t.scroll)} px wide in ${t.room} px of its card (${t.card})`);
    assert.ok(t.cardOverflow <= 1, `${what} at ${width} px: the card ${t.card} overflows by ${t.cardOverflow} px`);
    assert.ok(t.pastEdge <= 1, `${what} at ${width} px: ${t.table} ends ${t.pastEdge} px past the edge of its card (${t.card})`);
  }
  assert.ok(m.page <= 1, `${what} at ${width} px: the page scrolls sideways by ${m.page} px`);
}

if (SKIP) test('wide tables', { skip: SKIP }, () => {});
else describe('no table wider than its card', { timeout: 20 * 60_000 }, () => {
  let server;
  let ctx;
  before(async () => {
    server = await startServer({ port: 0 });
    ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  });
  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  for (const width of [1366, 390]) {
    test(`Localization metrics at ${width} px`, { timeout: TIMEOUT }, async () => {
      const page = await openRecordingPage(ctx, `${server.url}/web/#view=localization&locrecipe=tiny&locepochs=1&loccbam=all&locconf=50&locseed=3`);
      await page.setViewportSize({ width, height: 900 });
      await page.waitForFunction(() => !document.getElementById('loc-train').disabled, null, { timeout: TIMEOUT });
      await page.click('#loc-train');
      await page.waitForFunction(() => ['ready', 'error'].includes(document.getElementById('view-localization').dataset.status)
        && document.querySelector('#loc-metrics table'), null, { timeout: TIMEOUT });
      check('Localization metrics', await measure(page, '#loc-metrics table'), width);
      assert.deepEqual(page.errors, []);
      await page.close();
    });

    test(`Text tab: erasing tables and the transformer's [CLS] tables at ${width} px`, { timeout: TIMEOUT }, async () => {
      const page = await openRecordingPage(ctx, `${server.url}/web/#view=text`);
      await page.setViewportSize({ width, height: 900 });
      await page.waitForFunction(() => ['live-erase-max', 'live-erase-until-flip', 'live-eraser']
        .every((c) => document.querySelector(`.${c}[data-status=ready] table`)), null, { timeout: TIMEOUT });
      const live = await measure(page, '#live-panels table');
      check('erasing tables', live, width);
      for (const t of ['eraser-table', 'eraser-k-table']) assert.ok(live.tables.some((x) => x.table.includes(t)), `${t} measured`);
      // a sentence with a long word: the tables' token column at its widest
      await page.evaluate(() => { location.hash = `#view=text&model=sst2-transformer&text=${encodeURIComponent('a gorgeous , witty , seductive movie .')}`; });
      await page.waitForFunction(() => document.getElementById('heads-panel')?.dataset.heads === 'ready' && document.querySelector('.mv-cls-table'), null, { timeout: TIMEOUT });
      const m = await measure(page, '#heads-panel .mv-cls-table');
      check('[CLS] tables', m, width);
      assert.ok(m.tables.some((t) => /mv-cls-table/.test(t.table)));
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }
});
