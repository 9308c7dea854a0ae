// Test helper for a user's text transformer (OnnxTextModel): load a model file of the repository, the failure
// reported with its path and the core's message.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "explain/onnx_text/onnx_text_model.h"
#include "onnx_test_util.h"

namespace attnlab::test {

// rel: a path under the repository (ATTNLAB_SOURCE_DIR).
inline bool load_text_model(OnnxTextModel* m, const std::string& rel) {
  const std::string b = read_text(std::string(ATTNLAB_SOURCE_DIR) + "/" + rel);
  std::string err;
  const bool ok = !b.empty() && m->load(reinterpret_cast<const uint8_t*>(b.data()), b.size(), "", &err);
  EXPECT_TRUE(ok) << rel << ": " << err;
  return ok;
}

}  // namespace attnlab::test
