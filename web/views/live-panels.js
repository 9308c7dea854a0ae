// live-panels.js — the text view's live experiment panels: after each explain result, the debate
// experiments run on the typed sentence in the worker, one after the other, and each panel draws its row.
//
// Contract:
//   mountLivePanels(container, { client, store, maxTokens }) → { update(result, text), clear() }
//     container  the #live-panels element; one .live-panel[data-experiment=NAME] card per LIVE_EXPERIMENTS
//                entry is created in it, each with its title, paper and a one-line explanation.
//     update(result, text)  result = the explain result shown for `text` (model, predicted_class,
//                probability). After DEBOUNCE_MS without a newer update the experiments run in order
//                (client.experiment, seed = store.get().seed, params LIVE_PARAMS[name] ?? {}); anything older than the latest
//                update is dropped, and at most one experiment is in the worker at a time, so a new text's
//                explain never waits behind more than one experiment.
//     clear()    drops pending work (the panels are hidden with the results by the text view).
//   While the container is inside a hidden element nothing is run (the view re-explains when shown).
//   Panel states (data-status): 'pending' (computing) | 'ready' | 'skipped' (the core skipped this input,
//   e.g. a single token; the reason is shown) | 'unavailable' (the experiment is not in
//   Module.experimentNames(): "not available in this build") | 'error' (message in the panel; other panels
//   go on). A panel never stays blank and never throws into the page.
import { el } from '../render/dom.js';
import { widthOf } from '../render/plot-lib.js';
import { LIVE_EXPERIMENTS, LIVE_PARAMS, infoFor } from '../experiments-info.js';
import { renderAdversarial } from '../render/live/adversarial.js';
import { renderPermutation } from '../render/live/permutation.js';
import { renderEraseMax } from '../render/live/erase-max.js';
import { renderEraseUntilFlip } from '../render/live/erase-until-flip.js';
import { renderEraser } from '../render/live/eraser.js';

export const DEBOUNCE_MS = 500; // after the explain result: typing on does not queue experiments

const RENDER = {
  adversarial: (body, row) => renderAdversarial(body, row),
  permutation: (body, row) => renderPermutation(body, row, { width: Math.min(640, widthOf(body, 560)) }),
  'erase-max': (body, row) => renderEraseMax(body, row),
  'erase-until-flip': (body, row, result) => renderEraseUntilFlip(body, row, {
    width: Math.min(1000, widthOf(body, 560)),
    p0: predictedProbability(result, row),
  }),
  eraser: (body, row) => renderEraser(body, row),
};

// p of the predicted class from an explain result (binary: probability is p(class 1)).
function predictedProbability(result, row) {
  const p = Number(result?.probability);
  const c = Number.isInteger(row?.predicted) ? row.predicted : result?.predicted_class;
  if (!Number.isFinite(p) || !Number.isInteger(c)) return NaN;
  const names = result?.class_names ?? [];
  if (names.length > 2) return c === result.predicted_class ? p : NaN;
  return c === 1 ? p : 1 - p;
}

export function mountLivePanels(container, { client, store, maxTokens }) {
  const panels = new Map();
  let names = null; // Map name → description, once known
  let namesError = '';
  let seq = 0;
  let timer = 0;

  const head = el('div', 'live-head');
  const title = el('h2', null, 'Live experiments on this sentence');
  const seedNote = el('span', 'live-seed');
  head.append(title, seedNote);
  const sub = el('p', 'card-sub live-sub',
    'The experiments of the “is attention explanation?” debate, run on the sentence above in your browser. ' +
    'Random choices use the seed (set it in the Debate tab); the same seed gives the same numbers as the command line.');
  const grid = el('div', 'live-grid');
  for (const name of LIVE_EXPERIMENTS) {
    const info = infoFor(name);
    const card = el('section', `card live-panel live-${name}`, null, { 'data-experiment': name, 'data-status': 'pending' });
    const h = el('h3', null, info.title);
    const paper = el('p', 'paper', info.paper);
    const explain = el('p', 'panel-explain', info.live);
    const state = el('p', 'panel-state', 'Computing…');
    const body = el('div', 'panel-body');
    card.append(h, paper, explain, state, body);
    grid.append(card);
    panels.set(name, { card, state, body });
  }
  container.replaceChildren(head, sub, grid);

  const set = (name, status, text = '') => {
    const p = panels.get(name);
    p.card.dataset.status = status;
    p.state.textContent = text;
    p.state.hidden = !text;
    p.state.className = `panel-state${status === 'error' ? ' error' : ''}`;
    if (status === 'unavailable' || status === 'error' || status === 'skipped') p.body.replaceChildren();
  };

  const namesReady = client.experimentNames().then(
    (list) => {
      names = new Map(list.map((e) => [e.name, e.description ?? '']));
    },
    (e) => {
      namesError = e?.message ?? String(e);
      names = new Map();
    },
  );

  function markUnavailable() {
    for (const name of LIVE_EXPERIMENTS) {
      if (names.has(name)) continue;
      set(name, namesError ? 'error' : 'unavailable',
        namesError ? `The experiment list could not be read: ${namesError}` : 'Not available in this build of the core.');
    }
  }

  function update(result, text) {
    const my = ++seq;
    clearTimeout(timer);
    seedNote.textContent = `seed ${store.get().seed}`;
    for (const name of LIVE_EXPERIMENTS) {
      if (names && !names.has(name)) continue;
      set(name, 'pending', 'Computing…');
    }
    if (names) markUnavailable();
    // Nothing runs while the text view is hidden (e.g. a debate run owns the worker); showing the view
    // again explains the text again, which calls update().
    if (container.closest('[hidden]')) return;
    timer = setTimeout(() => runAll(my, result, text), DEBOUNCE_MS);
  }

  async function runAll(my, result, text) {
    await namesReady;
    if (my !== seq) return;
    markUnavailable();
    const seed = store.get().seed;
    for (const name of LIVE_EXPERIMENTS) {
      if (!names.has(name)) continue;
      let row;
      try {
        row = await client.experiment({ model: result.model, name, text, params: { ...(LIVE_PARAMS[name] ?? {}) }, seed, maxTokens });
      } catch (e) {
        if (my !== seq) return;
        set(name, 'error', `Could not run ${name}: ${e.message}`);
        continue;
      }
      if (row === null || my !== seq) return; // superseded by a newer text or model
      if (row.skipped) {
        set(name, 'skipped', `Not computed for this input: ${row.skipped}.`);
        continue;
      }
      try {
        RENDER[name](panels.get(name).body, row, result);
        set(name, 'ready');
      } catch (e) {
        set(name, 'error', `Could not draw this result: ${e.message}`);
      }
    }
  }

  function clear() {
    ++seq;
    clearTimeout(timer);
  }

  return { update, clear };
}
