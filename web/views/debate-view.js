// debate-view.js — the Debate lab: run one debate experiment over the first N sentences of the SST-2 test
// set in the worker, with progress and cancel, then the summary numbers, the paper-style figure and the
// rows as CSV / JSON downloads.
//
// Contract:
//   mountDebateView(section, { client, store }) → { apply(state), progress(msg), addModel(entry) }
//     section  the #view-debate element of index.html; client a CoreClient; store the URL-backed state.
//   apply(state) sets the pickers from state.experiment / model / n / seed (a value the page cannot use is
//     replaced, with a notice). Nothing runs until the user presses Run; a link reproduces the settings.
//   addModel(entry) adds a model trained in the page to the model picker (this tab only; not while a run
//     is going, the picker keeps its value).
//   Run: runtime/dataset-run.js over manifest.datasets' "sst2-test" (chunks of 2–25 sentences), split over a
//     pool of core workers (runtime/pool.js: navigator.hardwareConcurrency, or workers= in the URL; rows equal
//     one worker's; section.dataset.workers = the pool size of the last run); the figure grows while it runs; Cancel stops between chunks and the rows so far are summarised and shown as
//     partial. Controls are disabled while a run is going.
//   The impermissible experiment (Pruthi et al. 2020) runs with param words = the list in #debate-words (shown for that
//   experiment only; views/impermissible-words.js: one's own list, state impwords, shared with the Train tab, or the
//   shipped strong-sentiment lexicon, models/text/data/sst2-strong-lexicon.txt); the result line says which; an experiment whose info has sentence(summary)
//   (conicity, impermissible) shows its summary in one plain sentence (#debate-headline .headline-words) above the numbers.
//   HAN (document) models (manifest `documents`) are in the model picker too: with one chosen the experiment
//   picker lists the experiments that run on a HAN (catalogue.han_experiments: the same experiments, rows and
//   summaries as on a flat model, through the core's attention-model interface), the level picker (#debate-level,
//   state.level: sentence | word, passed as param level) shows, and the run is over manifest.datasets'
//   "imdb-test-200" (the first 200 IMDB test reviews); the figures and headlines are the flat experiments'.
//   The headline numbers of a flat (SST-2) model carry their spread over training seeds where the seed study
//   (models/text/seeds/summary.json, runtime/seed-summaries.js: fetched on the first run) has the model and the number (analysis/seed-spread.js).
//   section.dataset.status: 'loading' | 'idle' | 'running' | 'cancelling' | 'done' | 'cancelled' | 'error'.
//   #debate-result carries data-partial ('true' | 'false'), data-rows (number of rows) and data-skipped (rows
//   the experiment skipped; their reasons are listed in the result line) once a run ends;
//   #debate-csv / #debate-json are download links (Blob URLs) then. The rows of the latest run of each
//   (model, experiment) are kept for the tab: a plausibility run draws each measure against the latest ERASER
//   run's faithfulness on the same model.
import { el } from '../render/dom.js';
import { int, num } from '../analysis/format.js';
import { widthOf } from '../render/plot-lib.js';
import { renderDebateFigure } from '../render/debate-figures.js';
import { renderHeadline, renderAllNumbers } from '../render/summary-table.js';
import { runDataset } from '../runtime/dataset-run.js';
import { WorkerPool, poolSize } from '../runtime/pool.js';
import { rowsToCsv } from '../analysis/csv.js';
import { infoFor } from '../experiments-info.js';
import { classNamesFor, modelKind } from '../analysis/display.js';
import { CATALOGUE } from '../catalogue.js';
import { withSeedSpread } from '../analysis/seed-spread.js';
import { textSeedSummary } from '../runtime/seed-summaries.js';
import { mountImpermissibleWords } from './impermissible-words.js';
import { wordsParam } from '../analysis/faithful.js';

