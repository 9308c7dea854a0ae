// text-view.js — the text lab: textarea + model picker → prediction and per-token importance rows.
//
// Contract:
//   mountTextView(section, { client, store }) → { apply(state), progress(msg), addModel(entry) }
//     section  the #view-text element of index.html
//     client   a CoreClient (runtime/core-client.js)
//     store    { get() → state, update(patch) } — the app's URL-backed state (web/state.js)
//   apply(state) sets the textarea and picker from the state (on load and on hash change).
//   addModel(entry) adds a model trained in the page (a manifest-style entry) to the picker, after the shipped
//   ones (it stays selected if it is the URL's model). A link naming a trained model that this tab does not
//   have falls back to the first model, with a notice that trained models do not survive a reload.
//   The view explains the text ~250 ms after typing stops (at once for model changes and examples), with
//   maxTokens = MAX_TOKENS; only the answer for the latest text is drawn.
//   section.dataset.status: 'loading' (models/core not ready) | 'pending' (a newer text is being explained)
//   | 'ready' (the shown result is for the current text and model) | 'empty' (no text: a hint is shown)
//   | 'error' (message shown in #text-message; the page keeps working).
//   For a BiLSTM model the explanation's conicity (how parallel its hidden states are, Mohankumar et al. 2020) is
//   shown just above the attention row (p.conicity-line[data-conicity]); a transformer's is null: no line.
//   Below the token rows, for transformer models, the head and model views (views/heads-view.js; other models: one
//   sentence on why not), then the live experiment panels (views/live-panels.js) run on each shown result; they
//   have their own per-panel status and never change section.dataset.status.
//   The last card, "Your model" (#own-text, views/own-text-view.js), explains the user's own ONNX text transformer (or
//   the shipped stories260K) in a worker of its own; it has its own text, status and URL fields (ot*).
import { fitsInUrl } from '../state.js';
import { CATALOGUE } from '../catalogue.js';
import { renderPrediction } from '../render/prediction.js';
import { renderTokenRows } from '../render/token-rows.js';
import { mountLivePanels } from './live-panels.js';
import { mountHeadsView } from './heads-view.js';
import { mountOwnTextView } from './own-text-view.js';
import { classNamesFor, modelKind } from '../analysis/display.js';
import { viewStatus, el } from '../render/dom.js';
import { conicityOf, conicityText, CONICITY_HELP } from '../analysis/faithful.js';

// The explanation's defaults are the core's (its catalogue), so page and `attnlab explain-text` agree.
const EXPLAIN = Object.fromEntries(CATALOGUE.text.explain.map((p) => [p.name, p.default]));
export const MAX_TOKENS = EXPLAIN.max_tokens;
export const IG_STEPS = EXPLAIN.ig_steps;
const DEBOUNCE_MS = 250;

// The "Try:" sentences, in the picked model's domain (by its manifest `dataset`; movie reviews otherwise).
const REVIEWS = [
  'A masterpiece: moving, funny and beautifully shot.',
  "It's not bad at all.",
  'The plot is predictable and the jokes fall flat.',
  'I expected to hate it, but I loved every minute.',
];
const EXAMPLES = {
  sst2: REVIEWS,
  imdb: REVIEWS,
  '20news': [
    'The goalie stopped every shot in overtime and the Rangers won.',
    'He hit a home run in the ninth inning to win the game.',
    'Who will win the Stanley Cup this season?',
    'The pitcher struck out ten batters before the coach pulled him.',
  ],
  agnews: [
    'Oil prices rose as the central bank cut interest rates.',
    'Rebels attacked the capital as election results were announced.',
    "The company's quarterly profit beat analysts' forecasts.",
    'The United Nations called for a ceasefire in the region.',
  ],
};

const STAGE_TEXT = {
  core: 'Starting the WebAssembly core…',
  config: 'Loading the model configuration…',
  weights: 'Loading the model weights…',
  verify: 'Checking the model files…',
  init: 'Initialising the model…',
};

function mb(bytes) {
  return (bytes / 1048576).toFixed(1);
}

