// Browser benchmark (page script, not part of the app): median times of a 50-token forward and
// forward+backward in the wasm core, the same forward in ONNX Runtime Web's wasm EP (1 and 2 threads),
// and a plain GEMM through the core's kernel and through Eigen. Results go to window.__benchResults.
import createModule from '../gen/attnlab_core.mjs';

const params = new URLSearchParams(location.search);
const modelName = params.get('model') ?? 'sst2-tanh';
const runs = Number(params.get('runs') ?? 50);

function median(f, n) {
  for (let i = 0; i < 5; i++) f();
  const ts = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    f();
    ts.push(performance.now() - t);
  }
  ts.sort((a, b) => a - b);
  return ts[n >> 1];
}

async function medianAsync(f, n) {
  for (let i = 0; i < 5; i++) await f();
  const ts = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    ts.push(performance.now() - t);
  }
  ts.sort((a, b) => a - b);
  return ts[n >> 1];
}

async function main() {
  const base = `../../models/text/${modelName}/`;
  const [config, weights] = await Promise.all([
    fetch(base + 'config.json').then((r) => r.text()),
    fetch(base + 'model.safetensors').then((r) => r.arrayBuffer()),
  ]);
  const Module = await createModule();
  const session = new Module.TextLab(config, new Uint8Array(weights)); // throws the core's message
  // 50 tokens, all in the vocabulary.
  const vocab = JSON.parse(config).vocab;
  const tokens = Array.from({ length: 50 }, (_, i) => vocab[2 + ((i * 37) % 500)]);
  const text = tokens.join(' ');
  const results = { model: modelName, tokens: 50, crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency };
  results.core_forward_ms = median(() => session.predict(text), runs);
  results.core_forward_backward_ms = median(() => session.forwardBackward(text, 1), runs);
  results.core_explain_ms = median(() => session.explain(text, 200, 50), 5);
  const gemm = (eigen) => median(() => Module.gemmProbe(512, 128, 640, 1, eigen), 20);
  results.gemm_kernel_gflops = (2 * 512 * 128 * 640) / gemm(false) / 1e6;
  results.gemm_eigen_gflops = (2 * 512 * 128 * 640) / gemm(true) / 1e6;
  // FLOPs per token of the shipped BiLSTM (sst2-tanh's sizes); not meaningful for other encoders.
  if (JSON.parse(config).encoder !== 'transformer') results.core_forward_gflops = (50 * 590208) / results.core_forward_ms / 1e6;
  session.delete();

  const onnxResponse = await fetch('./model.onnx');
  if (onnxResponse.ok) {
    const ort = await import('../../vendor/ort/ort.wasm.min.mjs');
    ort.env.wasm.wasmPaths = new URL('../../vendor/ort/', location.href).href;
    const onnx = new Uint8Array(await onnxResponse.arrayBuffer());
    const index = new Map(vocab.map((w, i) => [w, i]));
    const ids = BigInt64Array.from(tokens.map((w) => BigInt(index.get(w) ?? 1)));
    for (const threads of [1, 2]) {
      ort.env.wasm.numThreads = threads;
      const s = await ort.InferenceSession.create(onnx, { executionProviders: ['wasm'] });
      const run = () => s.run({ token_ids: new ort.Tensor('int64', ids.slice(), [1, ids.length]) });
      results[`ort_wasm_${threads}t_forward_ms`] = await medianAsync(run, runs);
      await s.release();
    }
  }
  window.__benchResults = results;
  document.getElementById('status').textContent = 'done';
  const table = document.getElementById('results');
  for (const [k, v] of Object.entries(results)) {
    const row = table.insertRow();
    row.insertCell().textContent = k;
    row.insertCell().textContent = typeof v === 'number' ? v.toFixed(3) : String(v);
  }
}

main().catch((e) => {
  window.__benchResults = { error: String(e) };
  document.getElementById('status').textContent = `failed: ${e}`;
});
