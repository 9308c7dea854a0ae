// image-view.js — the Image lab: a MobileNetV2 (ImageNet) classifies a photo in the browser, and seven
// explanation maps say which pixels mattered; faithfulness is measured (deletion / insertion, pointing game,
// sanity check, adversarial erasing). The CNN runs in ONNX Runtime Web, everything else in the WebAssembly
// core, both in one worker (runtime/image-worker.js through runtime/image-client.js).
//
// Contract:
//   mountImageView(section, { store }) → { apply(state), progress() }
//     section  the #view-image element of index.html; store the URL-backed state (fields image, method,
//              opacity, colormap, backend, target, risen, seed, erasesteps, erasethr, erasefill).
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
//   data-peak-y (224-pixel coordinates of the map's maximum) and data-pointing ('hit' | 'miss' | '').
import { el, pct, fmt } from '../render/dom.js';
import { widthOf } from '../render/plot-lib.js';
import { drawOverlay, drawRgba, makeTile, downloadCanvasPng } from '../render/image-canvas.js';
import { renderTop5 } from '../render/image-top5.js';
import { renderCurves } from '../render/image-curves.js';
import { renderEraseStrip } from '../render/image-strip.js';
import { ImageClient } from '../runtime/image-client.js';
import { parseBackendOverride } from '../runtime/ort-backend.js';

export const GALLERY = Object.freeze([
  { name: 'cat', file: 'cat.png', title: 'Cat' },
  { name: 'bird', file: 'bird.png', title: 'Bird' },
  { name: 'dragonfly', file: 'dragonfly.png', title: 'Dragonfly' },
  { name: 'grace_hopper', file: 'grace_hopper.png', title: 'Grace Hopper' },
  { name: 'sunflower', file: 'sunflower.png', title: 'Sunflower' },
  { name: 'owl', file: 'owl.jpg', title: 'Owl' },
  { name: 'parrot', file: 'parrot.jpg', title: 'Parrot' },
  { name: 'hot_dog', file: 'hot_dog.jpg', title: 'Hot dog' },
  { name: 'dog_segmentation', file: 'dog_segmentation.png', mask: 'dog_segmentation_mask.png', positive: 0, object: 'the dog', title: 'Samoyed + mask' },
  { name: 'bird_segmentation', file: 'bird_segmentation.png', mask: 'bird_segmentation_mask.png', positive: 3, object: 'the bird', title: 'Bird + mask' },
]);

export const METHODS = Object.freeze([
  { key: 'cam', label: 'CAM', fast: true, about: 'Class activation map (Zhou et al. 2016): the classifier weights of the class times the last feature maps.' },
  { key: 'gradcam', label: 'Grad-CAM', fast: true, about: 'Grad-CAM: feature maps weighted by the mean gradient of the class score. With a GAP + linear head it equals CAM up to a positive scale.' },
  { key: 'gradcampp', label: 'Grad-CAM++', fast: true, about: 'Grad-CAM++: higher-order weighting of positive gradients.' },
  { key: 'scorecam', label: 'Score-CAM', fast: false, about: 'Score-CAM: one masked forward pass per feature channel (1,280); weights = the class probability of each masked photo.' },
  { key: 'rise', label: 'RISE', fast: false, about: 'RISE: N random 7×7 masks, upsampled; the map is the probability-weighted mean of the masks.' },
  { key: 'occlusion', label: 'Occlusion', fast: false, about: 'Occlusion: a grey 32-px square slides with stride 16; the map is the mean drop in probability.' },
  { key: 'random', label: 'Random', fast: true, about: 'A random map (seeded) — the baseline every method must beat.' },
]);
const METHOD = Object.fromEntries(METHODS.map((m) => [m.key, m]));
const FEATURE = new Set(['cam', 'gradcam', 'gradcampp', 'random']);
const CURVE_STEPS = 50;

