// methods.js — what the Image view offers: the demo photos of web/images/ (two with a segmentation mask) and
// the explanation methods with their help text (the core's catalogue); FEATURE = the methods computed from the
// kept features (fast).
import { CATALOGUE } from '../../catalogue.js';
import { bytes } from '../../analysis/format.js';


export const GALLERY = Object.freeze([
  { name: 'cat', file: 'cat.png', title: 'Cat' },
  { name: 'bird', file: 'bird.png', title: 'Bird' },
  { name: 'dragonfly', file: 'dragonfly.png', title: 'Dragonfly' },
  { name: 'grace_hopper', file: 'grace_hopper.png', title: 'Grace Hopper' },
  { name: 'sunflower', file: 'sunflower.png', title: 'Sunflower' },
  { name: 'owl', file: 'owl.jpg', title: 'Owl' },
  { name: 'parrot', file: 'parrot.jpg', title: 'Parrot' },
  { name: 'hot_dog', file: 'hot_dog.jpg', title: 'Hot dog' },
  { name: 'dog_segmentation', file: 'dog_segmentation.png', mask: 'dog_segmentation_mask.png', positive: 0, object: 'the dog', title: 'Samoyed + mask' },
  { name: 'bird_segmentation', file: 'bird_segmentation.png', mask: 'bird_segmentation_mask.png', positive: 3, object: 'the bird', title: 'Bird + mask' },
]);

// A gallery button's picture: a 128 x 128 JPEG (scripts/make-thumbnails.py), not the full photo (≈ 5 KB vs ≈ 300 KB:
// a cold open fetched 2.9 MB of photos for ten 64-px buttons, beside the image worker's own requests).
export const thumbOf = (g) => `images/thumbs/${g.file.replace(/\.[a-z]+$/, '.jpg')}`;

// The map methods and their help text, parameters and pass counts: the core's catalogue (web/catalogue.js).
export const METHODS = Object.freeze(CATALOGUE.image.methods.filter((m) => m.kind !== 'metric').map((m) => Object.freeze({
  key: m.name, label: m.label, fast: m.kind === 'map', about: m.description, passes: m.passes, passesDefault: m.passes_default,
  params: Object.freeze(Object.fromEntries(m.params.map((p) => [p.name, p.default]))),
})));
export const METHOD = Object.fromEntries(METHODS.map((m) => [m.key, m]));
export const FEATURE = new Set(METHODS.filter((m) => m.fast).map((m) => m.key));

export function mb(b) {
  return bytes(b);
}
