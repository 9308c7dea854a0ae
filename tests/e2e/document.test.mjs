// document.test.mjs — browser end-to-end test of the Documents view (HAN models; headless Chromium via
// playwright-core).
//
// Starts scripts/serve.mjs in-process on port 0, opens /web/#view=documents and checks: an IMDB test review (line 453
// of ../shared/data/imdb/test.tsv, also one of the page's examples) is drawn as one paragraph per sentence with a
// sentence bar and one heat-coloured word per token; the probability, every sentence value and word value and the
// Kendall τ on the page equal the native CLI's (`build/attnlab explain-text --model models/text/imdb-han`) to 1e-5;
// the CSV export holds every sentence and word with the CLI's numbers, and the paragraphs export as SVG;
// the measure picker switches both levels (values = the CLI's gradient) and puts docmeasure in the URL; a reload of
// that URL restores model, text and measure; bad input: empty text (hint), one sentence (notice), a
// 10,000-sentence document (the core's cut stated in a visible notice, the long document collapsed, the text kept),
// markup (<br />) read as a paragraph break, a link naming an unknown model. Saves tests/e2e/out/document.png (1280 px) and document-390.png
// (390 px) — look at them. Skips — with the reason printed — when web/gen, imdb-han or build/attnlab is missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { launchChromium, openRecordingPage } from './browser.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { displayToken } from '../../web/analysis/display.js';
import { tauSlack, hanLevelVector, pairMeasures } from '../node/tau-slack.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL_DIR = path.join(REPO, 'models/text/imdb-han');
const CLI = path.join(REPO, 'build', 'attnlab');
const OUT = path.join(REPO, 'tests', 'e2e', 'out');
const IMDB_TEST = path.resolve(REPO, '../shared/data/imdb/test.tsv');
const TOL = 1e-5;
const TIMEOUT = 240_000;

const missing = [];
if (!fs.existsSync(path.join(REPO, 'web/gen/attnlab_core.wasm')) ||
    !fs.readFileSync(path.join(REPO, 'web/gen/attnlab_core.wasm')).includes('HanLab')) {
  missing.push('web/gen with the HanLab binding (bash scripts/build-wasm.sh)');
}
if (!fs.existsSync(path.join(MODEL_DIR, 'config.json'))) missing.push('models/text/imdb-han');
if (!fs.existsSync(CLI)) missing.push('build/attnlab (the native CLI)');
if (!fs.existsSync(IMDB_TEST)) missing.push(IMDB_TEST);
const SKIP = missing.length ? `the Documents browser test needs ${missing.join(' and ')}` : false;

function review(line) {
  const l = fs.readFileSync(IMDB_TEST, 'utf8').split('\n')[line - 1];
  return l.slice(l.indexOf('\t') + 1);
}

