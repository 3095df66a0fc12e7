// SPDX-License-Identifier: MIT
/// @file version.hpp The library's version: macros for the preprocessor, rdnaconv::version() for
/// code. CMake's project version is read from these three lines.
#pragma once

#define RDNACONV_VERSION_MAJOR 0
#define RDNACONV_VERSION_MINOR 2
#define RDNACONV_VERSION_PATCH 0
#define RDNACONV_VERSION_STRING "0.2.0"

namespace rdnaconv {

struct Version {
  int major, minor, patch;
};
constexpr Version version() {
  return {RDNACONV_VERSION_MAJOR, RDNACONV_VERSION_MINOR, RDNACONV_VERSION_PATCH};
}
constexpr const char* version_string() {
  return RDNACONV_VERSION_STRING;
}

}  // namespace rdnaconv
