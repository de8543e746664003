// The benchmarks' counting global allocator (counting_heap.cpp replaces
// operator new/delete in every program it is linked into).
#pragma once

#include <atomic>
#include <cstdint>

namespace heap {
extern std::atomic<int64_t> live;    // bytes live since start()
extern std::atomic<int64_t> peak;    // the most live bytes since start()
extern std::atomic<int64_t> allocs;  // allocations since start()
// Starts a counting window: live and peak are measured from here on.
void start();
void stop();
}  // namespace heap
