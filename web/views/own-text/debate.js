// debate.js — "The debate on your model": the debate experiments of the registry run live on a user's ONNX text model
// (the Text tab's "Your model", views/own-text-view.js), for the text and position explained above. The same panels as
// the shipped models' live panels (views/live-panels.js): the renderers of render/live/ draw the core's rows.
//   Kendall τ (attention vs gradient, vs leave-one-out), erase-max (top vs random), erase-until-flip by every ranking
//   and permutation run after each explained step; the adversarial search (slow: every Adam step runs the model
//   forward and backward per candidate) runs when asked, with a steps control, an estimated progress and Cancel; so
//   does "Which method?" (ERASER: every explanation of the text, each one's top tokens deleted and the model re-run;
//   render/live/eraser.js ranks them).
//   Every row is OnnxTextLab.experiment's: the numbers of `attnlab experiment NAME --model DIR --data F.tsv [--seed S]
//   [--layer K-1] [--param steps=N]` on a one-line TSV of the text.
//   The experiments run in a second worker holding the same model (labs/own-text.js, client name
//   'attnlab-own-text-debate'): the explanation above never waits behind them, and Cancel stops that worker (the
//   core's search has no steps to stop between); it loads the model again on the next run. When a new explanation
//   starts above (hold()), that worker is stopped the same way if it is still running the step before's experiments:
//   their rows would be dropped, and the explanation gets the machine's cores to itself.
//
// Contract:
//   mountOwnTextDebate(section, { store }) → { update(step), hold(), clear(), apply() }
//     section: an empty element (the card's #ot-debate); step = the view's onResult payload + {special (one flag per
//     explained id), source ({key, shipped: name} | {key, files})}. hold(): a new explanation started (the view calls
//     it before each explain): the runs for the step before stop; update() starts them again for the new step.
//     URL state: otdlayer (1-based found layer, 0 = the last), otdclosed (panels folded shut: they do not run),
//     otdsteps (the adversarial search's steps), seed (the debate seed, shared with the shipped models' panels).
//   Panels: details.live-panel[data-experiment=NAME][data-status = pending | ready | skipped | error | closed | idle
//   (adversarial and eraser before a run) | running]; each ready panel's .panel-state says how long the core took
//   (data-ms). section.dataset.status: 'empty' | 'pending' | 'ready'.
import { el } from '../../render/dom.js';
import { widthOf } from '../../render/plot-lib.js';
import { infoFor } from '../../experiments-info.js';
import { renderKendall } from '../../render/live/kendall.js';
import { renderAdversarial } from '../../render/live/adversarial.js';
import { renderPermutation } from '../../render/live/permutation.js';
import { renderEraseMax } from '../../render/live/erase-max.js';
import { renderEraser } from '../../render/live/eraser.js';
import { renderEraseUntilFlip } from '../../render/live/erase-until-flip.js';
import { OwnTextClient } from '../../runtime/own-text-client.js';
import { OWN_DEBATE_PANELS, AUTO_PANELS, debateLayer, parseClosed, closedText, withLabels, flipText } from '../../analysis/own-text-debate.js';

const DEBOUNCE_MS = 300;
const CANCELLED = 'The adversarial search was cancelled.';
const SUPERSEDED = 'A new explanation started above.';

const LIVE_TEXT = Object.freeze({
  permutation: 'Shuffle the attention weights 100 times and see how much the output distribution moves (|Δŷ|, TVD). Small changes mean the model barely uses which token gets which weight.',
});

