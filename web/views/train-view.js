// train-view.js — the Train lab: train a BiLSTM + attention model or a transformer on the SST-2 training sentences in the
// worker, with per-epoch progress, a live loss / dev chart, Cancel, and the result next to the shipped models;
// the trained model joins the model pickers of the other labs (this tab only) and can be downloaded.
//
// Contract:
//   mountTrainView(section, { client, store, onTrained, openModel }) → { apply(state), progress(msg) }
//     section    the #view-train element of index.html; client a CoreClient; store the URL-backed state
//                (fields trainkind, attention, trainseed, epochs, tlayers for a transformer, and for an adversary
//                advbase, lambda).
//   What to train (#train-kind): a BiLSTM classifier (#train-attention: uniform = the W&P baseline, tanh, dot), a
//     transformer classifier (#train-attention: dot or uniform; #train-layers: 1 or 2 blocks) or a
//     Wiegreffe & Pinter model-consistent adversary (#train-base: a shipped SST-2 model with learned attention;
//     #train-lambda: λ). An adversary's epochs also show the dev TVD / JSD to the base (chart and table); the
//     last finished epoch is kept; every adversary trained in the tab joins #train-adversaries (TVD-vs-JSD
//     scatter on the test set, render/train-adversary.js, and a table). The debate's fourth round (issue 32): an
//     Orthogonal LSTM (ortho), a Diversity LSTM (#train-penalty: λ, state divlambda, default the paper's 0.5) or
//     deceptive attention (Pruthi et al.; #train-penalty: λ, state declambda, default 1; #train-words: the impermissible
//     words, by default the shipped strong-sentiment lexicon fetched from models/text/data/sst2-strong-lexicon.txt —
//     state impwords keeps a list of one's own; #train-words-reset goes back to the lexicon); their attention is tanh
//     or dot. They train like a BiLSTM classifier; the trained entry records the kind (runtime/labs/train-entries.js).
//     onTrained(entry)  called once per trained model (a manifest-style entry, trained: true) — the app adds
//                it to the Text and Debate pickers.
//     openModel(name)   "Explain with it in the Text lab": the app switches to the text view with that model.
//   apply(state) sets the controls from the state (not while training). Nothing runs until Train is pressed.
//   Train: client.train(); each step's progress moves the two bars (this epoch's batches, all epochs), the
//     loss / dev chart (render/train-chart.js) and the per-epoch table. Cancel asks the worker to stop before
//     its next step: with at least one finished epoch the best one so far is kept (and tested), otherwise no
//     model is kept and a notice says so. Controls are disabled while training.
//   section.dataset.status: 'loading' | 'idle' | 'running' | 'cancelling' | 'testing' | 'done' | 'cancelled'
//     | 'error'; section.dataset.model = the name of the model the last run kept ('' when none).
//   #train-download-config / #train-download-weights are Blob-URL download links once a model is kept.
import { bytes as sizeText } from '../analysis/format.js';
import { el } from '../render/dom.js';
import { CATALOGUE } from '../catalogue.js';
import { widthOf } from '../render/plot-lib.js';
import { renderTrainCharts, renderEpochTable } from '../render/train-chart.js';
import { renderComparison } from '../render/train-compare.js';
import { renderAdversaryCurve, renderAdversaryTable } from '../render/train-adversary.js';
import {
  ATTENTIONS, WP_SEEDS, parseSeed, parseEpochs, createHistory, addProgress, progressFraction, epochFraction,
  secondsLeft, comparisonRows, TRAIN_KINDS, LAMBDAS, adversaryBases, adversaryPoints, TRANSFORMER_ATTENTIONS,
  TRANSFORMER_LAYERS, transformerAttention, FAITHFUL_KINDS, FAITHFUL_ATTENTIONS, DIVERSITY_LAMBDAS, DECEPTION_LAMBDAS,
  faithfulAttention, variantLabel,
} from '../analysis/training.js';
import { wordsParam } from '../analysis/faithful.js';
import { mountImpermissibleWords } from './impermissible-words.js';

const NEEDED = ['sst2-train', 'sst2-dev', 'sst2-test'];
// The in-page transformer's heads: the core's default (text.training), which the page does not change.
const HEADS = CATALOGUE.text.training.find((p) => p.name === 'heads')?.default;
const REDRAW_MS = 300;

