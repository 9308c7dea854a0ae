// The wasm core's operator new / delete (wasm/thread_cache_new.cpp), built natively into a test program of its own
// (it replaces the program's global operators): every size class boundary gives 16-byte aligned, writable blocks; a
// freed block serves the next request of its size class on the same thread (the cache is used); blocks allocated on one thread and
// freed on another, under load from two threads, keep their contents (no block is handed out twice).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <thread>
#include <vector>

namespace {

const size_t kSizes[] = {0, 1, 15, 16, 17, 1023, 1024, 1025, 2047, 2048, 2049, 40000, 65535, 65536, 65537, size_t(1) << 20};

TEST(ThreadCacheNew, EverySizeAlignedAndWritable) {
  for (const size_t n : kSizes) {
    unsigned char* p = static_cast<unsigned char*>(::operator new(n));
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u) << n;
    std::memset(p, 0xA5, n);
    for (size_t k = 0; k < n; ++k) ASSERT_EQ(p[k], 0xA5) << n;
    ::operator delete(p);
    void* q = ::operator new[](n, std::nothrow);
    ASSERT_NE(q, nullptr) << n;
    ::operator delete[](q);
  }
}

// A freed block serves the next request of its size class on the same thread — 17 and 32 bytes share the class
// 17..32, 1,025 and 2,048 the class 1,025..2,048, 40,000 and 65,536 the last one (glibc's own cache keeps each of these
// pairs apart: a program with the default operators fails this) — and never one of a smaller class.
TEST(ThreadCacheNew, AFreedBlockServesItsClass) {
  const size_t pairs[][2] = {{17, 32}, {1025, 2048}, {40000, 65536}};
  for (const auto& pr : pairs) {
    void* p = ::operator new(pr[0]);
    ::operator delete(p);
    void* q = ::operator new(pr[1]);
    EXPECT_EQ(p, q) << pr[0] << " then " << pr[1];
    ::operator delete(q);
  }
  void* a = ::operator new(16);
  ::operator delete(a);
  void* b = ::operator new(17);  // class 17..32: the freed 16-byte block is too small
  EXPECT_NE(a, b);
  ::operator delete(b);
}

// Thread 1 allocates and fills blocks; thread 2 checks and frees them while allocating and filling its own; each
// block's bytes carry its index, so a block handed out twice shows as a wrong byte.
TEST(ThreadCacheNew, BlocksCrossThreadsIntact) {
  constexpr size_t kBlocks = 20000;
  std::vector<unsigned char*> made(kBlocks);
  std::vector<size_t> sizes(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) sizes[i] = 1 + (i * 7919) % 5000;
  std::thread producer([&] {
    for (size_t i = 0; i < kBlocks; ++i) {
      made[i] = static_cast<unsigned char*>(::operator new(sizes[i]));
      std::memset(made[i], static_cast<int>(i & 0xff), sizes[i]);
    }
  });
  producer.join();
  std::vector<unsigned char*> own;
  std::thread consumer([&] {
    for (size_t i = 0; i < kBlocks; ++i) {
      unsigned char* o = static_cast<unsigned char*>(::operator new(sizes[i]));
      std::memset(o, static_cast<int>((i + 1) & 0xff), sizes[i]);
      own.push_back(o);
      for (size_t k = 0; k < sizes[i]; ++k) ASSERT_EQ(made[i][k], i & 0xff) << i;
      ::operator delete(made[i]);
    }
  });
  consumer.join();
  for (size_t i = 0; i < kBlocks; ++i) {
    for (size_t k = 0; k < sizes[i]; ++k) ASSERT_EQ(own[i][k], (i + 1) & 0xff) << i;
    ::operator delete(own[i]);
  }
}

TEST(ThreadCacheNew, ContainersOnTwoThreads) {
  auto work = [](int seed, long* sum) {
    long s = 0;
    for (int r = 0; r < 2000; ++r) {
      std::vector<std::vector<int>> v(static_cast<size_t>(1 + (r + seed) % 50));
      for (size_t k = 0; k < v.size(); ++k) v[k].assign(k * 3 + 1, static_cast<int>(k));
      for (const auto& x : v) s += static_cast<long>(x.size()) * x.back();
    }
    *sum = s;
  };
  long a = 0, b = 0, a1 = 0;
  std::thread t1(work, 0, &a), t2(work, 0, &b);
  t1.join();
  t2.join();
  work(0, &a1);
  EXPECT_EQ(a, a1);
  EXPECT_EQ(b, a1);
}

}  // namespace
