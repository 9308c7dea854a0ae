// plan-runner.test.mjs — the batch loop shared by the image worker and the Node evaluation.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runPlan } from '../../web/runtime/plan-runner.js';

// A fake plan: input i is the single number i; the result is the sum of the "logits" it was given.
function fakePlan(total) {
  const seen = [];
  return {
    seen,
    count: () => total,
    inputs: (start, n) => Float32Array.from({ length: n }, (_, j) => start + j),
    accept: (start, logits) => { for (let j = 0; j < logits.length; j++) seen.push([start + j, logits[j]]); },
    done: () => seen.length === total,
  };
}
const doubler = async (inputs) => inputs.map((x) => 2 * x);

test('feeds every input once, in order, whatever the batch size', async () => {
  for (const batch of [1, 3, 7, 10, 64]) {
    const plan = fakePlan(10);
    const progress = [];
    const r = await runPlan(plan, doubler, { batch, onProgress: (p) => progress.push(p.done) });
    assert.deepEqual(plan.seen, Array.from({ length: 10 }, (_, i) => [i, 2 * i]));
    assert.equal(r.passes, 10);
    assert.equal(r.batches, Math.ceil(10 / batch));
    assert.equal(progress.at(-1), 10);
    assert.ok(progress.every((d, i) => i === 0 || d > progress[i - 1]));
  }
});

test('an empty plan resolves at once', async () => {
  const r = await runPlan(fakePlan(0), doubler);
  assert.equal(r.passes, 0);
});

test('cancel stops between batches with an AbortError', async () => {
  const plan = fakePlan(20);
  const ac = new AbortController();
  await assert.rejects(
    runPlan(plan, doubler, { batch: 4, onProgress: ({ done }) => { if (done >= 8) ac.abort(); }, signal: ac.signal }),
    (e) => e.name === 'AbortError',
  );
  assert.equal(plan.seen.length, 8);
});

test('a bad batch size or an unfinished plan is an error', async () => {
  await assert.rejects(runPlan(fakePlan(3), doubler, { batch: 0 }), /batch/);
  const liar = { ...fakePlan(3), done: () => false };
  await assert.rejects(runPlan(liar, doubler), /not done/);
});
