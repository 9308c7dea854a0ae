// plan-runner.js — the one loop that feeds a core perturbation plan (Score-CAM, RISE, occlusion, deletion,
// insertion, explanation mask; see docs/DESIGN.md "Image core API") to the network in batches. No DOM: used by
// the page's image worker (web/runtime/image-worker.js), the Node evaluation (scripts/eval-images.mjs) and the
// image benchmark alike.
//
// Contract:
//   runPlanLoop(plan, { batch, forward, isCancelled, onProgress, pause, inputSize }) → Promise<boolean>
//     plan: a core plan object (count(), inputs(start, n), accept(start, logits)).
//     forward(inputs: Float32Array [n·inputSize], n) → Promise<Float32Array logits [n·C]>.
//     onProgress(done, total): once with 0 before the first batch, then after every batch.
//     isCancelled(): checked before every batch → the loop stops and resolves false (the plan stays
//       unfinished); true when every input was accepted. pause(): awaited before every batch (default: a
//       macrotask, so a worker's queued 'cancel' message is handled even when the network resolves within
//       the microtask queue). inputSize defaults to 3·224·224; a plan giving another size is an error, as is
//       a bad batch size. accept() is always called in order: start = 0, b, 2b, …
//   yieldToEvents() → Promise resolved on the next macrotask.
export const INPUT_SIZE = 3 * 224 * 224;

export function yieldToEvents() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export async function runPlanLoop(plan, {
  batch, forward, isCancelled = () => false, onProgress = () => {}, pause = yieldToEvents, inputSize = INPUT_SIZE,
} = {}) {
  const total = plan.count();
  if (!(Number.isInteger(total) && total >= 0)) throw new Error(`The plan reports ${total} inputs.`);
  if (!(Number.isInteger(batch) && batch >= 1)) throw new Error(`Invalid batch size ${batch}.`);
  onProgress(0, total);
  for (let start = 0; start < total;) {
    await pause();
    if (isCancelled()) return false;
    const n = Math.min(batch, total - start);
    const input = plan.inputs(start, n);
    if (input.length !== n * inputSize) throw new Error(`The plan gave ${input.length} values for ${n} inputs.`);
    plan.accept(start, await forward(input, n));
    start += n;
    onProgress(start, total);
  }
  return true;
}
