// catalogue.js — GENERATED from the WebAssembly core's Module.catalogue() (core/catalogue; the same as
// `build/attnlab catalogue`). Do not edit: tests/js/catalogue.test.mjs fails when it differs from the core and
// rewrites it with ATTNLAB_WRITE_CATALOGUE=1 node --test tests/js/catalogue.test.mjs.
export const CATALOGUE = Object.freeze({
 "cnn": {
  "class_names": [
   "circle",
   "square",
   "triangle",
   "cross",
   "ring"
  ],
  "default_recipe": "page",
  "options": [
   {
    "default": "gap",
    "description": "pooling head",
    "name": "head",
    "type": "string",
    "values": [
     "gap",
     "gmp",
     "lse"
    ]
   },
   {
    "default": 5,
    "description": "log-sum-exp sharpness r",
    "max": 1000,
    "min": 0.001,
    "name": "lseR",
    "type": "number"
   },
   {
    "default": "none",
    "description": "CBAM placement: none, all, stageN or a comma list",
    "name": "cbam",
    "type": "string"
   },
   {
    "default": 0,
    "description": "P(background kind == class) in training",
    "max": 1,
    "min": 0,
    "name": "confounder",
    "type": "number"
   },
   {
    "default": 1,
    "description": "initial weights, data and batch order",
    "max": 2147483647,
    "min": 0,
    "name": "seed",
    "type": "number"
   },
   {
    "default": 8,
    "description": "training epochs",
    "max": 200,
    "min": 1,
    "name": "epochs",
    "type": "int"
   },
   {
    "default": 64,
    "description": "image side in pixels",
    "max": 128,
    "min": 16,
    "name": "imageSize",
    "type": "int"
   },
   {
    "default": 5,
    "description": "number of shape classes",
    "max": 5,
    "min": 2,
    "name": "classes",
    "type": "int"
   },
   {
    "default": 4,
    "description": "CBAM channel reduction",
    "max": 64,
    "min": 1,
    "name": "cbamReduction",
    "type": "int"
   },
   {
    "default": [
     16,
     32,
     64
    ],
    "description": "channels per stage (pooling after every stage but the last)",
    "max": 256,
    "min": 1,
    "name": "widths",
    "type": "int_list"
   },
   {
    "default": [
     true,
     true,
     false
    ],
    "description": "2×2 max pool after each stage",
    "name": "pool",
    "type": "bool_list"
   },
   {
    "default": 8000,
    "description": "training images per epoch",
    "max": 1000000,
    "min": 1,
    "name": "trainSize",
    "type": "int"
   },
   {
    "default": 500,
    "description": "validation images",
    "max": 100000,
    "min": 1,
    "name": "valSize",
    "type": "int"
   },
   {
    "default": 32,
    "description": "batch size",
    "max": 1024,
    "min": 1,
    "name": "batchSize",
    "type": "int"
   },
   {
    "default": "sgd",
    "description": "optimizer",
    "name": "optimizer",
    "type": "string",
    "values": [
     "sgd",
     "adam"
    ]
   },
   {
    "default": 0.05,
    "description": "learning rate",
    "max": 10,
    "min": 0,
    "name": "lr",
    "type": "number"
   },
   {
    "default": 0.9,
    "description": "SGD momentum",
    "max": 1,
    "min": 0,
    "name": "momentum",
    "type": "number"
   },
   {
    "default": 0.0005,
    "description": "weight decay",
    "max": 1,
    "min": 0,
    "name": "weightDecay",
    "type": "number"
   },
   {
    "default": 0.1,
    "description": "background texture contrast",
    "max": 1,
    "min": 0,
    "name": "textureContrast",
    "type": "number"
   },
   {
    "default": 6,
    "description": "probe images whose maps are shown",
    "max": 16,
    "min": 1,
    "name": "probes",
    "type": "int"
   },
   {
    "default": 500,
    "description": "images of metrics()",
    "max": 100000,
    "min": 1,
    "name": "testSize",
    "type": "int"
   }
  ],
  "recipes": {
   "full": {
    "imageSize": 64,
    "label": "full (64×64, 16/32/64, 8,000 images per epoch, SGD — the CLI default; slow here)",
    "lr": 0.05,
    "optimizer": "sgd",
    "trainSize": 8000,
    "valSize": 500,
    "widths": [
     16,
     32,
     64
    ]
   },
   "page": {
    "imageSize": 32,
    "label": "page (32×32, 4 stages 8/16/32/64, 8×8 maps, 4,000 images per epoch, Adam)",
    "lr": 0.003,
    "optimizer": "adam",
    "pool": [
     true,
     true,
     false,
     false
    ],
    "trainSize": 4000,
    "valSize": 500,
    "widths": [
     8,
     16,
     32,
     64
    ]
   },
   "tiny": {
    "imageSize": 32,
    "label": "tiny (32×32, 8/16/32, 256 images per epoch — a quick look)",
    "lr": 0.003,
    "optimizer": "adam",
    "trainSize": 256,
    "valSize": 100,
    "widths": [
     8,
     16,
     32
    ]
   }
  }
 },
 "experiments": [
  {
   "description": "Kendall tau between attention (and each further reading of the model) and gradient / leave-one-out importance, per instance (Jain & Wallace 4.1)",
   "name": "kendall",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": 1,
     "description": "also the model's further readings (integrated gradients; a transformer's rollout, flow, relevance, AttnLRP, CP-LRP, value zeroing, ALTI, ...) in attention's place (1) or attention alone (0)",
     "max": 1,
     "min": 0,
     "name": "readings",
     "type": "int"
    },
    {
     "default": 50,
     "description": "integrated-gradients steps",
     "max": 10000,
     "min": 1,
     "name": "ig_steps",
     "type": "int"
    }
   ],
   "per_instance": true
  },
  {
   "description": "Output change when the attention weights are randomly permuted (Jain & Wallace)",
   "name": "permutation",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 2,
    "other_models": false
   },
   "params": [
    {
     "default": 100,
     "description": "random permutations of the attention",
     "max": 10000,
     "min": 1,
     "name": "permutations",
     "type": "int"
    }
   ],
   "per_instance": true
  },
  {
   "description": "Jain & Wallace adversarial attention: max JSD from the model's attention with the output within eps",
   "name": "adversarial",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 2,
    "other_models": false
   },
   "params": [
    {
     "default": 5,
     "description": "adversarial attention distributions searched together (K)",
     "max": 50,
     "min": 1,
     "name": "candidates",
     "type": "int"
    },
    {
     "default": 500,
     "description": "Adam steps of the search",
     "max": 100000,
     "min": 1,
     "name": "steps",
     "type": "int"
    },
    {
     "default": 0.01,
     "description": "Adam learning rate of the search",
     "max": 10,
     "min": 0.000001,
     "name": "lr",
     "type": "number"
    },
    {
     "default": 0.01,
     "description": "largest allowed output change (TVD)",
     "max": 1,
     "min": 0,
     "name": "epsilon",
     "type": "number"
    }
   ],
   "per_instance": true
  },
  {
   "description": "Erase the highest attention weight vs a random one: JS divergence and decision flips (Serrano & Smith 4)",
   "name": "erase-max",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 2,
    "other_models": false
   },
   "params": [],
   "per_instance": true
  },
  {
   "description": "Fraction of attention weights erased, by ranking, until the decision flips (Serrano & Smith 5)",
   "name": "erase-until-flip",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 2,
    "other_models": false
   },
   "params": [
    {
     "default": 1,
     "description": "also the model's further readings (integrated gradients; a transformer's rollout, flow, relevance, AttnLRP, CP-LRP, value zeroing, ALTI, ...) in attention's place (1) or attention alone (0)",
     "max": 1,
     "min": 0,
     "name": "readings",
     "type": "int"
    },
    {
     "default": 50,
     "description": "integrated-gradients steps",
     "max": 10000,
     "min": 1,
     "name": "ig_steps",
     "type": "int"
    }
   ],
   "per_instance": true
  },
  {
   "description": "ERASER comprehensiveness (higher = more faithful) and sufficiency (lower = more faithful) of the top 1/5/10/20/50 % tokens by attention, gradient, leave-one-out, integrated gradients (a transformer: also rollout, flow, Chefer relevance, attention x gradient, attention norm, AttnLRP, CP-LRP, value zeroing, ALTI) and random, with AOPC (DeYoung et al. 2020)",
   "name": "eraser",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": 50,
     "description": "integrated-gradients steps",
     "max": 10000,
     "min": 1,
     "name": "ig_steps",
     "type": "int"
    },
    {
     "default": "magnitude",
     "description": "how a signed measure (integrated gradients, AttnLRP, CP-LRP) ranks the tokens: by |value|, or most positive first (evidence for the predicted class first; AttnLRP's perturbation order)",
     "name": "ranking",
     "type": "string",
     "values": [
      "magnitude",
      "signed"
     ]
    }
   ],
   "per_instance": true
  },
  {
   "description": "Cascading randomisation sanity check: rank correlation (Spearman, Kendall) of each importance measure between the model and copies with decoder, attention, encoder, embedding re-initialised in turn (Adebayo et al. 2018)",
   "name": "randomization",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": 20,
     "description": "integrated-gradients steps",
     "max": 10000,
     "min": 1,
     "name": "ig_steps",
     "type": "int"
    }
   ],
   "per_instance": true
  },
  {
   "description": "Wiegreffe & Pinter: attention JSD between seeds of one recipe vs the adversary's JSD",
   "name": "seeds",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": true
   },
   "params": [
    {
     "default": 1,
     "description": "also run the adversarial search on the base model (1) or not (0)",
     "max": 1,
     "min": 0,
     "name": "adversarial",
     "type": "int"
    },
    {
     "default": 500,
     "description": "Adam steps of that search",
     "max": 100000,
     "min": 1,
     "name": "steps",
     "type": "int"
    }
   ],
   "per_instance": true
  },
  {
   "description": "Spearman of raw attention / rollout / flow (per layer) with blank-out and input gradients (Abnar & Zuidema)",
   "name": "attention-flow",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 2,
    "other_models": false
   },
   "params": [],
   "per_instance": true
  },
  {
   "description": "Accuracy with each attention head switched off, and a pruning curve (Michel et al.)",
   "name": "head-ablation",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": "",
     "description": "pruning order: heads as layer.head (1-based), comma-separated; heads not named follow in index order",
     "name": "order",
     "type": "string"
    }
   ],
   "per_instance": true
  },
  {
   "description": "plausibility vs a human rationale (SST: words / short phrases labelled with the sentence's polarity): ERASER token F1 at top-k, AUPRC and IOU F1 of attention, gradient, leave-one-out, integrated gradients (a transformer: also its attention readings, AttnLRP, CP-LRP, value zeroing and ALTI) and random (DeYoung et al. 2020)",
   "name": "plausibility",
   "needs": {
    "human_rationales": true,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": 50,
     "description": "integrated-gradients steps",
     "max": 10000,
     "min": 1,
     "name": "ig_steps",
     "type": "int"
    }
   ],
   "per_instance": true
  },
  {
   "description": "conicity of the encoder's hidden states per instance (Mohankumar et al. 2020)",
   "name": "conicity",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [],
   "per_instance": true
  },
  {
   "description": "attention mass on impermissible words and the prediction without them (Pruthi et al. 2020's deception test)",
   "name": "impermissible",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": "",
     "description": "impermissible words, whitespace-separated (e.g. a sentiment lexicon)",
     "name": "words",
     "type": "string"
    }
   ],
   "per_instance": true
  },
  {
   "description": "Wiegreffe & Pinter model-consistent adversaries for a sweep of lambda: TVD / JSD to the base, accuracy",
   "name": "adversarial-training",
   "needs": {
    "human_rationales": false,
    "learned_attention": true,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": null,
     "description": "the adversaries' training TSV (required)",
     "name": "train",
     "type": "string"
    },
    {
     "default": [
      0,
      0.1,
      0.5,
      1,
      2,
      5
     ],
     "description": "lambda values of the sweep",
     "max": 1000000,
     "min": 0,
     "name": "lambdas",
     "type": "number_list"
    },
    {
     "default": 8,
     "description": "training epochs per adversary",
     "max": 1000,
     "min": 1,
     "name": "epochs",
     "type": "int"
    }
   ],
   "per_instance": false
  },
  {
   "description": "Wiegreffe & Pinter diagnostic: an MLP encoder with learned, uniform or the base model's imposed attention",
   "name": "diagnostic",
   "needs": {
    "human_rationales": false,
    "learned_attention": false,
    "min_tokens": 1,
    "other_models": false
   },
   "params": [
    {
     "default": null,
     "description": "training TSV (required)",
     "name": "train",
     "type": "string"
    },
    {
     "default": null,
     "description": "dev TSV (required)",
     "name": "dev",
     "type": "string"
    },
    {
     "default": 8,
     "description": "training epochs per variant",
     "max": 1000,
     "min": 1,
     "name": "epochs",
     "type": "int"
    }
   ],
   "per_instance": false
  }
 ],
 "format": "attnlab-catalogue-v1",
 "han_experiments": [
  {
   "levels": [
    "sentence",
    "word"
   ],
   "name": "kendall"
  },
  {
   "levels": [
    "sentence",
    "word"
   ],
   "name": "permutation"
  },
  {
   "levels": [
    "sentence",
    "word"
   ],
   "name": "adversarial"
  },
  {
   "levels": [
    "sentence",
    "word"
   ],
   "name": "erase-max"
  },
  {
   "levels": [
    "sentence",
    "word"
   ],
   "name": "erase-until-flip"
  }
 ],
 "image": {
  "colormaps": [
   "viridis",
   "inferno",
   "gray",
   "jet"
  ],
  "default_channels": 1280,
  "erase_fills": [
   "mean",
   "blur",
   "grey"
  ],
  "feature_methods": [
   "cam",
   "gradcam",
   "gradcampp",
   "random"
  ],
  "methods": [
   {
    "description": "Class activation map (Zhou et al. 2016): the classifier weights of the class times the last feature maps.",
    "kind": "map",
    "label": "CAM",
    "name": "cam",
    "params": [],
    "passes": "0",
    "passes_default": 0
   },
   {
    "description": "Grad-CAM: feature maps weighted by the mean gradient of the class score. With a GAP + linear head it equals CAM up to a positive scale.",
    "kind": "map",
    "label": "Grad-CAM",
    "name": "gradcam",
    "params": [],
    "passes": "0",
    "passes_default": 0
   },
   {
    "description": "Grad-CAM++: higher-order weighting of positive gradients.",
    "kind": "map",
    "label": "Grad-CAM++",
    "name": "gradcampp",
    "params": [],
    "passes": "0",
    "passes_default": 0
   },
   {
    "description": "Score-CAM: one masked forward pass per feature channel (a channel that is zero on the photo adds nothing and is skipped); weights = the class probability of each masked photo.",
    "kind": "plan",
    "label": "Score-CAM",
    "name": "scorecam",
    "params": [],
    "passes": "K (one per feature channel)",
    "passes_default": 1280
   },
   {
    "description": "RISE: N random cells×cells masks, upsampled; the map is the probability-weighted mean of the masks.",
    "kind": "plan",
    "label": "RISE",
    "name": "rise",
    "params": [
     {
      "default": 1000,
      "description": "number of random masks",
      "max": 8000,
      "min": 50,
      "name": "n",
      "type": "int"
     },
     {
      "default": 7,
      "description": "mask grid cells per side",
      "max": 224,
      "min": 1,
      "name": "cells",
      "type": "int"
     },
     {
      "default": 0.5,
      "description": "probability that a cell is kept",
      "max": 1,
      "min": 0.01,
      "name": "p",
      "type": "number"
     },
     {
      "default": 1,
      "description": "seed of the masks",
      "max": 2147483647,
      "min": 0,
      "name": "seed",
      "type": "int"
     }
    ],
    "passes": "n",
    "passes_default": 1000
   },
   {
    "description": "Occlusion: a grey window-px square slides with the stride; the map is the mean drop in probability.",
    "kind": "plan",
    "label": "Occlusion",
    "name": "occlusion",
    "params": [
     {
      "default": 32,
      "description": "square side in pixels",
      "max": 224,
      "min": 1,
      "name": "window",
      "type": "int"
     },
     {
      "default": 16,
      "description": "step in pixels",
      "max": 224,
      "min": 1,
      "name": "stride",
      "type": "int"
     }
    ],
    "passes": "1 + ((224 − window) / stride + 1)²",
    "passes_default": 170
   },
   {
    "description": "A random map (seeded) — the baseline every method must beat.",
    "kind": "map",
    "label": "Random",
    "name": "random",
    "params": [],
    "passes": "0",
    "passes_default": 0
   },
   {
    "description": "Deletion (RISE protocol): the most salient pixels first set to grey; probability against the fraction removed.",
    "kind": "metric",
    "label": "Deletion curve",
    "name": "deletion",
    "params": [
     {
      "default": 50,
      "description": "points of the curve after the first",
      "max": 50176,
      "min": 1,
      "name": "steps",
      "type": "int"
     }
    ],
    "passes": "steps + 1",
    "passes_default": 51
   },
   {
    "description": "Insertion: the most salient pixels first restored from a blurred photo; probability against the fraction.",
    "kind": "metric",
    "label": "Insertion curve",
    "name": "insertion",
    "params": [
     {
      "default": 50,
      "description": "points of the curve after the first",
      "max": 50176,
      "min": 1,
      "name": "steps",
      "type": "int"
     }
    ],
    "passes": "steps + 1",
    "passes_default": 51
   },
   {
    "description": "ROAD (Rong et al. 2022): the most (MoRF) or least (LeRF) salient 10 … 90 % of the pixels replaced by noisy linear imputation from their neighbours; the class probability at each step.",
    "kind": "metric",
    "label": "ROAD",
    "name": "road",
    "params": [
     {
      "default": "morf",
      "description": "most (morf) or least (lerf) relevant first",
      "name": "order",
      "type": "string",
      "values": [
       "morf",
       "lerf"
      ]
     },
     {
      "default": 0.6,
      "description": "σ of the noise added to imputed pixels (0–255 units)",
      "max": 255,
      "min": 0,
      "name": "noise",
      "type": "number"
     },
     {
      "default": 1,
      "description": "seed of the noise",
      "max": 2147483647,
      "min": 0,
      "name": "seed",
      "type": "int"
     }
    ],
    "passes": "9",
    "passes_default": 9
   },
   {
    "description": "The photo masked by the normalised map: drop / increase in confidence (Score-CAM's average drop).",
    "kind": "metric",
    "label": "Explanation as a mask",
    "name": "explanationMask",
    "params": [],
    "passes": "2",
    "passes_default": 2
   }
  ]
 },
 "onnx": {
  "methods": [
   {
    "description": "Grad-CAM (Selvaraju et al. 2017): the layer's channels weighted by their mean gradient.",
    "forward_only": false,
    "kind": "layer",
    "label": "Grad-CAM",
    "name": "gradcam",
    "params": []
   },
   {
    "description": "Grad-CAM++ (Chattopadhay et al. 2018): higher-order weights of the positive gradients.",
    "forward_only": false,
    "kind": "layer",
    "label": "Grad-CAM++",
    "name": "gradcampp",
    "params": []
   },
   {
    "description": "HiResCAM (Draelos & Carin 2020): gradient times activation per position, summed over channels.",
    "forward_only": false,
    "kind": "layer",
    "label": "HiResCAM",
    "name": "hirescam",
    "params": []
   },
   {
    "description": "XGrad-CAM (Fu et al. 2020): channel weights normalised by the activation.",
    "forward_only": false,
    "kind": "layer",
    "label": "XGrad-CAM",
    "name": "xgradcam",
    "params": []
   },
   {
    "description": "LayerCAM (Jiang et al. 2021): positive gradient times activation per position.",
    "forward_only": false,
    "kind": "layer",
    "label": "LayerCAM",
    "name": "layercam",
    "params": []
   },
   {
    "description": "AblationCAM (Desai & Ramaswamy 2020): each channel is zeroed in turn and the rest of the network re-run; its weight is the relative drop of the class score. One partial pass per channel.",
    "forward_only": false,
    "kind": "layer",
    "label": "AblationCAM",
    "name": "ablationcam",
    "params": []
   },
   {
    "description": "EigenCAM (Muhammad & Yeasin 2020): the first principal component of the activations; no gradient, no class.",
    "forward_only": false,
    "kind": "layer",
    "label": "EigenCAM",
    "name": "eigencam",
    "params": []
   },
   {
    "description": "CAM (Zhou et al. 2016): the layer's channels weighted by the linear classifier's weights of the class; only for a model whose head after the layer is global average pooling + one linear layer (Grad-CAM generalises it).",
    "forward_only": false,
    "kind": "layer",
    "label": "CAM",
    "name": "cam",
    "params": []
   },
   {
    "description": "Random baseline: values uniform in [0, 1) from the seed over the layer's grid, blind to the model and the photo. A method that explains the model should beat it on the deletion and insertion curves.",
    "forward_only": false,
    "kind": "layer",
    "label": "Random (baseline)",
    "name": "random",
    "params": [
     {
      "default": 0,
      "description": "SmoothGrad: seed of the noise; random: seed of the map",
      "max": 9007199254740991,
      "min": 0,
      "name": "seed",
      "type": "int"
     }
    ]
   },
   {
    "description": "Input gradient (Simonyan et al. 2014): max over channels of |∂ score / ∂ pixel|.",
    "forward_only": false,
    "kind": "input",
    "label": "Gradient",
    "name": "gradient",
    "params": []
   },
   {
    "description": "Gradient × input (Shrikumar et al. 2016): each pixel's value times the score's gradient there, summed over the colour channels (signed).",
    "forward_only": false,
    "kind": "input",
    "label": "Gradient × input",
    "name": "gradient-x-input",
    "params": []
   },
   {
    "description": "SmoothGrad (Smilkov et al. 2017): the gradient averaged over noisy copies of the photo.",
    "forward_only": false,
    "kind": "input",
    "label": "SmoothGrad",
    "name": "smoothgrad",
    "params": [
     {
      "default": 25,
      "description": "SmoothGrad: noisy copies averaged",
      "max": 1000,
      "min": 1,
      "name": "samples",
      "type": "int"
     },
     {
      "default": 0.15,
      "description": "SmoothGrad: noise σ as a fraction of the input's range",
      "max": 1,
      "min": 0,
      "name": "noise",
      "type": "number"
     },
     {
      "default": 0,
      "description": "SmoothGrad: seed of the noise; random: seed of the map",
      "max": 9007199254740991,
      "min": 0,
      "name": "seed",
      "type": "int"
     }
    ]
   },
   {
    "description": "Integrated gradients (Sundararajan et al. 2017) from an all-zero input; completeness: the attributions sum to score(x) − score(0).",
    "forward_only": false,
    "kind": "input",
    "label": "Integrated gradients",
    "name": "integrated-gradients",
    "params": [
     {
      "default": 32,
      "description": "integrated gradients: path steps (midpoint rule)",
      "max": 1000,
      "min": 1,
      "name": "steps",
      "type": "int"
     }
    ]
   },
   {
    "description": "A vision transformer's own attention: what the class token attends to in the last layer, heads averaged, over the patch grid. Only for models with attention.",
    "forward_only": true,
    "kind": "attention",
    "label": "Attention (last layer)",
    "name": "attention",
    "params": []
   },
   {
    "description": "Attention rollout (Abnar & Zuidema 2020): every layer's head-averaged attention, mixed half and half with the residual connection, multiplied through; the class token's row over the patch grid.",
    "forward_only": true,
    "kind": "attention",
    "label": "Attention rollout",
    "name": "rollout",
    "params": []
   },
   {
    "description": "Chefer relevance (Chefer, Gur & Wolf 2021): each layer's attention weighted by its gradient (positive part, heads averaged), accumulated from the bottom; the class token's row over the patch grid.",
    "forward_only": false,
    "kind": "attention",
    "label": "Chefer relevance",
    "name": "chefer",
    "params": []
   },
   {
    "description": "AttnLRP (Achtibat et al. 2024), its rules found in the graph: LayerNorm scales held, GELU passed through, half to each factor of Q·Kᵀ and A·V; the class's logit split over the pixels (x × the propagated quantity), summed per patch. Signed: the map's low end is against the class; the line under it says what the pixels carry of the logit.",
    "forward_only": false,
    "kind": "attention",
    "label": "AttnLRP",
    "name": "attnlrp",
    "params": []
   },
   {
    "description": "CP-LRP (Ali et al. 2022): as AttnLRP but every attention distribution held fixed, so relevance flows through the values only; summed per patch, signed.",
    "forward_only": false,
    "kind": "attention",
    "label": "CP-LRP",
    "name": "cp-lrp",
    "params": []
   }
  ],
  "opsets": [
   1,
   21
  ],
  "plans": [
   "scorecam",
   "rise",
   "occlusion",
   "deletion",
   "insertion"
  ],
  "scalings": [
   "imagenet",
   "unit",
   "signed",
   "raw"
  ]
 },
 "text": {
  "adversary": [
   {
    "default": 1,
    "description": "weight of -KL(attention || base attention)",
    "max": 1000000,
    "min": 0,
    "name": "lambda",
    "type": "number"
   },
   {
    "default": 1,
    "description": "initial weights and batch order",
    "max": 2147483647,
    "min": 0,
    "name": "seed",
    "type": "int"
   },
   {
    "default": 8,
    "description": "training epochs (the last finished epoch is kept)",
    "max": 1000,
    "min": 1,
    "name": "epochs",
    "type": "int"
   },
   {
    "default": 32,
    "description": "batch size",
    "max": 4096,
    "min": 1,
    "name": "batch_size",
    "type": "int"
   },
   {
    "default": 0.001,
    "description": "Adam learning rate",
    "max": 1,
    "min": 0.000001,
    "name": "lr",
    "type": "number"
   },
   {
    "default": "",
    "description": "the base model's name (recorded in the config)",
    "name": "base",
    "type": "string"
   }
  ],
  "class_names": [
   "negative",
   "positive"
  ],
  "explain": [
   {
    "default": 200,
    "description": "the text is cut to its first N tokens (at most 1000)",
    "max": 1000,
    "min": 1,
    "name": "max_tokens",
    "type": "int"
   },
   {
    "default": 50,
    "description": "integrated-gradients steps (0: none)",
    "max": 10000,
    "min": 0,
    "name": "ig_steps",
    "type": "int"
   }
  ],
  "methods": [
   {
    "description": "the model's attention weights alpha_t (uniform models: 1/T by construction)",
    "label": "attention",
    "name": "attention",
    "signed": false
   },
   {
    "description": "Jain & Wallace: |sum_e x_te d p(predicted) / d x_te| with attention held constant, normalised to sum 1",
    "label": "gradient",
    "name": "gradient",
    "signed": false
   },
   {
    "description": "|p(predicted) - p(predicted) without the token|",
    "label": "leave-one-out",
    "name": "leave_one_out",
    "signed": false
   },
   {
    "description": "integrated gradients from the all-zero embedding baseline (Kendall tau uses |value|)",
    "label": "integrated gradients",
    "name": "integrated_gradients",
    "signed": true
   }
  ],
  "training": [
   {
    "default": "tanh",
    "description": "attention of the classifier",
    "name": "attention",
    "type": "string",
    "values": [
     "uniform",
     "tanh",
     "dot"
    ]
   },
   {
    "default": 1,
    "description": "initial weights and batch order",
    "max": 2147483647,
    "min": 0,
    "name": "seed",
    "type": "int"
   },
   {
    "default": 8,
    "description": "training epochs (the best dev epoch is kept)",
    "max": 1000,
    "min": 1,
    "name": "epochs",
    "type": "int"
   },
   {
    "default": 128,
    "description": "embedding size E",
    "max": 1024,
    "min": 1,
    "name": "embedding_dim",
    "type": "int"
   },
   {
    "default": 128,
    "description": "BiLSTM hidden size H per direction",
    "max": 1024,
    "min": 1,
    "name": "hidden_dim",
    "type": "int"
   },
   {
    "default": 1,
    "description": "keep words seen at least this often",
    "max": 1000000,
    "min": 1,
    "name": "min_count",
    "type": "int"
   },
   {
    "default": 32,
    "description": "batch size",
    "max": 4096,
    "min": 1,
    "name": "batch_size",
    "type": "int"
   },
   {
    "default": 0.001,
    "description": "Adam learning rate (AdamW peak rate for a transformer)",
    "max": 1,
    "min": 0.000001,
    "name": "lr",
    "type": "number"
   },
   {
    "default": "bilstm",
    "description": "BiLSTM + attention, the Orthogonal LSTM of Mohankumar et al. 2020, or a transformer encoder",
    "name": "encoder",
    "type": "string",
    "values": [
     "bilstm",
     "ortho_bilstm",
     "transformer"
    ]
   },
   {
    "default": 0,
    "description": "Diversity LSTM: weight of the conicity penalty (the paper's 0.5; 0 = off)",
    "max": 100,
    "min": 0,
    "name": "diversity",
    "type": "number"
   },
   {
    "default": 0,
    "description": "Pruthi et al. 2020: weight of -log(1 - attention on the impermissible words) (the paper's 0.1 or 1; 0 = off)",
    "max": 100,
    "min": 0,
    "name": "deception",
    "type": "number"
   },
   {
    "default": "",
    "description": "the words attention must not show (deception), whitespace-separated",
    "name": "impermissible",
    "type": "string"
   },
   {
    "default": 2,
    "description": "transformer blocks",
    "max": 12,
    "min": 1,
    "name": "layers",
    "type": "int"
   },
   {
    "default": 4,
    "description": "transformer attention heads (must divide embedding_dim)",
    "max": 64,
    "min": 1,
    "name": "heads",
    "type": "int"
   },
   {
    "default": 256,
    "description": "transformer feed-forward width",
    "max": 4096,
    "min": 1,
    "name": "ffn_dim",
    "type": "int"
   },
   {
    "default": 64,
    "description": "transformer: longest input in tokens (longer ones are cut)",
    "max": 512,
    "min": 1,
    "name": "max_len",
    "type": "int"
   },
   {
    "default": 0.1,
    "description": "transformer: dropout rate in training",
    "max": 0.9,
    "min": 0,
    "name": "dropout",
    "type": "number"
   },
   {
    "default": 0.01,
    "description": "transformer: AdamW decoupled weight decay",
    "max": 1,
    "min": 0,
    "name": "weight_decay",
    "type": "number"
   },
   {
    "default": 0.1,
    "description": "transformer: AdamW warm-up fraction of all steps, then linear decay to 0",
    "max": 1,
    "min": 0,
    "name": "warmup",
    "type": "number"
   }
  ],
  "transformer_methods": [
   {
    "description": "Abnar & Zuidema 2020: heads averaged, 0.5 A + 0.5 I, multiplied through the layers; the [CLS] row",
    "label": "rollout",
    "name": "rollout",
    "signed": false
   },
   {
    "description": "Abnar & Zuidema 2020: maximum flow from the token to [CLS] through the layered attention graph",
    "label": "attention flow",
    "name": "flow",
    "signed": false
   },
   {
    "description": "Chefer et al. 2021: (gradient x attention)+ averaged over heads, propagated through the layers",
    "label": "Chefer relevance",
    "name": "relevance",
    "signed": false
   },
   {
    "description": "last layer: A (.) d logit / d A, heads averaged; the [CLS] row",
    "label": "attention x gradient",
    "name": "grad_attention",
    "signed": false
   },
   {
    "description": "Kobayashi et al. 2020: || sum_h A_h[CLS, j] f_h(x_j) || in the last layer",
    "label": "attention norm",
    "name": "attention_norm",
    "signed": false
   },
   {
    "description": "Achtibat et al. 2024: the logit propagated with LayerNorm's scale held, GELU identity, half to each factor of Q K^T and A V; input x relevance",
    "label": "AttnLRP",
    "name": "attnlrp",
    "signed": true
   },
   {
    "description": "Ali et al. 2022: the attention held constant, LayerNorm's scale held, GELU identity; input x relevance",
    "label": "CP-LRP",
    "name": "cp_lrp",
    "signed": true
   },
   {
    "description": "Mohebbi et al. 2023: cosine distance of each layer output with the token's values zeroed, rows normalised, rolled out",
    "label": "value zeroing",
    "name": "value_zeroing",
    "signed": false
   },
   {
    "description": "Ferrando et al. 2022: L1 closeness of each token's exact share of the attention sublayer's output, rows normalised, rolled out",
    "label": "ALTI",
    "name": "alti",
    "signed": false
   }
  ]
 }
});
