#!/usr/bin/env node
// eval-images.mjs — `npm run eval:images`: the image lab's batch evaluation, the same pipeline as the page
// (ONNX Runtime Web's wasm EP runs models/image/mobilenet_v2.onnx; our wasm core does preprocessing, the
// GAP+linear head, every map, the perturbation plans and the metrics; web/runtime/plan-runner.js's runPlanLoop is the loop).
//
// Usage: npm run eval:images -- [--limit N] [--methods cam,gradcam,gradcampp,scorecam,rise,occlusion,random]
//          [--steps S] [--rise-n N] [--rise-cells C] [--rise-p P] [--occlusion-window W] [--occlusion-stride S]
//          [--samples S] [--ig-steps T] [--road] [--explain-limit E] [--heavy-limit H] [--batch B] [--threads T] [--seed S] [--data DIR] [--out F.json]
// Data: DIR/imagenet_samples (1000 photos, labels.tsv) and DIR/images (the demo photos with segmentation masks,
// for the pointing game); DIR defaults to ../shared/data. --limit N classifies N photos spread evenly over the
// 1000 classes (photo i·1000/N, i = 0…N−1), so a short run still covers the label space; the maps and their
// metrics run on E of them (default N, again spread evenly), and the costly methods (scorecam: 1280 passes, rise:
// --rise-n passes) on H (default E). Every method's row says its own n.
// Per photo: classify (top-1/top-5 against labels.tsv's coral_index); explain the predicted class with every
// method; deletion and insertion curves of each map (RISE protocol, S steps; deletion fills grey 128, the
// model-space zero; insertion starts from a σ=5 Gaussian blur), their AUC; average drop / increase in
// confidence (Score-CAM's protocol: the image multiplied by the normalised map); for cam/gradcam/gradcampp/random
// the sanity check (Spearman between the map and the map under a randomised classifier).
// Pointing game: on the demo photos that have masks (dog_segmentation, dog_segmentation_256: label 0 = pet;
// bird_segmentation: label 3 = bird), does the map's maximum fall on the object (15 px tolerance)?
// Output: progress on stderr; a markdown table and then, as the LAST line of stdout, one JSON object:
//   { n, top1, top5, steps, methods: { <m>: { deletion_auc, insertion_auc, average_drop, increase_in_confidence,
//     sanity_spearman?, pointing_game, pointing_n, seconds } }, pointing_game: { <m>: hits/n }, config }.
// --out F.json also writes the per-photo rows. Methods named onnx-<m> (m from catalogue.onnx: gradcam, gradcampp,
// hirescam, xgradcam, layercam, eigencam, gradient, smoothgrad, integrated-gradients) are made by the core's ONNX
// executor (the page's "Your model" path) at the default layer (the last spatial one); --samples / --ig-steps set
// SmoothGrad's samples and integrated gradients' steps (defaults: the catalogue's). --road adds ROAD (Rong et al.
// 2022, core/metrics/road.h: MoRF / LeRF at 10 … 90 %, noisy linear imputation): the mean probability of each.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as ort from 'onnxruntime-web';
import { decodeImageFile, readImagenetSamples } from './lib/image-files.mjs';
import { runPlanLoop } from '../web/runtime/plan-runner.js';
import { readImageHead } from '../web/runtime/image-head.js';
import { CATALOGUE } from '../web/catalogue.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ALL_METHODS = ['cam', 'gradcam', 'gradcampp', 'scorecam', 'rise', 'occlusion', 'random'];
// "Your model"'s methods, made by the core's own ONNX executor (Module.OnnxLab, forward + backward through the
// whole graph) on the same mobilenet_v2.onnx with its 0–255 input ('raw' scaling): onnx-gradcam … onnx-integrated-gradients.
const EXECUTOR_PREFIX = 'onnx-';
const EXECUTOR_METHODS = CATALOGUE.onnx.methods.map((m) => EXECUTOR_PREFIX + m.name);
const FEATURE_METHODS = new Set(['cam', 'gradcam', 'gradcampp', 'random']);
const SIZE = 224;

