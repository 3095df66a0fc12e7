# rdnaconv_device_sources(<target> <sources...>): compile sources for the chosen backend.
#  cuda: as CUDA (nvcc) for CMAKE_CUDA_ARCHITECTURES.
#  hip via CXX (Debian): clang -x hip with one --offload-arch per CMAKE_HIP_ARCHITECTURES entry
#    and the device-library folder made by cmake/make_gfx_devlibs.sh.
#  hip (ROCm): CMake's HIP language.
function(rdnaconv_hip_flags out archs)
  set(flags -x hip --rocm-path=${RDNACONV_ROCM_PATH} --rocm-device-lib-path=${RDNACONV_DEVICE_LIB_PATH} -Wno-linker-warnings)
  foreach(a ${archs})
    list(APPEND flags --offload-arch=${a})
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

function(rdnaconv_device_sources target)
  if(RDNACONV_BACKEND STREQUAL "cuda")
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>)
  elseif(RDNACONV_HIP_VIA_CXX)
    rdnaconv_hip_flags(flags "${CMAKE_HIP_ARCHITECTURES}")
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "${flags}")
    target_link_libraries(${target} PRIVATE amdhip64)
  else()
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE HIP)
  endif()
endfunction()

# rdnaconv_stats_sources(<target> <sources...>): the CUB/rocPRIM adapter of the test harness.
# Debian's rocPRIM 5.3 does not compile for gfx11/gfx12 under clang-19 (a DPP broadcast error),
# so on that path the adapter is built for RDNACONV_ROCPRIM_ARCHS (default gfx1030) only.
set(RDNACONV_ROCPRIM_ARCHS "gfx1030" CACHE STRING "Targets of the rocPRIM adapter on the Debian HIP path")
function(rdnaconv_stats_sources target)
  if(RDNACONV_HIP_VIA_CXX)
    rdnaconv_hip_flags(flags "${RDNACONV_ROCPRIM_ARCHS}")
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "${flags}")
    target_link_libraries(${target} PRIVATE amdhip64)
  else()
    rdnaconv_device_sources(${target} ${ARGN})
  endif()
endfunction()
