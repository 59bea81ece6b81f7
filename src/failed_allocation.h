#pragma once
// nbody's own operator new and delete (the program's; the tests keep the library's): the standard
// replacement, malloc and free, which records the size of a request that fails before
// std::bad_alloc is thrown, so that "out of memory" can say how much was asked for. Every form that
// is not over-aligned is replaced together: a sanitizer's new would otherwise meet free() for what
// it made.

#include <cstddef>

namespace nbody {

// The size of the last request for memory that failed; 0 before any.
std::size_t lastFailedAllocation() noexcept;

}  // namespace nbody