export function mountTextView(section, { client, store }) {
  const $ = (sel) => section.querySelector(sel);
  const textarea = $('#text-input');
  const select = $('#model-select');
  const modelInfo = $('#model-info');
  const statusEl = $('#text-status');
  const messageEl = $('#text-message');
  const noticeEl = $('#text-notice');
  const hintEl = $('#text-hint');
  const resultsEl = $('#text-results');
  const predictionEl = $('#prediction');
  const rowsEl = $('#token-rows');
  const live = mountLivePanels($('#live-panels'), { client, store, maxTokens: MAX_TOKENS });
  const heads = mountHeadsView($('#heads-panel'), { client, store, maxTokens: MAX_TOKENS });
  // "Your model" (views/own-text-view.js): the user's ONNX text transformer, in a worker of its own
  const ownText = $('#own-text') ? mountOwnTextView($('#own-text'), { store }) : null;

  let models = null; // manifest.models once loaded
  let manifestError = ''; // set when the model list cannot be loaded: nothing can run
  let timer = 0;
  let seq = 0; // bumps on every new request or clear; answers for older seq are dropped
  let started = 0;
  let urlNotice = '';
  let resultNotice = '';
  let modelNotice = '';

  const { setStatus, showMessage } = viewStatus(section, statusEl, messageEl);
  const renderNotice = () => {
    const text = [modelNotice, resultNotice, urlNotice].filter(Boolean).join('\n');
    noticeEl.textContent = text;
    noticeEl.hidden = !text;
  };

  // --- examples -----------------------------------------------------------------------------------
  const examplesEl = $('.examples');
  let examplesOf = null;
  function renderExamples(model) {
    const list = EXAMPLES[model?.dataset] ?? REVIEWS;
    if (list === examplesOf) return;
    examplesOf = list;
    examplesEl.querySelectorAll('button.example').forEach((b) => b.remove());
    for (const ex of list) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'example';
      b.textContent = ex;
      b.addEventListener('click', () => {
        textarea.value = ex;
        onTextChanged(true);
      });
      examplesEl.append(b);
    }
  }
  renderExamples(null);

  // --- model picker -------------------------------------------------------------------------------
  function testMetrics(m) {
    const t = m.metrics?.test;
    const parts = [];
    if (Number.isFinite(t?.accuracy)) parts.push(`test acc ${(t.accuracy * 100).toFixed(1)} %`);
    if (Number.isFinite(t?.f1)) parts.push(`F1 ${t.f1.toFixed(3)}`);
    return parts.join(', ');
  }

  function describe(m) {
    const parts = [m.description ?? [m.dataset?.toUpperCase(), m.attention && `${m.attention} attention`].filter(Boolean).join(' · '),
      `classes: ${classNamesFor(m, null).join(' / ')}`];
    const t = m.metrics?.test;
    if (Number.isFinite(t?.accuracy)) {
      parts.push(`test accuracy ${(t.accuracy * 100).toFixed(1)} %` + (Number.isFinite(t.f1) ? `, F1 ${t.f1.toFixed(3)}` : '') +
        (Number.isFinite(t.n) ? ` (n = ${t.n})` : ''));
    }
    return parts.filter(Boolean).join(' · ');
  }

  let extraModels = []; // trained in this tab; may arrive before the manifest does

  function populateModels(manifest) {
    models = [...manifest.models, ...extraModels.filter((e) => !manifest.models.some((m) => m.name === e.name))];
    renderOptions();
  }

  function addModel(entry) {
    if (!entry?.name) return;
    extraModels = [...extraModels.filter((e) => e.name !== entry.name), entry];
    if (!models) return;
    models = [...models.filter((m) => m.name !== entry.name), entry];
    renderOptions();
  }

  function renderOptions() {
    const options = models.map((m) => {
      const o = document.createElement('option');
      o.value = m.name;
      const metrics = testMetrics(m);
      const cls = classNamesFor(m, null).join(' vs ');
      o.textContent = `${m.name} — ${modelKind(m)} · ${cls}${metrics ? ` · ${metrics}` : ''}`;
      o.title = describe(m);
      return o;
    });
    select.replaceChildren(...options);
    select.disabled = false;
    syncModel();
  }

  function syncModel() {
    if (!models) return;
    let name = store.get().model;
    if (!models.some((m) => m.name === name)) {
      const fallback = (models.find((m) => m.name === 'sst2-tanh') ?? models[0]).name; // the default model, not the first alphabetically
      modelNotice = `The model "${name}" from the link is not available here; showing ${fallback} instead.` +
        (name.startsWith('trained-') ? ' Models trained in the page live only in the tab that trained them: a reload forgets them.' : '');
      name = fallback;
      // the link's model is shared with the Debate tab (which also runs HAN models): only the Text tab, shown,
      // replaces it — never from behind another tab's link
      if (store.get().view !== 'text') {
        select.value = name;
        modelNotice = '';
        return;
      }
      store.update({ model: name });
    }
    select.value = name;
    renderNotice();
    modelInfo.textContent = describe(models.find((m) => m.name === name));
    renderExamples(models.find((m) => m.name === name));
  }

  select.addEventListener('change', () => {
    store.update({ model: select.value });
    modelNotice = '';
    renderNotice();
    modelInfo.textContent = describe(models.find((m) => m.name === select.value) ?? {});
    renderExamples(models.find((m) => m.name === select.value));
    showMessage('');
    run();
  });

  // --- text -----------------------------------------------------------------------------------------
  function onTextChanged(immediate) {
    const text = textarea.value;
    store.update({ text });
    urlNotice = fitsInUrl(store.get(), ['text'])
      ? ''
      : 'This text is too long to keep in the link; a copied link will open the page without it.';
    renderNotice();
    clearTimeout(timer);
    ++seq; // an answer still in flight is for an older text: it must not be drawn (nor mark the view ready)
    if (!text.trim()) {
      run(); // shows the hint at once
      return;
    }
    section.dataset.status = manifestError ? 'error' : models ? 'pending' : 'loading';
    timer = setTimeout(run, immediate ? 0 : DEBOUNCE_MS);
  }
  textarea.addEventListener('input', () => onTextChanged(false));

  // Nothing to show (an empty text, or one without tokens): the panels come down and the hint is back.
  function showNothing() {
    live.clear();
    heads.clear();
    resultsEl.hidden = true;
    hintEl.hidden = false;
    resultNotice = '';
    renderNotice();
  }

  async function run() {
    clearTimeout(timer);
    const my = ++seq;
    const text = textarea.value;
    if (!text.trim()) {
      showNothing();
      showMessage(manifestError);
      setStatus(manifestError ? 'error' : 'empty');
      return;
    }
    hintEl.hidden = true;
    if (manifestError) {
      setStatus('error');
      return;
    }
    if (!models) {
      setStatus('loading', statusEl.textContent || 'Loading the model list…');
      return; // populateModels() → syncModel → run() again once the list is there
    }
    const model = store.get().model;
    started = performance.now();
    setStatus('pending', 'Computing…');
    let result;
    try {
      result = await client.explain({ model, text, maxTokens: MAX_TOKENS, igSteps: IG_STEPS });
    } catch (e) {
      if (my !== seq) return;
      live.clear();
      heads.clear();
      resultsEl.hidden = true;
      showMessage(`Could not explain this text with ${model}: ${e.message}`);
      setStatus('error');
      return;
    }
    if (result === null || my !== seq) return; // a newer text or model took over
    show(result, performance.now() - started, text);
  }

  function show(result, ms, text) {
    showMessage('');
    const n = result.tokens?.length ?? 0;
    if (n === 0) {
      showNothing();
      setStatus('empty', 'No tokens in this text.');
      return;
    }
    resultNotice = result.truncated
      ? `Long text: only the first ${n.toLocaleString('en')} of ${Number(result.num_tokens_total).toLocaleString('en')} tokens are analysed ` +
        `(prediction and importances) — the explanation limit is ${MAX_TOKENS} tokens.`
      : '';
    renderNotice();
    renderPrediction(predictionEl, result);
    renderTokenRows(rowsEl, result);
    showConicity(result);
    resultsEl.hidden = false;
    live.update(result, text);
    heads.update(result, text);
    hintEl.hidden = true;
    const unk = (result.unknown ?? []).filter(Boolean).length;
    setStatus('ready', `${result.model} · ${n} token${n === 1 ? '' : 's'}${unk ? ` (${unk} unknown)` : ''} · ${Math.round(ms)} ms`);
  }

  // A BiLSTM model's conicity (Mohankumar et al. 2020), just above the attention row; a transformer has none.
  function showConicity(result) {
    const c = conicityOf(result);
    if (c === null) return;
    const line = el('p', 'conicity-line', null, { 'data-conicity': String(c) });
    line.append(el('b', 'conicity-value', conicityText(c)), ` — ${CONICITY_HELP}.`);
    line.title = 'Conicity: the mean cosine between each hidden state of the encoder and their mean over the text ' +
      '(0 = spread in all directions, 1 = all parallel). The attention averages these states: when they point the same way, ' +
      'it hardly matters which of them gets the weight.';
    const rows = rowsEl.querySelector('.measure-rows');
    if (rows) rows.before(line);
    else rowsEl.append(line);
  }

  // --- wiring to the app ----------------------------------------------------------------------------
  function progress(msg) {
    if (msg.stage === 'ready') return;
    let text = STAGE_TEXT[msg.stage] ?? 'Loading…';
    if (msg.stage === 'weights' && msg.total > 0) {
      text = `Loading ${msg.model}: ${Math.round((100 * msg.loaded) / msg.total)} % of ${mb(msg.total)} MB…`;
    }
    setStatus(section.dataset.status === 'ready' ? 'pending' : section.dataset.status, text);
  }

  function apply(state) {
    if (textarea.value !== state.text) textarea.value = state.text;
    if (models) syncModel();
    heads.apply(state);
    ownText?.apply(state);
    run();
  }

  setStatus('loading', 'Loading the model list…');
  client
    .manifest()
    .then((manifest) => {
      populateModels(manifest);
      run();
    })
    .catch((e) => {
      select.replaceChildren(new Option('no models available'));
      select.disabled = true;
      manifestError = `${e.message}\nThe page cannot run a model until this is fixed (then reload).`;
      showMessage(manifestError);
      setStatus('error');
    });

  return { apply, progress, addModel, ownText };
}