function seconds(s) {
  if (!Number.isFinite(s)) return '';
  return s < 60 ? `${Math.round(s)} s` : `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, '0')} s`;
}

function mb(n) {
  return sizeText(n);
}

export function mountTrainView(section, { client, store, onTrained = () => {}, openModel = () => {} }) {
  const $ = (sel) => section.querySelector(sel);
  const kindSelect = $('#train-kind');
  const baseSelect = $('#train-base');
  const lambdaSelect = $('#train-lambda');
  const attentionControl = $('#train-attention-control');
  const baseControl = $('#train-base-control');
  const lambdaControl = $('#train-lambda-control');
  const penaltyControl = $('#train-penalty-control');
  const penaltyLabel = $('#train-penalty-label');
  const penaltySelect = $('#train-penalty');
  const wordsControl = $('#train-words-control');
  const wordsInput = $('#train-words');
  const wordsInfo = $('#train-words-info');
  const wordsReset = $('#train-words-reset');
  const advCard = $('#train-adversaries');
  const advCurve = $('#train-adversary-curve');
  const advTable = $('#train-adversary-table');
  const attentionSelect = $('#train-attention');
  const layersControl = $('#train-layers-control');
  const layersSelect = $('#train-layers');
  const seedInput = $('#train-seed');
  const epochsInput = $('#train-epochs');
  const runButton = $('#train-run');
  const cancelButton = $('#train-cancel');
  const seedChips = $('#train-seeds');
  const epochBar = $('#train-epoch-progress');
  const epochText = $('#train-epoch-text');
  const bar = $('#train-progress');
  const barText = $('#train-progress-text');
  const messageEl = $('#train-message');
  const noticeEl = $('#train-notice');
  const liveEl = $('#train-live');
  const titleEl = $('#train-title');
  const chartsEl = $('#train-charts');
  const tableEl = $('#train-epoch-table');
  const resultEl = $('#train-result');
  const resultTitle = $('#train-result-title');
  const resultState = $('#train-result-state');
  const compareEl = $('#train-compare');
  const openButton = $('#train-open');
  const configLink = $('#train-download-config');
  const weightsLink = $('#train-download-weights');
  const resultNote = $('#train-result-note');

  let shipped = null; // manifest.models once loaded
  let bases = []; // models an adversary can be trained against
  let ready = false;
  let running = false;
  let preparing = false; // Train pressed, the impermissible words still loading
  let cancelRequested = false;
  const trainedModels = []; // entries trained in this tab, newest first
  let urls = [];
  let keptName = '';

  const setStatus = (s) => {
    section.dataset.status = s;
  };
  const showMessage = (text) => {
    messageEl.textContent = text;
    messageEl.hidden = !text;
  };
  const showNotice = (text) => {
    noticeEl.textContent = text;
    noticeEl.hidden = !text;
  };

  function setControlsDisabled(disabled) {
    for (const c of [kindSelect, baseSelect, lambdaSelect, attentionSelect, layersSelect, penaltySelect, wordsInput, wordsReset,
      seedInput, epochsInput, runButton, ...seedChips.querySelectorAll('button')]) {
      c.disabled = disabled || !ready;
    }
    cancelButton.disabled = !running || cancelRequested;
  }

  // --- controls -------------------------------------------------------------------------------------
  layersSelect.replaceChildren(...TRANSFORMER_LAYERS.map((l) => new Option(String(l), String(l))));
  kindSelect.replaceChildren(...TRAIN_KINDS.map((k) => new Option(k.label, k.value)));
  lambdaSelect.replaceChildren(...LAMBDAS.map((l) => new Option(l, l)));
  $('#train-seed-list').replaceChildren(...WP_SEEDS.map((s) => new Option(String(s), String(s))));
  for (const s of WP_SEEDS) {
    const b = el('button', 'example seed-chip', String(s), { type: 'button', 'data-seed': s });
    b.disabled = true;
    b.addEventListener('click', () => {
      seedInput.value = String(s);
      store.update({ trainseed: s });
      markSeed();
    });
    seedChips.append(b);
  }

  function markSeed() {
    const seed = store.get().trainseed;
    for (const b of seedChips.querySelectorAll('button')) b.classList.toggle('selected', Number(b.dataset.seed) === seed);
  }

  // The attention choices of the kind (a transformer has no additive attention: tanh shows as dot; the Orthogonal /
  // Diversity LSTM and deceptive attention learn theirs: uniform shows as tanh).
  let shownAttentions = '';
  let shownPenalties = '';
  function showKind(kind) {
    const adversary = kind === 'adversary';
    const transformer = kind === 'transformer';
    const variant = FAITHFUL_KINDS.includes(kind);
    attentionControl.hidden = adversary;
    layersControl.hidden = !transformer;
    baseControl.hidden = !adversary;
    lambdaControl.hidden = !adversary;
    penaltyControl.hidden = !(kind === 'diversity' || kind === 'deceptive');
    wordsControl.hidden = kind !== 'deceptive';
    const which = transformer ? 'transformer' : variant ? 'faithful' : 'bilstm';
    const list = transformer ? TRANSFORMER_ATTENTIONS : variant ? FAITHFUL_ATTENTIONS : ATTENTIONS;
    if (shownAttentions !== which) {
      attentionSelect.replaceChildren(...list.map((a) => new Option(a.label, a.value)));
      shownAttentions = which;
    }
    if (!penaltyControl.hidden && shownPenalties !== kind) {
      const lambdas = kind === 'diversity' ? DIVERSITY_LAMBDAS : DECEPTION_LAMBDAS;
      penaltySelect.replaceChildren(...lambdas.map((l) => new Option(l, l)));
      penaltyLabel.textContent = kind === 'diversity' ? 'λ (conicity weight)' : 'λ (deception weight)';
      shownPenalties = kind;
    }
  }
  // The attention the chosen kind trains with (the URL's, or the nearest one the kind can use).
  const attentionFor = (st) => (st.trainkind === 'transformer' ? transformerAttention(st.attention)
    : FAITHFUL_KINDS.includes(st.trainkind) ? faithfulAttention(st.attention) : st.attention);
  const penaltyKey = (kind) => (kind === 'diversity' ? 'divlambda' : 'declambda');

  // The impermissible words (views/impermissible-words.js: one's own list in state.impwords, or the shipped lexicon).
  const wordsField = mountImpermissibleWords({ input: wordsInput, info: wordsInfo, reset: wordsReset, store, onNotice: (t) => showNotice(t) });
  const showWords = wordsField.show;

  function sync() {
    const st = store.get();
    kindSelect.value = st.trainkind;
    lambdaSelect.value = st.lambda;
    if (bases.length) baseSelect.value = bases.includes(st.advbase) ? st.advbase : bases[0];
    showKind(st.trainkind);
    attentionSelect.value = attentionFor(st);
    if (!penaltyControl.hidden) penaltySelect.value = st[penaltyKey(st.trainkind)];
    if (!wordsControl.hidden) showWords();
    layersSelect.value = String(st.tlayers);
    seedInput.value = String(st.trainseed);
    epochsInput.value = String(st.epochs);
    markSeed();
  }

  attentionSelect.addEventListener('change', () => store.update({ attention: attentionSelect.value }));
  layersSelect.addEventListener('change', () => store.update({ tlayers: Number(layersSelect.value) }));
  kindSelect.addEventListener('change', () => {
    store.update({ trainkind: kindSelect.value });
    sync();
  });
  baseSelect.addEventListener('change', () => store.update({ advbase: baseSelect.value }));
  penaltySelect.addEventListener('change', () => store.update({ [penaltyKey(store.get().trainkind)]: penaltySelect.value }));
  lambdaSelect.addEventListener('change', () => store.update({ lambda: lambdaSelect.value }));
  seedInput.addEventListener('change', () => {
    const v = parseSeed(seedInput.value);
    if (v === null) {
      showNotice(`The seed must be a whole number from 0 to 2147483647; keeping ${store.get().trainseed}.`);
      seedInput.value = String(store.get().trainseed);
      return;
    }
    showNotice('');
    store.update({ trainseed: v });
    markSeed();
  });
  epochsInput.addEventListener('change', () => {
    const v = parseEpochs(epochsInput.value);
    if (v === null) {
      showNotice(`The number of epochs must be a whole number from 1 to 30; keeping ${store.get().epochs}.`);
      epochsInput.value = String(store.get().epochs);
      return;
    }
    showNotice('');
    store.update({ epochs: v });
  });
  runButton.addEventListener('click', () => start());
  cancelButton.addEventListener('click', () => {
    if (!running || cancelRequested) return;
    cancelRequested = true;
    client.cancelTrain();
    setStatus('cancelling');
    barText.textContent = `${barText.textContent.split(' · stopping')[0]} · stopping after the current step…`;
    setControlsDisabled(true);
  });
  openButton.addEventListener('click', () => {
    if (keptName) openModel(keptName);
  });

  // --- a run ------------------------------------------------------------------------------------------
  function clearDownloads() {
    for (const u of urls) URL.revokeObjectURL(u);
    urls = [];
    for (const a of [configLink, weightsLink]) a.removeAttribute('href');
  }

  function offerDownloads(res) {
    clearDownloads();
    const make = (link, data, type, name) => {
      const url = URL.createObjectURL(new Blob([data], { type }));
      urls.push(url);
      link.href = url;
      link.download = name;
    };
    make(configLink, res.config, 'application/json', 'config.json');
    make(weightsLink, res.weights, 'application/octet-stream', 'model.safetensors');
    configLink.textContent = `config.json (${mb(res.model.bytes?.config ?? res.config.length)})`;
    weightsLink.textContent = `model.safetensors (${mb(res.weights.length)})`;
  }

  function draw(history, epochs) {
    try {
      renderTrainCharts(chartsEl, history, { epochs, width: widthOf(chartsEl, 900) });
    } catch (e) {
      chartsEl.replaceChildren(el('p', 'message error', `The chart could not be drawn: ${e.message}`));
    }
  }

  function showProgress(p, cfg) {
    epochBar.max = Math.max(1, p.batches);
    epochBar.value = p.batch;
    bar.max = 1;
    bar.value = progressFraction(p);
    epochText.textContent = `epoch ${p.epoch} / ${p.epochs} · batch ${p.batch} / ${p.batches}`;
    const left = secondsLeft(p, p.seconds);
    const last = !(p.epoch_done && p.dev) ? ''
      : Number.isFinite(p.dev.tvd_mean)
        ? ` · dev TVD ${p.dev.tvd_mean.toFixed(3)}, JSD ${p.dev.jsd_mean.toFixed(3)}, F1 ${p.dev.f1.toFixed(3)}`
        : ` · dev accuracy ${(p.dev.accuracy * 100).toFixed(1)} %`;
    barText.textContent = `${Math.round(bar.value * 100)} % of ${cfg.epochs} epoch${cfg.epochs === 1 ? '' : 's'} · ` +
      `loss ${p.train_loss.toFixed(4)}${last} · ${seconds(p.seconds)}` +
      (Number.isFinite(left) && left > 0 ? ` · about ${seconds(left)} left` : '') +
      (cancelRequested ? ' · stopping after the current step…' : '');
  }

  let startedAt = 0; // the duration of a finished run when the result's progress has no `seconds`
  // The configuration of a run of the kind in the URL state (a deceptive one waits for its words).
  async function configOf(st) {
    const kind = st.trainkind;
    const common = { seed: st.trainseed, epochs: st.epochs };
    if (kind === 'adversary') return { kind, base: baseSelect.value, lambda: Number(st.lambda), ...common };
    if (kind === 'transformer') return { kind, attention: attentionFor(st), layers: st.tlayers, ...common };
    if (kind === 'ortho') return { kind, attention: attentionFor(st), ...common };
    if (kind === 'diversity') return { kind, attention: attentionFor(st), lambda: Number(st.divlambda), ...common };
    if (kind === 'deceptive') {
      const { words, source } = await wordsField.words();
      return { kind, attention: attentionFor(st), lambda: Number(st.declambda), words: wordsParam(words), nWords: words.length,
        wordsSource: source, ...common };
    }
    return { kind: 'model', attention: st.attention, ...common };
  }

  function titleOf(cfg) {
    const plural = `${cfg.epochs} epoch${cfg.epochs === 1 ? '' : 's'}`;
    if (cfg.kind === 'adversary') return `Training an adversary of ${cfg.base}: λ ${cfg.lambda} · seed ${cfg.seed} · ${plural}`;
    if (cfg.kind === 'transformer') {
      return `Training a transformer: ${cfg.layers} layer${cfg.layers === 1 ? '' : 's'} × ${HEADS} heads · ${cfg.attention} self-attention · seed ${cfg.seed} · ${plural}`;
    }
    if (cfg.kind === 'ortho') return `Training an Orthogonal LSTM: ${cfg.attention} attention · seed ${cfg.seed} · ${plural}`;
    if (cfg.kind === 'diversity') return `Training a Diversity LSTM (λ ${cfg.lambda}): ${cfg.attention} attention · seed ${cfg.seed} · ${plural}`;
    if (cfg.kind === 'deceptive') {
      return `Training ${variantLabel(cfg.kind)} (λ ${cfg.lambda}, ${cfg.nWords.toLocaleString('en')} impermissible words): ` +
        `${cfg.attention} attention · seed ${cfg.seed} · ${plural}`;
    }
    return `Training: ${cfg.attention} attention · seed ${cfg.seed} · ${plural}`;
  }

  async function start() {
    if (running || preparing || !ready) return;
    startedAt = performance.now();
    const st = store.get();
    const adversary = st.trainkind === 'adversary';
    let cfg;
    preparing = true;
    try {
      cfg = await configOf(st);
    } catch (e) {
      showMessage(`Training could not start: ${e.message}`);
      return;
    } finally {
      preparing = false;
    }
    if (running) return;
    running = true;
    cancelRequested = false;
    keptName = '';
    section.dataset.model = '';
    showMessage('');
    showNotice(wordsField.notice() && cfg.kind === 'deceptive' ? wordsField.notice() : '');
    setStatus('running');
    setControlsDisabled(true);
    resultEl.hidden = true;
    liveEl.hidden = false;
    titleEl.textContent = titleOf(cfg);
    const history = createHistory();
    epochBar.value = 0;
    bar.value = 0;
    for (const p of [epochBar, bar]) p.classList.remove('stopped');
    epochText.textContent = '';
    barText.textContent = 'Loading the training data…';
    draw(history, cfg.epochs);
    tableEl.replaceChildren();
    let lastDraw = 0;
    let res;
    try {
      res = await client.train(cfg, (p) => {
        if (p.stage === 'data') {
          barText.textContent = 'Loading the training data…';
          return;
        }
        if (p.stage === 'test') {
          setStatus('testing');
          barText.textContent = adversary
            ? `Comparing the kept adversary (epoch ${p.best_epoch}) with ${cfg.base} on the 1,821 test sentences…`
            : `Testing the kept model (epoch ${p.best_epoch}) on the 1,821 test sentences…`;
          return;
        }
        addProgress(history, p);
        showProgress(p, cfg);
        if (p.epoch_done || performance.now() - lastDraw > REDRAW_MS) {
          draw(history, cfg.epochs);
          lastDraw = performance.now();
        }
        if (p.epoch_done) renderEpochTable(tableEl, history);
      });
    } catch (e) {
      running = false;
      cancelRequested = false;
      showMessage(`Training stopped: ${e.message}`);
      barText.textContent = 'Stopped by an error.';
      setStatus('error');
      setControlsDisabled(false);
      return;
    }
    running = false;
    cancelRequested = false;
    draw(history, cfg.epochs);
    renderEpochTable(tableEl, history);
    finish(cfg, res, history);
  }

  // After Cancel the two bars stop where the run stopped: say so beside the epoch bar (it stays at the batch the
  // run reached) and grey both, so they do not read as a run that hangs.
  function stoppedBars() {
    const b = Number(epochBar.value), n = Number(epochBar.max);
    const m = /^epoch (\d+)/.exec(epochText.textContent);
    epochText.textContent = `cancelled${m ? ` in epoch ${m[1]}` : ''}${n > 1 ? ` at batch ${b} / ${n}` : ''} — that epoch’s batches are not kept`;
    for (const p of [epochBar, bar]) p.classList.add('stopped');
  }

  function finish(cfg, res, history) {
    if (res.cancelled) stoppedBars();
    if (!res.model) {
      const epoch = res.progress?.epoch ?? 1;
      showNotice(`Training cancelled during epoch ${epoch}, before any epoch finished: no model was kept ` +
        '(a model needs at least one finished epoch and its dev score). The other labs are unaffected.');
      barText.textContent = `Cancelled in epoch ${epoch} — no model kept.`;
      setStatus('cancelled');
      setControlsDisabled(false);
      return;
    }
    const m = res.model;
    keptName = m.name;
    trainedModels.unshift(m);
    onTrained(m);
    bar.value = res.cancelled ? bar.value : 1;
    const best = m.provenance?.best_epoch;
    const ran = m.provenance?.epochs_run ?? history.epochs.length;
    barText.textContent = res.cancelled
      ? `Cancelled after ${ran} finished epoch${ran === 1 ? '' : 's'} — kept epoch ${best}.`
      : `Done: ${ran} epoch${ran === 1 ? '' : 's'} in ${seconds(Number.isFinite(res.progress?.seconds) ? res.progress.seconds : (performance.now() - startedAt) / 1000)} — kept epoch ${best}.`;
    resultEl.hidden = false;
    const adversary = m.provenance?.kind === 'adversary';
    const t = m.metrics.test;
    resultTitle.textContent = adversary
      ? `${m.name}: test TVD ${t.tvd_mean.toFixed(3)} and JSD ${t.jsd_mean.toFixed(3)} to ${m.provenance.base}; ` +
        `accuracy ${(t.accuracy * 100).toFixed(1)} %, F1 ${t.f1.toFixed(3)}`
      : `${m.name}: test accuracy ${(t.accuracy * 100).toFixed(1)} %, F1 ${t.f1.toFixed(3)}`;
    resultState.textContent = adversary
      ? (res.cancelled
        ? `Cancelled after ${ran} of ${cfg.epochs} epochs; the last finished one (epoch ${best}) was kept and compared.`
        : `Complete: ${ran} epoch${ran === 1 ? '' : 's'}; the last epoch was kept (an adversary has no dev selection).`)
      : res.cancelled
        ? `Cancelled after ${ran} of ${cfg.epochs} epochs; the best of them (epoch ${best}, by dev accuracy) was kept and tested.`
        : `Complete: ${ran} epoch${ran === 1 ? '' : 's'}; epoch ${best} had the best dev accuracy and was kept.`;
    resultState.className = `result-state${res.cancelled ? ' partial' : ''}`;
    renderComparison(compareEl, comparisonRows(trainedModels, shipped));
    offerDownloads(res);
    drawAdversaries();
    resultNote.textContent = `${m.name} is now in the model pickers of the Text and Debate labs, in this tab only: a reload ` +
      'forgets it. To keep it, download both files into one folder; the command line loads that folder ' +
      `(build/attnlab explain-text --model FOLDER --text "…").` +
      (m.provenance?.same_as ? ` The same model from the command line: ${m.provenance.same_as}.` : '');
    section.dataset.model = m.name;
    setStatus(res.cancelled ? 'cancelled' : 'done');
    setControlsDisabled(false);
  }

  function drawAdversaries() {
    const points = adversaryPoints(trainedModels);
    advCard.hidden = points.length === 0;
    if (!points.length) return;
    try {
      renderAdversaryCurve(advCurve, points, { width: widthOf(advCurve, 720) });
    } catch (e) {
      advCurve.replaceChildren(el('p', 'message error', `The chart could not be drawn: ${e.message}`));
    }
    renderAdversaryTable(advTable, points);
  }

  // --- wiring ---------------------------------------------------------------------------------------------
  function apply() {
    if (!running) sync();
  }

  setStatus('loading');
  sync();
  setControlsDisabled(true);
  client
    .manifest()
    .then((manifest) => {
      shipped = manifest.models.filter((m) => !m.trained);
      bases = adversaryBases(shipped);
      baseSelect.replaceChildren(...bases.map((b) => new Option(b, b)));
      if (!running) sync();
      const names = new Set((manifest.datasets ?? []).map((d) => d?.name));
      const lacking = NEEDED.filter((n) => !names.has(n));
      if (lacking.length) throw new Error(`The model list names no ${lacking.join(', ')} data set, so there is nothing to train on.`);
      ready = true;
      setStatus('idle');
      setControlsDisabled(false);
      barText.textContent = 'Press Train to start.';
    })
    .catch((e) => {
      showMessage(`${e.message}\nThe Train lab cannot run until this is fixed (then reload).`);
      setStatus('error');
    });

  return { apply, progress: () => {} };
}
