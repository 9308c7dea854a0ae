// The pure helpers of the Text tab's "Your model" (web/analysis/own-text.js): which dropped files are the model, the
// tokenizer and config.json (Optimum / transformers.js folders, the llama2.c pair), what is refused before reading,
// token labels, and the sentence saying where a too-long text was cut (UTF-8 byte offsets → characters).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  sortModelFiles, pieceLabel, byteToChar, truncationText, taskText, attentionText, probabilityText, MAX_TEXT_MODEL_BYTES,
} from '../../web/analysis/own-text.js';

const f = (path, size = 100) => ({ name: path.split('/').pop(), path, size });

test('sortModelFiles: an Optimum / transformers.js folder, the llama2.c pair, and what is refused', () => {
  const optimum = [f('m/config.json'), f('m/tokenizer.json'), f('m/tokenizer_config.json'), f('m/special_tokens_map.json'),
    f('m/onnx/model_quantized.onnx'), f('m/onnx/model.onnx')];
  const a = sortModelFiles(optimum);
  assert.equal(a.why, '');
  assert.equal(a.model.path, 'm/onnx/model.onnx');
  assert.equal(a.tokenizer.name, 'tokenizer.json');
  assert.equal(a.config.name, 'config.json');
  assert.deepEqual(a.ignored.sort(), ['model_quantized.onnx', 'special_tokens_map.json', 'tokenizer_config.json']);

  const llama = sortModelFiles([f('tokenizer.bin'), f('model.onnx')]);
  assert.equal(llama.why, '');
  assert.equal(llama.tokenizer.name, 'tokenizer.bin');
  assert.equal(llama.config, null);
  assert.equal(sortModelFiles([f('tok512.bin'), f('stories.onnx')]).tokenizer.name, 'tok512.bin');

  const two = sortModelFiles([f('b.onnx'), f('a.onnx'), f('tokenizer.json')]);
  assert.equal(two.model.name, 'a.onnx');
  assert.match(two.notes.join(' '), /none named model\.onnx: a\.onnx is used/);

  assert.match(sortModelFiles([f('tokenizer.json')]).why, /No \.onnx model/);
  assert.match(sortModelFiles([f('model.onnx')]).why, /No tokenizer with model\.onnx/);
  assert.match(sortModelFiles([f('model.onnx', 500e6), f('tokenizer.json')]).why, /model\.onnx” is 477 MB; models up to 256 MB/);
  assert.match(sortModelFiles([f('model.onnx', 0), f('tokenizer.json')]).why, /is empty/);
  assert.match(sortModelFiles([f('model.onnx'), f('tokenizer.json', 0)]).why, /tokenizer\.json” is empty/);
  assert.equal(sortModelFiles([f('model.onnx', MAX_TEXT_MODEL_BYTES), f('tokenizer.json')]).why, '');
});

test('token labels, byte offsets, the cut sentence and the summary sentences', () => {
  assert.equal(pieceLabel('\n<s>\n'), '<s>');
  assert.equal(pieceLabel(' Once'), 'Once');
  assert.equal(pieceLabel('Ġworld'), 'world');
  assert.equal(pieceLabel(' '), '␣');
  assert.equal(pieceLabel('##ing'), '##ing');
  assert.equal(byteToChar('café au lait', 5), 4); // é is two bytes
  assert.equal(byteToChar('a😀b', 5), 3); // the emoji is 4 bytes, 2 UTF-16 units
  const text = 'Once upon a time, there was a café.';
  const s = truncationText({ kept: 512, total: 600, at_byte: 17, max_positions: 512, source: 'tried' }, text);
  assert.match(s, /at most 512 positions \(found by trying: a longer input fails\): only the first 512 of 600 tokens/);
  assert.match(s, /cut after “Once upon a time,”/);
  assert.match(truncationText({ kept: 8, total: 9, at_byte: null, max_positions: 8, source: 'config.json max_position_embeddings' }, text),
    /from config\.json max_position_embeddings/);
  assert.equal(truncationText(null, text), '');
  assert.match(taskText({ causal: true, outputs: 512 }), /causal language model .* 512/);
  assert.match(taskText({ causal: false, outputs: 2, labels: ['NEG', 'POS'] }), /2 outputs \(NEG, POS\)/);
  assert.match(attentionText({ layers: 5, heads: 8, attention_found: [{ softmax: 'S0' }] }), /5 layers × 8 heads/);
  assert.match(attentionText({ layers: 0, attention_note: 'no attention was found' }), /no attention was found/);
  assert.equal(probabilityText(0.3721), '37.2 %');
  assert.equal(probabilityText(0.00123), '0.12 %');
  assert.equal(probabilityText(1e-6), '< 0.01 %');
});
