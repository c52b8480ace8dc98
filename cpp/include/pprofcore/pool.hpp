// pool: objects kept for reuse across calls and threads, for buffers and
// states that cost more to set up than to use (a libdeflate decompressor, a
// series worker's scan). A caller leases one at a time; the lease puts it back.
// Not thread-local storage on purpose: this library is loaded with dlopen, and
// the dynamic TLS of a dlopen'd library is freed by glibc in ways ThreadSanitizer
// cannot follow, so a pool behind a mutex keeps every build checkable.
#pragma once
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace pprofcore {

template <class T>
class Pool {
 public:
  // One object, leased until the lease ends; drop() keeps it from returning
  // (an object that grew too large to keep).
  class Lease {
   public:
    Lease(Pool& pool, std::unique_ptr<T> object) : pool_(&pool), object_(std::move(object)) {}
    Lease(Lease&& o) noexcept : pool_(o.pool_), object_(std::move(o.object_)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (object_) pool_->put(std::move(object_));
    }
    T& operator*() const { return *object_; }
    T* operator->() const { return object_.get(); }
    void drop() { object_.reset(); }

   private:
    Pool* pool_;
    std::unique_ptr<T> object_;
  };

  // A kept object, or a new one from `make()` when none is free.
  template <class Make>
  Lease take(Make&& make) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        std::unique_ptr<T> object = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(object));
      }
    }
    return Lease(*this, make());
  }
  Lease take() {
    return take([] { return std::make_unique<T>(); });
  }

 private:
  void put(std::unique_ptr<T> object) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(object));
  }
  std::mutex mu_;
  std::vector<std::unique_ptr<T>> free_;
};

}  // namespace pprofcore
