// ONNX Runtime Web (wasm EP, Node) logits of models/image/mobilenet_v2.onnx on a fixed synthetic input
// x[k] = (k · 37 + 11) mod 256 ([1,3,224,224], the model's 0–255 input) → tests/fixtures/onnx/mobilenet_v2_ort.json
// Run: node models/tools/onnx-fixtures/ort_reference.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';

const root = new URL('../../../', import.meta.url);
ort.env.wasm.numThreads = 1;
const bytes = readFileSync(new URL('models/image/mobilenet_v2.onnx', root));
const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
const x = new Float32Array(3 * 224 * 224);
for (let k = 0; k < x.length; ++k) x[k] = (k * 37 + 11) % 256;
const out = await session.run({ image: new ort.Tensor('float32', x, [1, 3, 224, 224]) });
const logits = Array.from(out.logits.data);
writeFileSync(new URL('tests/fixtures/onnx/mobilenet_v2_ort.json', root),
  JSON.stringify({ source: 'onnxruntime-web ' + ort.env.versions?.web + ' wasm EP, 1 thread', input: '(k*37+11) mod 256', logits }) + '\n');
console.log('logits', logits.length, 'top', logits.indexOf(Math.max(...logits)));
