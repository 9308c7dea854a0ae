// image-state.test.mjs — the Image view's URL fields in web/state.js: defaults, valid / invalid values,
// clamping, round trip.
import test from 'node:test';
import assert from 'node:assert/strict';
import { SCHEMA, defaults, parse, serialize } from '../../web/state.js';

test('image fields exist with their defaults', () => {
  const d = defaults();
  assert.equal(d.image, 'cat');
  assert.equal(d.method, 'cam');
  assert.equal(d.opacity, 50);
  assert.equal(d.colormap, 'viridis');
  assert.equal(d.backend, 'auto');
  assert.equal(d.target, -1);
  assert.equal(d.risen, 1000);
  assert.deepEqual([d.erasesteps, d.erasethr, d.erasefill], [3, 50, 'mean']);
  assert.deepEqual(SCHEMA.method.values, ['cam', 'gradcam', 'gradcampp', 'scorecam', 'rise', 'occlusion', 'random']);
});

test('a full image link round-trips', () => {
  const s = { ...defaults(), view: 'image', image: 'dog_segmentation', method: 'gradcampp', opacity: 70, colormap: 'inferno',
    backend: 'webgpu', target: 208, risen: 2000, seed: 7, erasesteps: 5, erasethr: 40, erasefill: 'blur' };
  const h = serialize(s);
  assert.deepEqual(parse(h), s);
});

test('invalid values fall back or clamp', () => {
  const s = parse('#view=image&method=lime&colormap=rainbow&backend=cuda&opacity=250&target=-5&risen=10&erasesteps=99&erasefill=pink');
  assert.equal(s.method, 'cam');
  assert.equal(s.colormap, 'viridis');
  assert.equal(s.backend, 'auto');
  assert.equal(s.opacity, 100);
  assert.equal(s.target, -1);
  assert.equal(s.risen, 50);
  assert.equal(s.erasesteps, 8);
  assert.equal(s.erasefill, 'mean');
  assert.equal(parse('#opacity=abc').opacity, 50);
});

test('defaults stay out of the link', () => {
  assert.equal(serialize({ ...defaults(), view: 'image' }), '#view=image');
});
