// controls.js — the Image view's controls: the gallery buttons, method / opacity / colormap / RISE / curve
// steps / seed / erasing inputs (each change goes to the URL state), export, Cancel, the job buttons, and uploads (file
// picker, drag and drop, paste). Part of views/image-view.js (installControls(v)).
import { el } from '../../render/dom.js';
import { downloadCanvasPng } from '../../render/image-canvas.js';
import { GALLERY, METHODS, thumbOf } from './methods.js';
import { SCHEMA } from '../../state.js';

export function installControls(v) {
  const { section, store } = v;
  const { gallery, fileInput, drop, canvas, methodSelect, opacityInput, colormapSelect, exportButton, riseInput, stepsInput, seedInput, curvesButton, whichButton, eraseSteps, eraseThr, eraseFill, eraseButton, sanityButton, cancelButton } = v.ui;
  // ------------------------------------------------------------ gallery and controls
  for (const g of GALLERY) {
    const b = el('button', 'gallery-item', null, { type: 'button', 'data-image': g.name, title: g.title });
    const img = el('img', null, null, { src: thumbOf(g), alt: g.title, loading: 'lazy', width: 64, height: 64 });
    b.append(img, el('span', null, g.title));
    b.addEventListener('click', () => {
      store.update({ image: g.name, target: -1 });
      v.st = store.get();
      v.showGallery(g.name);
    });
    gallery.append(b);
  }
  methodSelect.replaceChildren(...METHODS.map((m) => el('option', null, m.fast ? m.label : `${m.label} (slow)`, { value: m.key })));
  // the pass counts in the grid's caption are the catalogue's (the ones the tiles show), not typed in the page
  for (const m of METHODS) {
    const span = section.querySelector(`#image-passes-${m.key}`);
    if (span && Number.isFinite(m.passesDefault)) span.textContent = m.passesDefault.toLocaleString('en');
  }

  methodSelect.addEventListener('change', () => {
    store.update({ method: methodSelect.value });
    v.st = store.get();
    v.renderMain();
  });
  opacityInput.addEventListener('input', () => {
    store.update({ opacity: Number(opacityInput.value) });
    v.st = store.get();
    v.redrawCanvases();
  });
  colormapSelect.addEventListener('change', async () => {
    store.update({ colormap: colormapSelect.value });
    v.st = store.get();
    await v.recolor();
  });
  // A number field of the URL state: rounded and clamped to its SCHEMA range (an entry that is not a number gives
  // fallback()), written back to the field and the store, then after() with the view's state refreshed.
  function intField(input, key, after = () => {}, fallback = () => SCHEMA[key].default) {
    input.addEventListener('change', () => {
      const x = Math.round(Number(input.value));
      const n = Number.isFinite(x) ? Math.max(SCHEMA[key].min, Math.min(SCHEMA[key].max, x)) : fallback();
      input.value = n;
      store.update({ [key]: n });
      v.st = store.get();
      after();
    });
  }
  intField(riseInput, 'risen', () => v.renderGrid());
  // The curves' steps (Images and Your model share them): the curves of other steps stay kept but are no longer drawn
  // or ranked (image/curves.js keepCurves).
  intField(stepsInput, 'csteps', () => {
    v.drawCurves();
    v.drawWhichMethod();
  });
  intField(seedInput, 'seed', () => {
    v.renderMain();
    v.renderGrid();
  });
  intField(eraseSteps, 'erasesteps', undefined, () => store.get().erasesteps);
  intField(eraseThr, 'erasethr', undefined, () => store.get().erasethr);
  eraseFill.addEventListener('change', () => {
    store.update({ erasefill: eraseFill.value });
    v.st = store.get();
  });
  exportButton.addEventListener('click', () => {
    if (!v.photo) return;
    downloadCanvasPng(canvas, `${v.photo.key}-${v.st.method}-${v.labelOf(v.classIndex).replace(/[^\w-]+/g, '_')}.png`).catch((e) => v.showMessage(e.message));
  });
  cancelButton.addEventListener('click', () => v.cancelJob());
  curvesButton.addEventListener('click', () => v.runCurves());
  whichButton.addEventListener('click', () => v.runWhichMethod());
  eraseButton.addEventListener('click', () => v.runErase());
  sanityButton.addEventListener('click', () => v.runSanity());

  // uploads: picker, drag and drop, paste
  fileInput.addEventListener('change', () => {
    const f = fileInput.files?.[0];
    fileInput.value = '';
    if (f) v.showUpload(f);
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
    if (f) v.showUpload(f);
    else v.showMessage('Nothing to read in what was dropped: drop an image file.');
  });
  document.addEventListener('paste', (e) => {
    if (section.hidden) return;
    const item = [...(e.clipboardData?.items ?? [])].find((i) => i.kind === 'file');
    const f = item?.getAsFile();
    if (f) {
      e.preventDefault();
      v.showUpload(f);
    }
  });
}