function fail(msg) {
  console.error(`eval-images: ${msg}`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = {
    limit: 1000, explainLimit: null, heavyLimit: null, methods: ALL_METHODS, steps: 50, riseN: 2000, riseCells: 7, riseP: 0.5,
    occWindow: 32, occStride: 16, batch: 16, threads: 2, seed: 1, samples: null, igSteps: null, road: false,
    data: path.resolve(ROOT, '../shared/data'), out: null,
  };
  const num = (name, v, { int = true, min = -Infinity, max = Infinity } = {}) => {
    const x = Number(v);
    if (!Number.isFinite(x) || (int && !Number.isInteger(x)) || x < min || x > max) fail(`--${name} ${v}: not valid`);
    return x;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    const take = () => { i++; if (v === undefined) fail(`${a} needs a value`); return v; };
    switch (a) {
      case '--limit': o.limit = num('limit', take(), { min: 1, max: 1000 }); break;
      case '--road': o.road = true; break;
      case '--samples': o.samples = num('samples', take(), { min: 1, max: 1000 }); break;
      case '--ig-steps': o.igSteps = num('ig-steps', take(), { min: 1, max: 1000 }); break;
      case '--explain-limit': o.explainLimit = num('explain-limit', take(), { min: 0, max: 1000 }); break;
      case '--heavy-limit': o.heavyLimit = num('heavy-limit', take(), { min: 0, max: 1000 }); break;
      case '--methods': {
        o.methods = take().split(',').map((s) => s.trim()).filter(Boolean);
        const known = [...ALL_METHODS, ...EXECUTOR_METHODS];
        const bad = o.methods.filter((m) => !known.includes(m));
        if (bad.length || !o.methods.length) fail(`--methods: unknown ${bad.join(',')} (known: ${known.join(',')})`);
        break;
      }
      case '--steps': o.steps = num('steps', take(), { min: 2, max: SIZE * SIZE }); break;
      case '--rise-n': o.riseN = num('rise-n', take(), { min: 1, max: 100000 }); break;
      case '--rise-cells': o.riseCells = num('rise-cells', take(), { min: 2, max: 112 }); break;
      case '--rise-p': o.riseP = num('rise-p', take(), { int: false, min: 0.01, max: 0.99 }); break;
      case '--occlusion-window': o.occWindow = num('occlusion-window', take(), { min: 1, max: SIZE }); break;
      case '--occlusion-stride': o.occStride = num('occlusion-stride', take(), { min: 1, max: SIZE }); break;
      case '--batch': o.batch = num('batch', take(), { min: 1, max: 256 }); break;
      case '--threads': o.threads = num('threads', take(), { min: 1, max: 64 }); break;
      case '--seed': o.seed = num('seed', take(), { min: 0, max: 2 ** 31 - 1 }); break;
      case '--data': o.data = path.resolve(take()); break;
      case '--out': o.out = path.resolve(take()); break;
      case '--help': case '-h':
        console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 23).join('\n'));
        process.exit(0);
        break;
      default: fail(`unknown argument ${a} (see --help)`);
    }
  }
  o.explainLimit = Math.min(o.explainLimit ?? o.limit, o.limit);
  o.heavyLimit = Math.min(o.heavyLimit ?? o.explainLimit, o.explainLimit);
  return o;
}
const HEAVY = new Set(['scorecam', 'rise']);
/** Indices of k items spread evenly over n (i·n/k), as a Set. */
const spread = (n, k) => new Set(Array.from({ length: k }, (_, i) => Math.floor((i * n) / k)));

async function loadCore() {
  const { default: createModule } = await import(pathToFileURL(path.join(ROOT, 'web/gen/attnlab_core.mjs')).href);
  return createModule({ wasmBinary: fs.readFileSync(path.join(ROOT, 'web/gen/attnlab_core.wasm')) });
}

