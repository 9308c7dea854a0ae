import fs from 'node:fs';
import path from 'node:path';
import { ROOT, loadCore } from '../node/parity-lib.mjs';
const M = await loadCore();
M.setThreadCount?.(1);
const TEXT = 'Once upon a time, there was a little girl named Lily who loved to play in the park with her red ball. ';
for (const [name, dir, tokFile] of [['stories260K', 'models/text/stories260K', 'tokenizer.bin'], ['gpt2-sst2', 'tests/fixtures/onnx-text/gpt2-sst2', 'tokenizer.json']]) {
  const read = (f) => new Uint8Array(fs.readFileSync(path.join(ROOT, dir, f)));
  const config = fs.existsSync(path.join(ROOT, dir, 'config.json')) ? fs.readFileSync(path.join(ROOT, dir, 'config.json'), 'utf8') : '';
  const lab = new M.OnnxTextLab(read('model.onnx'), read(tokFile), config, { tokenizerName: tokFile });
  const ids = lab.tokenize(TEXT.repeat(3), false).ids.slice(0, 50);
  const e = lab.explainIds(ids, 'next', { leaveOneOut: false, attentionLayers: false });
  const ts = [], te = [];
  for (let k = 0; k < 8; ++k) {
    let t0 = performance.now();
    lab.leaveOneOut(ids, e.target, e.probability, 0, ids.length);
    ts.push(performance.now() - t0);
    t0 = performance.now();
    lab.explainIds(ids, 'next', { leaveOneOut: true, attentionLayers: false });
    te.push(performance.now() - t0);
  }
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1].toFixed(1);
  console.log(name, 'loo', med(ts), 'explain+loo', med(te));
  lab.delete?.();
}
