// own-model-view.js — "Your model" (issue 11), the last card of the Images tab: the user drops an .onnx image
// classifier (and optionally a labels file); the page shows its graph summary, asks how the model expects its
// pixels (input scaling; input size when the model leaves it open) and explains the photo shown above with it:
// every map of catalogue.onnx.methods (Grad-CAM family at a chosen layer, gradient / SmoothGrad / integrated
// gradients) and the perturbation plans (Score-CAM, RISE, occlusion), then deletion / insertion curves, "Which
// method?" (every map ranked by them, beside a random baseline) and the sanity check (the weights after the layer
// shuffled: does the map change?) — all computed by the core's own executor in a worker of its own
// (runtime/own-model-client.js); for a model with an operator the core lacks, only the forward-only ones, on ONNX
// Runtime Web. Nothing is uploaded; the model is kept in the browser for the next visit only when the user ticks the box (runtime/own-model-store.js).
//
// Contract:
//   mountOwnModelView(details, { store }) → { apply(state), setPhoto({key, title, source}) }
//     details: the #own-model element; store: the URL state (fields omethod, oscale; opacity and colormap are the
//     Image view's). setPhoto is called by the Image view with every photo it shows (a demo photo or an upload).
//   details.dataset.status: 'empty' (no model) | 'loading' | 'ready' | 'busy' | 'error'; #own-canvas carries
//   data-method, data-layer, data-class, data-peak-x/-y and data-map-shape ("h×w") of the map shown; the raw map of
//   the last result is details.ownLastMap, the photo's logits details.ownLogits (tests read them).
//   A model the core cannot run but ONNX Runtime Web can (engine 'ort', labs/own-model.js) gets a sentence under its
//   summary (#own-engine: what the core lacks, what still runs), only RISE and occlusion in the method picker (the
//   others disabled, the reason as their title; the URL keeps the method chosen, shown again for the next model that
//   runs it), no layer picker and no sanity check.
//   A file that is not a model, a model that cannot run, a failed map: a message; the model, photo and settings
//   held so far stay. A worker that stops: the message says so and "Load it again" reloads the same bytes.
import { el } from '../render/dom.js';
import { downloadCanvasPng } from '../render/image-canvas.js';
import { CATALOGUE } from '../catalogue.js';
import { OwnModelClient } from '../runtime/own-model-client.js';
import { forgetModel, keepModel } from '../runtime/own-model-store.js';
import { OWN_METHODS, ORT_METHODS, SCALING_ABOUT, SCALING_LABELS, methodAvailable } from './own-model/methods.js';
import { installModelFile } from './own-model/model-file.js';
import { installMaps } from './own-model/maps.js';
import { installJobs } from './own-model/jobs.js';
import { installSanity } from './own-model/sanity.js';
import { installWhichMethod } from './own-model/which-method.js';

