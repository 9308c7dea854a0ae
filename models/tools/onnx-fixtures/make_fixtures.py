#!/usr/bin/python3
"""Regenerates tests/fixtures/onnx/<model>/: torchvision architectures (model definitions only, nothing
downloaded) with weights drawn from a fixed seed, exported by torch.onnx.export (opset 13), plus PyTorch
reference tensors for the core's parity tests (tests/core/test_onnx_torchvision.cpp).

Run:  /usr/bin/python3 models/tools/onnx-fixtures/make_fixtures.py [--out tests/fixtures/onnx]
      [--bench DIR]   also writes full-width fp32 resnet18 / mobilenet_v2-free benchmark models (not committed)

Per model:
  * torchvision.models.<arch>(num_classes=10), torch.manual_seed(seed); BatchNorm running statistics and
    affine parameters redrawn (so BN is not the identity); eval mode.
  * Every Conv2d / Linear weight is rounded to int8 with one symmetric scale per output channel
    (w = q · s, q in [-127, 127]) *in PyTorch, before export* — the references below use exactly these
    weights. In the ONNX file those initializers are stored as int8 + scale and a DequantizeLinear node
    (axis 0), which ORT and the core both fold to the same float32 tensor (q · s is one float product). This
    keeps the committed files ~4x smaller than float32. BatchNormalization is kept as its own node
    (training=PRESERVE avoids the exporter's Conv+BN fusion).
  * reference.safetensors (F32): input [1,3,S,S] (seeded normal), logits [1,10], input_grad = d logits[c] /
    d input for c = argmax, gradcam [h,w] at `layer` (pytorch-grad-cam's definition: alpha_k = spatial mean
    of d logits[c] / dA_k, map = ReLU(sum_k alpha_k A_k)), activation [1,K,h,w] at that layer.
  * meta.json: architecture, seed, size, class, layer (the ONNX tensor name of the layer output),
    wrong_layer (another spatial layer, for the negative control), torch / torchvision versions.
"""
import argparse
import hashlib
import io
import json
import os
import struct

import numpy as np
import onnx
import torch
import torchvision
from onnx import helper, numpy_helper

SIZE = 112

# name, builder, module whose output is the Grad-CAM layer, its ONNX tensor name, a wrong layer's name
MODELS = [
    ("squeezenet1_1", lambda: torchvision.models.squeezenet1_1(num_classes=10), "features",
     "/features/features.12/Concat_output_0", "/features/features.9/Concat_output_0"),
    ("shufflenet_v2_x0_5", lambda: torchvision.models.shufflenet_v2_x0_5(num_classes=10), "conv5",
     "/conv5/conv5.2/Relu_output_0", "/stage4/stage4.3/Reshape_1_output_0"),
    ("mobilenet_v3_small", lambda: torchvision.models.mobilenet_v3_small(num_classes=10), "features",
     "/features/features.12/features.12.2/Mul_output_0", "/features/features.11/Add_output_0"),
    # torchvision's ResNet class with BasicBlock and one block per stage (resnet18 has two): the same
    # operators and layer structure at 4.9 M instead of 11.2 M weights. --bench writes a full resnet18.
    ("resnet10", lambda: torchvision.models.resnet.ResNet(torchvision.models.resnet.BasicBlock, [1, 1, 1, 1], num_classes=10),
     "layer4", "/layer4/layer4.0/relu_1/Relu_output_0", "/layer3/layer3.0/relu_1/Relu_output_0"),
]


def randomize_bn(model, gen):
    for mod in model.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            c = mod.num_features
            mod.weight.data = 0.5 + torch.rand(c, generator=gen)
            mod.bias.data = 0.2 * torch.randn(c, generator=gen)
            mod.running_mean.data = 0.2 * torch.randn(c, generator=gen)
            mod.running_var.data = 0.5 + torch.rand(c, generator=gen)


def quantize_weights(model):
    """Rounds Conv2d / Linear weights to int8 per output channel; returns {sha256(float32 bytes): (q, scale)}."""
    table = {}
    for mod in model.modules():
        if isinstance(mod, (torch.nn.Conv2d, torch.nn.Linear)):
            w = mod.weight.data
            flat = w.reshape(w.shape[0], -1)
            scale = (flat.abs().max(dim=1).values / 127.0).clamp(min=1e-8).to(torch.float32)
            q = torch.round(flat / scale[:, None]).clamp(-127, 127)
            wq = (q * scale[:, None]).reshape(w.shape).to(torch.float32)
            mod.weight.data = wq
            key = hashlib.sha256(wq.numpy().astype(np.float32).tobytes()).hexdigest()
            table[key] = (q.reshape(w.shape).numpy().astype(np.int8), scale.numpy().astype(np.float32))
    return table


