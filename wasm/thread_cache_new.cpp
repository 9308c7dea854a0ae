// thread_cache_new.cpp — the wasm core's global operator new / delete: a small cache of freed blocks per thread in
// front of Emscripten's dlmalloc. Emscripten 3.1.6's dlmalloc has one lock (a pthread mutex) for every thread, and
// the core allocates often (an inference pass of stories260K at 52 tokens: ≈ 2,700 blocks, most under 1 KiB: shapes,
// strides, small tensors), so two threads running passes side by side (leave-one-out's lanes) wait on each other in
// malloc and free; a contended mutex in wasm sleeps in Atomics.wait. Natively glibc has per-thread arenas and its own
// per-thread cache, so this file is the wasm build's only (wasm/*.cpp is linked into the wasm target alone).
//
// Contract: blocks up to 64 KiB are rounded to a size class (16-byte steps to 1 KiB, then 2, 4, …, 64 KiB) and carry a
// 16-byte header with their class; a freed one goes onto the freeing thread's list of its class (at most kMaxPerClass
// and kMaxCachedBytes a thread; beyond, back to malloc), and a new one of that class is taken from the list first.
// Larger blocks go to malloc with the header. Alignment 16 as malloc's; the aligned forms (align_val_t) are libc++'s
// own (aligned_alloc / free), untouched. Out of memory: the new_handler, else abort(), as libc++'s operator new
// built without exceptions does; the nothrow forms return null. A thread's cache is zero-initialised TLS with no
// constructor or destructor: blocks cached by a thread that ends stay allocated (the pool's threads live as long as
// the module).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr size_t kHeader = 16;
constexpr int kSmallClasses = 64;                // 16, 32, …, 1024 bytes
constexpr int kClasses = kSmallClasses + 6;      // then 2, 4, 8, 16, 32, 64 KiB
constexpr size_t kLargest = size_t(64) << 10;
constexpr size_t kMaxCachedBytes = size_t(2) << 20;
constexpr uint32_t kMaxPerClass = 256;
constexpr uint32_t kUncached = 0xffffffffu;

int class_of(size_t n) {
  if (n <= 1024) return n == 0 ? 0 : static_cast<int>((n + 15) / 16) - 1;
  int c = kSmallClasses;
  for (size_t s = 2048; s < n; s <<= 1) ++c;
  return c;
}

size_t class_size(uint32_t c) { return c < kSmallClasses ? (c + 1) * size_t(16) : size_t(2048) << (c - kSmallClasses); }

struct FreeBlock {
  FreeBlock* next;
};
struct Cache {
  FreeBlock* head[kClasses];
  uint32_t count[kClasses];
  size_t bytes;
};
thread_local Cache cache;

void* allocate(size_t n) {
  const bool small = n <= kLargest;
  const uint32_t c = small ? static_cast<uint32_t>(class_of(n)) : kUncached;
  if (small) {
    Cache& k = cache;
    if (FreeBlock* f = k.head[c]) {
      k.head[c] = f->next;
      --k.count[c];
      k.bytes -= class_size(c);
      return f;
    }
  }
  const size_t body = small ? class_size(c) : n;
  if (body > SIZE_MAX - kHeader) return nullptr;
  char* p = static_cast<char*>(std::malloc(kHeader + body));
  if (!p) return nullptr;
  *reinterpret_cast<uint32_t*>(p) = c;
  return p + kHeader;
}

void release(void* q) {
  if (!q) return;
  char* p = static_cast<char*>(q) - kHeader;
  const uint32_t c = *reinterpret_cast<const uint32_t*>(p);
  if (c != kUncached) {
    Cache& k = cache;
    const size_t s = class_size(c);
    if (k.count[c] < kMaxPerClass && k.bytes + s <= kMaxCachedBytes) {
      FreeBlock* f = static_cast<FreeBlock*>(q);
      f->next = k.head[c];
      k.head[c] = f;
      ++k.count[c];
      k.bytes += s;
      return;
    }
  }
  std::free(p);
}

void* allocate_or_fail(size_t n) {
  for (;;) {
    if (void* p = allocate(n)) return p;
    const std::new_handler h = std::get_new_handler();
    if (!h) std::abort();
    h();
  }
}

}  // namespace

void* operator new(size_t n) { return allocate_or_fail(n); }
void* operator new[](size_t n) { return allocate_or_fail(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, size_t) noexcept { release(p); }
void operator delete[](void* p, size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
