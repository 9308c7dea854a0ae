// localization-view.js — the Localization lab (issue 5): train the core's small CNN on procedural shapes in a
// worker (runtime/cnn-client.js), watch the loss / accuracy and the probe images' class maps (and CBAM spatial
// maps) form epoch by epoch, then score the maps against the exact object masks, run adversarial erasing, and
// download / load the model. Plus the least-squares toy (analysis/least-squares-toy.js).
//
// Contract:
//   mountLocalizationView(section, { store, client? }) → { apply(state), recipes }
//   URL fields (web/state.js): lochead (gap | gmp | lse), loccbam (none | stage1 | stage2 | stage3 | all),
//   locconf (confounder p in percent), locepochs, locseed, locrecipe (page | tiny | full — RECIPES below).
//   Nothing is loaded until the user trains or loads a model (the worker starts then).
//   While training: Train disabled, Cancel enabled; the chart updates per step, the probe maps per epoch.
//   After training (or loading): the metrics table (1,000 de-correlated test images, plus 1,000 confounded
//   ones when p > 0), erasing on demand, download of config.json + model.safetensors. A shipped model's table is
//   followed by its recipe's spread over the seed study's seeds (p.loc-seeds, data-spread; analysis/seed-spread.js).
//   The section's data-status: idle | training | evaluating | ready | cancelled | error. A model file that
//   cannot be loaded (too big, truncated, corrupt, the wrong shapes) says why; the model held before stays.
import { etaText } from '../analysis/eta.js';
import { el, fmt } from '../render/dom.js';
import { widthOf } from '../render/plot-lib.js';
import { renderLocCharts, renderLocMetrics, renderEraseTable } from '../render/loc-charts.js';
import { renderProbes, renderEraseStrip } from '../render/loc-maps.js';
import { renderLocEquivalence } from './loc-equivalence.js';
import { renderToyChart } from '../render/loc-toy.js';
import { growingFits } from '../analysis/least-squares-toy.js';
import { valTestNote } from '../analysis/val-test.js';
import { CnnClient } from '../runtime/cnn-client.js';
import { sha256Hex } from '../runtime/model-cache.js';
import { CATALOGUE } from '../catalogue.js';
import { cnnSeedSpread } from '../analysis/seed-spread.js';
import { cnnSeedSummary } from '../runtime/seed-summaries.js';

// Training recipes and class names: the core's catalogue (web/catalogue.js; docs/DESIGN.md "Localization lab").
// `page` is sized to train in the page in about two minutes on this machine; `full` is the native default of
// `attnlab train-cnn` (slow in wasm).
// Size caps of a user's model files, checked before they are read: config.json as the core's kMaxConfigBytes
// (core/io/config_fields.h), model.safetensors well above this lab's largest model (eight 1024-wide stages ≈ 264 MB).
export const MAX_CONFIG_BYTES = 64 * 2 ** 20;
export const MAX_WEIGHTS_BYTES = 512 * 2 ** 20;
const mib = (n) => `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 0)} MiB`;

export const RECIPES = Object.freeze(Object.fromEntries(
  [CATALOGUE.cnn.default_recipe, ...Object.keys(CATALOGUE.cnn.recipes).filter((k) => k !== CATALOGUE.cnn.default_recipe)
    .sort((a, b) => CATALOGUE.cnn.recipes[a].trainSize - CATALOGUE.cnn.recipes[b].trainSize)]
    .map((k) => [k, Object.freeze({ ...CATALOGUE.cnn.recipes[k] })])));
const CLASS_NAMES = CATALOGUE.cnn.class_names;
const TOY_SIZES = [8, 16, 32, 64, 128, 256, 512, 1024, 4096, 16384];

export function trainOptions(state) {
  const r = RECIPES[state.locrecipe] ?? RECIPES[CATALOGUE.cnn.default_recipe];
  return {
    head: state.lochead, cbam: state.loccbam, confounder: state.locconf / 100, seed: state.locseed,
    epochs: state.locepochs, imageSize: r.imageSize, widths: r.widths, ...(r.pool ? { pool: r.pool } : {}), trainSize: r.trainSize, valSize: r.valSize,
    optimizer: r.optimizer, lr: r.lr, batchSize: 32, probes: 6, testSize: 1000,
  };
}