const DATASET = 'sst2-test';
const HAN_DATASET = 'imdb-test-200';
// The registry's experiments that run on a HAN (named in catalogue.han_experiments, described under experiments).
const HAN_EXPERIMENTS = Object.freeze((CATALOGUE.han_experiments ?? []).map((e) => ({
  name: e.name, description: (CATALOGUE.experiments ?? []).find((x) => x.name === e.name)?.description ?? '' })));
const isHan = (m) => m?.kind === 'han';
const REDRAW_MS = 400;

function seconds(s) {
  if (!Number.isFinite(s)) return '';
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

export function mountDebateView(section, { client, store, pool = new WorkerPool({ main: client }) }) {
  const $ = (sel) => section.querySelector(sel);
  const latestRows = new Map(); // "model|experiment" → the rows of its latest run (plausibility reads ERASER's)
  const expSelect = $('#debate-experiment');
  const modelSelect = $('#debate-model');
  const levelSelect = $('#debate-level');
  const levelControl = $('#debate-level-control');
  const nLabel = $('label[for="debate-n"]');
  const lead = $('#debate-lead');
  const flatLead = lead ? [...lead.childNodes].map((n) => n.cloneNode(true)) : [];
  const nInput = $('#debate-n');
  const allButton = $('#debate-all');
  const seedInput = $('#debate-seed');
  const runButton = $('#debate-run');
  const cancelButton = $('#debate-cancel');
  const about = $('#debate-about');
  const bar = $('#debate-progress');
  const barText = $('#debate-progress-text');
  const messageEl = $('#debate-message');
  const noticeEl = $('#debate-notice');
  const resultEl = $('#debate-result');
  const titleEl = $('#debate-result-title');
  const stateEl = $('#debate-result-state');
  const headlineEl = $('#debate-headline');
  const figureEl = $('#debate-figure');
  const captionEl = $('#debate-figure-caption');
  const allNumbersEl = $('#debate-all-numbers');
  const csvLink = $('#debate-csv');
  const jsonLink = $('#debate-json');
  const wordsControl = $('#debate-words-control');
  const wordsInput = $('#debate-words');
  const wordsReset = $('#debate-words-reset');

  let models = null;
  let datasets = []; // manifest entries
  let dataset = null; // the entry of the chosen model's data set
  let flatExperiments = null; // [{name, description}] of the flat models
  let experiments = null; // the chosen model's: flatExperiments or HAN_EXPERIMENTS
  let shownList = null; // the list the experiment picker holds
  let loadError = '';
  let running = false;
  let cancelRequested = false;
  let urls = [];
  const notices = { model: '', experiment: '', nLink: '', nTyped: '', words: '' };

  const setStatus = (s) => {
    section.dataset.status = s;
  };
  const showMessage = (text) => {
    messageEl.textContent = text;
    messageEl.hidden = !text;
  };
  // The words notice belongs to the impermissible experiment: shown with it only (kept for a switch back).
  const renderNotice = () => {
    const shown = { ...notices, words: expSelect.value === 'impermissible' ? notices.words : '' };
    const text = Object.values(shown).filter(Boolean).join('\n');
    noticeEl.textContent = text;
    noticeEl.hidden = !text;
  };
  const maxN = () => (Number.isInteger(dataset?.n) && dataset.n > 0 ? dataset.n : 1821);
  // The impermissible experiment's words: one's own (state.impwords, shared with the Train tab) or the shipped lexicon.
  const wordsField = mountImpermissibleWords({
    input: wordsInput, info: $('#debate-words-info'), reset: wordsReset, store,
    onNotice: (t) => { notices.words = t; renderNotice(); },
  });
  const hanModel = (name) => isHan(models?.find((m) => m.name === name));
  const unitsOf = (name) => (hanModel(name) ? 'documents' : 'sentences');

  // The experiments, data set and level picker of the chosen model (flat or HAN).
  function chooseFor(modelName) {
    const han = hanModel(modelName);
    experiments = han ? HAN_EXPERIMENTS : flatExperiments;
    dataset = datasets.find((d) => d.name === (han ? HAN_DATASET : DATASET)) ?? (han ? null : datasets[0] ?? null);
    levelControl.hidden = !han;
    nLabel.textContent = han ? 'Documents (first N)' : 'Sentences (first N)';
    if (lead && lead.dataset.han !== String(han)) {
      lead.dataset.han = String(han);
      lead.replaceChildren(...(han
        ? ['Run one experiment of the debate on a hierarchical attention network over the first N of 200 IMDB test reviews, ',
          'at the sentence level (β over the sentences) or the word level (α within each sentence), as Serrano & Smith did ',
          'on HAN. Each review gets its own random stream from (seed, position), so a run matches ',
          el('code', null, 'attnlab experiment NAME --model models/text/imdb-han --param level=…'), '.']
        : flatLead.map((n) => n.cloneNode(true))));
    }
    if (experiments && shownList !== experiments) {
      shownList = experiments;
      expSelect.replaceChildren(...experiments.map((e) => {
        const o = new Option(infoFor(e.name).title, e.name);
        o.title = e.description ?? '';
        return o;
      }));
    }
  }

  function setControlsDisabled(disabled) {
    for (const c of [expSelect, modelSelect, levelSelect, nInput, allButton, seedInput, runButton, wordsInput, wordsReset]) c.disabled = disabled || !experiments?.length || !models;
    cancelButton.disabled = !running || cancelRequested;
  }

  function describeExperiment(name) {
    wordsControl.hidden = name !== 'impermissible' || hanModel(store.get().model);
    if (!wordsControl.hidden) wordsField.show();
    const e = experiments?.find((x) => x.name === name);
    const info = infoFor(name, e?.description ?? '');
    about.replaceChildren(el('b', null, info.title), info.paper ? el('span', 'paper-inline', ` — ${info.paper}. `) : ' ', info.dataset || e?.description || '');
    if (hanModel(store.get().model)) documentWords(about);
  }

  // A HAN model's rows are documents: the experiments' texts, headlines and figures (written for sentences) say so.
  function documentWords(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const swap = (t) => t.replace(/\b([Ss])entences\b/g, (_, c) => (c === 'S' ? 'Documents' : 'documents'))
      .replace(/\b([Ss])entence\b(?! level)/g, (_, c) => (c === 'S' ? 'Document' : 'document'));
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const t = swap(n.nodeValue);
      if (t !== n.nodeValue) n.nodeValue = t;
    }
  }

  // --- pickers ------------------------------------------------------------------------------------
  function sync() {
    const st = store.get();
    if (models) chooseFor(models.some((x) => x.name === st.model) ? st.model : 'sst2-tanh');
    levelSelect.value = st.level;
    if (experiments) {
      let name = st.experiment;
      if (!experiments.some((e) => e.name === name)) {
        const fallback = experiments.some((e) => e.name === 'adversarial') ? 'adversarial' : experiments[0]?.name;
        const flatOnly = experiments === HAN_EXPERIMENTS && flatExperiments?.some((e) => e.name === name);
        notices.experiment = flatOnly
          ? `The experiment "${name}" runs on the flat models only; on the HAN model ${st.model}: ${fallback}.`
          : experiments.length
          ? `The experiment "${name}" is not available in this build; showing ${fallback} instead.`
          : 'This build of the core has no experiments (rebuild it: bash scripts/build-wasm.sh).';
        name = fallback;
        if (name) store.update({ experiment: name });
      } else notices.experiment = '';
      if (name) {
        expSelect.value = name;
        describeExperiment(name);
      }
    }
    if (models) {
      let m = st.model;
      if (!models.some((x) => x.name === m)) {
        const fallback = (models.find((x) => x.name === 'sst2-tanh') ?? models[0]).name;
        notices.model = `The model "${m}" from the link is not available here; using ${fallback} instead.` +
          (m.startsWith('trained-') ? ' Models trained in the page live only in the tab that trained them: a reload forgets them.' : '');
        m = fallback;
        store.update({ model: m });
        chooseFor(m);
      } else notices.model = '';
      modelSelect.value = m;
      if (hanModel(m) && !dataset) notices.model = `The IMDB test documents (${HAN_DATASET}) are not in the model list, so ${m} cannot run here.`;
    }
    const want = store.get().n;
    const n = Math.min(want, maxN());
    nInput.max = String(maxN());
    nInput.value = String(n);
    // more than the data set holds (a link's n=1000000, or the 200 documents of a HAN model): said, with the
    // number the field shows — the page's link notice is told the same number
    if (want > maxN()) {
      const over = `more than the ${int(maxN())} ${unitsOf(store.get().model)} of ${dataset?.name ?? DATASET}`;
      const told = store.linkUsed?.('n', maxN(), over); // the link notice says it (with the link's own value)
      notices.nLink = told ? '' : `N = ${int(want)} is ${over}: N = ${int(maxN())} (all of them) is used.`;
    } else notices.nLink = '';
    allButton.textContent = `All (${maxN().toLocaleString('en')})`;
    seedInput.value = String(store.get().seed);
    renderNotice();
  }

  expSelect.addEventListener('change', () => {
    store.update({ experiment: expSelect.value });
    notices.experiment = '';
    renderNotice();
    describeExperiment(expSelect.value);
  });
  modelSelect.addEventListener('change', () => {
    store.update({ model: modelSelect.value });
    notices.model = '';
    sync(); // a HAN model has its own experiments, data set and level
  });
  levelSelect.addEventListener('change', () => store.update({ level: levelSelect.value }));
  // A typed N the run cannot use as it is (below 1, above the data set, not a whole number) is changed, and the
  // notice says to what.
  nInput.addEventListener('change', () => {
    const raw = nInput.value.trim();
    const given = Number(raw);
    const v = Math.round(given);
    const units = unitsOf(store.get().model);
    const shown = Number.isFinite(given) ? (Number.isInteger(given) ? int(given) : num(given, 3)).replace(/^-/, '−') : `“${raw}”`;
    let n = store.get().n;
    if (!raw || !Number.isFinite(v)) notices.nTyped = `N = ${shown} is not a number: N = ${int(Math.min(n, maxN()))} is kept.`;
    else {
      n = Math.min(maxN(), Math.max(1, v));
      notices.nTyped = v < 1 ? `N = ${shown} is below 1: N = 1 (the first ${units.replace(/s$/, '')}) is used.`
        : v > maxN() ? `N = ${shown} is more than the ${int(maxN())} ${units} of ${dataset?.name ?? DATASET}: N = ${int(maxN())} (all of them) is used.`
        : v !== given ? `N = ${shown} is not a whole number: N = ${int(n)} is used.` : '';
    }
    nInput.value = String(Math.min(n, maxN()));
    store.update({ n: Math.min(n, maxN()) });
    notices.nLink = '';
    renderNotice();
  });
  allButton.addEventListener('click', () => {
    nInput.value = String(maxN());
    store.update({ n: maxN() });
    notices.nTyped = '';
    notices.nLink = '';
    renderNotice();
  });
  seedInput.addEventListener('change', () => {
    const v = Number(seedInput.value);
    if (/^\d+$/.test(seedInput.value.trim()) && Number.isSafeInteger(v)) store.update({ seed: v });
    else seedInput.value = String(store.get().seed); // keep the last valid seed
  });
  runButton.addEventListener('click', () => start());
  cancelButton.addEventListener('click', () => {
    if (!running) return;
    cancelRequested = true;
    setStatus('cancelling');
    barText.textContent = `${barText.textContent.split(' · ')[0]} · stopping after the current chunk…`;
    setControlsDisabled(true);
  });

  // --- a run ------------------------------------------------------------------------------------------
  function clearDownloads() {
    for (const u of urls) URL.revokeObjectURL(u);
    urls = [];
    csvLink.removeAttribute('href');
    jsonLink.removeAttribute('href');
    $('#debate-downloads').hidden = true;
  }

  function offerDownloads(cfg, res) {
    clearDownloads();
    const base = `attnlab-${cfg.name}-${cfg.model}${cfg.han ? `-${cfg.level}` : ''}-${cfg.dataset}-n${res.done}-seed${cfg.seed}${res.cancelled ? '-partial' : ''}`;
    const json = {
      experiment: cfg.name,
      model: cfg.model,
      dataset: cfg.dataset,
      seed: cfg.seed,
      params: cfg.params,
      n_requested: cfg.n,
      n: res.done,
      partial: res.cancelled || Boolean(res.error),
      error: res.error ?? undefined,
      seconds: res.seconds,
      summary: res.summary,
      rows: res.rows,
    };
    const make = (link, text, type, name) => {
      const url = URL.createObjectURL(new Blob([text], { type }));
      urls.push(url);
      link.href = url;
      link.download = name;
    };
    make(csvLink, rowsToCsv(res.rows), 'text/csv;charset=utf-8', `${base}.csv`);
    make(jsonLink, JSON.stringify(json, null, 1), 'application/json', `${base}.json`);
    $('#debate-downloads').hidden = false;
  }

  function drawFigure(cfg, rows, classNames) {
    try {
      renderDebateFigure(figureEl, cfg.name, rows, {
        classNames: classNamesFor(cfg.model, classNames), width: widthOf(figureEl, 900),
        eraserRows: latestRows.get(`${cfg.model}|eraser`) ?? null, // plausibility's faithfulness axis
      });
      if (cfg.han) documentWords(figureEl);
    } catch (e) {
      figureEl.replaceChildren(el('p', 'message error', `The figure could not be drawn: ${e.message}`));
    }
  }

  // The parameters the page passes (the core's defaults otherwise): a HAN model's level; the impermissible experiment's
  // words (#debate-words: one's own or the shipped lexicon), with a note for the run's title saying which.
  async function paramsOf(name, han, level) {
    if (han) return { params: { level }, note: '' };
    if (name === 'impermissible') {
      const { words, source } = await wordsField.words();
      const n = `${int(words.length)} word${words.length === 1 ? '' : 's'}`;
      return { params: { words: wordsParam(words) }, note: source === 'own' ? `${n} of your own` : `the strong-sentiment lexicon (${n})` };
    }
    return { params: {}, note: '' };
  }

  let preparing = false;
  async function start() {
    if (running || preparing || !experiments || !models) return;
    const st = store.get();
    const han = hanModel(st.model);
    if (han && !dataset) return;
    let params;
    let paramsNote = '';
    preparing = true;
    // The run starts when Run is pressed, even while its parameters load (the impermissible word list): the status
    // says so at once, so nothing reads the last run's 'done' as this one's.
    setStatus('running');
    try {
      ({ params, note: paramsNote } = await paramsOf(st.experiment, han, st.level));
    } catch (e) {
      showMessage(`The run could not start: ${e.message}`);
      setStatus('error');
      return;
    } finally {
      preparing = false;
    }
    if (running) return;
    const cfg = {
      name: st.experiment, model: st.model, n: Math.min(st.n, maxN()), seed: st.seed, dataset: dataset?.name ?? DATASET,
      han, level: han ? st.level : null, params, paramsNote, units: unitsOf(st.model),
    };
    const info = infoFor(cfg.name, experiments.find((e) => e.name === cfg.name)?.description);
    const seedsP = cfg.han ? null : textSeedSummary(); // fetched (once) while the run goes
    running = true;
    cancelRequested = false;
    showMessage('');
    clearDownloads();
    setStatus('running');
    setControlsDisabled(true);
    resultEl.hidden = false;
    resultEl.dataset.partial = 'false';
    resultEl.dataset.rows = '0';
    titleEl.textContent = runTitle(info, cfg, cfg.n);
    stateEl.textContent = 'Running…';
    stateEl.className = 'result-state';
    captionEl.textContent = info.figure ?? '';
    if (cfg.han) documentWords(captionEl);
    headlineEl.replaceChildren();
    allNumbersEl.replaceChildren();
    figureEl.replaceChildren(el('p', 'chart-note', 'The figure appears after the first chunk.'));
    bar.max = cfg.n;
    bar.value = 0;
    barText.textContent = `0 / ${cfg.n.toLocaleString('en')} ${cfg.units} · starting…`;

    let lastDraw = 0;
    const clients = pool.clients(poolSize({ requested: st.workers, hardwareConcurrency: globalThis.navigator?.hardwareConcurrency }));
    section.dataset.workers = String(clients.length);
    const res = await runDataset({
      client, clients, model: cfg.model, name: cfg.name, dataset: cfg.dataset, n: cfg.n, seed: cfg.seed, params: cfg.params,
      isCancelled: () => cancelRequested,
      onChunk: ({ rows, done, limit, classNames, seconds: s }) => {
        bar.max = limit;
        bar.value = done;
        resultEl.dataset.rows = String(rows.length);
        const left = done > 0 && done < limit ? ` · about ${seconds((s / done) * (limit - done))} left` : '';
        barText.textContent = `${done.toLocaleString('en')} / ${limit.toLocaleString('en')} ${cfg.units} · ${seconds(s)}${left}` +
          (cancelRequested ? ' · stopping after the current chunk…' : '');
        if (performance.now() - lastDraw > REDRAW_MS) {
          drawFigure(cfg, rows, classNames);
          lastDraw = performance.now();
        }
      },
    });
    running = false;
    cancelRequested = false;
    finish(cfg, info, res, await seedsP);
  }

  // The result's title names the instances the numbers are about: a cancelled or stopped run its rows so far.
  function runTitle(info, cfg, n, stopped = '') {
    return `${info.title} · ${cfg.model}${cfg.han ? ` · ${cfg.level} level` : ''} · first ${int(n)} ${n === 1 ? cfg.units.replace(/s$/, '') : cfg.units} of ${cfg.dataset}` +
      `${stopped ? ` (${stopped} — ${int(cfg.n)} asked)` : ''} · seed ${cfg.seed}${cfg.paramsNote ? ` · ${cfg.paramsNote}` : ''}`;
  }

  function finish(cfg, info, res, seeds) {
    const partial = res.cancelled || Boolean(res.error);
    if (partial) titleEl.textContent = runTitle(info, cfg, res.rows.length, res.error ? 'stopped by an error' : 'cancelled');
    if (res.rows.length) latestRows.set(`${cfg.model}|${cfg.name}`, res.rows);
    resultEl.dataset.partial = String(partial);
    resultEl.dataset.rows = String(res.rows.length);
    bar.max = Math.max(1, res.limit);
    bar.value = res.done;
    const skippedRows = res.rows.filter((r) => r?.skipped);
    const reasons = [...new Set(skippedRows.map((r) => String(r.skipped)))];
    const skippedText = skippedRows.length
      ? ` (${skippedRows.length === res.rows.length ? 'all' : skippedRows.length} skipped by the experiment: ${reasons.slice(0, 3).join('; ')})`
      : '';
    resultEl.dataset.skipped = String(skippedRows.length);
    barText.textContent = `${res.done.toLocaleString('en')} / ${res.limit.toLocaleString('en')} ${cfg.units} · ${seconds(res.seconds)}`;
    if (res.error) {
      showMessage(`The run stopped: ${res.error}`);
      stateEl.textContent = `Partial result: stopped by an error after ${res.done} of ${res.limit} ${cfg.units}${skippedText}.`;
    } else if (res.cancelled) {
      stateEl.textContent = `Partial result: cancelled after ${res.done} of ${res.limit} ${cfg.units}${skippedText}.`;
    } else {
      stateEl.textContent = `Complete: ${res.done.toLocaleString('en')} ${cfg.units} in ${seconds(res.seconds)}${skippedText}.`;
    }
    stateEl.className = `result-state${partial ? ' partial' : ''}`;
    if (res.summary) {
      // Nothing to headline when the experiment skipped every sentence (the reason is in the result line).
      const shown = res.summary;
      const any = skippedRows.length < res.rows.length;
      renderHeadline(headlineEl, any ? withSeedSpread(info.headline(shown), seeds, cfg.model) : []);
      // the summary in one plain sentence, above the numbers (the experiments that give one: experiments-info.js)
      const words = any && typeof info.sentence === 'function' ? info.sentence(shown) : '';
      if (words) headlineEl.prepend(el('p', 'headline-words', words));
      if (cfg.han) documentWords(headlineEl);
      renderAllNumbers(allNumbersEl, res.summary);
    }
    if (res.rows.length) {
      drawFigure(cfg, res.rows, res.classNames);
      offerDownloads(cfg, res);
    } else {
      figureEl.replaceChildren(el('p', 'chart-note', 'No sentence was run.'));
    }
    setStatus(res.error ? 'error' : res.cancelled ? 'cancelled' : 'done');
    sync(); // the link may have changed while the run was going
    setControlsDisabled(false);
    // Run and Cancel were disabled while it ran, so the keyboard focus fell to the page: back onto Run
    const f = document.activeElement;
    if (!f || f === document.body || f.disabled) runButton.focus({ preventScroll: true });
  }

  // --- wiring -------------------------------------------------------------------------------------------
  function progress(msg) {
    if (!running || msg.stage === 'ready') return;
    if (msg.stage === 'weights' && msg.total > 0) {
      barText.textContent = `Loading ${msg.model}: ${Math.round((100 * msg.loaded) / msg.total)} %…`;
    } else if (bar.value === 0) barText.textContent = 'Loading the model…';
  }

  function apply() {
    if (!running) sync();
  }

  let extraModels = []; // trained in this tab; may arrive before the manifest does
  function modelOptions() {
    const value = modelSelect.value;
    modelSelect.replaceChildren(...models.map((m) => new Option(`${m.name} — ${isHan(m) ? 'HAN (documents)' : modelKind(m)}`, m.name)));
    if (value && models.some((m) => m.name === value)) modelSelect.value = value;
  }

  function addModel(entry) {
    if (!entry?.name) return;
    extraModels = [...extraModels.filter((e) => e.name !== entry.name), entry];
    if (!models) return;
    models = [...models.filter((m) => m.name !== entry.name), entry];
    modelOptions();
    if (!running) sync();
  }

  setStatus('loading');
  setControlsDisabled(true);
  Promise.all([client.manifest(), client.experimentNames()])
    .then(([manifest, names]) => {
      const documents = Array.isArray(manifest.documents) ? manifest.documents.filter(isHan) : [];
      models = [...manifest.models, ...documents, ...extraModels.filter((e) => !manifest.models.some((m) => m.name === e.name))];
      datasets = Array.isArray(manifest.datasets) ? manifest.datasets : [];
      if (!datasets.length) throw new Error('The model list names no data set (manifest.datasets), so there is nothing to run on.');
      flatExperiments = names;
      modelOptions();
      sync();
      setStatus(loadError ? 'error' : 'idle');
      setControlsDisabled(false);
      barText.textContent = names.length ? 'Press Run to start.' : '';
    })
    .catch((e) => {
      loadError = e.message;
      showMessage(`${e.message}\nThe Debate lab cannot run until this is fixed (then reload).`);
      setStatus('error');
    });

  return { apply, progress, addModel };
}
