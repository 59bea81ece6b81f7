#include "failed_allocation.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace nbody {
namespace {

std::atomic<std::size_t> failedRequest{0};

// Never inlined: GCC would see free() meet what new returned and warn of a mismatch.
[[gnu::noinline]] void* allocate(std::size_t size) {
  while (true) {
    if (void* memory = std::malloc(size > 0 ? size : 1)) return memory;
    const std::new_handler handler = std::get_new_handler();
    if (!handler) break;
    handler();
  }
  failedRequest = size;
  throw std::bad_alloc();
}

[[gnu::noinline]] void* allocateOrNull(std::size_t size) noexcept {
  try {
    return allocate(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

[[gnu::noinline]] void release(void* memory) noexcept { std::free(memory); }

}  // namespace

std::size_t lastFailedAllocation() noexcept { return failedRequest.load(); }

}  // namespace nbody

void* operator new(std::size_t size) { return nbody::allocate(size); }
void* operator new[](std::size_t size) { return nbody::allocate(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return nbody::allocateOrNull(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return nbody::allocateOrNull(size);
}
void operator delete(void* memory) noexcept { nbody::release(memory); }
void operator delete[](void* memory) noexcept { nbody::release(memory); }
void operator delete(void* memory, std::size_t) noexcept { nbody::release(memory); }
void operator delete[](void* memory, std::size_t) noexcept { nbody::release(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { nbody::release(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { nbody::release(memory); }
