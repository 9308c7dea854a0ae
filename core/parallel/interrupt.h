// interrupt.h — one word per process (per wasm instance: one per worker) through which a host stops the core's long
// work at its next check instead of letting it run to its end. The page needs it because a Web Worker busy in one wasm
// call is not stopped by terminate() at once: Chromium lets the running task go on for up to two seconds, on the cores
// the page's next request needs (a debate experiment of the step before while the next token is explained). So the
// page writes 1 into this word (the worker's shared memory: web/runtime/worker-channel.js) just before terminate().
// Natively nothing sets it but tests.
//
// Contract:
//   interrupt_word() → the word (its address is what the wasm binding hands to the page; int32, 4-aligned).
//   request_interrupt() / clear_interrupt(): set it to 1 / 0. interrupted() → whether it is set (a relaxed load: a
//   check costs a load; a request is seen within one check).
//   Where the core checks: the ONNX executor before each node it runs (forward, forward_from) and before each node's
//   backward — an interrupted pass fails with kInterruptedMessage, and what the caller does with a failed pass (a NaN
//   row, an error) it does quickly, so the call ends within one node's work.
#pragma once
#include <atomic>
#include <cstdint>

namespace attnlab {

inline constexpr const char* kInterruptedMessage = "stopped: the page asked this worker to stop (a newer request)";

std::atomic<int32_t>& interrupt_word();
inline bool interrupted() { return interrupt_word().load(std::memory_order_relaxed) != 0; }
inline void request_interrupt() { interrupt_word().store(1, std::memory_order_relaxed); }
inline void clear_interrupt() { interrupt_word().store(0, std::memory_order_relaxed); }

}  // namespace attnlab