function saveBytes(bytes, name, type) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = el('a', null, null, { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function mountLocalizationView(section, { store, client = null }) {
  const $ = (id) => section.querySelector(`#${id}`);
  const ui = {
    head: $('loc-head'), cbam: $('loc-cbam'), conf: $('loc-conf'), confOut: $('loc-conf-out'), epochs: $('loc-epochs'),
    seed: $('loc-seed'), recipe: $('loc-recipe'), train: $('loc-train'), cancel: $('loc-cancel'),
    progress: $('loc-progress'), status: $('loc-status'), message: $('loc-message'), charts: $('loc-charts'),
    probes: $('loc-probes'), probesNote: $('loc-probes-note'), equivalence: $('loc-equivalence'), results: $('loc-results'), metrics: $('loc-metrics'),
    eraseK: $('loc-erase-k'), eraseThr: $('loc-erase-thr'), eraseRun: $('loc-erase-run'), eraseTable: $('loc-erase-table'),
    eraseStrip: $('loc-erase-strip'), download: $('loc-download'), load: $('loc-load'), shipped: $('loc-shipped'), modelInfo: $('loc-model-info'),
    toySliders: $('loc-toy-sliders'), toyN: $('loc-toy-n'), toyNOut: $('loc-toy-n-out'), toyPlay: $('loc-toy-play'),
    toyChart: $('loc-toy-chart'),
  };
  for (const [k, r] of Object.entries(RECIPES)) ui.recipe.append(el('option', null, r.label, { value: k }));
  let cnn = client;
  let job = null;
  let history = { loss: [], epochs: [] };
  let epochsAsked = 4;
  let busy = false;

  const getClient = () => (cnn ??= new CnnClient());
  const setStatus = (s) => { section.dataset.status = s; };
  // whether the worker holds a model (trained, cancelled after ≥ 1 epoch, or loaded): a failed load keeps it
  let haveModel = false;
  function showMessage(text) {
    ui.message.textContent = text ?? '';
    ui.message.hidden = !text;
  }
  function setBusy(b, training = false) {
    busy = b;
    for (const c of [ui.head, ui.cbam, ui.conf, ui.epochs, ui.seed, ui.recipe, ui.train, ui.load, ui.shipped, ui.download, ui.eraseRun]) c.disabled = b;
    ui.cancel.disabled = !training;
  }
  const drawCharts = () => renderLocCharts(ui.charts, history, { epochs: epochsAsked, width: widthOf(ui.charts, 800) });

  // `val` = {accuracy, size, confounder} of the last validation on the weights being scored (none after Cancel).
  async function evaluate(note, val = null, shippedName = '') {
    setStatus('evaluating');
    ui.status.textContent = `${note} Scoring the maps on 1,000 test images…`;
    const seedsP = shippedName ? cnnSeedSummary() : null; // fetched (once) while the maps are scored
    const m = await getClient().metrics(1000);
    renderLocMetrics(ui.metrics, m);
    // a shipped model is seed 1 of its recipe: how far the numbers move over the seed study's other seeds
    const spread = shippedName ? cnnSeedSpread((await seedsP)?.[shippedName]) : [];
    if (spread.length) {
      const p = el('p', 'chart-caption loc-seeds',
        `The same recipe over ${spread[0].n} training seeds (models/cnn/seeds; this model is seed 1), mean ± std: ` +
        spread.map((x) => `${x.label} ${fmt(x.mean, 3)} ± ${fmt(x.std, 3)}`).join(', ') +
        '. A difference between two models smaller than these spreads may be the seed’s.');
      p.dataset.spread = JSON.stringify(spread);
      ui.metrics.append(p);
    }
    const why = val ? valTestNote({
      val: val.accuracy, valSize: val.size, test: m.decorrelated?.accuracy, testSize: m.decorrelated?.n ?? 1000,
      confounder: val.confounder ?? 0, confounded: m.confounded?.accuracy ?? NaN,
    }) : '';
    if (why) {
      const p = el('p', 'chart-caption loc-val-test', why);
      p.dataset.val = String(val.accuracy);
      p.dataset.test = String(m.decorrelated.accuracy);
      ui.metrics.append(p);
    }
    ui.results.hidden = false;
    ui.status.textContent = `${note} Test accuracy ${(m.decorrelated.accuracy * 100).toFixed(1)} % on 1,000 de-correlated images.`;
  }

  async function train() {
    if (busy) return;
    showMessage('');
    const state = store.get();
    const options = trainOptions(state);
    epochsAsked = options.epochs;
    history = { loss: [], epochs: [] };
    ui.results.hidden = true;
    ui.eraseTable.replaceChildren();
    ui.eraseStrip.replaceChildren();
    ui.probes.replaceChildren();
    ui.equivalence.replaceChildren();
    ui.probesNote.textContent = 'The probe images’ maps appear after the first epoch.';
    drawCharts();
    setBusy(true, true);
    setStatus('training');
    ui.progress.value = 0;
    ui.status.textContent = 'Starting the training worker…';
    const t0 = performance.now();
    let lastDraw = 0;
    job = getClient().train(options, { stepBatches: 2 }, (msg) => {
      const p = msg.progress;
      const x = p.epoch - 1 + p.batch / p.batches;
      if (msg.kind === 'step') {
        history.loss.push({ x, loss: p.train_loss, epoch: p.epoch });
        ui.progress.value = Math.min(1, x / p.epochs);
        ui.status.textContent = `Epoch ${p.epoch}/${p.epochs}, batch ${p.batch}/${p.batches}: loss ${fmt(p.train_loss, 3)}, ` +
          `train accuracy ${(p.train_accuracy * 100).toFixed(1)} % · ${Math.round(msg.imagesPerSecond)} images/s · ` +
          `${((performance.now() - t0) / 1000).toFixed(0)} s` +
          ((left) => (left ? ` · ${left}` : ''))(etaText((performance.now() - t0) / 1000, x, p.epochs));
        ui.status.dataset.imagesPerSecond = msg.imagesPerSecond;
        const now = performance.now();
        if (now - lastDraw > 250 || p.epoch_done) {
          lastDraw = now;
          drawCharts();
        }
      } else if (msg.kind === 'epoch') {
        history.epochs.push(p.stats);
        drawCharts();
        if (msg.probes) {
          renderProbes(ui.probes, msg.probes, { epoch: p.stats.epoch, classNames: CLASS_NAMES });
          renderLocEquivalence(ui.equivalence, msg.probes, { head: options.head, classNames: CLASS_NAMES });
          ui.probesNote.textContent = `Six fixed test images after epoch ${p.stats.epoch} (validation accuracy ${(p.stats.val_accuracy * 100).toFixed(1)} %). ` +
            'Maps are min–max normalised per image; the white outline is the exact object mask.';
        }
      }
    });
    try {
      const r = await job.promise;
      job = null;
      const secs = r.seconds.toFixed(1);
      section.dataset.seconds = r.seconds;
      section.dataset.imagesPerSecond = r.imagesPerSecond;
      if (r.cancelled) {
        setStatus('cancelled');
        ui.status.textContent = `Cancelled after ${r.epochsDone} finished epoch(s) (${secs} s). The partly trained model is kept.`;
        if (r.epochsDone > 0) await evaluate(`Cancelled after ${r.epochsDone} epoch(s).`);
        setStatus('cancelled');
      } else {
        const last = history.epochs.at(-1);
        await evaluate(`Trained ${r.epochsDone} epochs in ${secs} s (${Math.round(r.imagesPerSecond)} images/s).`,
          last ? { accuracy: last.val_accuracy, size: options.valSize, confounder: options.confounder } : null);
        setStatus('ready');
      }
      haveModel = true;
      ui.modelInfo.textContent = `Model: ${options.head.toUpperCase()} head, CBAM ${options.cbam}, confounder p = ${options.confounder}, seed ${options.seed}, ${options.imageSize}×${options.imageSize}.`;
    } catch (e) {
      job = null;
      setStatus('error');
      showMessage(e.message);
      ui.status.textContent = '';
    } finally {
      setBusy(false);
      ui.progress.value = 1;
    }
  }

  async function runErase() {
    if (busy) return;
    setBusy(true);
    showMessage('');
    try {
      const k = Number(ui.eraseK.value), thr = Number(ui.eraseThr.value) / 100;
      const r = await getClient().erase({ k, threshold: thr, n: 200, keep: 4 });
      renderEraseTable(ui.eraseTable, r);
      renderEraseStrip(ui.eraseStrip, r);
    } catch (e) {
      showMessage(e.message);
    } finally {
      setBusy(false);
    }
  }

  async function download() {
    try {
      const { config, weights } = await getClient().download();
      saveBytes(config, 'config.json', 'application/json');
      saveBytes(weights, 'model.safetensors', 'application/octet-stream');
    } catch (e) {
      showMessage(e.message);
    }
  }

  async function load(files) {
    if (busy) return;
    showMessage('');
    const list = [...files];
    const config = list.find((f) => f.name.endsWith('.json'));
    const weights = list.find((f) => f.name.endsWith('.safetensors'));
    if (!config || !weights) {
      showMessage('Choose both files of a downloaded model: config.json and model.safetensors.');
      return;
    }
    // size caps before anything is read (the core refuses a bigger config.json too; no model of this lab is near)
    for (const [f, cap] of [[config, MAX_CONFIG_BYTES], [weights, MAX_WEIGHTS_BYTES]]) {
      if (f.size > cap) {
        showMessage(`${f.name} is ${mib(f.size)}: more than the ${mib(cap)} a model file of this lab may have. Nothing was loaded${haveModel ? '; the current model stays' : ''}.`);
        return;
      }
    }
    await loadBytes(() => config.text(), async () => new Uint8Array(await weights.arrayBuffer()));
  }

  // The models shipped in models/cnn/ (manifest: sha256 of each file, checked before loading).
  const SHIPPED_URL = new URL('../../models/cnn/manifest.json', import.meta.url);
  let shipped = null;
  async function listShipped() {
    try {
      const res = await fetch(SHIPPED_URL);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      shipped = (await res.json()).models ?? {};
      for (const name of Object.keys(shipped).sort()) ui.shipped.append(el('option', null, name, { value: name }));
    } catch (e) {
      ui.shipped.disabled = true;
      ui.shipped.title = `The shipped models could not be listed (${e.message}).`;
    }
  }
  async function fetchChecked(name, file) {
    const url = new URL(`${name}/${file}`, SHIPPED_URL);
    const res = await fetch(url);
    if (!res.ok) throw new Error(`Could not fetch ${url.pathname} (HTTP ${res.status}).`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    const want = shipped?.[name]?.files?.[file]?.sha256;
    const got = await sha256Hex(bytes);
    if (!want || got !== want) throw new Error(`${url.pathname} does not match its sha256 in models/cnn/manifest.json.`);
    return bytes;
  }
  async function loadShipped(name) {
    if (busy || !name || !shipped?.[name]) return;
    showMessage('');
    await loadBytes(async () => new TextDecoder().decode(await fetchChecked(name, 'config.json')),
      () => fetchChecked(name, 'model.safetensors'), name);
  }

  async function loadBytes(readConfig, readWeights, shippedName = '') {
    setBusy(true);
    try {
      const r = await getClient().load(await readConfig(), await readWeights());
      haveModel = true;
      // the previous run's charts are not this model's: clear them (a loaded model has no training curves here)
      ui.charts.replaceChildren(el('p', 'card-sub', 'A loaded model: its training curves are not in the page (see its config.json "training" section).'));
      renderProbes(ui.probes, r.probes, { classNames: r.config.class_names ?? CLASS_NAMES });
      renderLocEquivalence(ui.equivalence, r.probes, { head: r.config.head, classNames: r.config.class_names ?? CLASS_NAMES });
      ui.probesNote.textContent = 'The loaded model’s maps of the six probe images.';
      const t = r.config.training ?? {};
      ui.modelInfo.textContent = `Loaded${shippedName ? ` models/cnn/${shippedName}` : ''}: ${r.config.head.toUpperCase()} head, CBAM ${r.config.cbam.map((c, i) => (c ? `stage${i + 1}` : '')).filter(Boolean).join(',') || 'none'}, ` +
        `confounder p = ${t.confounder ?? 0}, ${r.config.image_size}×${r.config.image_size}` +
        `${Array.isArray(r.config.widths) ? `, widths ${r.config.widths.join('/')}` : ''}` +
        `${t.options?.optimizer ? `, ${t.options.optimizer}` : ''} (the Recipe menu is for training a new model).`;
      const lastEpoch = Array.isArray(t.per_epoch) ? t.per_epoch.at(-1) : null;
      const lastWeights = !t.selection || t.selection === 'last epoch'; // else the last validation is not these weights'
      await evaluate('Model loaded.', lastEpoch && lastWeights
        ? { accuracy: lastEpoch.val_accuracy, size: t.val_size, confounder: t.confounder ?? 0 } : null, shippedName);
      setStatus('ready');
    } catch (e) {
      const kept = haveModel;
      setStatus(kept ? 'ready' : 'error');
      // the core's message without the binding's name, as one sentence
      const why = String(e.message).replace(/^loadCnnModel: /, '').replace(/([^.?!)])$/, '$1.');
      showMessage(`The model could not be loaded: ${why}${kept ? ' The current model stays loaded.' : ''}`);
    } finally {
      setBusy(false);
    }
  }

  // ---- the toy
  const toyVars = [0.1, 0.5, 1.5, 4];
  const sliderToVar = (v) => 0.05 * 100 ** (v / 100);
  const varToSlider = (s) => Math.round((100 * Math.log(s / 0.05)) / Math.log(100));
  const toyInputs = toyVars.map((v, i) => {
    const label = el('label', 'loc-toy-slider');
    const input = el('input', null, null, { type: 'range', min: 0, max: 100, step: 1, value: varToSlider(v), 'data-input': i });
    const out = el('output', null, `σ² = ${v}`);
    label.append(el('span', null, `input ${i + 1}`), input, out);
    ui.toySliders.append(label);
    input.addEventListener('input', () => {
      toyVars[i] = sliderToVar(Number(input.value));
      out.textContent = `σ² = ${toyVars[i].toPrecision(2)}`;
      drawToy();
    });
    return input;
  });
  let toyTimer = null;
  function drawToy() {
    const idx = Number(ui.toyN.value);
    const sizes = TOY_SIZES.slice(0, idx + 1);
    ui.toyNOut.textContent = `n = ${sizes[sizes.length - 1]}`;
    const fits = growingFits({ variances: toyVars, weights: toyVars.map(() => 1), sizes, seed: 1 });
    renderToyChart(ui.toyChart, { variances: toyVars, fits, width: Math.min(760, widthOf(ui.toyChart, 640)) });
  }
  ui.toyN.max = String(TOY_SIZES.length - 1);
  ui.toyN.addEventListener('input', drawToy);
  ui.toyPlay.addEventListener('click', () => {
    clearInterval(toyTimer);
    ui.toyN.value = '0';
    drawToy();
    toyTimer = setInterval(() => {
      const v = Number(ui.toyN.value) + 1;
      if (v >= TOY_SIZES.length) return clearInterval(toyTimer);
      ui.toyN.value = String(v);
      drawToy();
    }, 400);
  });
  void toyInputs;

  // ---- controls ↔ URL
  const fromControls = () => store.update({
    lochead: ui.head.value, loccbam: ui.cbam.value, locconf: Number(ui.conf.value), locepochs: Math.max(1, Math.min(30, Number(ui.epochs.value) || 1)),
    locseed: Math.max(0, Math.floor(Number(ui.seed.value) || 0)), locrecipe: ui.recipe.value,
  });
  for (const c of [ui.head, ui.cbam, ui.epochs, ui.seed, ui.recipe]) c.addEventListener('change', fromControls);
  ui.conf.addEventListener('input', () => {
    ui.confOut.textContent = `p = ${(Number(ui.conf.value) / 100).toFixed(2)}`;
    fromControls();
  });
  ui.train.addEventListener('click', train);
  ui.cancel.addEventListener('click', () => job?.cancel());
  ui.eraseRun.addEventListener('click', runErase);
  ui.download.addEventListener('click', download);
  ui.load.addEventListener('change', () => load(ui.load.files));
  ui.shipped.addEventListener('change', () => loadShipped(ui.shipped.value));
  listShipped();
  setBusy(false);
  setStatus('idle');
  let toyDrawn = false;

  function apply(state) {
    ui.head.value = state.lochead;
    ui.cbam.value = state.loccbam;
    ui.conf.value = String(state.locconf);
    ui.confOut.textContent = `p = ${(state.locconf / 100).toFixed(2)}`;
    ui.epochs.value = String(state.locepochs);
    ui.seed.value = String(state.locseed);
    ui.recipe.value = state.locrecipe;
    if (!history.epochs.length && !busy) {
      epochsAsked = state.locepochs;
      drawCharts();
    }
    if (!toyDrawn) {
      toyDrawn = true;
      ui.toyN.value = String(TOY_SIZES.length - 1);
      drawToy();
    }
  }
  return { apply, recipes: RECIPES };
}
