// methods.js — what "Your model" offers (from the core's catalogue: catalogue.onnx and the image plans) and the
// words it uses for the input scalings. Part of views/own-model-view.js.
import { CATALOGUE } from '../../catalogue.js';
import { CORE_OPSETS } from '../../analysis/own-model.js';

const IMAGE_METHOD = Object.fromEntries(CATALOGUE.image.methods.map((m) => [m.name, m]));
// Maps on a user model: the executor's methods, then the image lab's perturbation plans that make a map.
export const OWN_METHODS = Object.freeze([
  ...CATALOGUE.onnx.methods.map((m) => ({ name: m.name, label: m.label, kind: m.kind, about: m.description, forwardOnly: m.forward_only })),
  ...CATALOGUE.onnx.plans.filter((p) => IMAGE_METHOD[p]?.kind === 'plan')
    .map((p) => ({ name: p, label: IMAGE_METHOD[p].label, kind: 'plan', about: IMAGE_METHOD[p].description })),
]);
export const METHOD = Object.fromEntries(OWN_METHODS.map((m) => [m.name, m]));
// A model that ONNX Runtime Web runs (engine 'ort': the core lacks an operator) has forward passes only: the
// perturbation maps that need no layer, and the attention methods that read one forward pass's attention
// (catalogue forward_only: the distributions the core finds are made graph outputs for ORT). The first of the
// perturbation maps stands in for a method the model cannot run.
export const ORT_METHODS = Object.freeze(['rise', 'occlusion']);
// The attention methods (kind 'attention': vision transformers) need attention the core found in the graph
// (summary.attention: one entry per layer).
export function methodAvailable(name, engine, attentionLayers = 0) {
  if (METHOD[name]?.kind === 'attention' && !(attentionLayers > 0)) return false;
  return engine !== 'ort' || ORT_METHODS.includes(name) || Boolean(METHOD[name]?.forwardOnly);
}
// Why a method is not offered for this model (the option's title).
export function unavailableWhy(name, engine) {
  const m = METHOD[name];
  if (m?.kind === 'attention' && engine !== 'ort') {
    return `${m.label} needs a transformer’s attention, and no attention was found in this model (a Softmax over the keys whose result multiplies the values)`;
  }
  const why = name === 'scorecam' ? 'Score-CAM needs a layer’s activations, which ONNX Runtime Web does not give here'
    : m?.kind === 'layer' ? `${m.label} needs a layer’s activations and gradients` : `${m?.label ?? name} needs the model’s gradients`;
  return `${why}, which the core cannot compute for this model`;
}
// The sentence under the summary of an ORT-run model: what the core lacks and what still runs.
export function engineSentence({ missing = [], opset = null, summary = null }) {
  const ops = missing; // 'Op (n)': the operator and its node count (summary.unsupported)
  const list = ops.length > 1 ? `${ops.slice(0, -1).join(', ')} and ${ops.at(-1)}` : ops[0];
  const why = ops.length ? `The core cannot run ${list}` : `The core runs opsets ${CORE_OPSETS.min}–${CORE_OPSETS.max}, this model uses opset ${opset}`;
  const layers = summary?.attention?.length ?? 0; // what ONNX Runtime returns as outputs (labs/own-model.js)
  const attention = layers ? `; so do the attention and rollout maps of its ${layers} attention layer${layers > 1 ? 's' : ''} (the core finds them, ONNX Runtime Web returns them)` : '';
  return `${why}, so gradients and CAMs are not available for this model (nor Score-CAM, AblationCAM and the sanity check); ` +
    `RISE, occlusion and the deletion / insertion / ROAD curves run through ONNX Runtime Web${attention}.`;
}
// The shipped MobileNetV2's 1,001 ImageNet labels (background first), for user models with 1,000 / 1,001 classes.
export const IMAGENET_LABELS = new URL('../../../models/image/labels.txt', import.meta.url);
export const sentence = (t) => (/[.!?]$/.test(t) ? t : `${t}.`);
export const SCALING_LABELS = {
  imagenet: 'ImageNet mean / std (torchvision)',
  unit: '0 … 1',
  signed: '−1 … 1',
  raw: '0 … 255',
};
export const SCALING_ABOUT = 'An ONNX file does not say how its pixels were scaled in training. torchvision’s ImageNet models expect ' +
  '(x / 255 − mean) / std with the ImageNet mean and std; Keras / TensorFlow ports often expect −1 … 1; some models take 0 … 1 or 0 … 255. ' +
  'A wrong choice still gives maps, but of a model that sees odd colours: check that the prediction makes sense.';
