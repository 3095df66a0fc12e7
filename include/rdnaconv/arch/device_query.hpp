// SPDX-License-Identifier: MIT
/// @file device_query.hpp What a plan needs to know about a device (architecture number, wave
/// size, multiprocessor count), read once per device and cached: a fixed property, so it cannot go
/// stale; one properties query (no per-plan attribute calls), no stream operation, so planning is
/// legal inside stream capture. The only runtime query of the library.
#pragma once

#include <atomic>
#include <cstdint>

#include "rdnaconv/arch/device_info.hpp"
#include "rdnaconv/arch/platform.hpp"

namespace rdnaconv::arch {

/// `device` < 0: the current one. Devices 0..63 are cached (others are queried every time).
inline rt::error_t query_device(int device, DeviceInfo& out) {
  if (device < 0)
    if (rt::error_t e = rt::get_device(&device); e != rt::success) return e;
  // 0 = unknown; else amd << 63 | sms << 32 | warp << 24 | arch
  static std::atomic<std::uint64_t> cache[64];
#if defined(RDNACONV_BACKEND_CUDA)
  constexpr bool amd = false;
#else
  constexpr bool amd = true;
#endif
  if (device < 64) {
    const std::uint64_t c = cache[device].load(std::memory_order_relaxed);
    if (c) {
      out = make_device_info((c >> 63) != 0, int(c & 0xffffffu), int((c >> 24) & 0x7fu),
                             int((c >> 32) & 0x7fffffffu));
      return rt::success;
    }
  }
  int number = 0, warp = 32, sms = 0;
  char name[64];
  if (rt::error_t e = rt::device_arch(device, &number, &warp, &sms, name, sizeof name);
      e != rt::success)
    return e;
  out = make_device_info(amd, number, warp, sms);
  if (device < 64)
    cache[device].store((amd ? std::uint64_t(1) << 63 : 0u) |
                            (std::uint64_t(std::uint32_t(sms) & 0x7fffffffu) << 32) |
                            (std::uint64_t(warp & 0x7f) << 24) |
                            (std::uint64_t(number) & 0xffffffu),
                        std::memory_order_relaxed);
  return rt::success;
}

}  // namespace rdnaconv::arch
