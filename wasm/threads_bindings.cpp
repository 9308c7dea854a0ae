// Embind code of the core's threads (core/parallel/parallel_for.h). The wasm core is built with -pthread; its
// pthread Workers are the pool that web/runtime/host/core.js asks Emscripten to start (Module.attnlabPoolSize, 0
// where the page is not cross-origin isolated: shared memory cannot reach another worker there). setThreads(n)
// therefore never asks for more threads than the pool holds plus the calling thread: a thread beyond the pool would
// wait for an event loop that the blocked caller never returns to. interruptWord() is the byte address of the core's
// interrupt word (core/parallel/interrupt.h) in this instance's memory, which the worker hands to the page
// (web/runtime/host/core.js). Convention: docs/DESIGN.md "Binding convention".
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>

#include "parallel/interrupt.h"
#include "parallel/parallel_for.h"

namespace {

int pool_size() {
  const emscripten::val v = emscripten::val::module_property("attnlabPoolSize");
  return v.isNumber() ? std::max(0, v.as<int>()) : 0;
}

// n <= 0: every thread the pool allows. Returns the count now in effect.
int set_threads_js(int n) {
  const int most = pool_size() + 1;
  return attnlab::set_thread_count(n <= 0 ? most : std::min(n, most));
}

int threads_js() { return attnlab::thread_count(); }

unsigned interrupt_word_js() { return static_cast<unsigned>(reinterpret_cast<uintptr_t>(&attnlab::interrupt_word())); }

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_threads) {
  emscripten::function("_raw_setThreads", &set_threads_js);
  emscripten::function("_raw_threads", &threads_js);
  emscripten::function("_raw_interruptWord", &interrupt_word_js);
}
