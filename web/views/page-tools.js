// page-tools.js — the page-wide tools of the header and the figures, loaded by index.html after app.js (it
// changes no view; it only adds to what they draw):
//   - guided lessons: the lesson picker (web/lessons/index.json), "Open a lesson file…", and a lesson request
//     from the link (views/lesson-early.js) → views/lesson-player.js;
//   - "Save report": the visible view as one self-contained HTML file (render/export.js buildReport) with the
//     page state and the figures' numbers as JSON (token rows: tokens + values per measure; debate: rows +
//     summary from its JSON download; every [data-value] number otherwise);
//   - export bars: every chart SVG (.chart, figures with one <svg>), the token-row set (#token-rows), the
//     Documents view's paragraphs (#doc-body), the
//     live panels' figures, the Localization charts and the image view's main canvas get "SVG · PNG 2×" buttons;
//   - accessible names: a chart <svg> or <canvas> without a name gets role="img" and an aria-label from its
//     figure's heading / caption;
//   - the image view's main map gets a colour bar in the chosen colormap (#image-canvas, #image-colormap).
// A MutationObserver (debounced) re-applies the last three after the views redraw.
import { mountLessonPlayer } from './lesson-player.js';
import { exportSvg, exportPng, buildReport, download } from '../render/export.js';
import { mapColorbar } from '../render/colorbar.js';
import { reportDataFor } from './report-data.js';
import { coreThreads, MAX_CORE_THREADS } from '../runtime/host/core.js';

const player = mountLessonPlayer();
window.attnlabLessons = player; // for the console and the tests

const select = document.getElementById('lesson-select');
const fileInput = document.getElementById('lesson-file');
const reportButton = document.getElementById('report-export');
const appMessage = document.getElementById('app-message');

function showError(text) {
  appMessage.textContent = text;
  appMessage.hidden = !text;
}

// --- lessons ----------------------------------------------------------------------------------------------
fetch(new URL('../lessons/index.json', import.meta.url))
  .then((r) => (r.ok ? r.json() : { lessons: [] }))
  .then((idx) => {
    for (const l of idx.lessons ?? []) select.append(new Option(l.title, l.name));
  })
  .catch(() => {});

select.addEventListener('change', async () => {
  const name = select.value;
  select.value = '';
  if (!name) return;
  try {
    showError('');
    await player.openShipped(name);
  } catch (e) {
    showError(`Could not open the lesson: ${e.message}`);
  }
});

fileInput.addEventListener('change', async () => {
  const f = fileInput.files?.[0];
  fileInput.value = '';
  if (!f) return;
  try {
    showError('');
    await player.openFile(f);
  } catch (e) {
    showError(`Could not open the lesson file "${f.name}": ${e.message}`);
  }
});

async function openRequested(req) {
  if (!req) return;
  try {
    await player.openShipped(req.name, { step: req.step });
  } catch (e) {
    showError(`Could not open the lesson from the link: ${e.message}`);
  }
}
window.addEventListener('attnlab:lesson', (e) => openRequested(e.detail));
if (window.__attnlabLesson) openRequested(window.__attnlabLesson);

// --- report -------------------------------------------------------------------------------------------------
function visibleView() {
  return document.querySelector('main > .view:not([hidden])');
}

function collectData(view) {
  const data = { view: view?.dataset.view ?? '' };
  const rows = [...view.querySelectorAll('.measure-row')];
  if (rows.length) {
    data.tokens = [...rows[0].querySelectorAll('.tok')].map((c) => c.dataset.token ?? c.textContent);
    data.measures = Object.fromEntries(rows.map((r) => [r.dataset.measure, [...r.querySelectorAll('.tok')].map((c) => Number(c.dataset.value))]));
    const p = view.querySelector('#probability');
    if (p) data.probability = Number(p.dataset.probability);
    data.prediction = view.querySelector('#prediction-label')?.textContent ?? '';
  }
  const values = [];
  for (const e of view.querySelectorAll('[data-value]')) {
    if (e.classList.contains('tok')) continue;
    const label = e.closest('[data-label], [data-stat], [data-measure], [data-key]');
    values.push({ label: label?.dataset.label ?? label?.dataset.stat ?? label?.dataset.measure ?? label?.dataset.key ?? '', text: e.textContent.trim(), value: e.dataset.value });
  }
  if (values.length) data.values = values;
  return data;
}

