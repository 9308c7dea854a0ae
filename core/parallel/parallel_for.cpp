// The pool behind parallel_for (see parallel_for.h): worker threads that sleep on a condition variable between
// loops; the calling thread takes part. One loop runs at a time (a second caller waits for the first).
// Between loops that follow closely (an ONNX pass runs one per product, onnx/ops/parts.h) a worker first watches
// for the next loop for up to kSpin before it sleeps, and the caller watches for its helpers likewise: a sleeping
// thread's wake-up costs tens of microseconds, more under WebAssembly's workers. A loop waits only for the helpers
// that joined it before its indices ran out: with more threads than free cores (another worker of the page busy) a
// helper not yet scheduled must not hold every loop of a pass.
#include "parallel/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define ATTNLAB_NO_THREADS 1
#endif

namespace attnlab {

namespace {

thread_local bool t_in_loop = false;  // this thread is running a body: nested loops run serially

constexpr auto kSpin = std::chrono::microseconds(200);

// Spins until done() or kSpin has passed; returns done().
template <class F>
bool spin_until(F&& done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int k = 1;; ++k) {
    if (done()) return true;
    if (k % 64 == 0) {
      if (std::chrono::steady_clock::now() > until) return done();
      std::this_thread::yield();  // let a thread waiting for this core run (the helper waited for, another worker)
    }
  }
}

// The indices of one loop: the calling thread claims them from the front, the helpers from the back, so with two
// threads each keeps the same end of every loop — an op's parts are contiguous ranges of its output, and the next
// op's parts of the same range run where those values already are in the cache. Keeps the lowest index's exception.
struct Loop {
  size_t n = 0;
  const std::function<void(size_t)>* body = nullptr;
  std::atomic<uint64_t> range{0};  // (next index from the front) << 32 | (end of the indices left)
  std::mutex error_mutex;
  size_t error_index = 0;
  std::exception_ptr error;

  void start(size_t count) {
    n = count;
    range.store(static_cast<uint64_t>(count), std::memory_order_relaxed);  // front 0, end n (n < 2^32: parallel_for)
  }
  bool claim(bool front, size_t* i) {
    uint64_t r = range.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t lo = r >> 32, hi = r & 0xffffffffu;
      if (lo >= hi) return false;
      if (range.compare_exchange_weak(r, front ? r + (uint64_t(1) << 32) : r - 1, std::memory_order_relaxed)) {
        *i = static_cast<size_t>(front ? lo : hi - 1);
        return true;
      }
    }
  }
  void work(bool front) {
    for (size_t i; claim(front, &i);) {
      try {
        (*body)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error || i < error_index) {
          error = std::current_exception();
          error_index = i;
        }
      }
    }
  }
};

class Pool {
 public:
  ~Pool() { stop_workers(); }

  int threads() const { return threads_; }

  int set_threads(int n) {
    std::lock_guard<std::mutex> run(run_mutex_);
    stop_workers();
    threads_ = std::clamp(n, 1, kMaxThreads);
#ifdef ATTNLAB_NO_THREADS
    threads_ = 1;
#endif
    return threads_;
  }

  void run(size_t n, const std::function<void(size_t)>& body) {
    std::lock_guard<std::mutex> run(run_mutex_);
    const int helpers = static_cast<int>(std::min<size_t>(n, static_cast<size_t>(threads_))) - 1;
    start_workers(threads_ - 1);
    Loop loop;
    loop.start(n);
    loop.body = &body;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      loop_ = &loop;  // pending_ is 0: the loop before waited for it
      wanted_ = helpers;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    t_in_loop = true;
    loop.work(true);
    t_in_loop = false;
    {
      // Every index is claimed: helpers that have not joined yet stay out (a helper the system has not run — its
      // core busy with another program or another worker of the page — would otherwise hold every loop until it
      // ran); only those that joined are waited for.
      std::lock_guard<std::mutex> lock(mutex_);
      wanted_ = 0;
    }
    spin_until([&] { return pending_.load(std::memory_order_acquire) == 0; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return pending_ == 0; });
      loop_ = nullptr;
    }
    if (loop.error) std::rethrow_exception(loop.error);
  }

 private:
  void start_workers(int count) {
    // A new worker starts from the current generation (changed only by run(), under run_mutex_, as here): it takes
    // part from the next loop on, however late the system starts it.
    while (static_cast<int>(workers_.size()) < count) workers_.emplace_back([this, g = generation_.load()] { worker(g); });
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
    stop_ = false;
  }

  void worker(uint64_t seen) {
    t_in_loop = true;
    for (;;) {
      Loop* loop = nullptr;
      spin_until([&] { return generation_.load(std::memory_order_acquire) != seen || stop_.load(std::memory_order_relaxed); });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (wanted_ == 0) continue;  // that loop closed (or had helpers enough) before this thread came: watch again
        --wanted_;
        ++pending_;
        loop = loop_;
      }
      loop->work(false);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  std::mutex run_mutex_;  // one loop at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Loop* loop_ = nullptr;
  // Written under mutex_; atomic so that the spins may read them without it.
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  int wanted_ = 0;
  std::atomic<bool> stop_{false};
  int threads_ = 1;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

int hardware_threads() {
#ifdef ATTNLAB_NO_THREADS
  return 1;
#else
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(std::min<unsigned>(h, kMaxThreads));
#endif
}

int thread_count() { return pool().threads(); }

bool in_parallel_loop() { return t_in_loop; }

int set_thread_count(int n) { return pool().set_threads(n <= 0 ? hardware_threads() : n); }

void parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  if (n == 1 || t_in_loop || thread_count() == 1) {
    const bool outer = !t_in_loop;
    t_in_loop = true;  // a loop inside this body stays serial whatever the thread count
    try {
      for (size_t i = 0; i < n; ++i) body(i);
    } catch (...) {
      if (outer) t_in_loop = false;
      throw;
    }
    if (outer) t_in_loop = false;
    return;
  }
  constexpr size_t kMaxLoop = 0xffffffffu;  // a Loop's indices fit 32 bits: a longer loop runs as several
  if (n <= kMaxLoop) return pool().run(n, body);
  for (size_t base = 0; base < n; base += kMaxLoop)
    pool().run(std::min(kMaxLoop, n - base), [&](size_t i) { body(base + i); });
}

}  // namespace attnlab
