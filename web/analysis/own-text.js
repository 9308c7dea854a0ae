// own-text.js — pure helpers of the Text tab's "Your model" (views/own-text-view.js). No DOM.
//
// Contract:
//   MAX_TEXT_MODEL_BYTES  256 MiB: the core's ONNX reader limit (onnx::ReaderLimits), checked before a file is read
//   MAX_SIDE_FILE_BYTES   64 MiB: tokenizer.json / tokenizer.bin / config.json (the core's tokenizer limit)
//   sortModelFiles(files) → { model, tokenizer, config, ignored: [name], why: '' | what is missing or too large }
//     files: [{ name, size, path? }] (File objects, or a folder's entries with their relative path). The model is
//     model.onnx when there is one, else the only .onnx (a folder of several, e.g. Optimum's model.onnx +
//     model_quantized.onnx, takes model.onnx; several and none named so: the first by path, said in `notes`);
//     the tokenizer is tokenizer.json, else tokenizer.bin / tok*.bin (llama2.c); config.json is optional.
//     Also returns notes: [sentences] about choices made.
//   pieceLabel(token) → the token as a cell shows it: llama2.c's "\n<s>\n" → "<s>", byte-level BPE's Ġ / Ċ → space /
//     ↵, a leading space kept as the visible "␣" only when the token is nothing else
//   byteToChar(text, byteOffset) → the JS string index of a UTF-8 byte offset into text
//   truncationText(truncated, text) → '' | a sentence saying where a too-long text was cut
//   taskText(info) → a sentence: what kind of model it is and what is explained
//   attentionText(info) → a sentence: the attention found (layers × heads) or why there is none
//   probabilityText(p) → "37.2 %" (two significant decimals below 1 %)
import { bytes as sizeText } from './format.js';

export const MAX_TEXT_MODEL_BYTES = 256 * 1024 * 1024;
export const MAX_SIDE_FILE_BYTES = 64 * 1024 * 1024;

const base = (f) => String(f.path || f.webkitRelativePath || f.name || '').split('/').pop();
const full = (f) => String(f.path || f.webkitRelativePath || f.name || '');

export function sortModelFiles(files) {
  const list = [...(files ?? [])].filter(Boolean);
  const notes = [];
  const onnx = list.filter((f) => /\.onnx$/i.test(base(f))).sort((a, b) => (full(a) < full(b) ? -1 : 1));
  let model = onnx.find((f) => base(f).toLowerCase() === 'model.onnx') ?? null;
  if (!model && onnx.length) {
    model = onnx[0];
    if (onnx.length > 1) notes.push(`Several .onnx files and none named model.onnx: ${base(model)} is used.`);
  }
  const tokenizer = list.find((f) => base(f).toLowerCase() === 'tokenizer.json') ??
    list.find((f) => /^(tokenizer|tok\d*)\.bin$/i.test(base(f))) ?? null;
  const config = list.find((f) => base(f).toLowerCase() === 'config.json') ?? null;
  const used = new Set([model, tokenizer, config].filter(Boolean));
  const ignored = list.filter((f) => !used.has(f)).map(base);
  let why = '';
  if (!model) why = 'No .onnx model among the files: choose model.onnx with its tokenizer (tokenizer.json, or tokenizer.bin for a llama2.c model).';
  else if (!tokenizer) why = `No tokenizer with ${base(model)}: add tokenizer.json (Hugging Face) or tokenizer.bin (llama2.c) — the model alone cannot read text.`;
  else if (!model.size) why = `“${base(model)}” is empty.`;
  else if (model.size > MAX_TEXT_MODEL_BYTES) why = `“${base(model)}” is ${sizeText(model.size)}; models up to ${sizeText(MAX_TEXT_MODEL_BYTES)} can be explained in the browser.`;
  else {
    for (const f of [tokenizer, config].filter(Boolean)) {
      if (!f.size) why ||= `“${base(f)}” is empty.`;
      else if (f.size > MAX_SIDE_FILE_BYTES) why ||= `“${base(f)}” is ${sizeText(f.size)}; at most ${sizeText(MAX_SIDE_FILE_BYTES)} are read.`;
    }
  }
  return { model, tokenizer, config, ignored, notes, why };
}

export function pieceLabel(token) {
  let t = String(token ?? '');
  if (/^\n?<\/?s>\n?$/.test(t)) return t.trim();
  t = t.replace(/Ġ/g, ' ').replace(/Ċ/g, '↵').replace(/\n/g, '↵');
  if (!t.trim()) return t.length ? '␣'.repeat(Math.min(t.length, 3)) : '∅';
  return t.trim();
}

export function byteToChar(text, byteOffset) {
  const s = String(text ?? '');
  let bytes = 0;
  let i = 0;
  while (i < s.length && bytes < byteOffset) {
    const cp = s.codePointAt(i);
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp > 0xffff ? 2 : 1;
  }
  return i;
}

export function truncationText(truncated, text) {
  if (!truncated) return '';
  const { kept, total, at_byte: at, max_positions: max, source } = truncated;
  const how = source === 'tried' ? 'found by trying: a longer input fails' : `from ${source}`;
  let where = '';
  if (Number.isInteger(at) && text) {
    const i = byteToChar(text, at);
    const tail = text.slice(Math.max(0, i - 30), i);
    where = ` — the text is cut after “${i > 30 ? '…' : ''}${tail}”`;
  }
  return `This model reads at most ${max} positions (${how}): only the first ${kept} of ${total} tokens are explained${where}.`;
}

export function taskText(info) {
  if (!info) return '';
  if (info.causal) {
    return `A causal language model (logits over a vocabulary of ${info.outputs}): the explained “class” is the next token, at the last position.`;
  }
  const labels = Array.isArray(info.labels) && info.labels.length ? ` (${info.labels.slice(0, 6).join(', ')}${info.labels.length > 6 ? ', …' : ''})` : '';
  return `A classifier with ${info.outputs} output${info.outputs === 1 ? '' : 's'}${labels}: the explained class is the predicted one unless you pick another.`;
}

export function attentionText(info) {
  if (!info) return '';
  if (!info.layers) return info.attention_note || 'No attention was found in this model.';
  return `Attention found in the graph, not declared: ${info.layers} layer${info.layers === 1 ? '' : 's'} × ${info.heads} head${info.heads === 1 ? '' : 's'} ` +
    `(a Softmax over the keys whose output multiplies the values; first: ${info.attention_found[0].softmax}).`;
}

export function probabilityText(p) {
  if (!Number.isFinite(p)) return 'n/a';
  const v = 100 * p;
  return `${v >= 1 ? v.toFixed(1) : v >= 0.01 ? v.toFixed(2) : '< 0.01'} %`;
}
