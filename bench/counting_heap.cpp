// The counting global allocator shared by the benchmarks: every operator
// new/delete goes through malloc/free, and while a counting window is open
// (heap::start() .. heap::stop()) the live bytes, their peak and the number of
// allocations are recorded (malloc_usable_size).
#include "counting_heap.h"

#include <malloc.h>

#include <cstdlib>
#include <new>

namespace heap {

// Relaxed atomics: only the benchmark thread allocates while counting is on;
// atomics keep any stray allocation on another thread well-defined.
std::atomic<bool> counting{false};
std::atomic<int64_t> live{0};
std::atomic<int64_t> peak{0};
std::atomic<int64_t> allocs{0};

inline void on_alloc(void* p) {
  if (!counting.load(std::memory_order_relaxed) || !p) return;
  const int64_t n = static_cast<int64_t>(malloc_usable_size(p));
  const int64_t now = live.fetch_add(n, std::memory_order_relaxed) + n;
  allocs.fetch_add(1, std::memory_order_relaxed);
  int64_t pk = peak.load(std::memory_order_relaxed);
  while (now > pk && !peak.compare_exchange_weak(pk, now, std::memory_order_relaxed)) {
  }
}

inline void on_free(void* p) {
  if (!counting.load(std::memory_order_relaxed) || !p) return;
  live.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
}

// Starts a counting window: live and peak are measured from here on.
void start() {
  live.store(0, std::memory_order_relaxed);
  peak.store(0, std::memory_order_relaxed);
  allocs.store(0, std::memory_order_relaxed);
  counting.store(true, std::memory_order_relaxed);
}
void stop() { counting.store(false, std::memory_order_relaxed); }

void* alloc(std::size_t n) {
  void* p = std::malloc(n ? n : 1);
  on_alloc(p);
  return p;
}

void* alloc_aligned(std::size_t n, std::size_t align) {
  if (align < sizeof(void*)) align = sizeof(void*);
  void* p = nullptr;
  if (posix_memalign(&p, align, n ? n : 1) != 0) return nullptr;
  on_alloc(p);
  return p;
}

void release(void* p) noexcept {
  on_free(p);
  std::free(p);
}

void* alloc_or_throw(std::size_t n) {
  for (;;) {
    if (void* p = alloc(n)) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

void* alloc_aligned_or_throw(std::size_t n, std::size_t align) {
  for (;;) {
    if (void* p = alloc_aligned(n, align)) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}

}  // namespace heap

void* operator new(std::size_t n) { return heap::alloc_or_throw(n); }
void* operator new[](std::size_t n) { return heap::alloc_or_throw(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return heap::alloc(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return heap::alloc(n); }
void* operator new(std::size_t n, std::align_val_t a) {
  return heap::alloc_aligned_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return heap::alloc_aligned_or_throw(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return heap::alloc_aligned(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return heap::alloc_aligned(n, static_cast<std::size_t>(a));
}

void operator delete(void* p) noexcept { heap::release(p); }
void operator delete[](void* p) noexcept { heap::release(p); }
void operator delete(void* p, std::size_t) noexcept { heap::release(p); }
void operator delete[](void* p, std::size_t) noexcept { heap::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { heap::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { heap::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { heap::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { heap::release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { heap::release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { heap::release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { heap::release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { heap::release(p); }

