// catalogue.js — GENERATED from the WebAssembly core's Module.catalogue() (core/catalogue; the same as
// `build/attnlab catalogue`). Do not edit: tests/js/catalogue.test.mjs fails when it differs from the core and
// rewrites it with ATTNLAB_WRITE_CATALOGUE=1 node --test tests/js/catalogue.test.mjs.
export const CATALOGUE = Object.freeze({
 "format": "attnlab-catalogue-v1",
 "text": {
  "explain": [
   {
    "name": "max_tokens",
    "type": "int",
    "default": 200,
    "description": "",
    "min": 1,
    "max": 100000
   },
   {
    "name": "ig_steps",
    "type": "int",
    "default": 50,
    "description": "",
    "min": 0,
    "max": 10000
   }
  ],
  "methods": [],
  "class_names": [
   "negative",
   "positive"
  ],
  "training": [],
  "adversary": []
 },
 "experiments": [],
 "image": {
  "methods": [
   {
    "name": "cam",
    "label": "CAM",
    "kind": "map",
    "description": "Class activation map (Zhou et al. 2016): the classifier weights of the class times the last feature maps.",
    "passes": "0",
    "params": [],
    "passes_default": 0
   },
   {
    "name": "gradcam",
    "label": "Grad-CAM",
    "kind": "map",
    "description": "Grad-CAM: feature maps weighted by the mean gradient of the class score. With a GAP + linear head it equals CAM up to a positive scale.",
    "passes": "0",
    "params": [],
    "passes_default": 0
   },
   {
    "name": "gradcampp",
    "label": "Grad-CAM++",
    "kind": "map",
    "description": "Grad-CAM++: higher-order weighting of positive gradients.",
    "passes": "0",
    "params": [],
    "passes_default": 0
   },
   {
    "name": "scorecam",
    "label": "Score-CAM",
    "kind": "plan",
    "description": "Score-CAM: one masked forward pass per feature channel; weights = the class probability of each masked photo.",
    "passes": "K (one per feature channel)",
    "params": [],
    "passes_default": 1280
   },
   {
    "name": "rise",
    "label": "RISE",
    "kind": "plan",
    "description": "RISE: N random cells×cells masks, upsampled; the map is the probability-weighted mean of the masks.",
    "passes": "n",
    "params": [
     {
      "name": "n",
      "type": "int",
      "default": 1000,
      "description": "number of random masks",
      "min": 50,
      "max": 8000
     },
     {
      "name": "cells",
      "type": "int",
      "default": 7,
      "description": "mask grid cells per side",
      "min": 1,
      "max": 224
     },
     {
      "name": "p",
      "type": "number",
      "default": 0.5,
      "description": "probability that a cell is kept",
      "min": 0.01,
      "max": 1
     },
     {
      "name": "seed",
      "type": "int",
      "default": 1,
      "description": "seed of the masks",
      "min": 0,
      "max": 2147483647
     }
    ],
    "passes_default": 1000
   },
   {
    "name": "occlusion",
    "label": "Occlusion",
    "kind": "plan",
    "description": "Occlusion: a grey window-px square slides with the stride; the map is the mean drop in probability.",
    "passes": "1 + ((224 − window) / stride + 1)²",
    "params": [
     {
      "name": "window",
      "type": "int",
      "default": 32,
      "description": "square side in pixels",
      "min": 1,
      "max": 224
     },
     {
      "name": "stride",
      "type": "int",
      "default": 16,
      "description": "step in pixels",
      "min": 1,
      "max": 224
     }
    ],
    "passes_default": 170
   },
   {
    "name": "random",
    "label": "Random",
    "kind": "map",
    "description": "A random map (seeded) — the baseline every method must beat.",
    "passes": "0",
    "params": [],
    "passes_default": 0
   },
   {
    "name": "deletion",
    "label": "Deletion curve",
    "kind": "metric",
    "description": "",
    "passes": "steps + 1",
    "params": [
     {
      "name": "steps",
      "type": "int",
      "default": 50,
      "description": "points of the curve after the first",
      "min": 1,
      "max": 50176
     }
    ],
    "passes_default": 51
   },
   {
    "name": "insertion",
    "label": "Insertion curve",
    "kind": "metric",
    "description": "",
    "passes": "steps + 1",
    "params": [
     {
      "name": "steps",
      "type": "int",
      "default": 50,
      "description": "points of the curve after the first",
      "min": 1,
      "max": 50176
     }
    ],
    "passes_default": 51
   },
   {
    "name": "explanationMask",
    "label": "Explanation as a mask",
    "kind": "metric",
    "description": "",
    "passes": "2",
    "params": [],
    "passes_default": 2
   }
  ],
  "feature_methods": [
   "cam",
   "gradcam",
   "gradcampp",
   "random"
  ],
  "colormaps": [
   "viridis",
   "inferno",
   "gray",
   "jet"
  ],
  "erase_fills": [
   "mean",
   "blur",
   "grey"
  ],
  "default_channels": 1280
 },
 "cnn": {
  "options": [],
  "recipes": {
   "full": {
    "label": "full (64×64, 16/32/64, 8,000 images per epoch, SGD — the CLI default; slow here)",
    "imageSize": 64,
    "widths": [
     16,
     32,
     64
    ],
    "trainSize": 8000,
    "valSize": 500,
    "optimizer": "sgd",
    "lr": 0.05
   },
   "page": {
    "label": "page (32×32, 4 stages 8/16/32/64, 8×8 maps, 4,000 images per epoch, Adam)",
    "imageSize": 32,
    "widths": [
     8,
     16,
     32,
     64
    ],
    "pool": [
     true,
     true,
     false,
     false
    ],
    "trainSize": 4000,
    "valSize": 500,
    "optimizer": "adam",
    "lr": 0.003
   },
   "tiny": {
    "label": "tiny (32×32, 8/16/32, 256 images per epoch — a quick look)",
    "imageSize": 32,
    "widths": [
     8,
     16,
     32
    ],
    "trainSize": 256,
    "valSize": 100,
    "optimizer": "adam",
    "lr": 0.003
   }
  },
  "default_recipe": "page",
  "class_names": [
   "circle",
   "square",
   "triangle",
   "cross",
   "ring"
  ]
 }
});
