// equivalence.js — the Image view's CAM identity line for the current photo and class: ONNX Runtime's class
// score beside the mean of the core's raw CAM plus the bias, and Grad-CAM's factor to ReLU(CAM)
// (analysis/cam-equivalence.js; the numbers come from runtime/labs/image-maps.js, image.equivalence). Part of
// views/image-view.js (installEquivalence(v) adds renderEquivalence to v). #image-equivalence carries
// data-cls, data-logit, data-cam-plus-bias (the shown strings), data-scale and data-expected.
import { el } from '../../render/dom.js';
import { formatEquivalence } from '../../analysis/cam-equivalence.js';

export function installEquivalence(v) {
  const box = v.section.querySelector('#image-equivalence');
  let seq = 0;
  async function renderEquivalence() {
    if (!box || !v.photo) return;
    const p = v.photo;
    const c = v.classIndex;
    const mine = ++seq;
    let r;
    try {
      r = await v.client.equivalence({ imageId: p.res.imageId, classIndex: c });
    } catch (e) {
      if (mine === seq) box.replaceChildren(el('span', 'point-miss', `CAM identity not available: ${e.message}`));
      return;
    }
    if (mine !== seq || p !== v.photo || c !== v.classIndex) return;
    const f = formatEquivalence(r);
    box.dataset.cls = String(c);
    box.dataset.source = r.source;
    box.dataset.logit = f.logit;
    box.dataset.camPlusBias = f.camPlusBias;
    box.dataset.scale = r.gradcam ? String(r.gradcam.scale) : '';
    box.dataset.expected = r.gradcam ? String(r.gradcam.expected) : '';
    const parts = [
      el('strong', null, `CAM = the pooled score, for “${v.labelOf(c)}”: `),
      el('span', 'equiv-line', f.line),
      el('span', 'chart-caption', ` (the logit from ${r.source === 'core' ? 'the core’s ONNX executor running the MobileNetV2 graph (this photo was classified while ONNX Runtime was starting)' : 'ONNX Runtime’s MobileNetV2 graph'}; the CAM from the core’s head, on the ` +
        `${r.h} × ${r.w} feature map before pooling, not normalised, with the head file’s bias).`),
    ];
    if (f.scaleLine) parts.push(el('br'), el('span', 'equiv-scale', f.scaleLine), el('span', 'chart-caption', ' — the same map up to a positive factor, so the same picture after min–max.'));
    box.replaceChildren(...parts);
  }
  Object.assign(v, { renderEquivalence });
}
