// ONNX Runtime Web (wasm EP, one thread, Node) forward time of ONNX models, for the core-vs-ORT ratio in
// docs/BENCHMARKS.md ("ONNX executor"). Usage: node tests/bench/bench-onnx-ort.mjs MODEL.onnx[:SIZE] ...
// (input: the model's first input, [1,3,SIZE,SIZE], default 224; values (k·37+11) mod 256 / 255).
// Prints one JSON line per model: {model, runs, median_ms, min_ms}.
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';

ort.env.wasm.numThreads = 1;
const runs = Number(process.env.RUNS || 20);
for (const arg of process.argv.slice(2)) {
  const [path, sizeText] = arg.split(':');
  const size = Number(sizeText || 224);
  const session = await ort.InferenceSession.create(readFileSync(path), { executionProviders: ['wasm'] });
  const x = new Float32Array(3 * size * size);
  for (let k = 0; k < x.length; ++k) x[k] = ((k * 37 + 11) % 256) / 255;
  const feeds = () => ({ [session.inputNames[0]]: new ort.Tensor('float32', x.slice(), [1, 3, size, size]) });
  for (let k = 0; k < 3; ++k) await session.run(feeds());
  const times = [];
  for (let k = 0; k < runs; ++k) {
    const t0 = performance.now();
    await session.run(feeds());
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ model: path, size, runs, median_ms: times[runs >> 1], min_ms: times[0] }));
}
