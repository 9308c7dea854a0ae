// The core's threads: one process-wide pool that every parallel loop of the core shares (explanations'
// batched passes, experiments over sentences, perturbation passes, data-parallel training).
//
//   set_thread_count(0);                  // every hardware thread (the CLI's default; --threads N)
//   parallel_for(n, [&](size_t i) { out[i] = f(i); });
//
// Contract that makes results independent of the thread count: parallel_for gives each index to exactly one
// thread, in no fixed order, so body(i) must depend on i alone and write only what belongs to i; work is split
// into items by the caller from the work alone (never from thread_count()), and anything summed across items is
// summed afterwards in index order. A parallel_for inside a body runs serially on that thread (one level of
// parallelism, no pool inside the pool). If bodies throw, every index still runs and the exception of the
// lowest index that threw is rethrown.
// The default is one thread (the library and its tests run serially unless asked). The wasm core without
// pthreads (the single-threaded build) always runs serially; the threaded build (Emscripten -pthread) uses the
// same pool on Web Workers.
#pragma once
#include <cstddef>
#include <functional>

namespace attnlab {

constexpr int kMaxThreads = 64;

// Threads the parallel loops use, the calling thread included; >= 1.
int thread_count();
// n <= 0: every hardware thread (std::thread::hardware_concurrency(), 1 when unknown); at most kMaxThreads.
// Returns the count now in effect (1 in a build without threads). Call between loops, not inside a body.
int set_thread_count(int n);
// Hardware threads of this machine (1 when unknown or in a build without threads).
int hardware_threads();

void parallel_for(size_t n, const std::function<void(size_t)>& body);
// Whether this thread is running a body of parallel_for — on any thread count, one included (a fact of the call
// structure, not of the threads, so work may be split by it without the results depending on the threads).
bool in_parallel_loop();

// [begin, end) of part k when `items` are split into `parts` parts whose sizes differ by at most one.
inline size_t split_begin(size_t items, size_t parts, size_t k) { return items * k / parts; }

}  // namespace attnlab
