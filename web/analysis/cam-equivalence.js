// cam-equivalence.js — the two identities the CAM lessons teach, read off one photo's numbers. Pure: no DOM, no
// worker; the runtime passes the maps it holds, the views show the result.
// For a GAP + linear head (Zhou et al. 2016): logit_c = mean over the h·w positions of the raw class map
// cam_c = Σ_k W[c,k] F_k (before pooling, not normalised) + b_c; and Grad-CAM at the last layer is
// ReLU(cam_c) · 1/(h·w) (the gradient of logit_c w.r.t. F_k is W[c,k]/(h·w) at every position).
//
// Contract:
//   camEquivalence({ cam, bias, logit, gradcam?, hw? }) →
//     { logit, camMean, bias, camPlusBias, difference (camPlusBias − logit), positions,
//       gradcam?: { scale, expected, maxDeviation, positive } }
//     cam: the raw class map [h·w] (array-like of numbers); bias, logit: numbers; gradcam: the Grad-CAM map
//     [h·w] of the same class. scale is the least-squares factor s in gradcam ≈ s · ReLU(cam) over the positions
//     where cam > 0 (positive: how many); maxDeviation = max over all positions of |gradcam − s·ReLU(cam)|
//     divided by s·max(cam) (0 when they are proportional); expected = 1/(h·w) (hw defaults to cam.length).
//     Throws an Error on empty or mismatched maps or non-finite numbers.
//   formatEquivalence(e, digits = 4) → { logit, camPlusBias, line, scaleLine? } (the text the views show; a
//     negative bias is written “− |b|”)

function finite(x, what) {
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`camEquivalence: ${what} must be a finite number, got ${x}`);
  return x;
}

export function camEquivalence({ cam, bias, logit, gradcam = null, hw = null }) {
  if (!cam || !cam.length) throw new Error('camEquivalence: the class map is empty');
  finite(bias, 'bias');
  finite(logit, 'logit');
  let sum = 0;
  let max = -Infinity;
  for (let i = 0; i < cam.length; i++) {
    finite(cam[i], `cam[${i}]`);
    sum += cam[i];
    max = Math.max(max, cam[i]);
  }
  const camMean = sum / cam.length;
  const out = { logit, camMean, bias, camPlusBias: camMean + bias, difference: camMean + bias - logit, positions: cam.length };
  if (gradcam) {
    if (gradcam.length !== cam.length) throw new Error(`camEquivalence: Grad-CAM has ${gradcam.length} positions, CAM ${cam.length}`);
    let gc = 0;
    let cc = 0;
    let positive = 0;
    for (let i = 0; i < cam.length; i++) {
      finite(gradcam[i], `gradcam[${i}]`);
      if (cam[i] > 0) {
        gc += gradcam[i] * cam[i];
        cc += cam[i] * cam[i];
        positive++;
      }
    }
    const scale = cc > 0 ? gc / cc : NaN;
    let dev = 0;
    for (let i = 0; i < cam.length; i++) dev = Math.max(dev, Math.abs(gradcam[i] - scale * Math.max(0, cam[i])));
    out.gradcam = {
      scale,
      expected: 1 / (hw ?? cam.length),
      maxDeviation: cc > 0 && max > 0 ? dev / (scale * max) : NaN,
      positive,
    };
  }
  return out;
}

export function formatEquivalence(e, digits = 4) {
  const logit = e.logit.toFixed(digits);
  const camPlusBias = e.camPlusBias.toFixed(digits);
  const r = {
    logit,
    camPlusBias,
    line: `class score (logit) = ${logit}; mean of CAM + bias = ${e.camMean.toFixed(digits)} ` +
      `${e.bias < 0 ? '−' : '+'} ${Math.abs(e.bias).toFixed(digits)} = ${camPlusBias}`,
  };
  if (e.gradcam && Number.isFinite(e.gradcam.scale)) {
    const n = Math.round(1 / e.gradcam.expected);
    // 4 significant digits and no exponent notation: the page shows no raw numbers (tests/e2e/screens.test.mjs).
    const dev = e.gradcam.maxDeviation * 100;
    const devText = !Number.isFinite(dev) ? 'n/a' : dev < 0.01 ? 'below 0.01 %' : `${dev.toFixed(2)} %`;
    r.scaleLine = `Grad-CAM = ${e.gradcam.scale.toPrecision(4)} × ReLU(CAM) (1/${n} = ${e.gradcam.expected.toPrecision(4)}: ` +
      `1 over the ${n} positions; largest deviation ${devText} of the peak)`;
  }
  return r;
}

//   probeEquivalences(probes) → [camEquivalence(...) per probe image] for the Localization lab's probes
//     ({n, cam: {h, w, data [n·h·w]}, logits [n], biases [n]}; the true class's raw CAM, logit and bias);
//     [] when the probes carry no logits (an older core).
export function probeEquivalences(probes) {
  const { n, cam, logits, biases } = probes ?? {};
  if (!cam || !Array.isArray(logits) || !Array.isArray(biases)) return [];
  const hw = cam.h * cam.w;
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push(camEquivalence({ cam: cam.data.subarray(i * hw, (i + 1) * hw), bias: biases[i], logit: logits[i] }));
  }
  return out;
}
