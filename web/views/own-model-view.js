// own-model-view.js — "Your model" (issue 11), the last card of the Images tab: the user drops an .onnx image
// classifier (and optionally a labels file); the page shows its graph summary, asks how the model expects its
// pixels (input scaling; input size when the model leaves it open) and explains the photo shown above with it:
// every map of catalogue.onnx.methods (Grad-CAM family at a chosen layer, gradient / SmoothGrad / integrated
// gradients) and the perturbation plans (Score-CAM, RISE, occlusion), then deletion / insertion curves and the
// sanity check (the weights after the layer shuffled: does the map change?) — all
// computed by the core's own executor in a worker of its own (runtime/own-model-client.js). Nothing is uploaded;
// the model is kept in the browser for the next visit only when the user ticks the box (runtime/own-model-store.js).
//
// Contract:
//   mountOwnModelView(details, { store }) → { apply(state), setPhoto({key, title, source}) }
//     details: the #own-model element; store: the URL state (fields omethod, oscale; opacity and colormap are the
//     Image view's). setPhoto is called by the Image view with every photo it shows (a demo photo or an upload).
//   details.dataset.status: 'empty' (no model) | 'loading' | 'ready' | 'busy' | 'error'; #own-canvas carries
//   data-method, data-layer, data-class, data-peak-x/-y and data-map-shape ("h×w") of the map shown; the raw map of
//   the last result is details.ownLastMap (tests read it).
//   A file that is not a model, a model that cannot run, a failed map: a message; the model, photo and settings
//   held so far stay. A worker that stops: the message says so and "Load it again" reloads the same bytes.
import { el } from '../render/dom.js';
import { drawOverlay, downloadCanvasPng, makeTile } from '../render/image-canvas.js';
import { renderTop5 } from '../render/image-top5.js';
import { renderCurves } from '../render/image-curves.js';
import { widthOf } from '../render/plot-lib.js';
import { peakText } from '../analysis/image-readout.js';
import { percent } from '../analysis/format.js';
import { CATALOGUE } from '../catalogue.js';
import { checkModelFile, looksLikeOnnx, parseLabels, defaultLabels, symbolicSize, summaryFacts } from '../analysis/own-model.js';
import { OwnModelClient } from '../runtime/own-model-client.js';
import { keepModel, keptModel, forgetModel } from '../runtime/own-model-store.js';

const IMAGE_METHOD = Object.fromEntries(CATALOGUE.image.methods.map((m) => [m.name, m]));
// Maps on a user model: the executor's methods, then the image lab's perturbation plans that make a map.
export const OWN_METHODS = Object.freeze([
  ...CATALOGUE.onnx.methods.map((m) => ({ name: m.name, label: m.label, kind: m.kind, about: m.description })),
  ...CATALOGUE.onnx.plans.filter((p) => IMAGE_METHOD[p]?.kind === 'plan')
    .map((p) => ({ name: p, label: IMAGE_METHOD[p].label, kind: 'plan', about: IMAGE_METHOD[p].description })),
]);
const METHOD = Object.fromEntries(OWN_METHODS.map((m) => [m.name, m]));
const CURVE_STEPS = 50;
const sentence = (t) => (/[.!?]$/.test(t) ? t : `${t}.`);
const SCALING_LABELS = {
  imagenet: 'ImageNet mean / std (torchvision)',
  unit: '0 … 1',
  signed: '−1 … 1',
  raw: '0 … 255',
};
const SCALING_ABOUT = 'An ONNX file does not say how its pixels were scaled in training. torchvision’s ImageNet models expect ' +
  '(x / 255 − mean) / std with the ImageNet mean and std; Keras / TensorFlow ports often expect −1 … 1; some models take 0 … 1 or 0 … 255. ' +
  'A wrong choice still gives maps, but of a model that sees odd colours: check that the prediction makes sense.';

