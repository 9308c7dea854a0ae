// worker.js — the one worker script of the lab runtime: the host (host.js) with every lab's handlers. The page
// starts it through a WorkerChannel (runtime/lab-runtime.js); a data-set run starts more of it (runtime/pool.js).
// A new lab adds its handler module to LABS — nothing else.
import { startHost } from './host.js';
import { loadCore } from './core.js';
import { meterOn, meterWorker } from './meter.js';
import { textLab } from '../labs/text.js';
import { experimentsLab } from '../labs/experiments.js';
import { trainLab } from '../labs/train.js';
import { imageLab } from '../labs/image.js';
import { localizationLab } from '../labs/localization.js';
import { ownModelLab } from '../labs/own-model.js';
import { ownTextLab } from '../labs/own-text.js';
import { documentsLab } from '../labs/documents.js';
import { globalViewLab } from '../labs/global-view.js';
import { runtimeLab } from '../labs/runtime.js';

export const LABS = [textLab, experimentsLab, trainLab, imageLab, localizationLab, ownModelLab, ownTextLab, documentsLab, globalViewLab, runtimeLab];

if (meterOn()) meterWorker(); // measurement only (meter.js)
startHost(LABS);
loadCore().catch(() => {}); // start compiling the core at once; errors surface with the first request