function blobDataUrl(blob) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(blob);
  });
}

async function saveReport() {
  const view = visibleView();
  if (!view) return null;
  let css = '';
  try {
    css = await (await fetch(new URL('../styles.css', import.meta.url))).text();
  } catch { /* the report is still readable without the page's CSS */ }
  const data = collectData(view);
  try {
    Object.assign(data, reportDataFor(data.view) ?? {});
  } catch (e) {
    data.viewDataError = String(e?.message ?? e);
  }
  const json = view.querySelector('#debate-json');
  if (json?.href?.startsWith('blob:') && !view.querySelector('#debate-downloads')?.hidden) {
    try {
      data.run = await (await fetch(json.href)).json();
    } catch { /* the rows stay in the page's own download */ }
  }
  // the view's download links (Blob URLs: the Debate's CSV / JSON) travel in the report as data: URLs, so its
  // buttons still download the same files offline; any other link is left out of the report
  const links = {};
  for (const a of view.querySelectorAll('a[download][id]')) {
    if (!a.href.startsWith('blob:') || a.closest('[hidden]')) continue;
    try {
      links[a.id] = await blobDataUrl(await (await fetch(a.href)).blob());
    } catch { /* left out */ }
  }
  const tab = document.querySelector('.view-tab[aria-current="page"]')?.textContent?.trim() || data.view;
  const title = `attnlab — ${tab} lab report`;
  const html = buildReport(view, { title, state: location.hash, data, css, links });
  const blob = new Blob([html], { type: 'text/html' });
  download(blob, `attnlab-report-${data.view}-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.html`);
  window.__attnlabLastReport = html;
  return html;
}
reportButton.addEventListener('click', () => saveReport().catch((e) => showError(`Could not save the report: ${e.message}`)));
window.attnlabSaveReport = saveReport;

// --- export bars, accessible names, the main map's colour bar ------------------------------------------------
// Containers first (one bar for a whole figure); a .chart inside one of them gets none. A persistent container
// gets its bar in front of it; a .chart (redrawn by replacement) gets it inside, so it goes with the chart.
const FIGURES = ['#token-rows', '#doc-body', '#debate-figure', '.live-panel .panel-body', '#loc-charts', '#loc-probes', '#loc-toy-chart', '#image-curves',
  '#train-charts', '#train-adversary-curve', '.chart', '#image-canvas'];

function nameOf(target) {
  const box = target.closest('.card, figure, .chart, .live-panel') ?? target.parentElement;
  const h = box?.querySelector('h2, h3, figcaption, .chart-caption');
  return (h?.textContent ?? '').trim().slice(0, 140);
}

function fileBase(target) {
  const name = nameOf(target).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 50) || 'figure';
  return `attnlab-${name}`;
}

function hasFigure(t) {
  if (t.id === 'token-rows') return Boolean(t.querySelector('.measure-row'));
  if (t.id === 'doc-body') return Boolean(t.querySelector('.doc-sentence'));
  if (t instanceof HTMLCanvasElement) return true;
  return Boolean(t.querySelector('svg, canvas'));
}

function addBar(target) {
  if (target.dataset.exportBar) {
    // a persistent container whose figure went away (e.g. a loaded model has no training curves): hide its bar
    const bar = target.classList.contains('chart') ? target.querySelector(':scope > .export-bar')
      : target.id === 'token-rows' ? target.closest('.card')?.querySelector(':scope > .export-bar') : target.previousElementSibling;
    if (bar?.classList.contains('export-bar')) bar.hidden = !hasFigure(target);
    return;
  }
  if (!hasFigure(target)) return;
  if (target.parentElement?.closest('[data-export-bar]')) return; // inside a figure that has its own bar
  target.dataset.exportBar = '1';
  const bar = document.createElement('div');
  bar.className = 'export-bar';
  bar.setAttribute('role', 'group');
  bar.setAttribute('aria-label', `Export: ${nameOf(target) || 'figure'}`);
  bar.append('Export');
  const mk = (text, fn) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.addEventListener('click', () => fn().catch((e) => showError(`Could not export: ${e.message}`)));
    bar.append(b);
    return b;
  };
  const subject = () => (target instanceof HTMLCanvasElement ? target : target.id === 'token-rows' ? target.querySelector('.measure-rows') ?? target : target);
  if (!(target instanceof HTMLCanvasElement)) {
    mk('SVG', async () => {
      const r = await exportSvg(subject(), fileBase(target));
      window.__attnlabLastSvg = r.text;
    }).className = 'export-svg';
  }
  mk('PNG 2×', async () => {
    const r = await exportPng(subject(), fileBase(target), 2);
    window.__attnlabLastPng = { width: r.width, height: r.height, bytes: r.blob.size };
  }).className = 'export-png';
  const cardTitle = target.id === 'token-rows' ? target.closest('.card')?.querySelector(':scope > h2') : null;
  if (cardTitle) cardTitle.insertAdjacentElement('afterend', bar); // beside the card's title (CSS floats it right)
  else if (target instanceof HTMLCanvasElement) target.insertAdjacentElement('afterend', bar);
  else if (target.classList.contains('chart')) target.prepend(bar);
  else target.insertAdjacentElement('beforebegin', bar);
}

