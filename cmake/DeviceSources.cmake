# rdnaconv_device_sources(<target> <sources...>): compile sources for the chosen backend.
#  cuda: as CUDA (nvcc) for CMAKE_CUDA_ARCHITECTURES.
#  hip via CXX (Debian): clang -x hip with one --offload-arch per CMAKE_HIP_ARCHITECTURES entry
#    and the device-library folder made by cmake/make_gfx_devlibs.sh.
#  hip (ROCm): CMake's HIP language.
function(rdnaconv_device_sources target)
  if(RDNACONV_BACKEND STREQUAL "cuda")
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-warn-spills>)
  elseif(RDNACONV_HIP_VIA_CXX)
    set(flags -x hip --rocm-path=${RDNACONV_ROCM_PATH} --rocm-device-lib-path=${RDNACONV_DEVICE_LIB_PATH} -Wno-linker-warnings)
    foreach(a ${CMAKE_HIP_ARCHITECTURES})
      list(APPEND flags --offload-arch=${a})
    endforeach()
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "${flags}")
    target_link_libraries(${target} PRIVATE amdhip64)
  else()
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE HIP)
  endif()
endfunction()
