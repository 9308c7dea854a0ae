// image.js — the Image lab's handlers (ONNX Runtime Web + the core in one worker): load, classify, and the
// handlers of image-maps.js (fast maps, recolouring, sanity) and image-plans.js (plans, erasing). No DOM.
//
// Requests (protocol: worker-channel.js):
//   image.load {override, threads} → {backend, ep, reason, numThreads, batch, model, classes, labels}
//     progress {stage, loaded, total, cached} while loading (image-model.js); ep null while ORT's session is still
//     being made (the core's executor classifies meanwhile): image.session waits for it
//   image.session {} → {ep}: once ORT's session is made (its error, if it could not be)
//   image.classify {blob | rgba,width,height, mask?: {blob, positiveLabel}}
//     → {imageId, top5:[{index,label,prob}], display: RGBA 224×224 (what the model sees), width, height (the
//        decoded photo), notes:[…], hasMask, maskDisplay?, headCheck (max |core head logits − the network's logits|),
//        engine ('onnxruntime', or 'core' for a photo classified before ORT's session was made), ep, ms}
//     The photo becomes the worker's current photo: its 224² input and features stay here (ImageLab.setPhoto,
//     and its mask: setMask) and later requests name it by imageId (a newer photo replaces it).
import { decodeBlob, describePixels, planarToRgba, S } from '../image/decode.js';
import { load, ready, session, forward, top, photo, newImageId } from './image-model.js';
import { mapHandlers, POINTING_TOLERANCE } from './image-maps.js';
import { planHandlers } from './image-plans.js';

async function loadHandler(msg, ctx) {
  const progress = (stage, l = 0, total = 0, cached = false) => ctx.progress({ stage, loaded: l, total, cached });
  const L = await load(msg, progress);
  return {
    backend: L.choice.backend,
    ep: L.ep,
    reason: L.choice.reason,
    numThreads: L.choice.numThreads,
    batch: L.batch,
    model: L.model.name,
    classes: L.C,
    labels: L.labels,
  };
}

// A job, not a plain request: it only waits (for ORT's session), and a plain request would hold the queue meanwhile.
async function sessionJob() {
  const L = await session(await ready());
  return { ep: L.ep };
}

async function classify(msg) {
  const L = await ready();
  const t0 = performance.now();
  let img;
  if (msg.blob) img = await decodeBlob(msg.blob);
  else img = { rgba: new Uint8Array(msg.rgba.buffer ?? msg.rgba), width: msg.width, height: msg.height, notes: [] };
  describePixels(img.rgba, img.width, img.height, img.notes);
  const input = L.core.preprocessImage(img.rgba, img.width, img.height);
  const { features, logits, fh, fw, engine } = await forward(L, input, 1);
  globalThis.performance?.mark?.('image: first forward'); // the cold-start timeline (tests/bench/cold-start.mjs --trace)
  const probs = L.lab.softmax(logits, 1);
  const headLogits = L.lab.logits(features, 1, fh, fw);
  let headCheck = 0;
  for (let i = 0; i < logits.length; i++) headCheck = Math.max(headCheck, Math.abs(headLogits[i] - logits[i]));

  let mask224 = null;
  let maskDisplay = null;
  const positiveLabel = msg.mask?.positiveLabel ?? 0;
  if (msg.mask?.blob) {
    const m = await decodeBlob(msg.mask.blob, { allowResize: false });
    if (m.width !== img.width || m.height !== img.height) {
      throw new Error(`The mask is ${m.width}×${m.height} px but the photo ${img.width}×${img.height}.`);
    }
    const labels = new Uint8Array(m.width * m.height);
    for (let i = 0; i < labels.length; i++) labels[i] = m.rgba[4 * i];
    mask224 = L.core.preprocessMask(labels, m.width, m.height);
    maskDisplay = new Uint8ClampedArray(S * S * 4);
    for (let i = 0; i < S * S; i++) {
      const on = mask224[i] === positiveLabel;
      maskDisplay[4 * i] = on ? 255 : 0;
      maskDisplay[4 * i + 1] = on ? 255 : 0;
      maskDisplay[4 * i + 2] = on ? 255 : 0;
      maskDisplay[4 * i + 3] = 255;
    }
  }
  const imageId = newImageId();
  photo.current = { imageId, input, features, fh, fw, logits, probs, mask224, positiveLabel, engine, kept: new Map() };
  // the ImageLab keeps the photo: every map of it is made there and crosses once (image-maps.js)
  L.lab.setPhoto(input, features, fh, fw);
  L.lab.setMask(mask224, positiveLabel, POINTING_TOLERANCE);
  return {
    imageId,
    top5: top(L, probs),
    display: planarToRgba(input),
    width: img.width,
    height: img.height,
    notes: img.notes,
    hasMask: Boolean(mask224),
    maskDisplay,
    headCheck,
    engine,
    ep: L.ep,
    ms: performance.now() - t0,
  };
}

export const imageLab = {
  name: 'image',
  handlers: { 'image.load': loadHandler, 'image.session': { job: sessionJob }, 'image.classify': classify, ...mapHandlers, ...planHandlers },
};