export { OWN_METHODS };

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
    sanityRun: $('#own-sanity-run'), sanity: $('#own-sanity'), whichRun: $('#own-which-run'), which: $('#own-which'),
  };
  const v = {
    details, store, ui,
    st: store.get(),
    client: null,
    model: null, // {name, bytes, summary, labels, labelsNote, inputSize}
    photoSource: null, // {key, title, source} from the Image view
    res: null, // classify result of the current photo on the current model
    classIndex: 0,
    maps: new Map(), // `${method}|${layer}|${class}` → map result
    curves: [],
    road: [], // [{method, cls, morf, lerf}] ROAD results beside the curves
    which: null, // "Which method?": {res, cls, layer, maps (the worker's keys scored), notes}
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
      v.setStatus('error');
      v.showMessage(`${message}${v.model ? ` Your model (${v.model.name}) is kept.` : ''}`);
      if (v.model) {
        const again = el('button', 'small', 'Load it again', { type: 'button', id: 'own-retry' });
        again.addEventListener('click', () => v.openModel(v.model.name, v.model.bytes, v.model.labelsText ?? null));
        ui.message.append(' ', again);
      }
    });
    return v.client;
  }

  // The method shown: the URL's, unless the model held cannot run it (engine 'ort', or an attention method on a model
  // without attention: then RISE; the URL keeps the choice).
  const method = () => (methodAvailable(v.st.omethod, v.model?.engine, v.model?.summary?.attention?.length) ? v.st.omethod : ORT_METHODS[0]);

  Object.assign(v, { setStatus, showMessage, showNotice, labelOf, ensureClient, method });
  installModelFile(v);
  installMaps(v);
  installJobs(v);
  installSanity(v);
  installWhichMethod(v);

  // ------------------------------------------------------------ inputs
  ui.file.addEventListener('change', () => {
    const f = ui.file.files?.[0];
    ui.file.value = '';
    if (f) v.pickModelFile(f);
  });
  ui.labelsFile.addEventListener('change', () => {
    const f = ui.labelsFile.files?.[0];
    ui.labelsFile.value = '';
    if (f) v.setLabels(f);
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
    if (labels) await v.setLabels(labels); // before the model: a model dropped with its labels is named by them
    if (model) await v.pickModelFile(model);
  });
  ui.scaling.addEventListener('change', () => {
    store.update({ oscale: ui.scaling.value });
    v.st = store.get();
    v.classify();
  });
  ui.size.addEventListener('change', () => {
    const n = Math.round(Number(ui.size.value));
    if (!v.model || !(n >= 8 && n <= 1024)) {
      v.showMessage('The input size must be a whole number of pixels from 8 to 1024.');
      ui.size.value = String(v.model?.inputSize ?? 224);
      return;
    }
    const m = v.model;
    v.ensureClient().load(m.bytes, n).then((r) => {
      if (!r.runnable) throw new Error(r.error);
      if (m !== v.model) return null;
      Object.assign(m, { inputSize: n, summary: r.summary, engine: r.engine ?? 'core', missing: r.missing ?? [], opset: r.opset ?? null });
      v.renderSummary(r.summary, m.name, m.bytes.length);
      v.fillLayers(r.summary);
      v.applyEngine();
      return v.classify();
    }).catch((e) => {
      ui.size.value = String(m.inputSize);
      v.showMessage(`Input size ${n} does not work for this model: ${e.message}`);
    });
  });
  ui.layer.addEventListener('change', () => {
    v.cancelJob();
    v.renderMap();
  });
  ui.method.addEventListener('change', () => {
    store.update({ omethod: ui.method.value });
    v.st = store.get();
    v.cancelJob();
    v.renderMap();
    v.drawCurves();
  });
  ui.keep.addEventListener('change', () => {
    if (ui.keep.checked && v.model) keepModel({ name: v.model.name, bytes: v.model.bytes, labels: v.model.labelsText ? v.model.labels : null }).catch((e) => v.showMessage(`The model could not be kept: ${e.message}`));
    if (!ui.keep.checked) forgetModel().catch(() => {});
  });
  ui.cancel.addEventListener('click', v.cancelJob);
  ui.curvesRun.addEventListener('click', v.runCurves);
  ui.sanityRun.addEventListener('click', v.runSanity);
  ui.whichRun.addEventListener('click', v.runWhichMethod);
  ui.exportButton.addEventListener('click', () => downloadCanvasPng(ui.canvas, `your-model-${v.method()}.png`));

  function apply(state) {
    const prev = v.st;
    v.st = state;
    ui.scaling.value = state.oscale;
    ui.method.value = v.method();
    v.offerKept();
    if (!v.res) return;
    if (prev.oscale !== state.oscale) return v.classify();
    if (prev.omethod !== state.omethod) {
      v.cancelJob();
      v.drawCurves();
      return v.renderMap();
    }
    if (prev.colormap !== state.colormap) return v.recolor();
    v.redraw();
  }

  function setPhoto(photo) {
    v.photoSource = photo;
    if (v.model) v.classify();
  }

  v.setStatus('empty');
  return { apply, setPhoto };
}