function mb(b) {
  return `${(b / 1048576).toFixed(1)} MB`;
}

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
  const seedInput = $('#image-seed');
  const curvesButton = $('#image-curves-run');
  const curvesEl = $('#image-curves');
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

  let client = null;
  let backendWanted = null; // the override the current client was loaded with
  let threadsWanted = 0; // the threads= the current client was loaded with (0 = automatic)
  let loadPromise = null;
  let info = null; // load() result
  let st = store.get();
  let photo = null; // {key, title, anchor, res (classify result), entry}
  let photoSeq = 0;
  let classIndex = 0;
  let maps = new Map(); // `${class}|${method}|${params}` → map result
  let inflight = new Map(); // same keys → Promise of a fast map being computed
  let autoStarted = new Set(); // slow maps started by selecting the method (never restarted by themselves)
  let curves = []; // [{method, kind, cls, x, y, auc}]
  let extra = new Map(); // `${class}|${method}` → explanation-mask result
  let job = null; // {label, handles: [], cancelled}

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

  // ------------------------------------------------------------ gallery and controls
  for (const g of GALLERY) {
    const b = el('button', 'gallery-item', null, { type: 'button', 'data-image': g.name, title: g.title });
    const img = el('img', null, null, { src: `images/${g.file}`, alt: g.title, loading: 'lazy', width: 64, height: 64 });
    b.append(img, el('span', null, g.title));
    b.addEventListener('click', () => {
      store.update({ image: g.name, target: -1 });
      st = store.get();
      showGallery(g.name);
    });
    gallery.append(b);
  }
  methodSelect.replaceChildren(...METHODS.map((m) => el('option', null, m.fast ? m.label : `${m.label} (slow)`, { value: m.key })));

  methodSelect.addEventListener('change', () => {
    store.update({ method: methodSelect.value });
    st = store.get();
    renderMain();
  });
  opacityInput.addEventListener('input', () => {
    store.update({ opacity: Number(opacityInput.value) });
    st = store.get();
    redrawCanvases();
  });
  colormapSelect.addEventListener('change', async () => {
    store.update({ colormap: colormapSelect.value });
    st = store.get();
    await recolor();
  });
  riseInput.addEventListener('change', () => {
    const v = Math.round(Number(riseInput.value));
    const n = Number.isFinite(v) ? Math.max(50, Math.min(8000, v)) : 1000;
    riseInput.value = n;
    store.update({ risen: n });
    st = store.get();
    renderGrid();
  });
  seedInput.addEventListener('change', () => {
    const v = Math.round(Number(seedInput.value));
    const n = Number.isSafeInteger(v) && v >= 0 ? v : 1;
    seedInput.value = n;
    store.update({ seed: n });
    st = store.get();
    renderMain();
    renderGrid();
  });
  for (const [input, key, min, max] of [[eraseSteps, 'erasesteps', 1, 8], [eraseThr, 'erasethr', 5, 95]]) {
    input.addEventListener('change', () => {
      const v = Math.round(Number(input.value));
      const n = Number.isFinite(v) ? Math.max(min, Math.min(max, v)) : store.get()[key];
      input.value = n;
      store.update({ [key]: n });
      st = store.get();
    });
  }
  eraseFill.addEventListener('change', () => {
    store.update({ erasefill: eraseFill.value });
    st = store.get();
  });
  exportButton.addEventListener('click', () => {
    if (!photo) return;
    downloadCanvasPng(canvas, `${photo.key}-${st.method}-${labelOf(classIndex).replace(/[^\w-]+/g, '_')}.png`).catch((e) => showMessage(e.message));
  });
  cancelButton.addEventListener('click', () => cancelJob());
  curvesButton.addEventListener('click', () => runCurves());
  eraseButton.addEventListener('click', () => runErase());
  sanityButton.addEventListener('click', () => runSanity());

  // uploads: picker, drag and drop, paste
  fileInput.addEventListener('change', () => {
    const f = fileInput.files?.[0];
    fileInput.value = '';
    if (f) showUpload(f);
  });
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('dragging');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('dragging'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('dragging');
    const f = e.dataTransfer?.files?.[0];
    if (f) showUpload(f);
    else showMessage('Nothing to read in what was dropped: drop an image file.');
  });
  document.addEventListener('paste', (e) => {
    if (section.hidden) return;
    const item = [...(e.clipboardData?.items ?? [])].find((i) => i.kind === 'file');
    const f = item?.getAsFile();
    if (f) {
      e.preventDefault();
      showUpload(f);
    }
  });

  // ------------------------------------------------------------ loading
  function wantedBackend() {
    if (st.backend === 'wasm' || st.backend === 'webgpu') return st.backend;
    return parseBackendOverride(location.search);
  }

  function ensureLoaded() {
    const want = wantedBackend();
    if (client && (want !== backendWanted || st.threads !== threadsWanted)) {
      cancelJob();
      client.terminate();
      client = null;
      loadPromise = null;
      photo = null;
    }
    if (loadPromise) return loadPromise;
    backendWanted = want;
    threadsWanted = st.threads;
    client = new ImageClient();
    setStatus('loading');
    loadRow.hidden = false;
    loadBar.removeAttribute('value');
    loadText.textContent = 'Starting the image worker…';
    backendEl.textContent = 'Backend: choosing…';
    const c = client;
    let modelCache = 'miss';
    loadPromise = c.load({ override: want, threads: st.threads }, (p) => {
      if (c !== client) return;
      if (p.stage === 'onnx' && p.cached) modelCache = 'hit';
      if (p.stage === 'onnx' || p.stage === 'head' || p.stage === 'labels') {
        const what = { onnx: 'the image model', head: 'the classifier head', labels: 'the labels' }[p.stage];
        if (p.cached) {
          loadText.textContent = `Read ${what} from the browser cache (${mb(p.loaded)}).`;
        } else if (p.total) {
          loadBar.max = p.total;
          loadBar.value = p.loaded;
          loadText.textContent = `Downloading ${what}: ${mb(p.loaded)} / ${mb(p.total)}`;
        } else loadText.textContent = `Downloading ${what}: ${mb(p.loaded)}`;
      } else if (p.stage === 'core') loadText.textContent = 'Loading the WebAssembly core…';
      else if (p.stage === 'ort') loadText.textContent = 'Loading ONNX Runtime Web…';
      else if (p.stage === 'session') loadText.textContent = 'Preparing the model…';
    }).then((r) => {
      if (c !== client) return r;
      info = r;
      section.dataset.backend = r.backend;
      section.dataset.ep = r.ep;
      section.dataset.modelCache = modelCache;
      backendEl.textContent = `Backend: ${r.reason} (ORT execution provider: ${r.ep}; ${r.batch} images per run).`;
      loadRow.hidden = true;
      return r;
    }, (e) => {
      if (c === client) {
        loadPromise = null;
        loadRow.hidden = true;
        backendEl.textContent = 'Backend: not started';
        setStatus('error');
        showMessage(`The image model could not be loaded: ${e.message}`);
      }
      throw e;
    });
    return loadPromise;
  }

  // ------------------------------------------------------------ photos
  async function fetchBlob(file) {
    const res = await fetch(`images/${file}`);
    if (!res.ok) throw new Error(`Could not load the demo photo ${file}: HTTP ${res.status}`);
    return res.blob();
  }

  async function classifyPhoto(key, title, source, mask, entry) {
    const seq = ++photoSeq;
    cancelJob();
    showMessage('');
    setStatus('busy');
    caption.textContent = `Classifying ${title}…`;
    let res;
    try {
      await ensureLoaded();
      res = await client.classify(source, { mask });
    } catch (e) {
      if (seq !== photoSeq) return;
      setStatus(photo ? 'ready' : 'error');
      caption.textContent = photo ? photo.caption : '';
      if (!loadPromise) return; // the load error is already shown
      showMessage(`${key === 'upload' ? 'This file could not be used' : `The photo “${title}” could not be shown`}: ${e.message}` +
        (photo ? ' The previous photo stays shown.' : ''));
      return;
    }
    if (seq !== photoSeq) return;
    photo = { key, title, res, entry, anchor: st.image };
    maps = new Map();
    inflight = new Map();
    autoStarted = new Set();
    curves = [];
    extra = new Map();
    stripEl.replaceChildren();
    sanityEl.replaceChildren();
    const t = st.target;
    classIndex = t >= 0 && t < (info?.classes ?? 1001) ? t : res.top5[0].index;
    section.dataset.photo = key === 'upload' ? 'upload' : key;
    section.dataset.top1 = res.top5[0].label;
    section.dataset.top1Index = String(res.top5[0].index);
    const notes = [...res.notes];
    if (key === 'upload') notes.unshift('Uploaded photo — not shareable by link (the URL keeps the last demo photo).');
    showNotice(notes.join('\n'));
    for (const b of gallery.querySelectorAll('.gallery-item')) b.setAttribute('aria-pressed', String(b.dataset.image === key));
    photo.caption = `${title}: ${res.width}×${res.height} px → the 224×224 centre crop the model sees (shorter side to 256). ${Math.round(res.ms)} ms.`;
    caption.textContent = photo.caption;
    results.hidden = false;
    setStatus('ready');
    renderAll();
  }

  async function showGallery(name) {
    let entry = GALLERY.find((g) => g.name === name);
    if (!entry) {
      showNotice(`There is no demo photo “${name}”; showing the cat.`);
      entry = GALLERY[0];
    }
    let blob;
    let mask = null;
    try {
      blob = await fetchBlob(entry.file);
      if (entry.mask) mask = { blob: await fetchBlob(entry.mask), positiveLabel: entry.positive };
    } catch (e) {
      showMessage(e.message);
      return;
    }
    await classifyPhoto(entry.name, entry.title, { blob }, mask, entry);
  }

  async function showUpload(file) {
    if (file.type && !file.type.startsWith('image/')) {
      showMessage(`“${file.name}” is not an image (${file.type}). Pick a PNG, JPEG, GIF, WebP or BMP photo.` + (photo ? ' The previous photo stays shown.' : ''));
      return;
    }
    if (file.size === 0) {
      showMessage(`“${file.name}” is empty.` + (photo ? ' The previous photo stays shown.' : ''));
      return;
    }
    await classifyPhoto('upload', `“${file.name}”`, { blob: file }, null, null);
  }

  // ------------------------------------------------------------ maps
  const labelOf = (i) => info?.labels?.[i] ?? `class ${i}`;

  function paramKey(method) {
    if (method === 'rise') return `n${st.risen}s${st.seed}`;
    if (method === 'random') return `s${st.seed}`;
    return '';
  }
  const mapKey = (method) => `${classIndex}|${method}|${paramKey(method)}`;

  function fastMap(method) {
    const key = mapKey(method);
    if (maps.has(key)) return Promise.resolve(maps.get(key));
    if (inflight.has(key)) return inflight.get(key);
    const p = photo;
    const req = client.map({ imageId: p.res.imageId, method, classIndex, seed: st.seed, colormap: st.colormap }).then((r) => {
      if (p !== photo) return null;
      maps.set(key, r);
      return r;
    }).finally(() => inflight.delete(key));
    inflight.set(key, req);
    return req;
  }

  function slowParams(method) {
    if (method === 'rise') return { n: st.risen, cells: 7, p: 0.5, seed: st.seed };
    if (method === 'occlusion') return { window: 32, stride: 16 };
    return {};
  }
  function passesOf(method) {
    if (method === 'scorecam') return 1280;
    if (method === 'rise') return st.risen;
    if (method === 'occlusion') return 169;
    return 1;
  }

  function computeSlow(method) {
    if (job || !photo) return;
    const key = mapKey(method);
    const p = photo;
    const h = client.runPlan(method, { imageId: p.res.imageId, classIndex, params: slowParams(method), colormap: st.colormap },
      (m) => jobProgress(m, `${METHOD[method].label}: network passes`));
    startJob(METHOD[method].label, [h], method);
    h.promise.then((r) => {
      endJob();
      if (p !== photo || r.cancelled) return;
      maps.set(key, r);
      renderMain();
      renderGrid();
    }, (e) => {
      endJob();
      showMessage(`${METHOD[method].label} failed: ${e.message}`);
    });
  }

  async function mapFor(method) {
    const key = mapKey(method);
    if (maps.has(key)) return maps.get(key);
    if (METHOD[method].fast) return fastMap(method);
    return null;
  }

  function redrawMain() {
    if (!photo) return;
    const r = maps.get(mapKey(st.method));
    drawOverlay(canvas, photo.res.display, r?.rgba ?? null, st.opacity / 100);
  }

  function redrawCanvases() {
    opacityText.textContent = `${st.opacity} %`;
    redrawMain();
    renderGrid();
  }

  async function renderMain() {
    if (!photo) return;
    const method = st.method;
    methodSelect.value = method;
    methodAbout.textContent = METHOD[method].about;
    curvesButton.textContent = `Run deletion + insertion for ${METHOD[method].label}`;
    renderTop5(top5El, photo.res.top5, { selected: classIndex, onSelect: selectClass });
    canvas.dataset.method = method;
    canvas.dataset.class = String(classIndex);
    let r = null;
    try {
      r = await mapFor(method);
    } catch (e) {
      showMessage(`${METHOD[method].label} failed: ${e.message}`);
    }
    if (!photo || method !== st.method) return;
    redrawMain();
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
      const runningThis = job?.method === method;
      mapInfo.append(el('span', null, runningThis
        ? `${METHOD[method].label} is running (${passesOf(method)} network passes)…`
        : `${METHOD[method].label} needs ${passesOf(method).toLocaleString('en')} network passes. `));
      if (!runningThis) {
        const b = el('button', 'small', 'Compute', { type: 'button' });
        b.disabled = Boolean(job);
        b.addEventListener('click', () => computeSlow(method));
        mapInfo.append(b);
        // the user picked this method: start it once (after a Cancel it waits for the Compute button)
        if (!job && !autoStarted.has(mapKey(method))) {
          autoStarted.add(mapKey(method));
          computeSlow(method);
        }
      }
      return;
    }
    canvas.dataset.peakX = String(r.peak.x);
    canvas.dataset.peakY = String(r.peak.y);
    canvas.dataset.pointing = r.pointing ? (r.pointing.hit ? 'hit' : 'miss') : '';
    mapInfo.append(el('span', null, `Explaining “${labelOf(classIndex)}” with ${METHOD[method].label}. Peak at (${r.peak.x}, ${r.peak.y}).`));
    if (r.pointing) {
      const obj = photo.entry?.object ?? 'the object';
      mapInfo.append(el('br'), el('span', r.pointing.hit ? 'point-hit' : 'point-miss',
        `Pointing game: ${r.pointing.hit ? 'hit ✓' : 'miss ✗'} — the peak is ${r.pointing.hit ? '' : 'not '}on ${obj} (mask, ${r.pointing.tolerance} px tolerance). ` +
          `Energy in the mask: ${fmt(r.pointing.energy, 3)}.`));
    }
  }

  async function renderGrid() {
    if (!photo) return;
    const p = photo;
    const tiles = [];
    for (const m of METHODS) {
      let r = maps.get(mapKey(m.key));
      if (!r && m.fast) {
        try {
          r = await fastMap(m.key);
        } catch (e) {
          r = null;
        }
        if (p !== photo) return;
      }
      const running = job?.method === m.key;
      const tile = makeTile({
        title: m.label,
        sub: r ? (r.pointing ? `pointing: ${r.pointing.hit ? 'hit' : 'miss'}` : `peak (${r.peak.x}, ${r.peak.y})`)
          : running ? 'running…' : `${passesOf(m.key).toLocaleString('en')} passes`,
        photoRgba: p.res.display,
        mapRgba: r?.rgba ?? null,
        opacity: st.opacity / 100,
        state: r ? 'ready' : running ? 'running' : 'pending',
        action: r ? 'PNG' : running ? null : 'Compute',
        onAction: r ? () => downloadCanvasPng(tile.canvas, `${p.key}-${m.key}.png`) : () => computeSlow(m.key),
        attrs: { 'data-method': m.key, title: m.about },
      });
      if (!r && job) tile.querySelector('.image-tile-action')?.setAttribute('disabled', '');
      tile.querySelector('canvas').addEventListener('click', () => {
        store.update({ method: m.key });
        st = store.get();
        renderMain();
      });
      tiles.push(tile);
    }
    if (p !== photo) return;
    gridEl.replaceChildren(...tiles);
  }

  async function recolor() {
    if (!photo) return;
    const p = photo;
    for (const [key, r] of maps) {
      const { rgba } = await client.colorize(r.map01, st.colormap);
      if (p !== photo) return;
      maps.set(key, { ...r, rgba });
    }
    redrawMain();
    renderGrid();
  }

  function selectClass(index) {
    classIndex = index;
    store.update({ target: index === photo.res.top5[0].index ? -1 : index });
    st = store.get();
    cancelJob();
    renderAll();
  }

  function renderAll() {
    renderMain();
    renderGrid();
    drawCurves();
    maskBox.replaceChildren();
    if (photo.res.maskDisplay) {
      const c = el('canvas', 'image-mask-canvas', null, { width: 224, height: 224, title: 'The segmentation mask (white = the object)' });
      drawRgba(c, photo.res.maskDisplay);
      maskBox.append(c, el('span', 'image-mask-label', `Mask of ${photo.entry?.object ?? 'the object'}`));
    }
  }

  // ------------------------------------------------------------ jobs (progress + cancel)
  function startJob(label, handles, method) {
    job = { label, handles, method };
    jobRow.hidden = false;
    jobBar.removeAttribute('value');
    jobText.textContent = `${label}: starting…`;
    cancelButton.disabled = false;
    setStatus('busy');
    for (const b of [curvesButton, eraseButton, sanityButton]) b.disabled = true;
    renderGrid();
  }
  function jobProgress(m, what) {
    if (!job || !m.total) return;
    jobBar.max = m.total;
    jobBar.value = m.loaded;
    jobText.textContent = `${what}: ${m.loaded.toLocaleString('en')} / ${m.total.toLocaleString('en')}`;
  }
  function endJob() {
    job = null;
    jobRow.hidden = true;
    setStatus(photo ? 'ready' : 'loading');
    for (const b of [curvesButton, eraseButton, sanityButton]) b.disabled = false;
    renderGrid();
    if (photo && !maps.has(mapKey(st.method))) renderMain();
  }
  function cancelJob() {
    if (!job) return;
    job.cancelled = true;
    for (const h of job.handles) h.cancel();
    jobText.textContent = `${job.label}: cancelling…`;
    cancelButton.disabled = true;
  }

  // ------------------------------------------------------------ deletion / insertion
  function drawCurves() {
    const runs = curves.filter((c) => c.cls === classIndex);
    renderCurves(curvesEl, runs, { width: widthOf(curvesEl, 640), labelOf: (m) => METHOD[m]?.label ?? m });
    const lines = [];
    for (const [key, r] of extra) {
      const [cls, method] = key.split('|');
      if (Number(cls) !== classIndex) continue;
      const drop = Math.max(0, r.original - r.masked) / Math.max(r.original, 1e-12);
      lines.push(`${METHOD[method].label}: photo × map → p = ${fmt(r.masked, 3)} (photo: ${fmt(r.original, 3)}; drop ${pct(drop)}${r.masked > r.original ? ', an increase' : ''})`);
    }
    if (lines.length) curvesEl.append(el('p', 'chart-caption', `Explanation map as a mask (Score-CAM's average drop / increase): ${lines.join(' · ')}.`));
  }

  async function runCurves() {
    if (job || !photo) return;
    const method = st.method;
    const p = photo;
    let r;
    try {
      r = await mapFor(method);
    } catch (e) {
      showMessage(e.message);
      return;
    }
    if (!r) {
      showNotice(`Compute the ${METHOD[method].label} map first (it is a slow method).`);
      return;
    }
    const cls = classIndex;
    const base = { imageId: p.res.imageId, classIndex: cls, colormap: st.colormap };
    const handles = [];
    startJob(`Deletion + insertion (${METHOD[method].label})`, handles, 'curves');
    try {
      const out = {};
      for (const kind of ['deletion', 'insertion', 'explanationMask']) {
        const h = client.runPlan(kind, { ...base, params: { saliency: r.map01, steps: CURVE_STEPS } },
          (m) => jobProgress(m, `${METHOD[method].label} ${kind === 'explanationMask' ? 'masked photo' : kind}: network passes`));
        handles.push(h);
        if (job?.cancelled) h.cancel();
        out[kind] = await h.promise;
        if (out[kind].cancelled) break;
      }
      endJob();
      if (p !== photo || out.deletion?.cancelled || out.insertion?.cancelled) return;
      curves = curves.filter((c) => !(c.cls === cls && c.method === method));
      for (const kind of ['deletion', 'insertion']) curves.push({ method, kind, cls, ...out[kind] });
      if (out.explanationMask && !out.explanationMask.cancelled) extra.set(`${cls}|${method}`, out.explanationMask);
      drawCurves();
    } catch (e) {
      endJob();
      showMessage(`Deletion / insertion failed: ${e.message}`);
    }
  }

  // ------------------------------------------------------------ adversarial erasing
  async function runErase() {
    if (job || !photo) return;
    const p = photo;
    const method = FEATURE.has(st.method) ? st.method : 'cam';
    const h = client.erase({
      imageId: p.res.imageId, classIndex, method, steps: st.erasesteps, threshold: st.erasethr / 100, fill: st.erasefill, colormap: st.colormap,
    }, (m) => jobProgress(m, 'Erasing steps'));
    startJob(`Adversarial erasing (${METHOD[method].label})`, [h], 'erase');
    try {
      const r = await h.promise;
      endJob();
      if (p !== photo) return;
      renderEraseStrip(stripEl, r.steps, { targetLabel: labelOf(classIndex), opacity: st.opacity / 100 });
      const note = method !== st.method ? ` (${METHOD[st.method].label} is slow, so erasing uses CAM)` : '';
      const flips = r.steps.findIndex((s) => s.top1.index !== r.steps[0].top1.index);
      stripEl.append(el('p', 'chart-caption',
        `Each step erases (fill: ${st.erasefill}) where the ${METHOD[method].label} map of “${labelOf(classIndex)}” is ≥ ${st.erasethr} % of its range${note}, then runs the model again. ` +
          (flips > 0 ? `The top-1 prediction changes at step ${flips}.` : 'The top-1 prediction never changed.') +
          (r.cancelled ? ' (cancelled)' : '')));
    } catch (e) {
      endJob();
      showMessage(`Adversarial erasing failed: ${e.message}`);
    }
  }

  // ------------------------------------------------------------ sanity check
  async function runSanity() {
    if (job || !photo) return;
    const p = photo;
    const method = FEATURE.has(st.method) ? st.method : 'cam';
    sanityButton.disabled = true;
    try {
      const r = await client.sanity({ imageId: p.res.imageId, method, classIndex, seed: st.seed, colormap: st.colormap });
      if (p !== photo) return;
      const row = el('div', 'image-strip');
      row.append(
        makeTile({ title: `${METHOD[method].label}, trained classifier`, photoRgba: p.res.display, mapRgba: r.original.rgba, opacity: st.opacity / 100 }),
        makeTile({ title: `${METHOD[method].label}, randomised classifier`, sub: `its top-1: ${r.randomTop1.label}`, photoRgba: p.res.display, mapRgba: r.randomized.rgba, opacity: st.opacity / 100 }),
      );
      const verdict = Math.abs(r.spearman) > 0.5
        ? 'High: the map barely depends on what the classifier learned — a warning sign (Adebayo et al. 2018).'
        : 'Low: the map changes when the classifier is randomised, as a faithful map should.';
      sanityEl.replaceChildren(row, el('p', 'sanity-rho', `Spearman ρ between the two maps: ${fmt(r.spearman, 3)}. ${verdict}`));
      sanityEl.dataset.spearman = String(r.spearman);
      if (method !== st.method) sanityEl.append(el('p', 'chart-caption', `${METHOD[st.method].label} is a perturbation method; the check uses CAM.`));
    } catch (e) {
      showMessage(`Sanity check failed: ${e.message}`);
    } finally {
      sanityButton.disabled = Boolean(job);
    }
  }

  // ------------------------------------------------------------ apply
  function apply(state) {
    const prev = st;
    st = state;
    methodSelect.value = st.method;
    opacityInput.value = st.opacity;
    opacityText.textContent = `${st.opacity} %`;
    colormapSelect.value = st.colormap;
    riseInput.value = st.risen;
    seedInput.value = st.seed;
    eraseSteps.value = st.erasesteps;
    eraseThr.value = st.erasethr;
    eraseFill.value = st.erasefill;
    dropInfo.textContent = 'An uploaded photo stays in this tab — it is not shareable by link.';
    const backendChanged = client && wantedBackend() !== backendWanted;
    ensureLoaded().catch(() => {});
    const keepUpload = photo?.key === 'upload' && photo.anchor === st.image && !backendChanged;
    if (!photo || backendChanged || (!keepUpload && photo.key !== st.image)) {
      showGallery(st.image);
      return;
    }
    if (prev.colormap !== st.colormap) {
      recolor();
      return;
    }
    const t = st.target >= 0 ? st.target : photo.res.top5[0].index;
    if (t !== classIndex) {
      classIndex = t;
      cancelJob();
      renderAll();
      return;
    }
    renderAll();
  }

  return { apply, progress: () => {} };
}
