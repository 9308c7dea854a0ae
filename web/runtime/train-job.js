// train-job.js — one training run of the core's TextTraining (or AdversaryTraining: the same step /
// configJson / weights shape; docs/DESIGN.md "wasm module API"), as a loop of short steps so the worker can report
// progress, answer other requests and take a cancel between steps. No DOM, no worker globals.
//
// Contract:
//   runTrainingJob({ Module, trainTsv, devTsv, testTsv, options, createTrainer, run, pause, isCancelled,
//                    onProgress, targetMs = 400, now })
//     → Promise<{ status: 'done' | 'cancelled', progress, epochsDone, configText, weights }>
//   Module       the wasm module (Module.TextTraining).
//   createTrainer(Module, trainTsv, devTsv, options) → the started training object; default
//                new Module.TextTraining(trainTsv, devTsv, options). For an adversary:
//                (M, train, dev, o) => M.AdversaryTraining(baseLab, train, dev, o).
//   options      {attention, seed, epochs} (adversary: {lambda, seed, epochs, base}).
//   run(fn)      runs one core call (fn() → value) when the worker's queue gets to it; default: at once.
//   pause()      awaited between steps (a macrotask, so the worker's message handler can run); default
//                setTimeout 0.
//   isCancelled  checked before each step; true → stop there.
//   onProgress(p) after every step: the step's progress object ({epoch, epochs, batch, batches, train_loss,
//                epoch_done, dev?, best_epoch, done}) + seconds (since the start) + stage 'train'; once more
//                with stage 'test' before the test metrics are computed.
//   Steps hold ~targetMs of batches (measured on the steps so far, dev evaluations left out).
//   status 'done' after the last epoch; 'cancelled' when stopped early. configText (configJson(testTsv):
//   the best epoch's model with dev and test metrics) and weights (Uint8Array, F32 safetensors) are set when
//   at least one epoch finished, else null (a cancel in epoch 1 keeps nothing).
//   The core throws its messages (docs/DESIGN.md "one binding convention"): a training that cannot start
//   rejects with "Training could not start: …", a failing step or configJson() with "Training failed: …".
//   The training object is deleted in every case.

const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));
const clock = () => (globalThis.performance ?? Date).now();

// fn() → its value; a thrown core message becomes `${prefix}: message`.
async function coreCall(run, fn, prefix) {
  try {
    return await run(fn);
  } catch (e) {
    throw new Error(`${prefix}: ${e?.message ?? e}`);
  }
}

export async function runTrainingJob({
  Module, trainTsv, devTsv, testTsv = '', options, createTrainer = null, run = async (fn) => fn(), pause = macrotask,
  isCancelled = () => false, onProgress = () => {}, targetMs = 400, now = clock,
}) {
  if (!createTrainer && typeof Module?.TextTraining !== 'function') {
    throw new Error('This build of the WebAssembly core cannot train; rebuild it (bash scripts/build-wasm.sh).');
  }
  const make = createTrainer ?? ((M, train, dev, o) => new M.TextTraining(train, dev, o));
  const trainer = await coreCall(run, () => make(Module, String(trainTsv), String(devTsv), options ?? {}), 'Training could not start');
  try {
    const t0 = now();
    let perBatchMs = 0; // measured on steps without a dev evaluation
    let batchesMeasured = 0;
    let msMeasured = 0;
    let progress = null;
    let epochsDone = 0;
    let cancelled = false;
    for (;;) {
      if (isCancelled()) {
        cancelled = true;
        break;
      }
      const k = perBatchMs > 0 ? Math.max(1, Math.min(64, Math.round(targetMs / perBatchMs))) : 2;
      const started = now();
      progress = await coreCall(run, () => trainer.step(k), 'Training failed');
      const ms = now() - started;
      if (!progress.epoch_done) {
        batchesMeasured += k;
        msMeasured += ms;
        perBatchMs = msMeasured / batchesMeasured;
      } else epochsDone++;
      onProgress({ ...progress, seconds: (now() - t0) / 1000, stage: 'train' });
      if (progress.done) break;
      await pause();
    }
    if (epochsDone === 0 || !(progress?.best_epoch > 0)) {
      return { status: 'cancelled', progress, epochsDone, configText: null, weights: null };
    }
    onProgress({ ...progress, seconds: (now() - t0) / 1000, stage: 'test' });
    const configText = await coreCall(run, () => trainer.configJson(String(testTsv ?? '')), 'Training failed');
    const weights = await run(() => trainer.weights());
    if (!(weights instanceof Uint8Array) || weights.length === 0) throw new Error('The core returned no weights.');
    return { status: cancelled ? 'cancelled' : 'done', progress, epochsDone, configText, weights };
  } finally {
    try {
      trainer.delete();
    } catch {
      // the instance may have aborted; nothing left to free
    }
  }
}
