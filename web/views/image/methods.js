// methods.js — what the Image view offers: the demo photos of web/images/ (two with a segmentation mask) and
// the explanation methods with their help text; FEATURE = the methods computed from the kept features (fast).

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

export const METHODS = Object.freeze([
  { key: 'cam', label: 'CAM', fast: true, about: 'Class activation map (Zhou et al. 2016): the classifier weights of the class times the last feature maps.' },
  { key: 'gradcam', label: 'Grad-CAM', fast: true, about: 'Grad-CAM: feature maps weighted by the mean gradient of the class score. With a GAP + linear head it equals CAM up to a positive scale.' },
  { key: 'gradcampp', label: 'Grad-CAM++', fast: true, about: 'Grad-CAM++: higher-order weighting of positive gradients.' },
  { key: 'scorecam', label: 'Score-CAM', fast: false, about: 'Score-CAM: one masked forward pass per feature channel (1,280); weights = the class probability of each masked photo.' },
  { key: 'rise', label: 'RISE', fast: false, about: 'RISE: N random 7×7 masks, upsampled; the map is the probability-weighted mean of the masks.' },
  { key: 'occlusion', label: 'Occlusion', fast: false, about: 'Occlusion: a grey 32-px square slides with stride 16; the map is the mean drop in probability.' },
  { key: 'random', label: 'Random', fast: true, about: 'A random map (seeded) — the baseline every method must beat.' },
]);
export const METHOD = Object.fromEntries(METHODS.map((m) => [m.key, m]));
export const FEATURE = new Set(['cam', 'gradcam', 'gradcampp', 'random']);
export const CURVE_STEPS = 50;

export function mb(b) {
  return `${(b / 1048576).toFixed(1)} MB`;
}
