// How a vision transformer's token count splits into class tokens and a square patch grid: n − 1 = g² (one class
// token, position 0: torchvision, timm, Hugging Face ViTs) or n − 2 = g² (a distillation token after it, DeiT).
// Otherwise grid_h = 1, grid_w = n − 1 and `note` says why (a map over the token sequence). Used by the attention
// maps (vit_maps.h) and by the token layers that the CAM methods read as [D, g, g] (onnx_classifier.h).
#pragma once
#include <string>

namespace attnlab {

struct PatchGrid {
  int class_tokens = 1, grid_h = 0, grid_w = 0;
  std::string note;
  bool square() const { return note.empty(); }
};
PatchGrid patch_grid(int tokens);

}  // namespace attnlab
