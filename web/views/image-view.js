// image-view.js — the Image lab: a MobileNetV2 (ImageNet) classifies a photo in the browser, and seven
// explanation maps say which pixels mattered; faithfulness is measured (deletion / insertion, pointing game,
// sanity check, adversarial erasing). The CNN runs in ONNX Runtime Web (a photo classified while ORT's session is
// still being made: in the core's own ONNX executor), everything else in the WebAssembly core, both in one worker
// (runtime/image-worker.js through runtime/image-client.js).
//
// Contract:
//   mountImageView(section, { store }) → { apply(state), progress(), onPhoto(fn) }  (fn({key, title, source}) is
//     called with every photo classified, and at once with the current one: "Your model" explains the same photo)
//     section  the #view-image element of index.html; store the URL-backed state (fields image, method,
//              opacity, colormap, backend, target, risen, csteps, seed, erasesteps, erasethr, erasefill).
//   Nothing loads until the view is first shown (apply): then the worker starts, the model is downloaded
//   (progress bar; Cache API afterwards) and the photo state.image of GALLERY is classified.
//   apply(state) shows state.image (a gallery name; an unknown name → a notice and the cat), the map of
//   state.method for class state.target (−1 = the top-1), with the opacity / colormap; backend=wasm|webgpu
//   forces the ORT backend (a change restarts the worker). An uploaded photo (file picker, drop, paste) is
//   never put in the URL (the page says so) and stays shown until another photo is picked.
//   Fast maps (cam, gradcam, gradcampp, random) come at once; Score-CAM, RISE and occlusion are perturbation
//   plans (many network passes): one job at a time, with a progress bar and Cancel; a new photo cancels it.
//   section.dataset: status 'loading' | 'ready' | 'busy' | 'error'; backend, ep (what ORT reports), modelCache
//   ('hit' when the model bytes came from the Cache API, else 'miss'), photo,
//   top1 (label), top1Index; the main canvas #image-canvas carries data-method, data-class, data-peak-x,
import { el } from '../render/dom.js';
import { percent } from '../analysis/format.js';
import { maskFromRgba, pointingChance, peakText } from '../analysis/image-readout.js';
import { drawRgba, makeTile, downloadCanvasPng } from '../render/image-canvas.js';
import { renderTop5 } from '../render/image-top5.js';
import { ImageClient } from '../runtime/image-client.js';
import { parseBackendOverride } from '../runtime/ort-backend.js';
import { GALLERY, METHODS, METHOD, mb } from './image/methods.js';
import { installControls } from './image/controls.js';
import { installPhotoInput } from './image/photo-input.js';
import { installMapCache } from './image/map-cache.js';
import { installJobs } from './image/jobs.js';
import { installCurves } from './image/curves.js';
import { installWhichMethod } from './image/which-method.js';
import { installErasing } from './image/erasing.js';
import { installSanity } from './image/sanity.js';
import { installEquivalence } from './image/equivalence.js';
import { registerReportData } from './report-data.js';
import { imageReportData } from './image/report.js';

export { GALLERY, METHODS };

