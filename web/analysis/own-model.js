// own-model.js — pure helpers of the "Your model" panel: labels from a text file, the graph summary as facts,
// whether the model fixes its input size, and the file checks done before anything is read. No DOM.
//
// Contract:
//   MAX_MODEL_BYTES (200 MiB: the file is copied into the worker and into the wasm heap, which holds 2 GiB)
//   checkModelFile({ name, size }) → '' or why the file is refused (empty, too large)
//   looksLikeOnnx(firstBytes Uint8Array) → false for bytes that cannot start an ONNX model (most text, images,
//     zip, safetensors): a quick message before the worker reads it; the core's reader has the last word
//   parseLabels(text, classes) → { labels: string[classes], note }: one label per non-empty line (trimmed); fewer
//     lines than classes → the rest named "class k"; more → the first `classes`; a 1001-line ImageNet file
//     (its first line "background") on a 1000-class model drops that line. note says what was done ('' if exact).
//   defaultLabels(classes) → ["class 0", …]
//   symbolicSize(summary) → true when the input's H or W is not a fixed number (the page then asks for a size)
//   summaryFacts(summary, { name, bytes, engine = 'core', attention = true }) → [{ label, value }] for display (file, producer, opset,
//     input, output, classes, parameters, nodes, operators by count, and an image model's attention unless attention
//     is false: the text view says a text model's own)
//   CORE_OPSETS {min, max}: the default-domain opsets the core's executor runs (core/onnx/executor.h, through the
//   catalogue)
//   textModelWhy(summary) → the message for a text model (onnx-info kind 'text') chosen on the Images tab: which tab
//     takes it
//   imageInput(summary, inputSize = 0) → { ok: true, name, C, H, W, batchFree } | { ok: false, why }: whether the
//     graph's input is a photo's: the checks of OnnxClassifier::load and model_input.h, read from the onnx-info
//     summary (for a model the core cannot load, whose summary has no input_shape). A symbolic C is 3, a symbolic
//     H / W is inputSize (else 224); batchFree: the batch dimension is symbolic (plans may run several at once).
//     why, for an input that is not an image: "it expects INT64 [1, 64] (input ‘x’), not an image …".
//   coreGaps(summary) → { missing: ['Op (n)', …], opset: N | null (outside CORE_OPSETS) }: what keeps the core's
//     executor from running an image classifier that ONNX Runtime Web may still run (labs/own-model.js, engine 'ort')
import { bytes } from './format.js';
import { CATALOGUE } from '../catalogue.js';

export const MAX_MODEL_BYTES = 200 * 1024 * 1024;

const mib = (n) => bytes(n);

export function checkModelFile({ name, size }) {
  if (!size) return `“${name}” is empty.`;
  if (size > MAX_MODEL_BYTES) return `“${name}” is ${mib(size)}; models up to ${mib(MAX_MODEL_BYTES)} can be explained in the browser.`;
  return '';
}

// The first byte of a serialised ModelProto is the tag of its lowest-numbered field present (serialisers write
// fields in number order): ir_version 1 (varint), producer_name 2, producer_version 3, domain 4 (bytes),
// model_version 5 (varint), doc_string 6, graph 7, opset_import 8, metadata_props 14 (bytes).
const MODEL_FIRST_TAGS = new Set([0x08, 0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42, 0x72]);

export function looksLikeOnnx(b) {
  return Boolean(b && b.length >= 2 && MODEL_FIRST_TAGS.has(b[0]));
}

export function defaultLabels(classes) {
  return Array.from({ length: classes }, (_, k) => `class ${k}`);
}

export function parseLabels(text, classes) {
  let lines = String(text).split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  let note = '';
  if (lines.length === classes + 1 && /^background$/i.test(lines[0])) {
    lines = lines.slice(1);
    note = 'The first line (“background”) was dropped: the model has one class fewer than the file.';
  }
  const labels = defaultLabels(classes).map((d, k) => (k < lines.length ? lines[k].slice(0, 200) : d));
  if (lines.length < classes) note = `The labels file has ${lines.length} lines for ${classes} classes; the others are named “class k”.`;
  else if (lines.length > classes) note = `The labels file has ${lines.length} lines for ${classes} classes; the first ${classes} are used.`;
  return { labels, note };
}

export function symbolicSize(summary) {
  const shape = summary?.inputs?.[0]?.shape ?? [];
  return shape.length === 4 && (typeof shape[2] !== 'number' || typeof shape[3] !== 'number');
}

const shapeText = (s) => `[${(s ?? []).join(', ')}]`;