function cliExplain(text) {
  const out = execFileSync(CLI, ['explain-text', '--model', MODEL_DIR, '--text', text], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= TOL, `${what}: page ${a} vs CLI ${b}`);

if (SKIP) test('documents view in the browser', { skip: SKIP }, () => {});
else describe('documents view in the browser', { timeout: 20 * 60_000 }, () => {
  let server;
  let ctx;

  before(async () => {
    server = await startServer({ port: 0, root: REPO });
    ctx = await launchChromium({ viewport: { width: 1280, height: 900 } });
    fs.mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await ctx?.closeAndClean();
    await server?.close();
  });

  const openPage = (hash) => openRecordingPage(ctx, `${server.url}/web/${hash}`);

  async function waitSettled(page, wanted = 'ready') {
    await page.waitForFunction(
      () => ['ready', 'empty', 'error'].includes(document.querySelector('#view-documents')?.dataset.status),
      null,
      { timeout: TIMEOUT },
    );
    const status = await page.locator('#view-documents').getAttribute('data-status');
    if (status !== wanted) {
      assert.fail(`expected status "${wanted}", got "${status}" (message: ${await page.locator('#doc-message').textContent()})`);
    }
  }

  // The drawn document: per sentence its value, bar width and its words' text / value / heat.
  const drawn = (page) => page.$$eval('.doc-sentence', (rows) => rows.map((r) => ({
    index: Number(r.dataset.index),
    value: Number(r.dataset.value),
    barWidth: r.querySelector('.doc-bar-fill').getBoundingClientRect().width,
    words: Array.from(r.querySelectorAll('.doc-word'), (w) => ({
      text: w.textContent, value: Number(w.dataset.value), heat: Number(w.dataset.heat), bg: w.style.background,
    })),
  })));

  function assertMatches(rows, expected, sentenceKey, wordKey) {
    assert.equal(rows.length, expected.sentences.length, 'one paragraph per sentence');
    rows.forEach((r, i) => {
      close(r.value, expected[sentenceKey][i], `${sentenceKey}[${i}]`);
      assert.deepEqual(r.words.map((w) => w.text), expected.sentences[i].map(displayToken), `sentence ${i}: one word per token`);
      r.words.forEach((w, t) => close(w.value, expected[wordKey][i][t], `${wordKey}[${i}][${t}]`));
    });
  }

  test('an IMDB review: bars, word heat and numbers equal the CLI; the measure picker; the URL keeps the state', { timeout: TIMEOUT * 2 }, async () => {
    const text = review(453);
    const expected = cliExplain(text);
    assert.ok(expected.sentences.length >= 3);
    const page = await openPage(`#view=documents&doctext=${encodeURIComponent(text)}`);
    await waitSettled(page);
    assert.equal(await page.inputValue('#doc-input'), text);
    assert.equal(await page.inputValue('#doc-model-select'), 'imdb-han');
    close(Number(await page.locator('.doc-probability').getAttribute('data-probability')), expected.probability, 'probability');
    assert.equal(await page.locator('.doc-label').textContent(), ['negative', 'positive'][expected.predicted_class]);

    const rows = await drawn(page);
    assertMatches(rows, expected, 'sentence_attention', 'word_attention');
    // Bars drawn: the largest β fills its track, the others in proportion; words coloured.
    const maxBar = Math.max(...rows.map((r) => r.barWidth));
    assert.ok(maxBar > 20, `the longest sentence bar is ${maxBar}px`);
    assert.ok(rows.every((r) => r.barWidth > 0));
    const heats = rows.flatMap((r) => r.words.map((w) => w.heat));
    assert.equal(Math.max(...heats), 1, 'the strongest word takes the full colour');
    assert.ok(rows.flatMap((r) => r.words).every((w) => /rgb/.test(w.bg)), 'every word has a heat colour');

    // Kendall τ per level, as the CLI's.
    for (const level of ['sentence', 'word']) {
      for (const pair of ['attention_gradient', 'attention_leave_one_out', 'attention_integrated_gradients']) {
        const shown = await page.locator(`.doc-tau[data-level=${level}][data-pair=${pair}]`).getAttribute('data-tau');
        const tau = expected.kendall[level][pair].tau;
        if (tau === null) assert.equal(shown, '');
        else {
          // near-tied importances may be ordered differently by the page's core and the CLI (tau-slack.mjs)
          const [a, b] = pairMeasures(pair);
          const slack = tauSlack(hanLevelVector(expected, level, a), hanLevelVector(expected, level, b));
          if (Math.abs(Number(shown) - tau) > slack) close(Number(shown), tau, `τ ${level} ${pair}`);
        }
      }
    }
    await page.screenshot({ path: path.join(OUT, 'document.png'), fullPage: true });

    // Export: the CSV holds both levels and every measure with the CLI's numbers; the paragraphs as SVG.
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.locator('#doc-csv').click()]);
    const csv = fs.readFileSync(await csvDownload.path(), 'utf8').trim().split('\r\n');
    assert.equal(csv[0], 'level,sentence,word,attention,gradient,leave_one_out,integrated_gradients,attention_in_document,text');
    const nWords = expected.sentences.reduce((n, s) => n + s.length, 0);
    assert.equal(csv.length, 1 + expected.sentences.length + nWords, 'a CSV row per sentence and per word');
    const s0 = csv[1].split(',');
    close(Number(s0[3]), expected.sentence_attention[0], 'CSV β of sentence 0');
    close(Number(s0[6]), expected.sentence_integrated_gradients[0], 'CSV IG of sentence 0');
    const w0 = csv[1 + expected.sentences.length].split(',');
    assert.deepEqual(w0.slice(0, 3), ['word', '0', '0']);
    close(Number(w0[3]), expected.word_attention[0][0], 'CSV α of the first word');
    close(Number(w0[5]), expected.word_leave_one_out[0][0], 'CSV leave-one-out of the first word');
    close(Number(w0[7]), expected.sentence_attention[0] * expected.word_attention[0][0], 'CSV β·α of the first word');
    await page.waitForSelector('#view-documents .export-bar .export-svg');
    const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.locator('#view-documents .export-bar .export-svg').click()]);
    assert.match(svgDownload.suggestedFilename(), /\.svg$/);
    const svg = await page.evaluate(() => window.__attnlabLastSvg);
    assert.match(svg, /^<svg /);
    assert.ok(svg.includes(`>${displayToken(expected.sentences[0][0])}<`), 'the SVG holds the document\'s words');

    // The measure picker switches both levels; the URL takes the measure.
    await page.locator('#doc-measures input[value=gradient]').check();
    await page.waitForFunction(() => location.hash.includes('docmeasure=gradient'));
    assertMatches(await drawn(page), expected, 'sentence_gradient', 'word_gradient');
    await page.locator('#doc-measures input[value=integrated_gradients]').check();
    const ig = await drawn(page);
    assertMatches(ig, expected, 'sentence_integrated_gradients', 'word_integrated_gradients');
    assert.ok(ig.flatMap((r) => r.words).some((w) => w.heat < 0) || ig.flatMap((r) => r.words).every((w) => w.value >= 0),
      'signed heat for integrated gradients');
    await page.locator('#doc-measures input[value=leave_one_out]').check();
    assertMatches(await drawn(page), expected, 'sentence_leave_one_out', 'word_leave_one_out');

    // A reload of the URL restores view, text and measure.
    const url = page.url();
    assert.match(url, /view=documents/);
    assert.match(url, /docmeasure=leave_one_out/);
    const again = await openRecordingPage(ctx, url);
    await waitSettled(again);
    assert.equal(await again.inputValue('#doc-input'), text);
    assert.equal(await again.locator('#doc-measures input[value=leave_one_out]').isChecked(), true);
    assertMatches(await drawn(again), expected, 'sentence_leave_one_out', 'word_leave_one_out');

    // A phone-width screenshot of the same view: nothing scrolls sideways; no number shown with an exponent or more
    // than 6 decimals (as tests/e2e/screens.test.mjs checks the other tabs), for every measure.
    await again.setViewportSize({ width: 390, height: 844 });
    for (const m of ['integrated_gradients', 'gradient', 'attention']) {
      await again.locator(`#doc-measures input[value=${m}]`).check();
      const a = await again.evaluate(() => {
        const bad = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const p = n.parentElement;
          if (!p || p.closest('[hidden], script, style, option, textarea') || !p.getClientRects().length) continue;
          if (/\d(?:\.\d+)?e[+-−]?\d/i.test(n.textContent) || /\d\.\d{7,}/.test(n.textContent)) bad.push(n.textContent.trim().slice(0, 80));
        }
        return { overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth, bad };
      });
      assert.ok(a.overflow <= 0, `${m}: the page scrolls horizontally by ${a.overflow}px at 390 px`);
      assert.deepEqual(a.bad, [], `${m}: raw numbers on the page`);
    }
    await again.screenshot({ path: path.join(OUT, 'document-390.png'), fullPage: true });
    assert.deepEqual(page.errors, []);
    assert.deepEqual(again.errors, []);
    await page.close();
    await again.close();
  });

  test('a long document: the status names the measure being computed; Cancel stops it and keeps the text; Explain again', { timeout: TIMEOUT * 2 }, async () => {
    const page = await openPage(`#view=documents&doctext=${encodeURIComponent('Fine. Dull.')}`);
    await waitSettled(page);
    // 90 sentences of 11 tokens: ~1,000 tokens, the explanation's cap (about 2 s in the page on this machine)
    const long = Array.from({ length: 90 }, (_, i) => `The acting in scene ${i} is superb and the story moves nicely.`).join(' ');
    await page.fill('#doc-input', long);
    await page.waitForSelector('#doc-cancel:not([hidden])', { timeout: TIMEOUT });
    assert.equal(await page.textContent('#doc-cancel'), 'Cancel');
    assert.match(await page.textContent('#doc-status'), /^(Computing|Explaining with imdb-han: .+ \([1-4] of 4\))/);
    await page.click('#doc-cancel');
    await page.waitForFunction(() => document.querySelector('#view-documents').dataset.status !== 'pending', null, { timeout: TIMEOUT });
    assert.equal(await page.locator('#view-documents').getAttribute('data-status'), 'cancelled');
    assert.match(await page.textContent('#doc-status'), /Cancelled\. The document is kept/);
    assert.equal(await page.inputValue('#doc-input'), long, 'the text is kept');
    assert.equal(await page.isVisible('#doc-results'), false, 'no result of another text is left on show');
    assert.equal(await page.textContent('#doc-cancel'), 'Explain again');
    await page.evaluate(() => {
      window.__docStatus = [];
      const st = document.querySelector('#doc-status');
      new MutationObserver(() => window.__docStatus.push(st.textContent)).observe(st, { childList: true, characterData: true, subtree: true });
    });
    await page.click('#doc-cancel');
    await waitSettled(page);
    assert.equal(await page.isVisible('#doc-cancel'), false);
    const expected = cliExplain(long);
    close(Number(await page.locator('.doc-probability').getAttribute('data-probability')), expected.probability, 'probability');
    await page.locator('.doc-toggle').click();
    assert.equal(await page.locator('.doc-sentence').count(), expected.sentences.length);
    // while it ran, the status named each measure in turn
    const said = await page.evaluate(() => window.__docStatus);
    for (const [k, m] of [[1, 'attention'], [2, 'the gradient'], [3, 'leave-one-out'], [4, 'integrated gradients']]) {
      assert.ok(said.some((t) => t.startsWith(`Explaining with imdb-han: ${m}`) && t.includes(`(${k} of 4)`)), `${m}: ${said.join(' | ')}`);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  test('bad input: empty, one sentence, markup, 10,000 sentences — a message or a stated cut, the text kept', { timeout: TIMEOUT * 2 }, async () => {
    const page = await openPage('#view=documents&doctext=');
    await waitSettled(page, 'empty');
    assert.equal(await page.isVisible('#doc-hint'), true);
    assert.equal(await page.isVisible('#doc-message'), false);

    await page.fill('#doc-input', 'A fine film with a dull ending and no boundary at all');
    await waitSettled(page);
    assert.equal(await page.locator('.doc-sentence').count(), 1);
    assert.match(await page.locator('#doc-notice').textContent(), /One sentence/);
    assert.match((await page.locator('.doc-tau[data-level=sentence]').allTextContents()).join(' '), /n\/a/);

    await page.fill('#doc-input', 'Great premise.<br /><br />Poor execution.');
    await waitSettled(page);
    assert.deepEqual(await page.$$eval('.doc-sentence .doc-words', (ps) => ps.map((p) => p.textContent.trim())),
      ['great premise .', 'poor execution .']);
    assert.match(await page.locator('#doc-notice').textContent(), /paragraph break/);
    assert.equal(await page.locator('#doc-body br, #doc-body img').count(), 0);

    const big = Array.from({ length: 10000 }, () => 'Good.').join(' ');
    const expected = cliExplain(big.slice(0, 6 * 150)); // the first 150 sentences: the same first 100 after the cut
    await page.fill('#doc-input', big);
    await waitSettled(page);
    const notice = await page.locator('#doc-notice').textContent();
    assert.match(notice, /cut to the first 100 of 10000 sentences/i);
    assert.match(notice, /too long to keep in the link/);
    assert.equal((await page.inputValue('#doc-input')).length, big.length, 'the text is kept');
    // Collapsed: the first sentences and a "Show all" button.
    assert.ok(await page.locator('.doc-sentence').count() < 20);
    await page.locator('.doc-toggle').click();
    assert.equal(await page.locator('.doc-sentence').count(), 100);
    close(Number(await page.locator('.doc-probability').getAttribute('data-probability')), expected.probability, 'probability after the cut');
    assert.equal(await page.isVisible('#doc-message'), false);
    assert.deepEqual(page.errors, []);
    await page.close();

    // A link naming a document model that does not exist: the shipped one is used, and the notice says so.
    const linked = await openPage(`#view=documents&docmodel=no-such-han&doctext=${encodeURIComponent('Fine. Dull.')}`);
    await waitSettled(linked);
    assert.match(await linked.locator('#doc-notice').textContent(), /"no-such-han" from the link is not available/);
    assert.equal(await linked.inputValue('#doc-model-select'), 'imdb-han');
    assert.equal(await linked.locator('.doc-sentence').count(), 2);
    assert.deepEqual(linked.errors, []);
    await linked.close();
  });
});
