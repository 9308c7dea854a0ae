#!/usr/bin/python3
"""Regenerates tests/fixtures/onnx/vit_tiny/: a small torchvision VisionTransformer (model definition only,
nothing downloaded; weights from a fixed seed), exported by torch.onnx.export (opset 14), and the reference maps
of the attention methods on it, computed by our own re-implementation of the ViT forward in PyTorch (not the
module's forward: its attention is not an output there), for tests/core/test_onnx_vit.cpp.

Run:  /usr/bin/python3 models/tools/onnx-fixtures/make_vit_fixture.py [--out tests/fixtures/onnx/vit_tiny]

The model: image 48 × 48, patches 8 × 8 (a 6 × 6 grid, 36 patch tokens + the class token at position 0), 2 encoder
layers, 3 heads, hidden 24, MLP 48, 5 classes; torch.manual_seed(SEED) init, then every parameter but the LayerNorms'
redrawn from N(0, 0.3²) so the attention is far from uniform.

reference.json: input [1, 3, 48, 48] (seeded normal, row-major), logits [5], class (the top-1), and three maps over
the 6 × 6 grid (row-major, the class token's row without its own column), from the re-implementation:
  attention  the last layer's attention of the class token, averaged over heads;
  rollout    Abnar & Zuidema 2020: Ã = 0.5·A + 0.5·I per layer (heads averaged, rows renormalised), R = Ã_L ··· Ã_1,
             the class token's row of R;
  chefer     Chefer, Gur & Wolf 2021 (the self-attention rule): R = I; per layer from the bottom R ← R + Ā·R,
             Ā = mean over heads of (∂y_c/∂A ⊙ A)⁺, y_c the class's logit; the class token's row of R.
  gradcam_tokens  Grad-CAM at `token_layer` (the ONNX name of the last block's ln_1 output) with pytorch-grad-cam's
             ViT reshape: the tokens without the class token as [D, g, g], alpha_k = the gradient's grid mean,
             ReLU(Σ_k alpha_k A_k).
  relevance  {attnlrp, cp_lrp, gradient_x_input}: {map (6 × 6: Σ over the channels and the patch's pixels of x · r),
             total (Σ over every pixel), logit} of the class's logit, in double, from the re-implementation with
             the rules in gradient form (as tests/fixtures/propagation/make-fixture.py for the text transformer):
             AttnLRP (Achtibat et al. 2024) — the LayerNorms' variance detached, GELU = x·Φ(x) with Φ detached,
             half the gradient to each factor of Q·Kᵀ and of A·V; CP-LRP (Ali et al. 2022) — the variance and Φ
             detached the same way, the attention A detached; gradient_x_input — plain autograd (a negative control).
The re-implementation's logits are checked against the module's before anything is written.
"""
import argparse
import copy
import json
import math
import os

import onnx
import torch
import torchvision

SEED = 7
IMAGE, PATCH, LAYERS, HEADS, HIDDEN, MLP, CLASSES = 48, 8, 2, 3, 24, 48, 5


def build():
    torch.manual_seed(SEED)
    m = torchvision.models.VisionTransformer(image_size=IMAGE, patch_size=PATCH, num_layers=LAYERS, num_heads=HEADS,
                                             hidden_dim=HIDDEN, mlp_dim=MLP, num_classes=CLASSES)
    gen = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in m.named_parameters():
            if ".ln" not in name and not name.startswith("encoder.ln"):  # LayerNorms keep scale 1, shift 0
                p.copy_(0.3 * torch.randn(p.shape, generator=gen))
    return m.eval()


def reimplemented_forward(m, x):
    """Our own ViT forward from the module's weights: → logits [1, C], attention [layer] of [1, H, N, N] (each
    retains its gradient), the last block's normalised input [1, N, D] (retains its gradient)."""
    n, _, h, w = x.shape
    p = m.conv_proj(x)  # [1, D, g, g]
    tokens = p.reshape(n, HIDDEN, -1).permute(0, 2, 1)  # [1, g², D]
    z = torch.cat([m.class_token.expand(n, -1, -1), tokens], dim=1) + m.encoder.pos_embedding
    attention = []
    dh = HIDDEN // HEADS
    for block in m.encoder.layers:
        y = block.ln_1(z)
        y.retain_grad()
        last_input = y
        mha = block.self_attention
        qkv = y @ mha.in_proj_weight.T + mha.in_proj_bias  # [1, N, 3D]
        q, k, v = qkv.split(HIDDEN, dim=-1)
        split = lambda t: t.reshape(n, -1, HEADS, dh).permute(0, 2, 1, 3)  # [1, H, N, dh]
        q, k, v = split(q), split(k), split(v)
        a = torch.softmax(q @ k.transpose(-1, -2) / dh ** 0.5, dim=-1)  # [1, H, N, N]
        a.retain_grad()
        attention.append(a)
        o = (a @ v).permute(0, 2, 1, 3).reshape(n, -1, HIDDEN)
        z = z + mha.out_proj(o)
        z = z + block.mlp(block.ln_2(z))
    z = m.encoder.ln(z)
    return m.heads(z[:, 0]), attention, last_input


def halve(t):  # value unchanged, half the gradient
    return 0.5 * t + (0.5 * t).detach()


def rule_layer_norm(ln, z, hold):
    mu = z.mean(-1, keepdim=True)
    var = ((z - mu) ** 2).mean(-1, keepdim=True)
    if hold:
        var = var.detach()
    return (z - mu) / torch.sqrt(var + ln.eps) * ln.weight + ln.bias