const mean = (xs) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);
const round = (x, d = 4) => (x === null || x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);

function topK(logits, offset, C, k) {
  const idx = Array.from({ length: C }, (_, i) => i);
  const row = logits.subarray(offset, offset + C);
  idx.sort((a, b) => row[b] - row[a]);
  return idx.slice(0, k);
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const manifestFile = path.join(ROOT, 'models/image/manifest.json');
  if (!fs.existsSync(manifestFile)) fail('models/image/manifest.json is missing (see README: converting the model)');
  const entry = JSON.parse(fs.readFileSync(manifestFile, 'utf8')).models.find((m) => m.name === 'mobilenet_v2');
  if (!entry) fail('models/image/manifest.json has no mobilenet_v2');
  const modelDir = path.dirname(manifestFile);
  if (!fs.existsSync(path.join(ROOT, 'web/gen/attnlab_core.wasm'))) fail('web/gen/attnlab_core.wasm missing: bash scripts/build-wasm.sh');
  const samplesDir = path.join(o.data, 'imagenet_samples');
  if (!fs.existsSync(path.join(samplesDir, 'labels.tsv'))) fail(`${samplesDir}/labels.tsv not found (--data DIR)`);

  const core = await loadCore();
  const head = readImageHead(fs.readFileSync(path.join(modelDir, entry.files.head.path)));
  const { C, K } = head;
  const lab = new core.ImageLab(head.weight, head.bias, C, K);
  const randomLab = lab.randomized(o.seed);

  ort.env.wasm.numThreads = o.threads;
  const session = await ort.InferenceSession.create(fs.readFileSync(path.join(modelDir, entry.files.onnx.path)));
  const runNet = async (inputs, n) => {
    const r = await session.run({ image: new ort.Tensor('float32', inputs, [n, 3, SIZE, SIZE]) });
    return { logits: r.logits.data, features: r.features.data, fdims: r.features.dims };
  };
  const runBatch = async (inputs, n) => (await runNet(inputs, n)).logits;

  const timing = Object.fromEntries(o.methods.map((m) => [m, 0]));
  const executor = o.methods.some((m) => m.startsWith(EXECUTOR_PREFIX))
    ? new core.OnnxLab(new Uint8Array(fs.readFileSync(path.join(modelDir, entry.files.onnx.path)))) : null;
  const executorOptions = { ...(o.samples ? { samples: o.samples } : {}), ...(o.igSteps ? { steps: o.igSteps } : {}), seed: o.seed };
  // The map of `method` for `cls` on `image` (224×224, normalised to [0,1]) and the raw feature-resolution map.
  async function explain(method, image, features, h, w, cls, which = lab) {
    const t0 = performance.now();
    let map224;
    if (method.startsWith(EXECUTOR_PREFIX)) {
      executor.setPhoto(image, 'raw');
      const r = executor.explain(method.slice(EXECUTOR_PREFIX.length), 'auto', cls, executorOptions);
      map224 = core.upsampleMap(r.map, r.map_shape[0], r.map_shape[1], SIZE, SIZE);
    } else if (FEATURE_METHODS.has(method)) {
      const raw = which.map(method, features, h, w, cls, o.seed);
      map224 = core.upsampleMap(raw, h, w, SIZE, SIZE);
    } else {
      let plan;
      if (method === 'scorecam') plan = core.planScoreCam(image, features, h, w, cls);
      else if (method === 'rise') plan = core.planRise(image, cls, o.riseN, o.riseCells, o.riseP, o.seed);
      else plan = core.planOcclusion(image, cls, o.occWindow, o.occStride);
      try {
        await runPlanLoop(plan, { batch: o.batch, forward: runBatch });
        map224 = plan.result();
      } finally { plan.delete(); }
    }
    timing[method] += (performance.now() - t0) / 1000;
    return core.normalizeMap(map224);
  }
  async function curve(kind, image, map01, cls) {
    const plan = kind === 'deletion' ? core.planDeletion(image, map01, cls, o.steps)
      : kind === 'insertion' ? core.planInsertion(image, map01, cls, o.steps)
        : kind === 'morf' || kind === 'lerf' ? core.planRoad(image, map01, cls, kind, undefined, o.seed)
          : core.planExplanationMask(image, map01, cls);
    try {
      await runPlanLoop(plan, { batch: o.batch, forward: runBatch });
      return JSON.parse(plan.resultJson());
    } finally { plan.delete(); }
  }

  const samples = readImagenetSamples(o.data);
  const picked = Array.from({ length: o.limit }, (_, i) => samples[Math.floor((i * samples.length) / o.limit)]);
  const explainSet = spread(picked.length, o.explainLimit);
  const heavySet = new Set([...spread(explainSet.size, o.heavyLimit)].map((k) => [...explainSet].sort((a, b) => a - b)[k]));
  const rows = [];
  let top1 = 0;
  let top5 = 0;
  const t0 = performance.now();
  for (let i = 0; i < picked.length; i++) {
    const s = picked[i];
    const { rgba, width, height } = decodeImageFile(s.file);
    const image = core.preprocessImage(rgba, width, height);
    const net = await runNet(image, 1);
    const [, Kf, h, w] = net.fdims;
    if (Kf !== K) fail(`model features have ${Kf} channels, head expects ${K}`);
    const top = topK(net.logits, 0, C, 5);
    const pred = top[0];
    top1 += pred === s.coralIndex ? 1 : 0;
    top5 += top.includes(s.coralIndex) ? 1 : 0;
    const row = { file: s.name, label: s.coralIndex, pred, top5: top, methods: {} };
    for (const m of o.methods) {
      if (!explainSet.has(i) || (HEAVY.has(m) && !heavySet.has(i))) continue;
      const map01 = await explain(m, image, net.features, h, w, pred);
      const del = await curve('deletion', image, map01, pred);
      const ins = await curve('insertion', image, map01, pred);
      const em = await curve('mask', image, map01, pred);
      const r = { deletion_auc: del.auc, insertion_auc: ins.auc, original: em.original, masked: em.masked };
      if (o.road) {
        r.road_morf = (await curve('morf', image, map01, pred)).mean;
        r.road_lerf = (await curve('lerf', image, map01, pred)).mean;
      }
      if (FEATURE_METHODS.has(m)) {
        const rnd = core.normalizeMap(core.upsampleMap(randomLab.map(m, net.features, h, w, pred, o.seed), h, w, SIZE, SIZE));
        r.sanity_spearman = core.spearmanMaps(map01, rnd);
      }
      row.methods[m] = r;
    }
    rows.push(row);
    const el = (performance.now() - t0) / 1000;
    process.stderr.write(`\reval-images: ${i + 1}/${picked.length} photos, top-1 ${(top1 / (i + 1)).toFixed(3)}, ${el.toFixed(0)} s`);
  }
  process.stderr.write('\n');

  // Pointing game on the demo photos with masks.
  const imagesDir = path.join(o.data, 'images');
  const POINTING = [
    { image: 'dog_segmentation.png', mask: 'dog_segmentation_mask.png', label: 0 },
    { image: 'dog_segmentation_256.png', mask: 'dog_segmentation_mask_256.png', label: 0 },
    { image: 'bird_segmentation.png', mask: 'bird_segmentation_mask.png', label: 3 },
  ].filter((p) => fs.existsSync(path.join(imagesDir, p.image)) && fs.existsSync(path.join(imagesDir, p.mask)));
  const pointing = Object.fromEntries(o.methods.map((m) => [m, { hits: 0, n: 0 }]));
  const pointingRows = [];
  for (const p of POINTING) {
    const img = decodeImageFile(path.join(imagesDir, p.image));
    const msk = decodeImageFile(path.join(imagesDir, p.mask));
    const labels = new Uint8Array(msk.width * msk.height);
    for (let j = 0; j < labels.length; j++) labels[j] = msk.rgba[4 * j];
    const image = core.preprocessImage(img.rgba, img.width, img.height);
    const mask = core.preprocessMask(labels, msk.width, msk.height);
    const net = await runNet(image, 1);
    const [, , h, w] = net.fdims;
    const pred = topK(net.logits, 0, C, 1)[0];
    const prow = { image: p.image, pred, hits: {} };
    for (const m of o.methods) {
      const map01 = await explain(m, image, net.features, h, w, pred);
      const hit = Number(core.pointingGame(map01, mask, p.label, 15));
      pointing[m].hits += hit;
      pointing[m].n += 1;
      prow.hits[m] = hit;
    }
    pointingRows.push(prow);
  }

  const n = rows.length;
  const methods = {};
  for (const m of o.methods) {
    const rs = rows.map((r) => r.methods[m]).filter(Boolean);
    const drops = rs.map((r) => Math.max(0, r.original - r.masked) / r.original);
    methods[m] = {
      n: rs.length,
      deletion_auc: round(mean(rs.map((r) => r.deletion_auc))),
      insertion_auc: round(mean(rs.map((r) => r.insertion_auc))),
      average_drop: round(100 * mean(drops), 2),
      increase_in_confidence: round(100 * mean(rs.map((r) => (r.masked > r.original ? 1 : 0))), 2),
      ...(FEATURE_METHODS.has(m) ? { sanity_spearman: round(mean(rs.map((r) => r.sanity_spearman))) } : {}),
      ...(o.road ? { road_morf: round(mean(rs.map((r) => r.road_morf))), road_lerf: round(mean(rs.map((r) => r.road_lerf))) } : {}),
      pointing_game: pointing[m].n ? round(pointing[m].hits / pointing[m].n) : null,
      pointing_n: pointing[m].n,
      seconds_explaining: round(timing[m], 1),
    };
  }
  const summary = {
    n, top1: round(top1 / n), top5: round(top5 / n), steps: o.steps, methods,
    pointing_game: Object.fromEntries(o.methods.map((m) => [m, methods[m].pointing_game])),
    seconds: round((performance.now() - t0) / 1000, 1),
    config: {
      model: entry.files.onnx.path, sha256: entry.files.onnx.sha256, threads: o.threads, batch: o.batch,
      rise: { n: o.riseN, cells: o.riseCells, p: o.riseP }, occlusion: { window: o.occWindow, stride: o.occStride },
      seed: o.seed, photos: 'imagenet_samples, photo i·1000/n; maps on an evenly spread subset (methods.*.n)', target: 'the predicted class',
      deletion_fill: 'grey 128 (model-space zero)', insertion_start: 'Gaussian blur sigma 5',
    },
  };
  if (o.out) fs.writeFileSync(o.out, JSON.stringify({ summary, rows, pointing: pointingRows }, null, 1));

  console.log(`| method | n | deletion AUC ↓ | insertion AUC ↑ | avg drop % ↓ | increase % ↑ | sanity ρ | pointing |${o.road ? ' ROAD MoRF ↓ | ROAD LeRF ↑ |' : ''}`);
  console.log(`|---|---|---|---|---|---|---|---|${o.road ? '---|---|' : ''}`);
  for (const m of o.methods) {
    const r = methods[m];
    console.log(`| ${m} | ${r.n} | ${r.deletion_auc} | ${r.insertion_auc} | ${r.average_drop} | ${r.increase_in_confidence} | ${r.sanity_spearman ?? '—'} | ${pointing[m].hits}/${pointing[m].n} |${o.road ? ` ${r.road_morf} | ${r.road_lerf} |` : ''}`);
  }
  console.log(`n = ${n}, top-1 ${summary.top1}, top-5 ${summary.top5}, ${summary.seconds} s`);
  randomLab.delete();
  lab.delete();
  executor?.delete();
  console.log(JSON.stringify(summary));
}

main().catch((e) => { console.error(`eval-images: ${e.stack || e.message}`); process.exit(1); });
