// plan-runner.js — the one loop that feeds a core perturbation plan (Score-CAM, RISE, occlusion, deletion,
// insertion, explanation mask; see docs/DESIGN.md "Image core API") to the network in batches. No DOM: used by
// the page's image worker and by the Node evaluation (scripts/eval-images.mjs) alike.
//
// Contract:
//   runPlan(plan, runBatch, { batch = 16, onProgress, signal }) → Promise<{ passes, batches }>
//     plan: a core plan object (count(), inputs(start, n), accept(start, logits), done()).
//     runBatch(inputs: Float32Array [n·3·224·224], n) → Promise<Float32Array logits [n·C]> (a fresh tensor
//       per call is the caller's business; the inputs array is not reused after the call).
//     onProgress({ done, total }) after every batch; signal (AbortSignal): checked before every batch, an
//     aborted run rejects with an Error whose name is 'AbortError' and leaves the plan unfinished.
//   A plan whose count() is 0 resolves at once. accept() is always called in order, start = 0, b, 2b, …
export async function runPlan(plan, runBatch, { batch = 16, onProgress, signal } = {}) {
  const total = plan.count();
  if (!Number.isInteger(batch) || batch < 1) throw new Error(`runPlan: batch must be a positive integer, got ${batch}`);
  let done = 0;
  let batches = 0;
  while (done < total) {
    if (signal?.aborted) {
      const e = new Error('cancelled');
      e.name = 'AbortError';
      throw e;
    }
    const n = Math.min(batch, total - done);
    const inputs = plan.inputs(done, n);
    const logits = await runBatch(inputs, n);
    plan.accept(done, logits);
    done += n;
    batches += 1;
    onProgress?.({ done, total });
  }
  if (!plan.done()) throw new Error(`runPlan: the plan is not done after ${total} inputs`);
  return { passes: total, batches };
}