export function summaryFacts(summary, { name, bytes, engine = 'core', attention: sayAttention = true }) {
  const ops = Object.entries(summary.operators ?? {}).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const facts = [
    { label: 'File', value: `${name} (${mib(bytes)})` },
    { label: 'Producer', value: (summary.producer ?? '').trim() || 'not stated' },
    { label: 'Opset', value: Object.entries(summary.opsets ?? {}).map(([d, v]) => `${d} ${v}`).join(', ') || 'not stated' },
    { label: 'Inputs', value: (summary.inputs ?? []).map((v) => `${v.name} ${v.type} ${shapeText(v.shape)}`).join('; ') },
    { label: 'Outputs', value: (summary.outputs ?? []).map((v) => `${v.name} ${v.type} ${shapeText(v.shape)}`).join('; ') },
  ];
  if (summary.classes) facts.push({ label: 'Classes', value: String(summary.classes) });
  facts.push(
    { label: 'Parameters', value: Number(summary.parameters ?? 0).toLocaleString('en') },
    { label: 'Nodes', value: `${summary.nodes} (${ops.length} operator types)` },
    { label: 'Operators', value: ops.map(([op, n]) => `${op} ${n}`).join(', ') },
  );
  const layers = summary.spatial_layers ?? [];
  if (layers.length) {
    // a ViT's token layers (read as a grid of patches) are counted apart from the 4-D feature maps
    const tokens = layers.filter((l) => l.class_tokens > 0).length;
    const maps = layers.length - tokens;
    const parts = [maps ? `${maps} feature map${maps === 1 ? '' : 's'}` : '', tokens ? `${tokens} token layer${tokens === 1 ? '' : 's'} read as a patch grid` : ''].filter(Boolean);
    facts.push({ label: 'Spatial layers', value: `${parts.join(' and ')} (the default CAM layer: ${summary.auto_layer})` });
  }
  const attention = summary.attention?.length ?? 0;
  if (attention > 0 && sayAttention) {
    const methods = engine === 'ort' ? 'attention and rollout (run by ONNX Runtime Web)' : 'attention, rollout, Chefer relevance, AttnLRP and CP-LRP';
    facts.push({ label: 'Attention', value: `${attention} layer${attention === 1 ? '' : 's'} (a transformer: ${methods} map it over its patches)` });
  }
  return facts;
}

export const CORE_OPSETS = Object.freeze({ min: CATALOGUE.onnx.opsets[0], max: CATALOGUE.onnx.opsets[1] });

const IMAGE_INPUT = 'an image classifier takes one FLOAT input [1, C, H, W] with C = 1 or 3';

export function imageInput(summary, inputSize = 0) {
  const inputs = summary?.inputs ?? [];
  if (inputs.length !== 1) return { ok: false, why: `an image classifier needs exactly one graph input, this model has ${inputs.length}` };
  const { name, type, shape = [] } = inputs[0];
  const expects = `it expects ${type} ${shapeText(shape)} (input ‘${name}’), not an image: ${IMAGE_INPUT}`;
  if (type !== 'FLOAT') return { ok: false, why: expects };
  if (shape.length !== 0 && shape.length !== 4) return { ok: false, why: expects };
  const fixed = (d) => typeof d === 'number' && d > 0;
  const [n, c, h, w] = shape.length ? shape : ['N', 'C', 'H', 'W'];
  if (fixed(n) && n > 1) return { ok: false, why: `input batch ${n}: only batch 1 or a symbolic batch is supported` };
  if (fixed(c) && c !== 1 && c !== 3) return { ok: false, why: expects };
  const side = inputSize > 0 ? inputSize : 224;
  const H = fixed(h) ? h : side;
  const W = fixed(w) ? w : side;
  if (H !== W) return { ok: false, why: `photos are resized to a square input; this model wants ${H}×${W}` };
  return { ok: true, name, C: fixed(c) ? c : 3, H, W, batchFree: !fixed(n) };
}

export function textModelWhy(summary) {
  const ids = (summary?.inputs ?? []).find((i) => /INT/.test(i.type ?? ''));
  const reads = ids ? ` (it reads token ids: input ‘${ids.name}’)` : '';
  return `This is a text model${reads}, not an image classifier: open it on the Text tab under “Your model”, with its tokenizer.`;
}

export function coreGaps(summary) {
  const v = summary?.opsets?.['ai.onnx'];
  const opset = typeof v === 'number' ? v : 0;
  return {
    missing: [...(summary?.unsupported ?? [])],
    opset: opset < CORE_OPSETS.min || opset > CORE_OPSETS.max ? opset : null,
  };
}