export function mountImageView(section, { store }) {
  const $ = (sel) => section.querySelector(sel);
  const gallery = $('#image-gallery');
  const fileInput = $('#image-file');
  const drop = $('#image-drop');
  const backendEl = $('#image-backend');
  const loadRow = $('#image-load-row');
  const loadBar = $('#image-load-progress');
  const loadText = $('#image-load-text');
  const messageEl = $('#image-message');
  const noticeEl = $('#image-notice');
  const results = $('#image-results');
  const canvas = $('#image-canvas');
  const caption = $('#image-caption');
  const top5El = $('#image-top5');
  const methodSelect = $('#image-method');
  const methodAbout = $('#image-method-about');
  const opacityInput = $('#image-opacity');
  const opacityText = $('#image-opacity-text');
  const colormapSelect = $('#image-colormap');
  const exportButton = $('#image-export');
  const mapInfo = $('#image-map-info');
  const maskBox = $('#image-mask');
  const gridEl = $('#image-grid');
  const riseInput = $('#image-rise-n');
  const stepsInput = $('#image-curve-steps');
  const seedInput = $('#image-seed');
  const curvesButton = $('#image-curves-run');
  const curvesEl = $('#image-curves');
  const whichButton = $('#image-which-run');
  const whichEl = $('#image-which');
  const dropInfo = $('#image-drop-info');
  const eraseSteps = $('#image-erase-steps');
  const eraseThr = $('#image-erase-thr');
  const eraseFill = $('#image-erase-fill');
  const eraseButton = $('#image-erase-run');
  const stripEl = $('#image-strip');
  const sanityButton = $('#image-sanity-run');
  const sanityEl = $('#image-sanity');
  const jobRow = $('#image-job');
  const jobBar = $('#image-job-progress');
  const jobText = $('#image-job-text');
  const cancelButton = $('#image-cancel');
  const ui = { gallery, fileInput, drop, backendEl, loadRow, loadBar, loadText, messageEl, noticeEl, results, canvas, caption, top5El, methodSelect, methodAbout, opacityInput, opacityText, colormapSelect, exportButton, mapInfo, maskBox, gridEl, riseInput, stepsInput, seedInput, curvesButton, curvesEl, whichButton, whichEl, dropInfo, eraseSteps, eraseThr, eraseFill, eraseButton, stripEl, sanityButton, sanityEl, jobRow, jobBar, jobText, cancelButton };
  // The view's context: what it holds (below) and the functions of its parts (views/image/*.js add theirs).
  const v = {
    section, store, ui,
    client: null,
    backendWanted: null, // the override the current client was loaded with
    threadsWanted: 0, // the threads= the current client was loaded with (0 = automatic)
    loadPromise: null,
    info: null, // load() result
    st: store.get(),
    photo: null, // {key, title, anchor, res (classify result), entry}
    lastPhoto: null, // the last photo classified: {key, title, source, mask, entry} (kept when a worker is replaced)
    photoSeq: 0,
    classIndex: 0,
    maps: new Map(), // `${class}|${method}|${params}` → map result
    inflight: new Map(), // same keys → Promise of a fast map being computed
    autoStarted: new Set(), // slow maps started by selecting the method (never restarted by themselves)
    curves: [], // [{method, kind, cls, x, y, auc}]
    which: null, // "Which method?": {photo, cls, methods scored, note}
    extra: new Map(), // `${class}|${method}` → explanation-mask result
    job: null, // {label, handles: [], cancelled}
    photoListeners: [], // onPhoto(fn): told every photo classified ({key, title, source})
  };
  // ------------------------------------------------------------ messages
  function showMessage(text) {
    messageEl.textContent = text ?? '';
    messageEl.hidden = !text;
  }
  function showNotice(text) {
    noticeEl.textContent = text ?? '';
    noticeEl.hidden = !text;
  }
  function setStatus(s) {
    section.dataset.status = s;
  }
  // ------------------------------------------------------------ loading
  function wantedBackend() {
    if (v.st.backend === 'wasm' || v.st.backend === 'webgpu') return v.st.backend;
    return parseBackendOverride(location.search);
  }

  function ensureLoaded() {
    const want = v.wantedBackend();
    if (v.client && (want !== v.backendWanted || v.st.threads !== v.threadsWanted)) {
      v.cancelJob();
      const old = v.client;
      v.client = null; // before terminate(): closing it on purpose is not a failure to report
      old.terminate();
      v.loadPromise = null;
      v.photo = null;
    }
    if (v.loadPromise) return v.loadPromise;
    v.backendWanted = want;
    v.threadsWanted = v.st.threads;
    v.client = new ImageClient();
    const mine = v.client;
    // A worker that died or aborted is replaced on the next request: load again then; the photo (a demo photo or
    // the uploaded file, v.lastPhoto) and the settings are kept, the user is told, and one button shows the same
    // photo again on a fresh worker (never automatically: a photo that made the worker abort would loop).
    mine.channel.onReplaced((message) => {
      if (mine !== v.client) return;
      v.loadPromise = null;
      v.photo = null;
      v.job = null;
      v.setStatus('error');
      v.showMessage(`${message}${v.lastPhoto ? ` Your photo (${v.lastPhoto.title}) is kept.` : ' Pick a photo (or reload) to go on.'}`);
      if (v.lastPhoto) {
        const again = el('button', 'small', 'Show it again');
        again.type = 'button';
        again.id = 'image-retry';
        again.addEventListener('click', () => v.showLastPhoto());
        messageEl.append(' ', again);
      }
    });
    v.setStatus('loading');
    loadRow.hidden = false;
    loadBar.removeAttribute('value');
    loadText.textContent = 'Starting the image worker…';
    backendEl.textContent = 'Backend: choosing…';
    const c = v.client;
    let modelCache = 'miss';
    // The model's three files (ONNX, head, labels) download at once: one bar and one line for the three together.
    const files = new Map(); // stage → {loaded, total, cached}
    v.loadPromise = c.load({ override: want, threads: v.st.threads }, (p) => {
      if (c !== v.client) return;
      if (p.stage === 'onnx' && p.cached) modelCache = 'hit';
      if (p.stage === 'onnx' || p.stage === 'head' || p.stage === 'labels') {
        files.set(p.stage, { loaded: p.loaded, total: p.total || p.loaded, cached: p.cached });
        const all = [...files.values()];
        const loaded = all.reduce((a, f) => a + f.loaded, 0);
        const total = all.reduce((a, f) => a + f.total, 0);
        if (all.every((f) => f.cached)) {
          loadText.textContent = `Read the image model from the browser cache (${mb(loaded)}).`;
        } else {
          if (total) {
            loadBar.max = total;
            loadBar.value = loaded;
          }
          loadText.textContent = `Downloading the image model (network, classifier head, labels): ${mb(loaded)}${total ? ` / ${mb(total)}` : ''}`;
        }
      } else if (p.stage === 'core') loadText.textContent = 'Loading the WebAssembly core…';
      else if (p.stage === 'ort') loadText.textContent = 'Loading ONNX Runtime Web…';
      else if (p.stage === 'session') loadText.textContent = 'Preparing the model…';
    }).then((r) => {
      if (c !== v.client) return r;
      v.info = r;
      section.dataset.backend = r.backend;
      section.dataset.modelCache = modelCache;
      const showBackend = (ep) => {
        v.info.ep = ep;
        section.dataset.ep = ep;
        backendEl.textContent = `Backend: ${r.reason} (ORT execution provider: ${ep}; ${r.batch} images per run).`;
      };
      if (r.ep) showBackend(r.ep);
      else {
        // The core's executor classifies the first photo while ONNX Runtime's session is made.
        section.dataset.ep = '';
        backendEl.textContent = `Backend: ${r.reason} — ONNX Runtime is starting; the WebAssembly core runs the network meanwhile.`;
        c.session().then((s) => { if (c === v.client) showBackend(s.ep); }, (e) => {
          if (c === v.client) backendEl.textContent = `Backend: ONNX Runtime could not start (${e.message}); the maps that need many network passes are unavailable.`;
        });
      }
      loadRow.hidden = true;
      return r;
    }, (e) => {
      if (c === v.client) {
        v.loadPromise = null;
        loadRow.hidden = true;
        backendEl.textContent = 'Backend: not started';
        v.setStatus('error');
        v.showMessage(`The image model could not be loaded: ${e.message}`);
      }
      throw e;
    });
    return v.loadPromise;
  }
  async function renderMain() {
    if (!v.photo) return;
    const method = v.st.method;
    methodSelect.value = method;
    methodAbout.textContent = METHOD[method].about;
    curvesButton.textContent = `Run deletion + insertion for ${METHOD[method].label}`;
    renderTop5(top5El, v.photo.res.top5, { selected: v.classIndex, onSelect: v.selectClass });
    canvas.dataset.method = method;
    canvas.dataset.class = String(v.classIndex);
    let r = null;
    try {
      r = await v.mapFor(method);
    } catch (e) {
      v.showMessage(`${METHOD[method].label} failed: ${e.message}`);
    }
    if (!v.photo || method !== v.st.method) return;
    v.redrawMain();
    mapInfo.replaceChildren();
    if (!r && METHOD[method].fast) {
      canvas.dataset.peakX = '';
      canvas.dataset.peakY = '';
      canvas.dataset.pointing = '';
      return;
    }
    if (!r) {
      canvas.dataset.peakX = '';
      canvas.dataset.peakY = '';
      canvas.dataset.pointing = '';
      const runningThis = v.job?.method === method;
      const skipsZero = method === 'scorecam'; // its plan has no pass for a channel that is zero on the photo
      mapInfo.append(el('span', null, runningThis
        ? `${METHOD[method].label} is running (${v.passesOf(method)} network passes)…`
        : `${METHOD[method].label} needs ${skipsZero ? 'up to ' : ''}${v.passesOf(method).toLocaleString('en')} network passes` +
          `${skipsZero ? ' (one per feature channel; a channel that is zero on this photo adds nothing to the map and is skipped)' : ''}. `));
      if (!runningThis) {
        const b = el('button', 'small', 'Compute', { type: 'button' });
        b.disabled = Boolean(v.job);
        b.addEventListener('click', () => v.computeSlow(method));
        mapInfo.append(b);
        // the user picked this method: start it once (after a Cancel it waits for the Compute button)
        if (!v.job && !v.autoStarted.has(v.mapKey(method))) {
          v.autoStarted.add(v.mapKey(method));
          v.computeSlow(method);
        }
      }
      return;
    }
    canvas.dataset.peakX = String(r.peak.x);
    canvas.dataset.peakY = String(r.peak.y);
    canvas.dataset.pointing = r.pointing ? (r.pointing.hit ? 'hit' : 'miss') : '';
    mapInfo.append(el('span', 'image-peak', `Explaining “${v.labelOf(v.classIndex)}” with ${METHOD[method].label}: ${peakText(r.peak)}.`));
    if (r.channels > r.passes)
      mapInfo.append(el('br'), el('span', 'image-passes',
        `${r.passes.toLocaleString('en')} network passes: ${(r.channels - r.passes).toLocaleString('en')} of the ${r.channels.toLocaleString('en')} ` +
          'feature channels are zero everywhere on this photo, so their masked photos would only add 0 to the map and were not run.'));
    if (r.pointing) {
      const obj = v.photo.entry?.object ?? 'the object';
      const tol = r.pointing.tolerance;
      const ch = v.chanceOf(tol);
      mapInfo.append(el('br'), el('span', r.pointing.hit ? 'point-hit' : 'point-miss',
        `Pointing game: ${r.pointing.hit ? 'hit ✓' : 'miss ✗'} — the hottest point is ${r.pointing.hit ? '' : 'not '}on ${obj} (within ${tol} px of its mask).`));
      if (ch) {
        const chance = el('span', 'point-chance',
          ` Chance level: a map whose hottest point falls on a random pixel hits ${percent(ch.chance, 1)} of the time ` +
            `(the share of the crop within ${tol} px of the mask, counted from the mask; the mask itself covers ${percent(ch.maskShare, 1)}). ` +
            `Centre-point baseline (hottest point always at x = ${ch.centre.x}, y = ${ch.centre.y}): ${ch.centre.hit ? 'hit' : 'miss'}.`);
        chance.dataset.chance = String(ch.chance);
        chance.dataset.maskShare = String(ch.maskShare);
        chance.dataset.centreHit = String(ch.centre.hit);
        mapInfo.append(chance);
      }
      mapInfo.append(el('br'), el('span', 'point-energy',
        `Energy in the mask: ${percent(r.pointing.energy, 1)} of the map’s total lies on ${obj}` +
          (ch ? ` (a flat map would put ${percent(ch.maskShare, 1)} there, the mask’s share of the crop).` : '.')));
    }
  }

  // The pointing game's chance level for this photo's mask (analysis/image-readout.js), once per photo and tolerance.
  function chanceOf(tolerance) {
    const p = v.photo;
    if (!p?.res.maskDisplay) return null;
    p.chance ??= new Map();
    if (!p.chance.has(tolerance)) p.chance.set(tolerance, pointingChance(maskFromRgba(p.res.maskDisplay, 224), 224, 224, tolerance));
    return p.chance.get(tolerance);
  }

  async function renderGrid() {
    if (!v.photo) return;
    const p = v.photo;
    const tiles = [];
    for (const m of METHODS) {
      let r = v.maps.get(v.mapKey(m.key));
      if (!r && m.fast) {
        try {
          r = await v.fastMap(m.key);
        } catch (e) {
          r = null;
        }
        if (p !== v.photo) return;
      }
      const running = v.job?.method === m.key;
      const tile = makeTile({
        title: m.label,
        sub: r ? (r.pointing ? `pointing: ${r.pointing.hit ? 'hit' : 'miss'}${v.chanceOf(r.pointing.tolerance) ? ` (chance ${percent(v.chanceOf(r.pointing.tolerance).chance, 0)})` : ''}` : `hottest at x ${r.peak.x}, y ${r.peak.y}`)
          : running ? 'running…' : `${v.passesOf(m.key).toLocaleString('en')} passes`,
        photoRgba: p.res.display,
        mapRgba: r?.rgba ?? null,
        opacity: v.st.opacity / 100,
        colormap: v.st.colormap,
        state: r ? 'ready' : running ? 'running' : 'pending',
        action: r ? 'PNG' : running ? null : 'Compute',
        onAction: r ? () => downloadCanvasPng(tile.canvas, `${p.key}-${m.key}.png`) : () => v.computeSlow(m.key),
        attrs: { 'data-method': m.key, title: m.about, ...(r ? {} : { 'data-report': 'omit' }) }, // a report shows computed maps only
      });
      if (!r && v.job) tile.querySelector('.image-tile-action')?.setAttribute('disabled', '');
      tile.querySelector('canvas').addEventListener('click', () => {
        store.update({ method: m.key });
        v.st = store.get();
        v.renderMain();
      });
      tiles.push(tile);
    }
    if (p !== v.photo) return;
    gridEl.replaceChildren(...tiles);
  }

  // A new colour map: the worker recolours the maps it holds (one request; the maps do not cross back).
  async function recolor() {
    if (!v.photo) return;
    const p = v.photo;
    const entries = [...v.maps.entries()];
    if (entries.length) {
      const { maps } = await v.client.recolor({ imageId: p.res.imageId, keys: entries.map(([, r]) => r.key), colormap: v.st.colormap });
      if (p !== v.photo) return;
      for (const [key, r] of entries) if (maps[r.key]) v.maps.set(key, { ...r, rgba: maps[r.key] });
    }
    v.redrawMain();
    v.renderGrid();
  }

  function selectClass(index) {
    v.classIndex = index;
    store.update({ target: index === v.photo.res.top5[0].index ? -1 : index });
    v.st = store.get();
    v.cancelJob();
    v.renderAll();
  }

  function renderAll() {
    v.renderMain();
    v.renderEquivalence();
    v.renderGrid();
    v.drawCurves();
    v.drawWhichMethod();
    maskBox.replaceChildren();
    if (v.photo.res.maskDisplay) {
      const c = el('canvas', 'image-mask-canvas', null, { width: 224, height: 224, title: 'The segmentation mask (white = the object)' });
      drawRgba(c, v.photo.res.maskDisplay);
      maskBox.append(c, el('span', 'image-mask-label', `Mask of ${v.photo.entry?.object ?? 'the object'}`));
    }
  }
  // ------------------------------------------------------------ apply
  function apply(state) {
    const prev = v.st;
    v.st = state;
    methodSelect.value = v.st.method;
    opacityInput.value = v.st.opacity;
    opacityText.textContent = `${v.st.opacity} %`;
    colormapSelect.value = v.st.colormap;
    riseInput.value = v.st.risen;
    stepsInput.value = v.st.csteps;
    seedInput.value = v.st.seed;
    eraseSteps.value = v.st.erasesteps;
    eraseThr.value = v.st.erasethr;
    eraseFill.value = v.st.erasefill;
    dropInfo.textContent = 'An uploaded photo stays in this tab — it is not shareable by link.';
    const backendChanged = v.client && v.wantedBackend() !== v.backendWanted;
    v.ensureLoaded().catch(() => {});
    const keepUpload = v.photo?.key === 'upload' && v.photo.anchor === v.st.image && !backendChanged;
    if (!v.photo || backendChanged || (!keepUpload && v.photo.key !== v.st.image)) {
      v.showGallery(v.st.image);
      return;
    }
    if (prev.colormap !== v.st.colormap) {
      v.recolor();
      return;
    }
    const t = v.st.target >= 0 ? v.st.target : v.photo.res.top5[0].index;
    if (t !== v.classIndex) {
      v.classIndex = t;
      v.cancelJob();
      v.renderAll();
      return;
    }
    v.renderAll();
  }
  Object.assign(v, { showMessage, showNotice, setStatus, wantedBackend, ensureLoaded, renderMain, chanceOf, renderGrid, recolor, selectClass, renderAll, apply });
  installControls(v);
  installPhotoInput(v);
  installMapCache(v);
  installJobs(v);
  installCurves(v);
  installWhichMethod(v);
  installErasing(v);
  installSanity(v);
  installEquivalence(v);

  // "Save report": the numbers (views/image/report.js); before the view is cloned, the cards with nothing
  // computed yet (curves, erasing, sanity, "Your model" without a model) and the photo pickers are marked to be
  // left out — a report keeps results, not controls.
  registerReportData('image', () => {
    const mark = (e, omit) => {
      if (!e) return;
      if (omit) e.dataset.report = 'omit';
      else delete e.dataset.report;
    };
    mark(gallery, true);
    mark(curvesEl.closest('.card'), !curvesEl.querySelector('svg, figure, .chart'));
    mark(stripEl.closest('.card'), !stripEl.children.length);
    mark(sanityEl.closest('.card'), !sanityEl.children.length);
    const own = section.querySelector('#own-model');
    mark(own, !own || own.dataset.status === 'empty');
    return imageReportData(v);
  });

  function onPhoto(fn) {
    v.photoListeners.push(fn);
    if (v.lastPhoto) fn(v.lastPhoto);
  }
  return { apply, progress: () => {}, onPhoto };
}
