// photo-input.js — the Image view's photos: a demo photo of the gallery (with its mask), or an uploaded file
// (picker, drop, paste), classified in the worker; a new photo resets what the view holds for the old one.
// Part of views/image-view.js (installPhotoInput(v) adds fetchBlob, classifyPhoto, showGallery, showUpload,
// showLastPhoto).
import { GALLERY } from './methods.js';

export function installPhotoInput(v) {
  const { section } = v;
  const { caption, gallery, results, sanityEl, stripEl } = v.ui;
  // ------------------------------------------------------------ photos
  async function fetchBlob(file) {
    const res = await fetch(`images/${file}`);
    if (!res.ok) throw new Error(`Could not load the demo photo ${file}: HTTP ${res.status}`);
    return res.blob();
  }

  async function classifyPhoto(key, title, source, mask, entry, lead = '') {
    const seq = ++v.photoSeq;
    v.cancelJob();
    v.showMessage('');
    v.setStatus('busy');
    caption.textContent = `Classifying ${title}…`;
    let res;
    try {
      await v.ensureLoaded();
      res = await v.client.classify(source, { mask });
    } catch (e) {
      if (seq !== v.photoSeq) return;
      v.setStatus(v.photo ? 'ready' : 'error');
      caption.textContent = v.photo ? v.photo.caption : '';
      if (!v.loadPromise) return; // the load error is already shown
      v.showMessage(`${key === 'upload' ? 'This file could not be used' : `The photo “${title}” could not be shown`}: ${e.message}` +
        (v.photo ? ' The previous photo stays shown.' : ''));
      return;
    }
    if (seq !== v.photoSeq) return;
    v.lastPhoto = { key, title, source, mask, entry };
    for (const fn of v.photoListeners) fn(v.lastPhoto);
    v.photo = { key, title, res, entry, anchor: v.st.image };
    v.maps = new Map();
    v.inflight = new Map();
    v.autoStarted = new Set();
    v.curves = [];
    v.extra = new Map();
    v.sanityResult = null;
    v.eraseResult = null;
    stripEl.replaceChildren();
    sanityEl.replaceChildren();
    const t = v.st.target;
    v.classIndex = t >= 0 && t < (v.info?.classes ?? 1001) ? t : res.top5[0].index;
    section.dataset.photo = key === 'upload' ? 'upload' : key;
    section.dataset.top1 = res.top5[0].label;
    section.dataset.top1Index = String(res.top5[0].index);
    const notes = [...res.notes];
    if (key === 'upload') notes.unshift('Uploaded photo — not shareable by link (the URL keeps the last demo photo).');
    if (lead) notes.unshift(lead);
    v.showNotice(notes.join('\n'));
    for (const b of gallery.querySelectorAll('.gallery-item')) b.setAttribute('aria-pressed', String(b.dataset.image === key));
    v.photo.caption = `${title}: ${res.width}×${res.height} px → the 224×224 centre crop the model sees (shorter side to 256). ${Math.round(res.ms)} ms${res.engine === 'core' ? ' (run by the WebAssembly core while ONNX Runtime starts)' : ''}.`;
    caption.textContent = v.photo.caption;
    results.hidden = false;
    v.setStatus('ready');
    v.renderAll();
  }

  async function showGallery(name) {
    let entry = GALLERY.find((g) => g.name === name);
    let lead = '';
    if (!entry) {
      // said beside the photo (it stays until another photo is shown); the URL names the photo shown
      const shown = String(name).length > 40 ? `${String(name).slice(0, 40)}…` : String(name);
      lead = `There is no demo photo “${shown}”; showing the ${GALLERY[0].title.toLowerCase()}. ` +
        `The demo photos (image= in a link): ${GALLERY.map((g) => g.name).join(', ')}.`;
      v.showNotice(lead);
      entry = GALLERY[0];
      v.store.update({ image: entry.name });
      v.st = v.store.get();
    }
    let blob;
    let mask = null;
    try {
      blob = await v.fetchBlob(entry.file);
      if (entry.mask) mask = { blob: await v.fetchBlob(entry.mask), positiveLabel: entry.positive };
    } catch (e) {
      v.showMessage(e.message);
      return;
    }
    await v.classifyPhoto(entry.name, entry.title, { blob }, mask, entry, lead);
  }

  async function showUpload(file) {
    if (file.type && !file.type.startsWith('image/')) {
      v.showMessage(`“${file.name}” is not an image (${file.type}). Pick a PNG, JPEG, GIF, WebP or BMP photo.` + (v.photo ? ' The previous photo stays shown.' : ''));
      return;
    }
    if (file.size === 0) {
      v.showMessage(`“${file.name}” is empty.` + (v.photo ? ' The previous photo stays shown.' : ''));
      return;
    }
    await v.classifyPhoto('upload', `“${file.name}”`, { blob: file }, null, null);
  }
  // The last photo again (after its worker was replaced): the same blob, mask and title.
  function showLastPhoto() {
    const p = v.lastPhoto;
    if (p) return v.classifyPhoto(p.key, p.title, p.source, p.mask, p.entry);
    return v.showGallery(v.st.image);
  }
  Object.assign(v, { fetchBlob, classifyPhoto, showGallery, showUpload, showLastPhoto });
}