def store_int8(model_proto, table):
    """Replaces float initializers that are quantized weights by int8 + scale + DequantizeLinear."""
    g = model_proto.graph
    new_inits, new_nodes, replaced = [], [], 0
    for init in g.initializer:
        arr = numpy_helper.to_array(init)
        key = hashlib.sha256(arr.astype(np.float32).tobytes()).hexdigest() if arr.dtype == np.float32 else None
        if key in table:
            q, scale = table[key]
            assert np.array_equal((q.astype(np.float32).reshape(q.shape[0], -1) * scale[:, None]).reshape(q.shape)
                                  .astype(np.float32), arr), "dequantized weights differ"
            n = init.name
            new_inits += [numpy_helper.from_array(q, n + "_q"), numpy_helper.from_array(scale, n + "_scale"),
                          numpy_helper.from_array(np.zeros(scale.shape, np.int8), n + "_zp")]
            new_nodes.append(helper.make_node("DequantizeLinear", [n + "_q", n + "_scale", n + "_zp"], [n],
                                              name=n + "_dequantize", axis=0))
            replaced += 1
        else:
            new_inits.append(init)
    del g.initializer[:]
    g.initializer.extend(new_inits)
    nodes = list(g.node)
    del g.node[:]
    g.node.extend(new_nodes + nodes)
    return replaced


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, arr in tensors.items():
        b = np.ascontiguousarray(arr, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, sort_keys=True).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def export(model, x, quant_table=None):
    buf = io.BytesIO()
    torch.onnx.export(model, x, buf, opset_version=13, training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["logits"], do_constant_folding=True)
    proto = onnx.load_from_string(buf.getvalue())
    replaced = store_int8(proto, quant_table) if quant_table else 0
    onnx.checker.check_model(proto)
    return proto, replaced


def make(name, builder, module_name, layer, wrong_layer, seed, out_dir):
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed + 1000)
    model = builder()
    randomize_bn(model, gen)
    model.eval()
    table = quantize_weights(model)
    x = torch.randn(1, 3, SIZE, SIZE, generator=gen)
    proto, replaced = export(model, x, table)
    names = {o for n in proto.graph.node for o in n.output}
    assert layer in names and wrong_layer in names, (name, [n for n in names if "Relu" in n or "Concat" in n][:40])
    acts = {}
    module = dict(model.named_modules())[module_name]
    module.register_forward_hook(lambda m, i, o: acts.__setitem__("A", o))
    xi = x.clone().requires_grad_(True)
    logits = model(xi)
    c = int(logits[0].argmax())
    A = acts["A"]
    A.retain_grad()
    logits[0, c].backward()
    alpha = A.grad.mean(dim=(2, 3), keepdim=True)
    cam = torch.relu((alpha * A).sum(dim=1))[0]
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(proto, os.path.join(d, "model.onnx"))
    write_safetensors(os.path.join(d, "reference.safetensors"), {
        "input": x.numpy(), "logits": logits.detach().numpy(), "input_grad": xi.grad.numpy(),
        "gradcam": cam.detach().numpy(), "activation": A.detach().numpy()})
    meta = {"architecture": name, "seed": seed, "size": SIZE, "class": c, "layer": layer, "wrong_layer": wrong_layer,
            "layer_shape": list(A.shape), "num_classes": 10, "int8_initializers": replaced,
            "weights": "torch.manual_seed(seed) init + BN stats redrawn; Conv/Linear weights int8 per output channel",
            "torch": torch.__version__, "torchvision": torchvision.__version__, "opset": 13}
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(d, p)) for p in os.listdir(d))
    print(f"{name}: class {c}, layer {layer} {list(A.shape)}, {replaced} int8 initializers, {size / 1e6:.2f} MB")
    return size


def make_bench(out_dir):
    """Full-width fp32 models for docs/BENCHMARKS.md (not committed): resnet18 at 224."""
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(1)
    model = torchvision.models.resnet18()
    model.eval()
    buf = io.BytesIO()
    torch.onnx.export(model, torch.randn(1, 3, 224, 224), buf, opset_version=13, input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    with open(os.path.join(out_dir, "resnet18.onnx"), "wb") as f:
        f.write(buf.getvalue())
    print("wrote", os.path.join(out_dir, "resnet18.onnx"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "../../../tests/fixtures/onnx"))
    ap.add_argument("--bench", default="")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.bench:
        make_bench(args.bench)
        return
    total = 0
    for k, (name, builder, module_name, layer, wrong) in enumerate(MODELS):
        total += make(name, builder, module_name, layer, wrong, 100 + k, args.out)
    print(f"total {total / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
