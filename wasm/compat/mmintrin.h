// Emscripten ships SSE–SSE4.2 headers (compiled to wasm SIMD) but no MMX header; Eigen's SSE path includes
// <mmintrin.h> first and uses nothing from it, so the wasm build (CMakeLists.txt) finds this one.
#pragma once
#include <xmmintrin.h>
