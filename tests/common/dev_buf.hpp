// SPDX-License-Identifier: MIT
/// @file dev_buf.hpp A device allocation owned by a test (freed on scope exit); p is null when the
/// allocation failed (ok() says so), bytes its size.
#pragma once

#include <cstddef>
#include <utility>

#include "rdnaconv/arch/platform.hpp"

namespace rdnaconv::testing {

struct DevBuf {
  void* p = nullptr;
  std::size_t bytes = 0;
  DevBuf() = default;
  explicit DevBuf(std::size_t b) : bytes(b) {
    if (b && rt::malloc(&p, b) != rt::success) p = nullptr;
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p(o.p), bytes(o.bytes) { o.p = nullptr; }
  DevBuf& operator=(DevBuf&& o) noexcept {
    std::swap(p, o.p);
    std::swap(bytes, o.bytes);
    return *this;
  }
  ~DevBuf() {
    if (p) (void)rt::free(p);
  }
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
  bool ok() const { return bytes == 0 || p != nullptr; }
};

}  // namespace rdnaconv::testing
