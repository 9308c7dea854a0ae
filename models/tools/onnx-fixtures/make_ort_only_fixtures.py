#!/usr/bin/python3
"""Writes the small ONNX models behind "Your model"'s ONNX Runtime Web path (issue 11: a model the core's executor
cannot run still gets the gradient-free methods) and the probe of Module.modelInput. Nothing is downloaded; fixed
seeds; each file is a few KB.

Run:  /usr/bin/python3 models/tools/onnx-fixtures/make_ort_only_fixtures.py [--out tests/fixtures/onnx]

  instancenorm_net/model.onnx  a tiny image classifier (torch.onnx.export, opset 13): Conv 3→8 (3×3, stride 2) →
      InstanceNormalization → Relu → Conv 8→16 (3×3, stride 2) → Relu → GlobalAveragePool → Flatten → Gemm → 10
      logits; input 'image' [N, 3, 64, 64] (symbolic batch), output 'logits'. The core lacks
      InstanceNormalization (docs/ONNX.md "Not implemented"), ONNX Runtime Web runs it.
  opset22_net/model.onnx  the same network without InstanceNormalization (every operator one the core runs), its
      default-domain opset raised to 22 (IR version 10): the core runs opsets 1–21 and refuses it; ONNX Runtime
      Web accepts it (Conv, Relu, GlobalAveragePool, Flatten and Gemm mean the same at opset 22).
  customop_net/model.onnx  the opset-13 network with one node of a made-up domain (com.example.Scale after the
      first Relu): neither the core nor ONNX Runtime Web can run it (the "ORT refuses it too" message).
  flatten_probe/model.onnx  input 'x' [1, 3, 16, 16] → Flatten → output [1, 768]: its "logits" are its input, so
      OnnxLab.logitsOf shows exactly what the core feeds a model (tests/node/onnx_wasm.test.mjs compares
      Module.modelInput with it). flatten_probe_grey: the same with [1, 1, 16, 16].
"""
import argparse
import os

import onnx
import torch
from onnx import TensorProto, helper


class Net(torch.nn.Module):
    def __init__(self, instance_norm):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.norm = torch.nn.InstanceNorm2d(8, affine=True) if instance_norm else torch.nn.Identity()
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.norm(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def export(net, path):
    torch.manual_seed(0)
    net.eval()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, 64, 64), path, opset_version=13, input_names=["image"],
                      output_names=["logits"], dynamic_axes={"image": {0: "N"}, "logits": {0: "N"}},
                      do_constant_folding=True)
    m = onnx.load(path)
    onnx.checker.check_model(m)
    return m


def make_net(instance_norm, seed):
    torch.manual_seed(seed)
    net = Net(instance_norm)
    with torch.no_grad():  # weights large enough that the 10 logits differ visibly on a photo
        for p in net.parameters():
            p.mul_(3.0)
        if instance_norm:
            net.norm.weight.copy_(0.5 + torch.rand(8))
            net.norm.bias.copy_(0.2 * torch.randn(8))
    return net


def probe(channels, path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 16, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, channels * 256])
    g = helper.make_graph([helper.make_node("Flatten", ["x"], ["y"], axis=1)], "flatten_probe", [x], [y])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)], producer_name="attnlab fixtures")
    m.ir_version = 7
    onnx.checker.check_model(m)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    onnx.save(m, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="tests/fixtures/onnx")
    out = ap.parse_args().out

    export(make_net(True, 11), os.path.join(out, "instancenorm_net/model.onnx"))

    plain = os.path.join(out, "opset22_net/model.onnx")
    m = export(make_net(False, 12), plain)
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 22
    m.ir_version = 10
    onnx.save(m, plain)  # not checked: onnx 1.12's checker knows opsets up to 17

    m = export(make_net(False, 12), os.path.join(out, "customop_net/model.onnx"))
    first_relu = next(n for n in m.graph.node if n.op_type == "Relu")
    scaled = first_relu.output[0] + "_scaled"
    for n in m.graph.node:
        for k, i in enumerate(n.input):
            if i == first_relu.output[0]:
                n.input[k] = scaled
    at = list(m.graph.node).index(first_relu) + 1
    m.graph.node.insert(at, helper.make_node("Scale", [first_relu.output[0]], [scaled], domain="com.example", name="custom_scale"))
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    onnx.save(m, os.path.join(out, "customop_net/model.onnx"))

    probe(3, os.path.join(out, "flatten_probe/model.onnx"))
    probe(1, os.path.join(out, "flatten_probe_grey/model.onnx"))
    for d in ("instancenorm_net", "opset22_net", "customop_net", "flatten_probe", "flatten_probe_grey"):
        p = os.path.join(out, d, "model.onnx")
        print(p, os.path.getsize(p), "bytes")


if __name__ == "__main__":
    main()