function nameFigures() {
  for (const svg of document.querySelectorAll('main svg')) {
    if (svg.closest('.colorbar') || svg.parentElement?.closest('svg')) continue;
    if (svg.getAttribute('aria-label') || svg.getAttribute('aria-labelledby')) continue;
    const label = nameOf(svg);
    if (!label) continue;
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', `Chart: ${label}`);
  }
  for (const c of document.querySelectorAll('main canvas:not([aria-label])')) {
    const cap = c.closest('figure, td, .card')?.querySelector('figcaption, th, h2');
    c.setAttribute('role', 'img');
    c.setAttribute('aria-label', (cap?.textContent ?? 'picture').trim().slice(0, 140));
  }
}

let mainBar = null;
function mainColorbar() {
  const canvas = document.getElementById('image-canvas');
  const cm = document.getElementById('image-colormap');
  if (!canvas || !cm) return;
  const wanted = cm.value || 'viridis';
  if (mainBar?.dataset.colormap === wanted && mainBar.isConnected) return;
  const bar = mapColorbar(wanted, { low: 'low', mid: 'middle', high: 'high', label: 'map (min–max per map)' });
  bar.dataset.colormap = wanted;
  bar.id = 'image-colorbar';
  if (mainBar?.isConnected) mainBar.replaceWith(bar);
  else canvas.insertAdjacentElement('afterend', bar);
  mainBar = bar;
}

let pending = 0;
function refresh() {
  pending = 0;
  for (const sel of FIGURES) for (const t of document.querySelectorAll(`main ${sel}`)) addBar(t);
  nameFigures();
  mainColorbar();
}
new MutationObserver(() => {
  if (!pending) pending = setTimeout(refresh, 250);
}).observe(document.querySelector('main'), { childList: true, subtree: true });
document.getElementById('image-colormap')?.addEventListener('change', () => setTimeout(refresh, 0));
refresh();

// --- threads: say plainly when the host gives no cross-origin isolation ---------------------------------------
const isoNote = document.getElementById('isolation-note');
if (isoNote && document.documentElement.dataset.isolation === 'single-threaded') {
  isoNote.textContent = ' This host does not enable cross-origin isolation, so WebAssembly runs single-threaded here (the image model and the explanations are slower; results are the same).';
  isoNote.hidden = false;
} else if (isoNote) {
  const given = new URLSearchParams(location.hash.slice(1)).get('threads') ?? new URLSearchParams(location.search).get('threads') ?? 0;
  const asked = Number(given) > 0;
  const threads = coreThreads({ isolated: true, search: `?labs=text&threads=${given}`, hardwareConcurrency: navigator.hardwareConcurrency });
  const why = asked ? 'threads= in the URL' : `every core of this machine${threads === MAX_CORE_THREADS ? `, up to ${MAX_CORE_THREADS}` : ''}; threads=1 in the URL for one`;
  isoNote.textContent = threads > 1
    ? ` The core runs on ${threads} threads here (${why}; results do not depend on it).`
    : ` The core runs on one thread${asked ? ' (threads= in the URL)' : ' (this machine reports one core)'}; threads=N in the URL runs it on N (results do not depend on it).`;
  isoNote.hidden = false;
}