def relevance(m, x, c, rule):
    """The class's logit under `rule` ('attnlrp' | 'cp_lrp' | 'gradient'), in double: (per-pixel x·r summed over
    the channels [H, W], the logit)."""
    m = copy.deepcopy(m).double()
    x = x.double().clone().requires_grad_(True)
    rules = rule != "gradient"
    n = x.shape[0]
    tokens = m.conv_proj(x).reshape(n, HIDDEN, -1).permute(0, 2, 1)
    z = torch.cat([m.class_token.expand(n, -1, -1), tokens], dim=1) + m.encoder.pos_embedding
    dh = HIDDEN // HEADS
    for block in m.encoder.layers:
        y = rule_layer_norm(block.ln_1, z, rules)
        mha = block.self_attention
        qkv = y @ mha.in_proj_weight.T + mha.in_proj_bias
        q, k, v = qkv.split(HIDDEN, dim=-1)
        split = lambda t: t.reshape(n, -1, HEADS, dh).permute(0, 2, 1, 3)
        q, k, v = split(q), split(k), split(v)
        scores = q @ k.transpose(-1, -2) / dh ** 0.5
        if rule == "attnlrp":
            scores = halve(scores)
        a = torch.softmax(scores, dim=-1)
        if rule == "cp_lrp":
            a = a.detach()
        av = a @ v
        if rule == "attnlrp":
            av = halve(av)
        z = z + mha.out_proj(av.permute(0, 2, 1, 3).reshape(n, -1, HIDDEN))
        h = block.mlp[0](rule_layer_norm(block.ln_2, z, rules))
        phi = 0.5 * (1 + torch.erf(h / math.sqrt(2)))
        z = z + block.mlp[3](h * (phi.detach() if rules else phi))
    logit = m.heads(rule_layer_norm(m.encoder.ln, z, rules)[:, 0])[0, c]
    logit.backward()
    return (x * x.grad).sum(1)[0].detach(), float(logit)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/onnx/vit_tiny")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    m = build()
    x = torch.randn(1, 3, IMAGE, IMAGE, generator=torch.Generator().manual_seed(SEED + 1))
    with torch.no_grad():
        module_logits = m(x)
    logits, attention, last_input = reimplemented_forward(m, x)
    gap = (logits - module_logits).abs().max().item()
    assert gap < 1e-5, f"the re-implementation differs from the module by {gap}"
    c = int(logits.argmax())
    logits[0, c].backward()

    N = attention[0].shape[-1]
    eye = torch.eye(N, dtype=torch.float64)
    A = [a.detach().double()[0] for a in attention]  # [H, N, N]
    dA = [a.grad.double()[0] for a in attention]
    raw = A[-1].mean(0)[0, 1:]
    rollout = eye.clone()
    for a in A:
        aug = 0.5 * a.mean(0) + 0.5 * eye
        aug = aug / aug.sum(-1, keepdim=True)
        rollout = aug @ rollout
    chefer = eye.clone()
    for a, g in zip(A, dA):
        chefer = chefer + (g * a).clamp(min=0).mean(0) @ chefer
    # Grad-CAM on the last block's normalised input (pytorch-grad-cam's ViT recipe: the tokens without the class
    # token reshaped to [D, g, g]; alpha_k = mean of the gradient over the grid; ReLU(sum_k alpha_k A_k)).
    g = IMAGE // PATCH
    grid = lambda t: t.detach().double()[0, 1:, :].reshape(g, g, HIDDEN).permute(2, 0, 1)  # [D, g, g]
    A_tok, G_tok = grid(last_input), grid(last_input.grad)
    gradcam = (G_tok.mean(dim=(1, 2))[:, None, None] * A_tok).sum(0).clamp(min=0)
    rel = {}
    for rule in ("attnlrp", "cp_lrp", "gradient"):
        pixels, logit = relevance(m, x, c, rule)
        cells = pixels.reshape(IMAGE // PATCH, PATCH, IMAGE // PATCH, PATCH).sum(dim=(1, 3))
        rel["gradient_x_input" if rule == "gradient" else rule] = {
            "map": cells.flatten().tolist(), "total": float(pixels.sum()), "logit": logit}
    assert abs(rel["gradient_x_input"]["logit"] - float(logits[0, c])) < 1e-4, "the rule forward's logit differs"
    ref = {
        "input": x.flatten().tolist(), "input_shape": list(x.shape), "logits": logits.detach()[0].tolist(), "class": c,
        "grid": [IMAGE // PATCH, IMAGE // PATCH], "tokens": N,
        "maps": {"attention": raw.tolist(), "rollout": rollout[0, 1:].tolist(), "chefer": chefer[0, 1:].tolist()},
        "token_layer": f"/encoder/layers/encoder_layer_{LAYERS - 1}/ln_1/Add_1_output_0",
        "gradcam_tokens": gradcam.flatten().tolist(),
        "relevance": rel,
    }
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump(ref, f)
    torch.onnx.export(m, x, os.path.join(args.out, "model.onnx"), opset_version=14, input_names=["image"],
                      output_names=["logits"], do_constant_folding=True)
    meta = {"architecture": "torchvision VisionTransformer", "seed": SEED, "image_size": IMAGE, "patch_size": PATCH,
            "num_layers": LAYERS, "num_heads": HEADS, "hidden_dim": HIDDEN, "mlp_dim": MLP, "num_classes": CLASSES,
            "weights": "torch.manual_seed(seed) init, every parameter but the LayerNorms redrawn from N(0, 0.3^2)",
            "reimplementation_max_logit_gap": gap, "torch": torch.__version__, "torchvision": torchvision.__version__,
            "opset": 14}
    with open(os.path.join(args.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    names = {o for n in onnx.load(os.path.join(args.out, "model.onnx")).graph.node for o in n.output}
    assert ref["token_layer"] in names, "the exporter named the last block's LayerNorm output otherwise"
    print("class", c, "logits", [round(v, 4) for v in ref["logits"]], "gap", gap)


if __name__ == "__main__":
    main()
