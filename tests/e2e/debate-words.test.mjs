// debate-words.test.mjs — the Debate tab's `impermissible` experiment on one's own words (issue 32): the field
// (#debate-words, shown for that experiment only) holds the link's impwords (the list the Train tab's deceptive
// attention uses too), the run passes them and says so in its title, and its numbers equal
// `attnlab experiment impermissible --param words=…`; "Use the shipped lexicon" goes back to the 454 words, whose
// numbers differ (negative control: the words really reach the core).
// Run: node --test tests/e2e/debate-words.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'build', 'attnlab');
const MODEL_DIR = path.join(REPO, 'models/text/sst2-tanh');
const DATA = path.join(REPO, 'models/text/data/sst2-test.tsv');
const N = 8;
const WORDS = ['funny', 'bad', 'good', 'not'];
const TIMEOUT = 240_000;
const SKIP = [CLI, path.join(REPO, 'web/gen/attnlab_core.wasm'), MODEL_DIR, DATA].every((f) => fs.existsSync(f)) ? false
  : 'needs build/attnlab, web/gen and models/text';

function cli(words) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-words-'));
  try {
    const out = path.join(dir, 'out.json');
    execFileSync(CLI, ['experiment', 'impermissible', '--model', MODEL_DIR, '--data', DATA, '--limit', String(N), '--seed', '1',
      '--out', out, '--param', `words=${words.join(' ')}`], { stdio: 'ignore' });
    return JSON.parse(fs.readFileSync(out, 'utf8')).summary;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const shownSummary = (page) => page.$$eval('#debate-all-numbers tr', (trs) =>
  Object.fromEntries(trs.map((tr) => [tr.dataset.key, Number(tr.querySelector('td')?.dataset.value)])));

async function run(page) {
  await page.click('#debate-run');
  await page.waitForFunction(() => ['done', 'error', 'cancelled'].includes(document.querySelector('#view-debate').dataset.status), null, { timeout: TIMEOUT });
  assert.equal(await page.locator('#view-debate').getAttribute('data-status'), 'done', await page.textContent('#debate-message'));
  return shownSummary(page);
}

function assertSummaryEquals(shown, want, what) {
  let compared = 0;
  for (const [k, v] of Object.entries(want)) {
    if (typeof v !== 'number' || !(k in shown) || k === 'n' || k === 'seconds') continue;
    assert.ok(Math.abs(shown[k] - v) <= 1e-6 * Math.max(1, Math.abs(v)), `${what} ${k}: page ${shown[k]} vs CLI ${v}`);
    compared++;
  }
  assert.ok(compared >= 3, `${what}: compared ${compared} numbers`);
}

test('Debate, impermissible: one\'s own words from the field equal the CLI with them; the lexicon gives other numbers', { timeout: TIMEOUT, skip: SKIP }, async () => {
  const server = await startServer({ port: 0 });
  const ctx = await launchChromium({ viewport: { width: 1366, height: 900 } });
  try {
    const page = await openRecordingPage(ctx, `${server.url}/web/#view=debate&model=sst2-tanh&experiment=impermissible&n=${N}&impwords=${WORDS.join('+')}`);
    await page.waitForFunction(() => document.querySelector('#view-debate').dataset.status === 'idle', null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#debate-words-control').isVisible(), true, 'the field is shown for impermissible');
    assert.equal(await page.inputValue('#debate-words'), WORDS.join(' '));
    assert.equal(await page.textContent('#debate-words-info'), `${WORDS.length} words of your own`);

    const own = await run(page);
    assert.match(await page.textContent('#debate-result-title'), new RegExp(`· ${WORDS.length} words of your own$`));
    const wantOwn = cli(WORDS);
    assertSummaryEquals(own, wantOwn, 'own words');

    // back to the shipped lexicon: the link forgets the list, the run says so and its numbers are the lexicon's
    await page.click('#debate-words-reset');
    await page.waitForFunction(() => /shipped strong-sentiment lexicon/.test(document.getElementById('debate-words-info').textContent));
    assert.doesNotMatch(await page.evaluate(() => location.hash), /impwords=/);
    const lex = await run(page);
    assert.match(await page.textContent('#debate-result-title'), /· the strong-sentiment lexicon \(454 words\)$/);
    const lexicon = fs.readFileSync(path.join(REPO, 'models/text/data/sst2-strong-lexicon.txt'), 'utf8').split(/\s+/).filter(Boolean);
    assertSummaryEquals(lex, cli(lexicon), 'lexicon');
    const differs = Object.keys(wantOwn).some((k) => typeof wantOwn[k] === 'number' && k in lex && Math.abs(lex[k] - wantOwn[k]) > 1e-6);
    assert.ok(differs, 'the lexicon\'s numbers differ from the own words\' (the words reach the core)');

    // typing a list puts it in the link (shared with the Train tab); another experiment hides the field
    await page.fill('#debate-words', 'dull\nboring');
    await page.locator('#debate-words').dispatchEvent('change');
    assert.match(await page.evaluate(() => location.hash), /impwords=dull(\+|%20)boring/);
    await page.selectOption('#debate-experiment', 'erase-max');
    assert.equal(await page.locator('#debate-words-control').isVisible(), false);
    // an emptied field's notice belongs to the impermissible experiment: not shown beside another, back with it
    await page.selectOption('#debate-experiment', 'impermissible');
    await page.fill('#debate-words', '');
    await page.locator('#debate-words').blur(); // the browser's own change event (once)
    const noticeText = () => page.evaluate(() => { const n = document.getElementById('debate-notice'); return n && !n.hidden ? n.textContent : ''; });
    assert.match(await noticeText(), /No impermissible word given/);
    await page.selectOption('#debate-experiment', 'erase-max');
    assert.doesNotMatch(await noticeText(), /impermissible word/);
    await page.selectOption('#debate-experiment', 'impermissible');
    assert.match(await noticeText(), /No impermissible word given/);
    assert.deepEqual(page.errors, []);
    await page.close();
  } finally {
    await ctx.closeAndClean();
    await server.close();
  }
});