export function mountOwnTextDebate(section, { store }) {
  section.replaceChildren();
  section.dataset.status = 'empty';
  const head = el('div', 'live-head');
  head.append(el('h3', 'ot-debate-title', 'The debate on your model', { id: 'ot-debate-title' }));
  const seedNote = el('span', 'live-seed');
  head.append(seedNote);
  const sub = el('p', 'card-sub ot-debate-sub');
  const controls = el('div', 'ot-debate-controls');
  const layerSelect = el('select', '', undefined, { id: 'ot-debate-layer' });
  controls.append(el('label', 'field-label', 'Attention layer intervened on', { for: 'ot-debate-layer' }), layerSelect);
  const notice = el('p', 'message notice');
  notice.hidden = true;
  const grid = el('div', 'live-grid ot-debate-grid');
  section.append(head, sub, controls, notice, grid);

  const panels = new Map();
  for (const name of OWN_DEBATE_PANELS) {
    const info = infoFor(name);
    const card = el('details', `card live-panel live-${name}`, null, { 'data-experiment': name, 'data-status': 'pending' });
    const summary = el('summary');
    summary.append(el('h3', null, info.title));
    const paper = el('p', 'paper', info.paper);
    const explain = el('p', 'panel-explain', LIVE_TEXT[name] ?? info.live);
    const extra = el('div', 'panel-extra');
    const state = el('p', 'panel-state', 'Waiting for an explained text…');
    const body = el('div', 'panel-body');
    card.append(summary, paper, explain, extra, state, body);
    grid.append(card);
    panels.set(name, { card, state, body, extra });
  }

  // The adversarial search's controls: steps, Run, progress, Cancel.
  const adv = panels.get('adversarial');
  const stepsInput = el('input', '', undefined, { id: 'ot-adv-steps', type: 'number', min: 1, max: 2000, step: 1 });
  const runButton = el('button', 'primary small', 'Run the search', { type: 'button', id: 'ot-adv-run' });
  const progress = el('progress', '', undefined, { id: 'ot-adv-progress', max: 1 });
  const progressText = el('span', 'status', '', { id: 'ot-adv-progress-text', 'aria-live': 'polite' });
  const cancelButton = el('button', 'small', 'Cancel', { type: 'button', id: 'ot-adv-cancel' });
  const job = el('div', 'image-job ot-adv-job');
  job.append(progress, progressText, cancelButton);
  job.hidden = true;
  const stepsRow = el('div', 'control-buttons ot-adv-controls');
  stepsRow.append(el('label', 'field-label', 'Adam steps', { for: 'ot-adv-steps' }), stepsInput, runButton);
  const slow = el('p', 'card-sub ot-adv-slow');
  adv.extra.append(stepsRow, slow, job);

  // "Which method?": ERASER on this text, on request (it explains the text with every method first).
  const eraser = panels.get('eraser');
  const eraserButton = el('button', 'primary small', 'Rank the methods', { type: 'button', id: 'ot-eraser-run' });
  const eraserRow = el('div', 'control-buttons');
  eraserRow.append(eraserButton);
  eraser.extra.append(eraserRow);
  const ERASER_IDLE = 'Press “Rank the methods”: every explanation of this text is computed, then each one’s top tokens are deleted (1–50 %) and the model run again.';

  const client = new OwnTextClient({ name: 'attnlab-own-text-debate', what: 'the worker of the debate panels' });
  let loadedKey = '';
  client.channel.onReplaced(() => {
    loadedKey = '';
  });
  let step = null; // the latest onResult payload
  let seq = 0;
  let timer = 0;
  let advRun = null; // {cancel, timer}
  let lastMs = new Map();

  let prevState = store.get();
  const save = (patch) => {
    store.update(patch);
    prevState = store.get();
  };
  const closed = () => parseClosed(store.get().otdclosed);
  const set = (name, status, text = '') => {
    const p = panels.get(name);
    p.card.dataset.status = status;
    p.state.textContent = text;
    p.state.hidden = !text;
    p.state.className = `panel-state${status === 'error' ? ' error' : ''}`;
    if (status !== 'ready' && status !== 'pending' && status !== 'running') p.body.replaceChildren();
  };

  function syncOpen() {
    const shut = closed();
    for (const [name, p] of panels) p.card.open = !shut.has(name);
    stepsInput.value = String(store.get().otdsteps);
  }
  syncOpen();

  for (const [name, p] of panels) {
    p.card.addEventListener('toggle', () => {
      const shut = closed();
      if (p.card.open === !shut.has(name)) return;
      if (p.card.open) shut.delete(name);
      else shut.add(name);
      save({ otdclosed: closedText(shut) });
      if (p.card.open && AUTO_PANELS.includes(name) && step) schedule(0);
      if (!p.card.open && AUTO_PANELS.includes(name)) set(name, 'closed', '');
    });
  }

  function layerInfo() {
    const L = step?.info?.layers ?? 0;
    return debateLayer(store.get().otdlayer, L);
  }

  function drawHeader() {
    const { info } = step;
    const L = info.layers;
    const layer = layerInfo();
    layerSelect.replaceChildren();
    for (let k = 0; k <= L; k++) {
      if (k === 0) layerSelect.append(el('option', '', `the last (${L})`, { value: 0 }));
      else if (k < L) layerSelect.append(el('option', '', `layer ${k}`, { value: k }));
    }
    layerSelect.value = String(layer.index < 0 ? 0 : layer.shown);
    seedNote.textContent = `seed ${store.get().seed}`;
    const pos = info.causal ? 'the last position’s row (where the next token is read)' : 'the classification row (the graph’s position 0, [CLS])';
    const how = el('details', 'ot-debate-how');
    how.append(el('summary', null, 'How'),
      ` Each intervention replaces ${pos} of the chosen layer (the heads’ average over the tokens, imposed in every head; ` +
      'each head keeps its own weight on the held positions) and runs the rest of the graph. ' +
      'The experiments explain the model’s own decision with its attention imposed that way, whichever token or class you picked above. ' +
      'The numbers are those of `attnlab experiment NAME --model DIR --data F.tsv` on a one-line TSV of the text (with `--seed`, ' +
      `\`--layer ${layer.index < 0 ? L - 1 : layer.index}\`); they run in a second worker, so the explanation above never waits for them.`);
    sub.replaceChildren(
      `The debate’s experiments on attention layer ${layer.shown} of ${L}, for the text above. ` +
      'Special tokens the tokenizer’s template added (BOS, [CLS], [SEP]) are held fixed: never erased, permuted or ranked. ' +
      `${flipText(info)} `, how);
    const note = [layer.note, step.truncated ? 'The text was cut to what the model reads (see above); the experiments run on the kept tokens.' : ''].filter(Boolean).join(' ');
    notice.textContent = note;
    notice.hidden = !note;
    const steps = store.get().otdsteps;
    slow.textContent = `Slower than the others: each of the ${steps} Adam steps runs the rest of the model forward and ` +
      'backward once for each of 5 candidates. The progress bar is an estimate from one step; Cancel stops it at once.';
  }

  function classText(id) {
    const t = step?.result?.top?.top?.find((x) => x.id === id);
    if (step?.info?.causal) return t ? `“${t.text}”` : `token ${id}`;
    return t?.token ?? step?.info?.labels?.[id] ?? `class ${id}`;
  }

  function params() {
    return {
      ids: step.ids, special: step.special, seed: store.get().seed,
      layer: layerInfo().index,
    };
  }

  async function ensureLoaded() {
    const src = step.source;
    if (loadedKey === src.key && client.loaded) return;
    if (src.shipped) await client.shipped(src.shipped);
    else await client.load(src.files);
    loadedKey = src.key;
  }

  function render(name, row) {
    const p = panels.get(name);
    const labelled = withLabels(row, { tokens: step.result.tokens, special: step.special, classText });
    const width = Math.min(1000, widthOf(p.body, 560));
    if (name === 'kendall') renderKendall(p.body, labelled);
    else if (name === 'erase-max') renderEraseMax(p.body, labelled);
    else if (name === 'permutation') renderPermutation(p.body, labelled, { width: Math.min(640, width) });
    else if (name === 'adversarial') renderAdversarial(p.body, labelled);
    else if (name === 'eraser') renderEraser(p.body, labelled);
    else if (name === 'erase-until-flip') {
      const two = !step.info.causal && step.info.outputs <= 2;
      renderEraseUntilFlip(p.body, labelled, {
        width, flipAt: two ? 0.5 : null,
        foot: two ? undefined : `The curves: p of the model’s decision (${classText(row.predicted)}) as weights are removed; circles: where another ${step.info.causal ? 'token' : 'class'} overtakes it.`,
      });
    }
  }

  function showRow(name, row, ms) {
    if (row.skipped) {
      set(name, 'skipped', `Not computed for this input: ${row.skipped}.`);
      return;
    }
    try {
      render(name, row);
      set(name, 'ready', `Computed in ${Math.round(ms)} ms${row.predicted !== undefined ? ` · the decision explained: ${classText(row.predicted)}` : ''}.`);
      panels.get(name).card.dataset.ms = String(Math.round(ms));
      lastMs.set(name, ms);
    } catch (e) {
      set(name, 'error', `Could not draw this result: ${e.message}`);
    }
  }

  function schedule(delay = DEBOUNCE_MS) {
    const my = ++seq;
    clearTimeout(timer);
    timer = setTimeout(() => runAll(my), delay);
  }

  async function runAll(my) {
    if (my !== seq || !step) return;
    section.dataset.status = 'pending';
    const shut = closed();
    for (let i = 0; i < AUTO_PANELS.length; i++) {
      const name = AUTO_PANELS[i];
      if (shut.has(name)) {
        set(name, 'closed', '');
        continue;
      }
      let r;
      try {
        await ensureLoaded();
        if (my !== seq) return;
        r = await client.experiment({ name, ...params() });
      } catch (e) {
        if (my !== seq) return;
        if (e.message === CANCELLED) { // the search's Cancel stopped the worker under this panel: run it again
          i--;
          continue;
        }
        set(name, 'error', `Could not run ${name}: ${e.message}`);
        continue;
      }
      if (my !== seq) return;
      showRow(name, r.row, r.ms);
    }
    section.dataset.status = 'ready';
  }

  function stopSearch(text = '') {
    if (!advRun) return;
    const run = advRun;
    advRun = null;
    clearInterval(run.timer);
    job.hidden = true;
    runButton.disabled = false;
    client.channel.fail(CANCELLED);
    if (text) set('adversarial', 'idle', text);
  }

  async function runSearch() {
    if (!step || advRun) return;
    const steps = Math.max(1, Math.min(2000, Math.round(Number(stepsInput.value) || store.get().otdsteps)));
    stepsInput.value = String(steps);
    save({ otdsteps: steps });
    const my = seq;
    set('adversarial', 'running', `Searching (${steps} steps)…`);
    job.hidden = false;
    runButton.disabled = true;
    progress.value = 0;
    progressText.textContent = 'Timing one step…';
    const run = { cancel: null, timer: 0 };
    advRun = run;
    let estimate = 0;
    let t0 = 0;
    try {
      await ensureLoaded();
      if (advRun !== run) return;
      const j = client.adversarial({ ...params(), params: { steps } }, (p) => {
        if (!(p.estimate_ms > 0) || advRun !== run) return;
        estimate = p.estimate_ms;
        t0 = performance.now();
        run.timer = setInterval(() => {
          const el_ = performance.now() - t0;
          progress.value = Math.min(0.99, el_ / estimate);
          progressText.textContent = `${Math.round(el_ / 1000)} s of about ${Math.max(1, Math.round(estimate / 1000))} s (estimated from one step)`;
        }, 250);
      });
      run.cancel = j.cancel;
      const r = await j.promise;
      if (advRun !== run) return;
      clearInterval(run.timer);
      advRun = null;
      job.hidden = true;
      runButton.disabled = false;
      if (my !== seq) return;
      if (r.cancelled) set('adversarial', 'idle', 'Cancelled.');
      else showRow('adversarial', r.row, r.ms);
    } catch (e) {
      if (advRun === run) {
        clearInterval(run.timer);
        advRun = null;
        job.hidden = true;
        runButton.disabled = false;
      }
      set('adversarial', e.message === CANCELLED ? 'idle' : 'error', e.message === CANCELLED ? 'Cancelled: the search stopped; press Run to search again.' : `Could not run the search: ${e.message}`);
    }
  }
  async function runEraser() {
    if (!step) return;
    const my = seq;
    set('eraser', 'running', 'Explaining with every method, then deleting each one’s top tokens…');
    eraserButton.disabled = true;
    try {
      await ensureLoaded();
      const r = await client.experiment({ name: 'eraser', ...params() });
      if (my === seq) showRow('eraser', r.row, r.ms);
    } catch (e) {
      if (my === seq) set('eraser', 'error', `Could not rank the methods: ${e.message}`);
    } finally {
      eraserButton.disabled = false;
    }
  }
  eraserButton.addEventListener('click', runEraser);
  runButton.addEventListener('click', runSearch);
  cancelButton.addEventListener('click', () => stopSearch('Cancelled: the search stopped; press Run to search again.'));
  stepsInput.addEventListener('change', () => {
    const v = Math.max(1, Math.min(2000, Math.round(Number(stepsInput.value) || 20)));
    save({ otdsteps: v });
    if (step) drawHeader();
  });
  layerSelect.addEventListener('change', () => {
    save({ otdlayer: Number(layerSelect.value) || 0 });
    onLayer();
  });

  function onLayer() {
    if (!step) return;
    drawHeader();
    stopSearch();
    set('adversarial', 'idle', 'Press Run to search on this layer.');
    for (const name of AUTO_PANELS) if (!closed().has(name)) set(name, 'pending', 'Computing…');
    schedule(0);
  }

  function update(next) {
    step = next;
    section.hidden = false;
    if (!(next.info.layers > 0)) {
      ++seq;
      stopSearch();
      section.dataset.status = 'ready';
      sub.textContent = 'No attention was found in this model, so there is nothing to intervene on: the debate’s experiments need the attention’s weights.';
      controls.hidden = true;
      grid.hidden = true;
      return;
    }
    controls.hidden = false;
    grid.hidden = false;
    drawHeader();
    stopSearch();
    set('adversarial', 'idle', 'Press Run to search for an adversarial attention on this text.');
    set('eraser', 'idle', ERASER_IDLE);
    const shut = closed();
    for (const name of AUTO_PANELS) set(name, shut.has(name) ? 'closed' : 'pending', shut.has(name) ? '' : 'Computing…');
    section.dataset.status = 'pending';
    schedule();
  }

  function hold() {
    if (!step) return;
    ++seq;
    clearTimeout(timer);
    if (advRun) stopSearch('Stopped: a new explanation started above; press Run to search again.');
    if (client.channel.busy) client.channel.fail(SUPERSEDED); // rows nobody will see: stop the worker, free its cores
    if (eraser.card.dataset.status === 'running') set('eraser', 'idle', `Stopped: a new explanation started above. ${ERASER_IDLE}`);
    const shut = closed();
    for (const name of AUTO_PANELS) {
      if (!shut.has(name) && panels.get(name).card.dataset.status === 'pending') set(name, 'pending', 'Waiting for the explanation above…');
    }
  }

  function clear() {
    ++seq;
    clearTimeout(timer);
    stopSearch();
    step = null;
    section.hidden = true;
    section.dataset.status = 'empty';
  }

  function apply() {
    const st = store.get();
    const before = prevState;
    prevState = st;
    syncOpen();
    if (!step) return;
    if (before.otdlayer !== st.otdlayer || before.seed !== st.seed) onLayer();
    else if (before.otdclosed !== st.otdclosed) schedule(0);
  }

  section.hidden = true;
  return { update, hold, clear, apply, timings: () => Object.fromEntries(lastMs) };
}
