// Embind code of the catalogue (core/catalogue): the same JSON as `attnlab catalogue`, and the network passes of
// an image method's plan for given parameters. Convention: docs/DESIGN.md "Binding convention".
#include <emscripten/bind.h>

#include "boundary.h"
#include "catalogue/catalogue.h"
#include "explain/image/method_catalogue.h"

namespace {

using namespace attnlab;
using namespace attnlab::wasm;

val catalogue_js() { return out_json(catalogue_json()); }

val image_passes_js(const std::string& method, const val& params, int channels) {
  Err e;
  nlohmann::json p;
  std::string error;
  if (!object_arg(params, "params", &p, e)) return error_val(e.message);
  const long n = image_method_passes(method, p, channels, &error);
  return n < 0 ? error_val(error) : val(static_cast<double>(n));
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_catalogue) {
  emscripten::function("_raw_catalogue", &catalogue_js);
  emscripten::function("_raw_imagePasses", &image_passes_js);
}
