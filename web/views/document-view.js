// document-view.js — the Documents lab: a HAN model (hierarchical attention, manifest `documents`) explains a
// document at two levels: sentences (a bar beside each) and words (heat on each word), by one of four measures.
//
// Contract:
//   mountDocumentView(section, { client, store }) → { apply(state), progress(msg) }
//     section  the #view-documents element of index.html
//     client   a CoreClient (runtime/core-client.js): documentModels(), explainDocument()
//     store    { get() → state, update(patch) } — the URL-backed state (web/state.js: docmodel, doctext, docmeasure)
//   apply(state) sets the textarea, model picker and measure from the state and explains the text (once the view
//   is shown; the model loads on first use). Typing explains ~400 ms after the last key; examples and model
//   changes at once; the measure switch redraws the shown result without asking the worker.
//   section.dataset.status: 'loading' | 'pending' | 'ready' | 'empty' (no text, or no words: a hint) | 'error'
//   (message in #doc-message; the text is kept and the page keeps working) | 'cancelled'.
//   While an explanation runs, #doc-status names the measure being computed (n of 4, and the time left past 5 s)
//   and, after 300 ms, #doc-cancel stops it between two measures (the text is kept; the button then reads
//   "Explain again"). A newer text or model stops the running explanation the same way (CoreClient's lane).
//   Notices (#doc-notice): the core's cuts (sentences / tokens kept of how many, no sentence boundary, over-long
//   sentences cut), a one-sentence document, markup read as paragraph breaks, a text too long for the link.
//   A document of more than COLLAPSE_AT sentences shows its first sentences and a "Show all" button.
//   #doc-csv downloads the shown result as CSV (analysis/document.js documentRows: both levels, every measure);
//   page-tools.js gives the paragraphs (#doc-body) an SVG / PNG export bar.
// Examples: three short IMDB test reviews (../shared/data/imdb/test.tsv lines 369, 453, 431), copied here:
// the page never reads ../shared.
import { bytes as sizeText } from '../analysis/format.js';
import { SCHEMA, fitsInUrl } from '../state.js';
import { CATALOGUE } from '../catalogue.js';
import { DOC_MEASURES, documentModel, kendallTable, documentNotices, markupNotice, totalWords, documentRows } from '../analysis/document.js';
import { rowsToCsv } from '../analysis/csv.js';
import { download } from '../render/export.js';
import { renderDocPrediction, renderDocument, renderKendall } from '../render/document.js';
import { viewStatus } from '../render/dom.js';
import { etaText } from '../analysis/eta.js';

const IG_STEPS = CATALOGUE.text.explain.find((p) => p.name === 'ig_steps').default; // = the CLI's --ig-steps default
const DEBOUNCE_MS = 400;
const CANCEL_AFTER_MS = 300;
// The stage the core computes next (labs/documents.js progress `step`), as the status line names it.
const STEP_TEXT = {
  attention: 'attention', gradient: 'the gradient', 'leave-one-out': 'leave-one-out (one pass per word)',
  'integrated gradients': 'integrated gradients (one pass per path step)',
};

export const DOC_EXAMPLES = Object.freeze([
  { label: 'positive · “A wonderful film…”', line: 369, text: SCHEMA.doctext.default },
  {
    label: 'negative · “…a complete waste of time”', line: 453,
    text: 'This movie was a complete waste of time. The soundtrack was bad, story was lame and predictable, and the acting ' +
      'was terrible. One of the worst 25 movies I have ever seen. After the first ten minutes, the rest of the film was ' +
      'completely obvious.',
  },
  {
    label: 'negative, with <br /> · “Great premise, poor execution”', line: 431,
    text: 'Great premise, poor execution. Cast of great actors is watered down into a poorly written, poorly directed, ' +
      'poorly edited, waste of film. Only redeeming quality is the numerous shots of the food.<br /><br />Joan Chen, ' +
      'Mercedes Ruehl, Kyra Sedgwick, and Alfre Woodard should fire their agents.',
  },
]);

const STAGE_TEXT = {
  core: 'Starting the WebAssembly core…',
  weights: 'Loading the model weights…',
  verify: 'Checking the model files…',
  init: 'Initialising the model…',
};

