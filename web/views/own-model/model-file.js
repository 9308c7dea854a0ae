// model-file.js — the model file: checks, reading it in the worker, the summary, the layer list, labels, and the
// copy kept in the browser only when asked. Part of views/own-model-view.js (installModelFile(v) adds offerKept,
// readLabelsFile, imagenetLabels, pickModelFile, openModel, renderSummary, fillLayers, setLabels to v).
import { bytes as sizeText } from '../../analysis/format.js';
import { el } from '../../render/dom.js';
import { checkModelFile, looksLikeOnnx, parseLabels, defaultLabels, symbolicSize, summaryFacts } from '../../analysis/own-model.js';
import { keepModel, keptModel, forgetModel } from '../../runtime/own-model-store.js';
import { IMAGENET_LABELS, sentence, engineSentence, methodAvailable, unavailableWhy } from './methods.js';

export function installModelFile(v) {
  const { ui } = v;
  // ------------------------------------------------------------ the model
  async function readLabelsFile(file) {
    if (file.size > 4 * 1024 * 1024) throw new Error(`“${file.name}” is too large for a labels file (over 4 MB).`);
    return file.text();
  }

  async function imagenetLabels(classes) {
    if (classes !== 1000 && classes !== 1001) return null;
    try {
      const res = await fetch(IMAGENET_LABELS);
      if (!res.ok) return null;
      return res.text();
    } catch {
      return null;
    }
  }

  async function pickModelFile(file) {
    const why = checkModelFile(file);
    if (why) {
      v.showMessage(why + (v.model ? ` ${v.model.name} stays loaded.` : ''));
      return;
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    await v.openModel(file.name, bytes, v.model?.labelsText ?? v.pendingLabels ?? null);
  }

  async function openModel(name, bytes, labelsText, { fromCache = false } = {}) {
    if (!looksLikeOnnx(bytes.subarray(0, 16))) {
      v.showMessage(`“${name}” is not an ONNX model (its first bytes are not an ONNX protobuf).` + (v.model ? ` ${v.model.name} stays loaded.` : ''));
      return;
    }
    const seq = ++v.seq;
    v.cancelJob();
    v.showMessage('');
    v.showNotice('');
    v.setStatus('loading');
    v.loadingName = name; // a labels file chosen until it has loaded is kept for it (setLabels)
    ui.kept.hidden = false;
    ui.kept.textContent = `Reading ${name} (${sizeText(bytes.length)})…`;
    const inputSize = v.model?.name === name ? v.model.inputSize : 0;
    let r;
    try {
      r = await v.ensureClient().load(bytes, inputSize);
    } catch (e) {
      if (seq !== v.seq) return;
      v.loadingName = null;
      ui.kept.hidden = true;
      v.setStatus(v.model ? 'ready' : 'error');
      v.showMessage(`“${name}” could not be read: ${sentence(e.message)}` + (v.model && v.client.loaded ? ` ${v.model.name} stays loaded.` : ''));
      return;
    }
    if (seq !== v.seq) return;
    ui.kept.hidden = true;
    if (!r.runnable) {
      v.loadingName = null;
      const holding = Boolean(v.model && v.client.loaded);
      if (!holding) v.renderSummary(r.summary, name, bytes.length); // what the file holds (the summary of a model held stays)
      const missing = r.summary.unsupported?.length && !/unsupported operators/i.test(r.error) ? ` Unsupported operators: ${r.summary.unsupported.join(', ')}.` : '';
      v.showMessage(`“${name}” cannot be explained here: ${sentence(r.error)}${missing}` + (holding ? ` ${v.model.name} stays loaded.` : ''));
      v.setStatus(holding ? 'ready' : 'error');
      return;
    }
    v.loadingName = null;
    const classes = r.summary.classes;
    // labels chosen while the model was loading win over the ones it was opened with
    if (v.pendingLabels) labelsText = v.pendingLabels;
    const text = labelsText ?? (await v.imagenetLabels(classes));
    const parsed = text ? parseLabels(text, classes) : { labels: defaultLabels(classes), note: '' };
    v.pendingLabels = null;
    v.model = { name, bytes, summary: r.summary, labels: parsed.labels, labelsText, inputSize: r.summary.input_shape[2],
      engine: r.engine ?? 'core', missing: r.missing ?? [], opset: r.opset ?? null,
      labelsNote: labelsText ? parsed.note : text ? `ImageNet labels assumed (${classes} classes); choose a labels file if the model was trained on other classes.` : '' };
    v.maps = new Map();
    v.curves = [];
    v.res = null;
    v.renderSummary(r.summary, name, bytes.length);
    v.fillLayers(r.summary);
    v.applyEngine();
    ui.sizeControl.hidden = !symbolicSize(r.summary);
    ui.size.value = String(v.model.inputSize);
    ui.controls.hidden = false;
    ui.scalingAbout.hidden = false;
    v.showNotice(v.model.labelsNote);
    if (fromCache) ui.keep.checked = true;
    else if (ui.keep.checked) keepModel({ name, bytes, labels: labelsText ? parsed.labels : null }).catch(() => {});
    v.setStatus('ready');
    await v.classify();
  }

  function renderSummary(summary, name, bytes) {
    const dl = el('dl', 'own-facts');
    const engine = v.model?.summary === summary ? v.model.engine : 'core';
    for (const f of summaryFacts(summary, { name, bytes, engine })) dl.append(el('dt', null, f.label), el('dd', null, f.value));
    ui.summary.replaceChildren(dl);
    if (v.model?.summary === summary && v.model.engine === 'ort') {
      ui.summary.append(el('p', 'own-engine message notice', engineSentence(v.model), { id: 'own-engine' }));
    }
    ui.summary.hidden = false;
  }

  // What the model held can run: for an ORT-run model only the forward-only maps are offered (the others disabled,
  // their reason as the option's title), no layer, no sanity check. The method in the URL stays as the user chose it.
  function applyEngine() {
    const ort = v.model?.engine === 'ort';
    for (const o of ui.method.options) {
      o.disabled = !methodAvailable(o.value, v.model?.engine, v.model?.summary?.attention?.length);
      o.title = o.disabled ? unavailableWhy(o.value, v.model?.engine) : '';
    }
    ui.layer.disabled = ort;
    ui.sanityRun.disabled = ort;
    ui.sanityRun.title = ort ? 'The sanity check recomputes a gradient or CAM map, which this model does not have' : '';
    ui.method.value = v.method();
  }

  function fillLayers(summary) {
    ui.layer.replaceChildren();
    const layers = summary.spatial_layers ?? [];
    // A vision transformer's token layers (class_tokens > 0) are read as [D, g, g]; its `auto` is the last block's input.
    const vit = layers.some((l) => l.class_tokens > 0);
    const auto = vit ? 'the last attention block’s input tokens' : 'the last with spatial extent';
    ui.layer.append(el('option', null, `auto: ${auto} (${summary.auto_layer || 'none'})`, { value: 'auto' }));
    for (const l of layers) {
      const what = l.class_tokens > 0 ? `tokens as ${l.shape.join('×')}` : l.shape.join('×');
      ui.layer.append(el('option', null, `${l.name} — ${l.op} ${what}`, { value: l.name }));
    }
    ui.layer.value = 'auto';
  }

  async function setLabels(file) {
    let text;
    try {
      text = await v.readLabelsFile(file);
    } catch (e) {
      v.showMessage(e.message);
      return;
    }
    if (v.loadingName) {
      v.pendingLabels = text;
      v.showNotice(`Labels read from “${file.name}”; they will name the classes of ${v.loadingName} once it has loaded.`);
      return;
    }
    if (!v.model) {
      v.pendingLabels = text;
      v.showNotice(`Labels read from “${file.name}”; they will name the classes of the model you choose next.`);
      return;
    }
    const parsed = parseLabels(text, v.model.summary.classes);
    v.model.labels = parsed.labels;
    v.model.labelsText = text;
    v.showNotice(parsed.note);
    if (ui.keep.checked) keepModel({ name: v.model.name, bytes: v.model.bytes, labels: parsed.labels }).catch(() => {});
    if (v.res) v.renderTop();
    v.renderInfo(v.maps.get(v.mapKey()));
  }

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
    ui.kept.replaceChildren(el('span', null, `Kept from your last visit: ${k.name} (${sizeText(k.bytes.length)}). `));
    const load = el('button', 'small', 'Load it', { type: 'button', id: 'own-load-kept' });
    const forget = el('button', 'small', 'Forget it', { type: 'button', id: 'own-forget-kept' });
    load.addEventListener('click', () => v.openModel(k.name, k.bytes, k.labels ? k.labels.join('\n') : null, { fromCache: true }));
    forget.addEventListener('click', () => {
      forgetModel().catch(() => {});
      ui.kept.hidden = true;
      ui.keep.checked = false;
    });
    ui.kept.append(load, ' ', forget);
  }

  Object.assign(v, { offerKept, readLabelsFile, imagenetLabels, pickModelFile, openModel, renderSummary, fillLayers, setLabels, applyEngine });
}
