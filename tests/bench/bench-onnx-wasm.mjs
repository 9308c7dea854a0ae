// "Your model" speed in Node, one process, one thread each, interleaved rounds (this machine is shared and noisy,
// so ratios from one run): ONNX Runtime Web 1.30's wasm EP forward vs the wasm core's executor (web/gen OnnxLab):
// its forward (logitsOf, the input scaling included) and one Grad-CAM end to end at the default layer (forward +
// backward + map: OnnxLab.explain, what own.map runs in the page's worker, minus the worker message).
// Usage: RUNS=15 node tests/bench/bench-onnx-wasm.mjs MODEL.onnx ...   (input: the cat photo, web/images/cat.png;
// the page's 224² crop, resized by the core to the model's size; ORT gets the same model-space tensor).
// Prints one JSON line per model: {model, runs, ort_ms, core_forward_ms, core_gradcam_ms, forward_ratio, gradcam_per_ort}.
import fs from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import * as ort from 'onnxruntime-web';
import { ROOT, loadCore } from '../node/parity-lib.mjs';

ort.env.wasm.numThreads = 1;
const runs = Number(process.env.RUNS || 15);
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const M = await loadCore();
const png = PNG.sync.read(fs.readFileSync(path.join(ROOT, 'web/images/cat.png')));
const planar = M.preprocessImage(new Uint8Array(png.data), png.width, png.height);

for (const file of process.argv.slice(2)) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const lab = new M.OnnxLab(bytes);
  const [, C, H, W] = lab.info().input_shape;
  lab.setPhoto(planar, 'imagenet');
  // the model-space tensor ORT gets: the same scaling as the core's (core/image/model_input.h), done here in JS
  const x = new Float32Array(C * H * W);
  const resized = M.upsampleMap(planar.subarray(0, 224 * 224), 224, 224, H, W); // one plane at a time
  const mean = [0.485, 0.456, 0.406], sd = [0.229, 0.224, 0.225];
  for (let c = 0; c < C; c++) {
    const plane = c === 0 ? resized : M.upsampleMap(planar.subarray(c * 224 * 224, (c + 1) * 224 * 224), 224, 224, H, W);
    for (let p = 0; p < H * W; p++) x[c * H * W + p] = (plane[p] / 255 - mean[c]) / sd[c];
  }
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const feeds = () => ({ [session.inputNames[0]]: new ort.Tensor('float32', x.slice(), [1, C, H, W]) });
  const t = { ort: [], fwd: [], cam: [] };
  let maxDiff = 0;
  for (let k = 0; k < runs + 2; k++) {
    let t0 = performance.now();
    const out = await session.run(feeds());
    const tOrt = performance.now() - t0;
    t0 = performance.now();
    const logits = lab.logitsOf(planar, 1);
    const tFwd = performance.now() - t0;
    t0 = performance.now();
    lab.explain('gradcam');
    const tCam = performance.now() - t0;
    const ortLogits = out[session.outputNames.at(-1)].data;
    for (let i = 0; i < logits.length; i++) maxDiff = Math.max(maxDiff, Math.abs(logits[i] - ortLogits[i]));
    if (k < 2) continue; // warm-up
    t.ort.push(tOrt);
    t.fwd.push(tFwd);
    t.cam.push(tCam);
  }
  const r = { ort: median(t.ort), fwd: median(t.fwd), cam: median(t.cam) };
  console.log(JSON.stringify({
    model: path.relative(ROOT, path.resolve(file)), input: [C, H, W], runs, max_logit_diff_vs_ort: maxDiff,
    ort_ms: +r.ort.toFixed(2), core_forward_ms: +r.fwd.toFixed(2), core_gradcam_ms: +r.cam.toFixed(2),
    forward_ratio_core_over_ort: +(r.fwd / r.ort).toFixed(2), gradcam_per_ort_forward: +(r.cam / r.ort).toFixed(2),
  }));
  lab.delete();
  await session.release?.();
}