export function mountOwnModelView(details, { store }) {
  const $ = (s) => details.querySelector(s);
  const ui = {
    file: $('#own-file'), labelsFile: $('#own-labels'), drop: $('#own-drop'), kept: $('#own-kept'),
    message: $('#own-message'), notice: $('#own-notice'), summary: $('#own-summary'), controls: $('#own-controls'),
    scaling: $('#own-scaling'), scalingAbout: $('#own-scaling-about'), sizeControl: $('#own-size-control'), size: $('#own-size'),
    layer: $('#own-layer'), method: $('#own-method'), keep: $('#own-keep'), job: $('#own-job'), jobBar: $('#own-job-progress'),
    jobText: $('#own-job-text'), cancel: $('#own-cancel'), results: $('#own-results'), canvas: $('#own-canvas'),
    caption: $('#own-caption'), top: $('#own-top'), about: $('#own-method-about'), mapInfo: $('#own-map-info'),
    curvesRun: $('#own-curves-run'), exportButton: $('#own-export'), curves: $('#own-curves'),
    sanityRun: $('#own-sanity-run'), sanity: $('#own-sanity'),
  };
  const v = {
    st: store.get(),
    client: null,
    model: null, // {name, bytes, summary, labels, labelsNote, inputSize}
    photoSource: null, // {key, title, source} from the Image view
    res: null, // classify result of the current photo on the current model
    classIndex: 0,
    maps: new Map(), // `${method}|${layer}|${class}` → map result
    curves: [],
    job: null,
    seq: 0,
  };
  for (const s of CATALOGUE.onnx.scalings) ui.scaling.append(el('option', null, SCALING_LABELS[s] ?? s, { value: s }));
  for (const m of OWN_METHODS) ui.method.append(el('option', null, m.label, { value: m.name }));
  ui.scalingAbout.textContent = SCALING_ABOUT;

  const setStatus = (s) => { details.dataset.status = s; };
  function showMessage(text) {
    ui.message.textContent = text ?? '';
    ui.message.hidden = !text;
  }
  function showNotice(text) {
    ui.notice.textContent = text ?? '';
    ui.notice.hidden = !text;
  }
  function labelOf(k) {
    return v.model?.labels?.[k] ?? `class ${k}`;
  }
  function ensureClient() {
    if (v.client) return v.client;
    v.client = new OwnModelClient();
    v.client.channel.onReplaced((message) => {
      v.res = null;
      v.maps = new Map();
      v.job = null;
      ui.job.hidden = true;
      setStatus('error');
      showMessage(`${message}${v.model ? ` Your model (${v.model.name}) is kept.` : ''}`);
      if (v.model) {
        const again = el('button', 'small', 'Load it again', { type: 'button', id: 'own-retry' });
        again.addEventListener('click', () => openModel(v.model.name, v.model.bytes, v.model.labelsText ?? null));
        ui.message.append(' ', again);
      }
    });
    return v.client;
  }

  // ------------------------------------------------------------ the model
  async function readLabelsFile(file) {
    if (file.size > 4 * 1024 * 1024) throw new Error(`“${file.name}” is too large for a labels file (over 4 MB).`);
    return file.text();
  }

  async function imagenetLabels(classes) {
    if (classes !== 1000 && classes !== 1001) return null;
    try {
      const res = await fetch('models/image/labels.txt');
      if (!res.ok) return null;
      return res.text();
    } catch {
      return null;
    }
  }

  async function pickModelFile(file) {
    const why = checkModelFile(file);
    if (why) {
      showMessage(why + (v.model ? ` ${v.model.name} stays loaded.` : ''));
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    await openModel(file.name, bytes, v.model?.labelsText ?? v.pendingLabels ?? null);
  }

  async function openModel(name, bytes, labelsText, { fromCache = false } = {}) {
    if (!looksLikeOnnx(bytes.subarray(0, 16))) {
      showMessage(`“${name}” is not an ONNX model (its first bytes are not an ONNX protobuf).` + (v.model ? ` ${v.model.name} stays loaded.` : ''));
      return;
    }
    const seq = ++v.seq;
    cancelJob();
    showMessage('');
    showNotice('');
    setStatus('loading');
    ui.kept.hidden = false;
    ui.kept.textContent = `Reading ${name} (${(bytes.length / 1048576).toFixed(1)} MB)…`;
    const inputSize = v.model?.name === name ? v.model.inputSize : 0;
    let r;
    try {
      r = await ensureClient().load(bytes, inputSize);
    } catch (e) {
      if (seq !== v.seq) return;
      ui.kept.hidden = true;
      setStatus(v.model ? 'ready' : 'error');
      showMessage(`“${name}” could not be read: ${sentence(e.message)}` + (v.model && v.client.loaded ? ` ${v.model.name} stays loaded.` : ''));
      return;
    }
    if (seq !== v.seq) return;
    ui.kept.hidden = true;
    if (!r.runnable) {
      const holding = Boolean(v.model && v.client.loaded);
      if (!holding) renderSummary(r.summary, name, bytes.length); // what the file holds (the summary of a model held stays)
      const missing = r.summary.unsupported?.length ? ` Unsupported operators: ${r.summary.unsupported.join(', ')}.` : '';
      showMessage(`“${name}” cannot be explained here: ${sentence(r.error)}${missing}` + (holding ? ` ${v.model.name} stays loaded.` : ''));
      setStatus(holding ? 'ready' : 'error');
      return;
    }
    const classes = r.summary.classes;
    const text = labelsText ?? (await imagenetLabels(classes));
    const parsed = text ? parseLabels(text, classes) : { labels: defaultLabels(classes), note: '' };
    v.pendingLabels = null;
    v.model = { name, bytes, summary: r.summary, labels: parsed.labels, labelsText, inputSize: r.summary.input_shape[2],
      labelsNote: labelsText ? parsed.note : text ? `ImageNet labels assumed (${classes} classes); choose a labels file if the model was trained on other classes.` : '' };
    v.maps = new Map();
    v.curves = [];
    v.res = null;
    renderSummary(r.summary, name, bytes.length);
    fillLayers(r.summary);
    ui.sizeControl.hidden = !symbolicSize(r.summary);
    ui.size.value = String(v.model.inputSize);
    ui.controls.hidden = false;
    ui.scalingAbout.hidden = false;
    showNotice(v.model.labelsNote);
    if (fromCache) ui.keep.checked = true;
    else if (ui.keep.checked) keepModel({ name, bytes, labels: labelsText ? parsed.labels : null }).catch(() => {});
    setStatus('ready');
    await classify();
  }

  function renderSummary(summary, name, bytes) {
    const dl = el('dl', 'own-facts');
    for (const f of summaryFacts(summary, { name, bytes })) dl.append(el('dt', null, f.label), el('dd', null, f.value));
    ui.summary.replaceChildren(dl);
    ui.summary.hidden = false;
  }

  function fillLayers(summary) {
    ui.layer.replaceChildren();
    const layers = summary.spatial_layers ?? [];
    ui.layer.append(el('option', null, `auto: the last with spatial extent (${summary.auto_layer || 'none'})`, { value: 'auto' }));
    for (const l of layers) ui.layer.append(el('option', null, `${l.name} — ${l.op} ${l.shape.join('×')}`, { value: l.name }));
    ui.layer.value = 'auto';
  }

  async function setLabels(file) {
    let text;
    try {
      text = await readLabelsFile(file);
    } catch (e) {
      showMessage(e.message);
      return;
    }
    if (!v.model) {
      v.pendingLabels = text;
      showNotice(`Labels read from “${file.name}”; they will name the classes of the model you choose next.`);
      return;
    }
    const parsed = parseLabels(text, v.model.summary.classes);
    v.model.labels = parsed.labels;
    v.model.labelsText = text;
    showNotice(parsed.note);
    if (ui.keep.checked) keepModel({ name: v.model.name, bytes: v.model.bytes, labels: parsed.labels }).catch(() => {});
    if (v.res) renderTop();
    renderInfo(v.maps.get(mapKey()));
  }

  // ------------------------------------------------------------ the photo
  async function classify() {
    if (!v.model || !v.photoSource || !v.client?.loaded) return;
    const seq = ++v.seq;
    cancelJob();
    setStatus('busy');
    ui.caption.textContent = `Classifying ${v.photoSource.title} with ${v.model.name}…`;
    let res;
    try {
      res = await v.client.classify(v.photoSource.source, v.st.oscale);
    } catch (e) {
      if (seq !== v.seq) return;
      setStatus('ready');
      ui.caption.textContent = '';
      showMessage(`${v.model.name} could not classify ${v.photoSource.title}: ${e.message}`);
      return;
    }
    if (seq !== v.seq) return;
    v.res = res;
    v.maps = new Map();
    v.curves = [];
    ui.sanity.replaceChildren();
    ui.sanity.hidden = true;
    v.classIndex = res.top[0];
    const [, C, H, W] = v.model.summary.input_shape;
    ui.caption.textContent = `${v.photoSource.title}: the 224×224 centre crop, resized to the model’s ${H}×${W}` +
      `${C === 1 ? ' (grey)' : ''}, scaled ${SCALING_LABELS[v.st.oscale]}. ${Math.round(res.ms)} ms.`;
    ui.results.hidden = false;
    setStatus('ready');
    renderTop();
    await renderMap();
  }

  function renderTop() {
    renderTop5(ui.top, v.res.top.map((k) => ({ index: k, label: labelOf(k), prob: v.res.probs[k] })), {
      selected: v.classIndex,
      onSelect: (k) => {
        v.classIndex = k;
        cancelJob();
        renderTop();
        renderMap();
      },
    });
  }

  // ------------------------------------------------------------ maps
  const layerOf = () => ui.layer.value || 'auto';
  function mapKey(method = v.st.omethod, cls = v.classIndex) {
    const m = METHOD[method];
    return `${method}|${m.kind === 'layer' || method === 'scorecam' ? layerOf() : 'input'}|${cls}`;
  }

  function redraw() {
    const r = v.maps.get(mapKey());
    if (v.res) drawOverlay(ui.canvas, v.res.display, r?.rgba ?? null, v.st.opacity / 100);
  }

  function renderInfo(r) {
    const method = v.st.omethod;
    ui.mapInfo.replaceChildren();
    if (!r) return;
    const where = r.layer === 'input' ? 'the input pixels' : `layer ${r.layer}`;
    ui.mapInfo.append(el('span', 'image-peak',
      `Explaining “${labelOf(r.classIndex)}” with ${METHOD[method].label} at ${where}` +
        `${r.mapShape ? ` (map ${r.mapShape.join('×')})` : ''}: ${peakText(r.peak)}.${r.ms ? ` ${Math.round(r.ms)} ms.` : ''}`));
    if (r.completeness) {
      const { sum, target } = r.completeness;
      const gap = Math.abs(sum - target) / Math.max(1e-12, Math.abs(target));
      ui.mapInfo.append(el('br'), el('span', gap > 0.05 ? 'point-miss' : 'point-hit',
        `Completeness: the attributions sum to ${sum.toFixed(4)}; the logit minus the logit of an all-zero input is ${target.toFixed(4)}` +
          ` (${percent(gap, 1)} apart${gap > 0.05 ? ': more steps would close the gap' : ''}).`));
    }
  }

  async function renderMap() {
    if (!v.res) return;
    const method = v.st.omethod;
    const m = METHOD[method];
    ui.method.value = method;
    ui.about.textContent = m.about;
    ui.curvesRun.textContent = `Run deletion + insertion for ${m.label}`;
    Object.assign(ui.canvas.dataset, { method, layer: '', class: String(v.classIndex), peakX: '', peakY: '', mapShape: '' });
    const key = mapKey();
    if (v.sanityKey !== key) { // a sanity check shown is of another map
      ui.sanity.replaceChildren();
      ui.sanity.hidden = true;
    }
    let r = v.maps.get(key);
    if (!r && m.kind !== 'plan') {
      const res = v.res;
      ui.mapInfo.textContent = `Computing ${m.label}…`;
      try {
        r = await v.client.map({ photoId: res.photoId, method, layer: layerOf(), classIndex: v.classIndex, colormap: v.st.colormap });
      } catch (e) {
        if (res !== v.res) return;
        ui.mapInfo.textContent = '';
        showMessage(`${m.label} failed: ${e.message}`);
        redraw();
        return;
      }
      if (res !== v.res) return;
      v.maps.set(key, r);
    }
    if (method !== v.st.omethod || key !== mapKey()) return;
    redraw();
    if (!r) {
      ui.mapInfo.replaceChildren(el('span', null, `${m.label} runs many network passes of your model. `));
      const b = el('button', 'small', 'Compute', { type: 'button', id: 'own-compute' });
      b.disabled = Boolean(v.job);
      b.addEventListener('click', () => computePlan(method));
      ui.mapInfo.append(b);
      return;
    }
    Object.assign(ui.canvas.dataset, { layer: r.layer, peakX: String(r.peak.x), peakY: String(r.peak.y), mapShape: r.mapShape ? r.mapShape.join('×') : '224×224' });
    details.ownLastMap = r.raw ?? null;
    renderInfo(r);
  }

  // A new colour map: the worker recolours the maps it holds (nothing is recomputed).
  async function recolor() {
    const res = v.res;
    const entries = [...v.maps.entries()];
    if (!entries.length) return redraw();
    try {
      const { maps } = await v.client.recolor({ photoId: res.photoId, keys: entries.map(([, r]) => r.key), colormap: v.st.colormap });
      if (res !== v.res) return;
      for (const [key, r] of entries) if (maps[r.key]) v.maps.set(key, { ...r, rgba: maps[r.key] });
    } catch (e) {
      showMessage(`The maps could not be recoloured: ${e.message}`);
    }
    redraw();
  }

  // ------------------------------------------------------------ jobs
  function startJob(label, handle) {
    v.job = { label, handle };
    ui.job.hidden = false;
    ui.jobBar.removeAttribute('value');
    ui.jobText.textContent = `${label}: starting…`;
    ui.cancel.disabled = false;
    ui.curvesRun.disabled = true;
    setStatus('busy');
  }
  function jobProgress(m) {
    if (!v.job || !m.total) return;
    ui.jobBar.max = m.total;
    ui.jobBar.value = m.loaded;
    ui.jobText.textContent = `${v.job.label}: ${m.loaded.toLocaleString('en')} / ${m.total.toLocaleString('en')} network passes`;
  }
  function endJob() {
    v.job = null;
    ui.job.hidden = true;
    ui.curvesRun.disabled = false;
    setStatus(v.model ? 'ready' : 'empty');
  }
  function cancelJob() {
    if (!v.job) return;
    v.job.cancelled = true;
    v.job.handle?.cancel();
    ui.jobText.textContent = `${v.job.label}: cancelling…`;
    ui.cancel.disabled = true;
  }

  async function runJob(label, kind, body) {
    const h = v.client.runPlan(kind, { photoId: v.res.photoId, classIndex: v.classIndex, colormap: v.st.colormap, ...body }, jobProgress);
    v.job.handle = h;
    if (v.job.cancelled) h.cancel();
    return h.promise;
  }

  async function computePlan(method) {
    if (v.job || !v.res) return;
    const res = v.res;
    const key = mapKey(method);
    const params = method === 'rise' ? { n: v.st.risen, seed: v.st.seed } : {};
    startJob(METHOD[method].label, null);
    try {
      const r = await runJob(METHOD[method].label, method, { params, layer: layerOf() });
      endJob();
      if (r.cancelled || res !== v.res) return renderMap();
      v.maps.set(key, r);
      renderMap();
    } catch (e) {
      endJob();
      showMessage(`${METHOD[method].label} failed: ${e.message}`);
    }
  }

  async function runCurves() {
    if (v.job || !v.res) return;
    const method = v.st.omethod;
    const r = v.maps.get(mapKey());
    if (!r) {
      showNotice(`Compute the ${METHOD[method].label} map first.`);
      return;
    }
    const res = v.res;
    const cls = v.classIndex;
    startJob(`Deletion + insertion (${METHOD[method].label})`, null);
    try {
      const out = {};
      for (const kind of ['deletion', 'insertion']) {
        out[kind] = await runJob(`${METHOD[method].label} ${kind}`, kind, { params: { steps: CURVE_STEPS }, map: r.key });
        if (out[kind].cancelled) break;
      }
      endJob();
      if (res !== v.res || out.deletion?.cancelled || out.insertion?.cancelled) return;
      v.curves = v.curves.filter((c) => !(c.cls === cls && c.method === method));
      for (const kind of ['deletion', 'insertion']) v.curves.push({ method, kind, cls, ...out[kind] });
      drawCurves();
    } catch (e) {
      endJob();
      showMessage(`Deletion / insertion failed: ${e.message}`);
    }
  }

  function drawCurves() {
    const runs = v.curves.filter((c) => c.cls === v.classIndex);
    ui.curves.hidden = runs.length === 0;
    if (runs.length) renderCurves(ui.curves, runs, { width: widthOf(ui.curves, 640), labelOf: (m) => METHOD[m]?.label ?? m });
  }

  // ------------------------------------------------------------ sanity check
  async function runSanity() {
    if (v.job || !v.res) return;
    const method = v.st.omethod;
    const m = METHOD[method];
    if (m.kind === 'plan') {
      showNotice(`The sanity check runs the gradient and CAM methods; pick one of them (not ${m.label}).`);
      return;
    }
    const res = v.res;
    v.sanityKey = mapKey();
    ui.sanityRun.disabled = true;
    ui.sanity.hidden = false;
    ui.sanity.replaceChildren(el('p', 'status', `Shuffling the weights and computing ${m.label} again…`));
    try {
      const r = await v.client.sanity({ photoId: res.photoId, method, layer: layerOf(), classIndex: v.classIndex, seed: v.st.seed, colormap: v.st.colormap });
      if (res !== v.res) return;
      if (r.shuffled === 0) {
        ui.sanity.replaceChildren(el('p', 'message notice', `No weights follow ${r.layer} (only pooling or reshaping), so there is nothing to shuffle ` +
          'and the map cannot change: pick an earlier layer for the sanity check.'));
        return;
      }
      const where = r.layer === 'input' ? 'every weight of the model' : `every weight after ${r.layer}`;
      const tiles = [
        makeTile({ title: `${m.label}, your model`, sub: `explaining “${labelOf(r.classIndex)}”`, photoRgba: res.display, mapRgba: r.original, opacity: v.st.opacity / 100, colormap: v.st.colormap }),
        makeTile({ title: `${m.label}, weights shuffled`, sub: `its top-1 now: “${labelOf(r.randomizedClass)}”`, photoRgba: res.display, mapRgba: r.randomized, opacity: v.st.opacity / 100, colormap: v.st.colormap }),
      ];
      const rho = r.spearman;
      const text = el('p', 'chart-caption', `${where[0].toUpperCase()}${where.slice(1)} was shuffled ` +
        `(${r.shuffled} tensors, each a random permutation of its own values; seed ${v.st.seed}), and ${m.label} computed again for the same class. ` +
        `Spearman ρ between the two maps (at ${r.mapShape.join('×')}): ${rho === null ? 'undefined (a constant map)' : rho.toFixed(3)}. ` +
        'A map that explains the model must change (ρ near 0); ρ near 1 means it mostly shows the photo or the layer, not what the network does with it (Adebayo et al. 2018).');
      text.dataset.spearman = rho === null ? '' : String(rho);
      const grid = el('div', 'image-grid');
      grid.append(...tiles);
      ui.sanity.replaceChildren(grid, text);
    } catch (e) {
      ui.sanity.replaceChildren();
      ui.sanity.hidden = true;
      showMessage(`The sanity check failed: ${e.message}`);
    } finally {
      ui.sanityRun.disabled = false;
    }
  }

  // ------------------------------------------------------------ inputs
  ui.file.addEventListener('change', () => {
    const f = ui.file.files?.[0];
    ui.file.value = '';
    if (f) pickModelFile(f);
  });
  ui.labelsFile.addEventListener('change', () => {
    const f = ui.labelsFile.files?.[0];
    ui.labelsFile.value = '';
    if (f) setLabels(f);
  });
  ui.drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    ui.drop.classList.add('dragging');
  });
  ui.drop.addEventListener('dragleave', () => ui.drop.classList.remove('dragging'));
  ui.drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    ui.drop.classList.remove('dragging');
    const files = [...(e.dataTransfer?.files ?? [])];
    const labels = files.find((f) => /\.txt$/i.test(f.name) || f.type === 'text/plain');
    const model = files.find((f) => f !== labels);
    if (labels) await setLabels(labels); // before the model: a model dropped with its labels is named by them
    if (model) await pickModelFile(model);
  });
  ui.scaling.addEventListener('change', () => {
    store.update({ oscale: ui.scaling.value });
    v.st = store.get();
    classify();
  });
  ui.size.addEventListener('change', () => {
    const n = Math.round(Number(ui.size.value));
    if (!v.model || !(n >= 8 && n <= 1024)) {
      showMessage('The input size must be a whole number of pixels from 8 to 1024.');
      ui.size.value = String(v.model?.inputSize ?? 224);
      return;
    }
    const m = v.model;
    ensureClient().load(m.bytes, n).then((r) => {
      if (!r.runnable) throw new Error(r.error);
      if (m !== v.model) return null;
      Object.assign(m, { inputSize: n, summary: r.summary });
      renderSummary(r.summary, m.name, m.bytes.length);
      fillLayers(r.summary);
      return classify();
    }).catch((e) => {
      ui.size.value = String(m.inputSize);
      showMessage(`Input size ${n} does not work for this model: ${e.message}`);
    });
  });
  ui.layer.addEventListener('change', () => {
    cancelJob();
    renderMap();
  });
  ui.method.addEventListener('change', () => {
    store.update({ omethod: ui.method.value });
    v.st = store.get();
    cancelJob();
    renderMap();
    drawCurves();
  });
  ui.keep.addEventListener('change', () => {
    if (ui.keep.checked && v.model) keepModel({ name: v.model.name, bytes: v.model.bytes, labels: v.model.labelsText ? v.model.labels : null }).catch((e) => showMessage(`The model could not be kept: ${e.message}`));
    if (!ui.keep.checked) forgetModel().catch(() => {});
  });
  ui.cancel.addEventListener('click', cancelJob);
  ui.curvesRun.addEventListener('click', runCurves);
  ui.sanityRun.addEventListener('click', runSanity);
  ui.exportButton.addEventListener('click', () => downloadCanvasPng(ui.canvas, `your-model-${v.st.omethod}.png`));

  // The model kept from an earlier visit (only when the user asked): offered, never loaded by itself.
  let keptChecked = false;
  async function offerKept() {
    if (keptChecked) return;
    keptChecked = true;
    let k = null;
    try {
      k = await keptModel();
    } catch {
      k = null;
    }
    if (!k || v.model) return;
    ui.kept.hidden = false;
    ui.kept.replaceChildren(el('span', null, `Kept from your last visit: ${k.name} (${(k.bytes.length / 1048576).toFixed(1)} MB). `));
    const load = el('button', 'small', 'Load it', { type: 'button', id: 'own-load-kept' });
    const forget = el('button', 'small', 'Forget it', { type: 'button', id: 'own-forget-kept' });
    load.addEventListener('click', () => openModel(k.name, k.bytes, k.labels ? k.labels.join('\n') : null, { fromCache: true }));
    forget.addEventListener('click', () => {
      forgetModel().catch(() => {});
      ui.kept.hidden = true;
      ui.keep.checked = false;
    });
    ui.kept.append(load, ' ', forget);
  }

  function apply(state) {
    const prev = v.st;
    v.st = state;
    ui.scaling.value = state.oscale;
    ui.method.value = state.omethod;
    offerKept();
    if (!v.res) return;
    if (prev.oscale !== state.oscale) return classify();
    if (prev.omethod !== state.omethod) {
      cancelJob();
      drawCurves();
      return renderMap();
    }
    if (prev.colormap !== state.colormap) return recolor();
    redraw();
  }

  function setPhoto(photo) {
    v.photoSource = photo;
    if (v.model) classify();
  }

  setStatus('empty');
  return { apply, setPhoto };
}