export function mountDocumentView(section, { client, store }) {
  const $ = (sel) => section.querySelector(sel);
  const textarea = $('#doc-input');
  const select = $('#doc-model-select');
  const modelInfo = $('#doc-model-info');
  const measuresEl = $('#doc-measures');
  const statusEl = $('#doc-status');
  const messageEl = $('#doc-message');
  const noticeEl = $('#doc-notice');
  const hintEl = $('#doc-hint');
  const resultsEl = $('#doc-results');
  const cancelButton = $('#doc-cancel');
  let cancelTimer = 0;

  let models = null;
  let listError = '';
  let timer = 0;
  let seq = 0;
  let shown = null; // the last drawn result
  let expanded = false;
  let modelNotice = '';
  let resultNotices = [];
  let active = false; // explains only once the view has been shown

  const { setStatus, showMessage } = viewStatus(section, statusEl, messageEl);
  const renderNotice = () => {
    const urlNotice = !fitsInUrl({ doctext: textarea.value }, ['doctext'])
      ? 'This document is too long to keep in the link; a copied link will open the page without it.' : '';
    const lines = [modelNotice, ...resultNotices, urlNotice].filter(Boolean);
    noticeEl.textContent = lines.join('\n');
    noticeEl.hidden = lines.length === 0;
  };

  // --- examples and measures ----------------------------------------------------------------------------
  const examplesEl = $('.doc-examples');
  for (const ex of DOC_EXAMPLES) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'example';
    b.textContent = ex.label;
    b.title = `IMDB test set, line ${ex.line}: ${ex.text}`;
    b.addEventListener('click', () => {
      textarea.value = ex.text;
      onTextChanged(true);
    });
    examplesEl.append(b);
  }

  for (const m of DOC_MEASURES) {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = 'doc-measure';
    input.value = m.key;
    input.addEventListener('change', () => {
      if (!input.checked) return;
      store.update({ docmeasure: m.key });
      draw();
    });
    const span = document.createElement('span');
    span.textContent = m.label;
    label.title = m.help;
    label.append(input, span);
    measuresEl.append(label);
  }
  const syncMeasure = () => {
    const key = store.get().docmeasure;
    for (const input of measuresEl.querySelectorAll('input')) input.checked = input.value === key;
  };

  // --- model picker ------------------------------------------------------------------------------------
  function describe(m) {
    const t = m?.metrics?.test;
    const parts = [m?.description ?? m?.name];
    if (Number.isFinite(t?.accuracy)) parts.push(`test accuracy ${(t.accuracy * 100).toFixed(1)} % (n = ${t.n})`);
    if (m?.limits) parts.push(`reads at most ${m.limits.max_sentences} sentences of ${m.limits.max_sentence_tokens} tokens`);
    return parts.filter(Boolean).join(' · ');
  }

  function syncModel() {
    if (!models?.length) return;
    let name = store.get().docmodel;
    if (!models.some((m) => m.name === name)) {
      // the schema's default model (imdb-han), not the first alphabetically
      const fallback = (models.find((m) => m.name === SCHEMA.docmodel.default) ?? models[0]).name;
      modelNotice = `The document model "${name}" from the link is not available here; showing ${fallback} instead.`;
      name = fallback;
      store.update({ docmodel: name });
    }
    select.value = name;
    modelInfo.textContent = describe(models.find((m) => m.name === name));
    renderNotice();
  }

  select.addEventListener('change', () => {
    store.update({ docmodel: select.value });
    modelNotice = '';
    syncModel();
    run();
  });

  // --- text --------------------------------------------------------------------------------------------
  function onTextChanged(immediate) {
    store.update({ doctext: textarea.value });
    renderNotice();
    clearTimeout(timer);
    ++seq;
    if (!textarea.value.trim()) {
      run();
      return;
    }
    section.dataset.status = listError ? 'error' : models ? 'pending' : 'loading';
    timer = setTimeout(run, immediate ? 0 : DEBOUNCE_MS);
  }
  textarea.addEventListener('input', () => onTextChanged(false));

  function showNothing() {
    shown = null;
    resultsEl.hidden = true;
    hintEl.hidden = false;
    resultNotices = [];
    renderNotice();
  }

  async function run() {
    clearTimeout(timer);
    if (!active) return;
    const my = ++seq;
    showCancel(null);
    const text = textarea.value;
    if (!text.trim()) {
      showNothing();
      showMessage(listError);
      setStatus(listError ? 'error' : 'empty');
      return;
    }
    hintEl.hidden = true;
    if (listError) {
      setStatus('error');
      return;
    }
    if (!models) {
      setStatus('loading', statusEl.textContent || 'Loading the model list…');
      return;
    }
    const model = store.get().docmodel;
    const started = performance.now();
    setStatus('pending', 'Computing… (leave-one-out and integrated gradients run one pass per word)');
    // Cancel appears once the explanation has run a moment (a short document never flashes it).
    clearTimeout(cancelTimer);
    cancelTimer = setTimeout(() => { if (my === seq) showCancel('cancel'); }, CANCEL_AFTER_MS);
    const onProgress = (p) => {
      if (my !== seq || p.stage !== 'explain') return;
      const left = etaText((performance.now() - started) / 1000, p.done, p.total);
      setStatus('pending', `Explaining with ${model}: ${STEP_TEXT[p.step] ?? p.step} (${p.done + 1} of ${p.total})` +
        `${left ? ` · ${left}` : ''}…`);
    };
    let result;
    try {
      result = await client.explainDocument({ model, text, igSteps: IG_STEPS }, onProgress);
    } catch (e) {
      if (my !== seq) return;
      showCancel(null);
      shown = null;
      resultsEl.hidden = true;
      showMessage(`Could not explain this document with ${model}: ${e.message}`);
      setStatus('error');
      return;
    }
    if (result === null || my !== seq) return;
    if (result.cancelled) {
      // The text stays as typed; the results shown before were of another text or model, so they go.
      shown = null;
      resultsEl.hidden = true;
      showCancel('again');
      setStatus('cancelled', 'Cancelled. The document is kept: edit it, or explain it again.');
      return;
    }
    showCancel(null);
    show(result, performance.now() - started, text);
  }

  // The one button beside the model: "Cancel" while an explanation runs, "Explain again" after a cancel.
  function showCancel(role) {
    if (role !== 'cancel') clearTimeout(cancelTimer);
    cancelButton.hidden = role === null;
    cancelButton.dataset.role = role ?? '';
    cancelButton.textContent = role === 'again' ? 'Explain again' : 'Cancel';
  }
  cancelButton.addEventListener('click', () => {
    if (cancelButton.dataset.role === 'again') {
      showCancel(null);
      run();
    } else {
      showCancel(null);
      setStatus('pending', 'Cancelling…');
      client.cancelDocument();
    }
  });

  function show(result, ms, text) {
    if (result.error) {
      showNothing();
      showMessage(`The core could not explain this document: ${result.error}`);
      setStatus('error');
      return;
    }
    showMessage('');
    resultNotices = [...documentNotices(result), markupNotice(text)].filter(Boolean);
    const words = totalWords(result);
    if (words === 0) {
      showNothing();
      resultNotices = [markupNotice(text)].filter(Boolean);
      renderNotice();
      hintEl.hidden = false;
      setStatus('empty', 'No words in this document (only markup, spaces or punctuation).');
      return;
    }
    renderNotice();
    shown = result;
    expanded = false;
    draw();
    resultsEl.hidden = false;
    const n = result.sentences.length;
    const unk = (result.unknown ?? []).flat().filter(Boolean).length;
    setStatus('ready', `${result.model} · ${n} sentence${n === 1 ? '' : 's'}, ${words} word${words === 1 ? '' : 's'}` +
      `${unk ? ` (${unk} unknown)` : ''} · ${Math.round(ms)} ms`);
  }

  function draw() {
    if (!shown) return;
    renderDocPrediction($('#doc-prediction'), shown);
    renderKendall($('#doc-kendall'), kendallTable(shown));
    renderDocument($('#doc-body'), documentModel(shown, store.get().docmeasure), {
      expanded,
      onToggle: () => {
        expanded = !expanded;
        draw();
      },
    });
  }

  // The shown result as CSV: both levels, every measure, the numbers of `attnlab explain-text`.
  $('#doc-csv').addEventListener('click', () => {
    if (!shown) return;
    const text = rowsToCsv(documentRows(shown), { first: ['level', 'sentence', 'word'], last: ['text'] });
    download(new Blob([text], { type: 'text/csv' }), `attnlab-document-${shown.model ?? 'han'}.csv`);
  });

  // --- wiring to the app -------------------------------------------------------------------------------
  function progress(msg) {
    if (msg.stage === 'ready' || !active) return;
    let text = STAGE_TEXT[msg.stage] ?? 'Loading…';
    if (msg.stage === 'weights' && msg.total > 0) {
      text = `Loading ${msg.model}: ${Math.round((100 * msg.loaded) / msg.total)} % of ${sizeText(msg.total)}…`;
    }
    setStatus(section.dataset.status === 'ready' ? 'pending' : section.dataset.status, text);
  }

  let listRequested = false;
  function loadList() {
    if (listRequested) return;
    listRequested = true;
    setStatus('loading', 'Loading the model list…');
    client.documentModels()
      .then((list) => {
        if (!Array.isArray(list) || list.length === 0) {
          throw new Error('The model list has no document (HAN) models.');
        }
        models = list;
        select.replaceChildren(...list.map((m) => {
          const o = new Option(`${m.name} — HAN · ${(m.dataset ?? '').toUpperCase()}`, m.name);
          o.title = describe(m);
          return o;
        }));
        select.disabled = false;
        syncModel();
        run();
      })
      .catch((e) => {
        select.replaceChildren(new Option('no document models available'));
        select.disabled = true;
        listError = `${e.message}\nThe Documents view cannot run a model until this is fixed (then reload).`;
        showMessage(listError);
        setStatus('error');
      });
  }

  function apply(state) {
    active = true;
    if (textarea.value !== state.doctext) textarea.value = state.doctext;
    syncMeasure();
    if (models) syncModel();
    renderNotice();
    loadList();
    // A measure change alone (a pasted link) redraws; a text / model change explains again.
    if (shown && shown.model === state.docmodel && lastText === state.doctext) {
      draw();
      return;
    }
    lastText = state.doctext;
    run();
  }
  let lastText = null;
  textarea.addEventListener('input', () => { lastText = textarea.value; });

  return { apply, progress };
}
