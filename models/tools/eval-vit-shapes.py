#!/usr/bin/python3
"""Writes models/image/vit-shapes/eval.json: the shipped shapes ViT scored against the shapes' exact object masks by
`attnlab eval-onnx-shapes` (docs/RESULTS.md "A vision transformer on the shapes"), and the smaller check that
tests/node/vit_shapes_model.test.mjs re-derives.

Run:  /usr/bin/python3 models/tools/eval-vit-shapes.py [--attnlab build/attnlab] [--dir models/image/vit-shapes]

results: 1,000 test images (data seed 1, texture contrast 0.35: the split eval-cnn scores the CNNs on), every map
method the ViT has (raw last-layer attention, rollout, Chefer, AttnLRP, CP-LRP, Grad-CAM on the last block's tokens,
the input gradient, a random map); check: 300 test images, attention and rollout. The model file's size and sha256
are recorded beside them, so the test knows the numbers belong to the file it reads.
"""
import argparse
import hashlib
import json
import os
import subprocess

METHODS = "attention,rollout,chefer,attnlrp,cp-lrp,gradcam,gradient,random"


def run(attnlab, args):
    out = subprocess.run([attnlab] + args, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().split("\n")[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--attnlab", default="build/attnlab")
    ap.add_argument("--dir", default="models/image/vit-shapes")
    a = ap.parse_args()
    model = os.path.join(a.dir, "model.onnx")
    data = ["--texture-contrast", "0.35", "--seed", "1"]
    results_args = ["eval-onnx-shapes", "--model", model, "--methods", METHODS, "--n", "1000"] + data
    check_args = ["eval-onnx-shapes", "--model", model, "--methods", "attention,rollout", "--n", "300"] + data
    with open(model, "rb") as f:
        raw = f.read()
    out = {
        "model": {"file": "model.onnx", "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()},
        "results": {"command": "build/attnlab " + " ".join(results_args), "result": run(a.attnlab, results_args)},
        "check": {"args": check_args, "result": run(a.attnlab, check_args)},
        "written_by": "/usr/bin/python3 models/tools/eval-vit-shapes.py",
    }
    with open(os.path.join(a.dir, "eval.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps({k: out["results"]["result"][k] for k in ("accuracy", "n")}))


if __name__ == "__main__":
    main()
