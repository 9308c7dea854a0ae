#!/usr/bin/python3
"""Prints docs/RESULTS.md's seed tables of the shapes ViT (issue 30) from eval.json files written by
models/tools/eval-vit-shapes.py: mean ± sample std over the files given, each pointing value at 0 px in brackets.

Run:  /usr/bin/python3 models/tools/vit-seeds-table.py models/image/vit-shapes/eval.json \
        models/image/vit-shapes/seeds/s2/eval.json models/image/vit-shapes/seeds/s3/eval.json
      (the wider variant: seeds/wide-s2, seeds/wide-s3; its seed 1 was scored on four methods only, in RESULTS' text)
The seed models themselves are not committed (train-vit-shapes.py --seed S remakes them; meta.json beside each
eval.json keeps the recipe and the log, eval.json the model file's sha256).
"""
import json
import statistics as st
import sys

LABEL = {"attention": "raw attention (last layer, [CLS] row, heads averaged)", "rollout": "rollout", "chefer": "Chefer relevance",
         "gradient": "input gradient (64 × 64)", "attnlrp": "AttnLRP", "cp-lrp": "CP-LRP", "gradcam": "Grad-CAM (last block's tokens)",
         "random": "random (one fixed random 8 × 8 map)"}
KEYS = ("pointing_game", "pointing_game_standard", "pointing_feature_cell", "mask_iou", "energy_in_mask")


def main():
    evs = [json.load(open(p))["results"]["result"] for p in sys.argv[1:]]
    print("test accuracy:", " / ".join(str(e["accuracy"]) for e in evs))
    methods = sorted(evs[0]["methods"], key=lambda m: -st.mean(e["methods"][m]["pointing_game"] for e in evs))
    print("| map | pointing 0 px | pointing 4.29 px | argmax cell on the object | IoU | energy in mask |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for m in methods:
        cells = []
        for key in KEYS:
            v = [e["methods"][m][key] for e in evs]
            if m == "gradient" and key == "pointing_feature_cell":
                cells.append("–")  # a 64 × 64 map has no cells: the value repeats the pointing game
                continue
            cell = f"{st.mean(v):.3f} ± {st.stdev(v):.3f}" if len(v) > 1 else f"{v[0]:.3f}"
            if key == "pointing_game" and len(v) > 1:
                cell += " (" + " / ".join(f"{x:.3f}" for x in v) + ")"
            cells.append(cell)
        print(f"| {LABEL.get(m, m)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
