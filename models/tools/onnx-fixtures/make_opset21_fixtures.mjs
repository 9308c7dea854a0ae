// make_opset21_fixtures.mjs — the core's opsets 19–21 (issue 28: what newer exporters emit) checked against ONNX Runtime
// Web (wasm EP, Node, 1 thread): small graphs built here with onnx-proto, their ORT outputs on fixed inputs written
// beside them. tests/core/test_onnx_opset21.cpp runs the same graphs in the executor and compares.
//   gelu_none.onnx  opset 20: Gelu (approximate "none", the default) on x [2, 3, 7]
//   gelu_tanh.onnx  opset 20: Gelu (approximate "tanh") on the same x
//   mlp_block.onnx  opset 21 (IR 10): LayerNormalization → MatMul + bias → Gelu (tanh) → MatMul + bias → Cast (FLOAT,
//                   saturate 1: opset 19's attribute) → + x, on x [1, 4, 8] — a transformer's feed-forward block
// Inputs and weights are deterministic: v[k] = 3 · sin(0.37 k + phase) (weights scaled to ±0.5).
// Output: tests/fixtures/onnx/opset21/{*.onnx, ort.json} ({source, cases: {name: {shape, input, output}}}).
// Run: node models/tools/onnx-fixtures/make_opset21_fixtures.mjs
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import onnxPkg from 'onnx-proto';
import { node, valueInfo } from '../onnx-builder.mjs';

const { onnx } = onnxPkg;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const OUT = path.resolve(import.meta.dirname, '../../../tests/fixtures/onnx/opset21');
ort.env.wasm.numThreads = 1;

const wave = (n, phase, scale = 3) => Array.from({ length: n }, (_, k) => Math.fround(scale * Math.sin(0.37 * k + phase)));
const init = (name, dims, values) => onnx.TensorProto.create({ name, dims, dataType: FLOAT, floatData: values });

function model(opset, nodes, inits, xShape, yShape) {
  return onnx.ModelProto.create({
    irVersion: 10, producerName: 'attnlab make_opset21_fixtures', opsetImport: [{ domain: '', version: opset }],
    graph: {
      name: 'g', node: nodes, initializer: inits,
      input: [valueInfo('x', FLOAT, xShape)], output: [valueInfo('y', FLOAT, yShape)],
    },
  });
}

const D = 8, H = 16;
const cases = {
  gelu_none: { m: model(20, [node('Gelu', ['x'], ['y'])], [], [2, 3, 7], [2, 3, 7]), shape: [2, 3, 7] },
  gelu_tanh: { m: model(20, [node('Gelu', ['x'], ['y'], { approximate: 'tanh' })], [], [2, 3, 7], [2, 3, 7]), shape: [2, 3, 7] },
  mlp_block: {
    m: model(21, [
      node('LayerNormalization', ['x', 'ln_w', 'ln_b'], ['n'], { axis: -1, epsilon: 1e-5 }),
      node('MatMul', ['n', 'w1'], ['h0']), node('Add', ['h0', 'b1'], ['h1']),
      node('Gelu', ['h1'], ['g'], { approximate: 'tanh' }),
      node('MatMul', ['g', 'w2'], ['o0']), node('Add', ['o0', 'b2'], ['o1']),
      node('Cast', ['o1'], ['o2'], { to: FLOAT, saturate: 1 }),
      node('Add', ['o2', 'x'], ['y']),
    ], [
      init('ln_w', [D], wave(D, 0.3, 0.5).map((v) => Math.fround(1 + v))), init('ln_b', [D], wave(D, 1.1, 0.5)),
      init('w1', [D, H], wave(D * H, 0.7, 0.5)), init('b1', [H], wave(H, 2.0, 0.5)),
      init('w2', [H, D], wave(H * D, 1.9, 0.5)), init('b2', [D], wave(D, 2.6, 0.5)),
    ], [1, 4, D], [1, 4, D]),
    shape: [1, 4, D],
  },
};

const out = { source: `onnxruntime-web ${ort.env.versions?.web ?? ''} wasm EP, 1 thread`, cases: {} };
for (const [name, { m, shape }] of Object.entries(cases)) {
  const bytes = onnx.ModelProto.encode(m).finish();
  fs.writeFileSync(path.join(OUT, `${name}.onnx`), bytes);
  const input = wave(shape.reduce((a, b) => a * b, 1), 0.0);
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  const r = await session.run({ x: new ort.Tensor('float32', Float32Array.from(input), shape) });
  out.cases[name] = { shape, input, output: Array.from(r.y.data) };
  console.log(name, 'opset', m.opsetImport[0].version, 'outputs', r.y.data.length);
}
fs.writeFileSync(path.join(OUT, 'ort.json'), `${JSON.stringify(out)}\n`);
