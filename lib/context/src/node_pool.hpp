// Internal: a per-thread cache of context-node blocks.
//
// Every WithCancel/WithTimeout/WithValue allocates one block (the node and
// its shared_ptr control block together) and frees it when the last handle
// goes. A short-lived context is the common case (derive, run, cancel), and
// malloc + free were ~18% of its instructions (bench/results/context.md).
// NodeAllocator keeps up to kMaxCachedBlocks freed blocks per thread and
// hands them out again; anything beyond goes back to operator delete. A block
// freed on another thread simply joins that thread's cache.
//
// Under AddressSanitizer the cache is off, so a use after free of a node is
// still caught.
#pragma once

#include <cstddef>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define TETHER_NODE_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TETHER_NODE_POOL 0
#endif
#endif
#ifndef TETHER_NODE_POOL
#define TETHER_NODE_POOL 1
#endif

namespace tether::detail {

inline constexpr unsigned kMaxCachedBlocks = 64;

// One thread's cache of blocks of one size. Trivially destructible, so it
// stays usable while the thread exits; BlockCacheOwner returns its blocks to
// operator delete when the thread ends, and marks it closed for any node a
// later thread-exit destructor frees.
struct BlockCache {
  struct FreeBlock {
    FreeBlock* next;
  };
  FreeBlock* head;
  unsigned count;
  bool closed;
};

struct BlockCacheOwner {
  BlockCache* cache;
  ~BlockCacheOwner() {
    while (cache->head != nullptr) {
      BlockCache::FreeBlock* b = cache->head;
      cache->head = b->next;
      ::operator delete(static_cast<void*>(b));
    }
    cache->count = 0;
    cache->closed = true;
  }
};

template <class T>
struct NodeAllocator {
  using value_type = T;
  NodeAllocator() = default;
  template <class U>
  NodeAllocator(const NodeAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
#if TETHER_NODE_POOL
    if (n == 1) {
      BlockCache& c = t_cache;  // holds blocks only once deallocate made the owner
      if (c.head != nullptr) {
        BlockCache::FreeBlock* b = c.head;
        c.head = b->next;
        --c.count;
        return reinterpret_cast<T*>(b);
      }
    }
#endif
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }

  void deallocate(T* p, std::size_t n) noexcept {
#if TETHER_NODE_POOL
    if (n == 1) {
      BlockCache& c = OwnedCache();
      if (!c.closed && c.count < kMaxCachedBlocks) {
        auto* b = reinterpret_cast<BlockCache::FreeBlock*>(p);
        b->next = c.head;
        c.head = b;
        ++c.count;
        return;
      }
    }
#endif
    ::operator delete(static_cast<void*>(p));
  }

  template <class U>
  bool operator==(const NodeAllocator<U>&) const noexcept {
    return true;
  }

 private:
  static_assert(sizeof(T) >= sizeof(BlockCache::FreeBlock) &&
                    alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__,
                "a cached block must hold a link and come from plain operator new");
  // One cache per block type (allocate_shared rebinds to its control block).
  // Trivially initialised: reading it costs no initialisation check.
  static inline thread_local BlockCache t_cache{nullptr, 0, false};
  // The cache, with its owner made (the first call on a thread registers
  // the owner's destructor, which drains the cache at thread exit): the
  // only way a block gets into the cache.
  static BlockCache& OwnedCache() {
    static thread_local BlockCacheOwner owner{&t_cache};
    (void)owner;  // odr-use: constructs the owner
    return t_cache;
  }
};

}  // namespace tether::detail
