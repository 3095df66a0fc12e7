# What this tree builds when the user names no build type and no GPU targets (README, "Consuming"):
# optimized device code and targets rdnaconv supports, said at configure time.

# Release when the user gave no CMAKE_BUILD_TYPE and no -O flag of their own (single-config
# generators; a multi-config generator builds what the user asks for). Device code built without
# optimization is not what the kernels are written for: at -O0 the engine's accumulators live in
# scratch and, on RDNA, clang emits almost no v_wmma.
function(rdnaconv_default_build_type)
  get_property(multi GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi)
    return()
  endif()
  if(CMAKE_BUILD_TYPE)
    if(CMAKE_BUILD_TYPE STREQUAL "Debug")
      message(STATUS "rdnaconv: CMAKE_BUILD_TYPE=Debug: device code at -O0 (kernels spill to "
                     "scratch and run far slower); for debugging only")
    endif()
    return()
  endif()
  set(user_flags "${CMAKE_CXX_FLAGS} ${CMAKE_CUDA_FLAGS} ${CMAKE_HIP_FLAGS}")
  if(user_flags MATCHES "(^| )-O")
    message(STATUS "rdnaconv: no CMAKE_BUILD_TYPE, optimization from your flags ('${user_flags}')")
    return()
  endif()
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type (rdnaconv's default: Release)" FORCE)
  message(STATUS "rdnaconv: no CMAKE_BUILD_TYPE given: Release (optimized device code); "
                 "-DCMAKE_BUILD_TYPE=<type> chooses another, None adds no flags of its own")
endfunction()

# The AMD GPU targets to build when CMAKE_HIP_ARCHITECTURES is not set: the GPUs present
# (amdgpu-arch or rocm_agent_enumerator), else every RDNA3/RDNA4 target rdnaconv has WMMA kernels
# for (a binary that runs on any of them; one target builds 8x faster).
set(RDNACONV_RDNA_TARGETS "gfx1100;gfx1101;gfx1102;gfx1103;gfx1150;gfx1151;gfx1200;gfx1201")
function(rdnaconv_default_hip_archs out)
  find_program(RDNACONV_AMDGPU_ARCH NAMES amdgpu-arch-19 amdgpu-arch rocm_agent_enumerator
               HINTS /usr/lib/llvm-19/bin /opt/rocm/bin /opt/rocm/llvm/bin)
  set(found "")
  if(RDNACONV_AMDGPU_ARCH)
    execute_process(COMMAND ${RDNACONV_AMDGPU_ARCH} OUTPUT_VARIABLE lines ERROR_QUIET
                    RESULT_VARIABLE rc TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "gfx[0-9a-f]+" ids "${lines}")
      foreach(id ${ids})
        if(NOT id STREQUAL "gfx000")
          list(APPEND found ${id})
        endif()
      endforeach()
      list(REMOVE_DUPLICATES found)
    endif()
  endif()
  if(found)
    set(why "the GPU present")
  else()
    set(found ${RDNACONV_RDNA_TARGETS})
    set(why "no AMD GPU found: every RDNA3/RDNA4 target")
  endif()
  message(STATUS "rdnaconv: CMAKE_HIP_ARCHITECTURES not set: ${found} (${why}); "
                 "set it to choose, e.g. -DCMAKE_HIP_ARCHITECTURES=gfx1100")
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# The NVIDIA targets to build when CMAKE_CUDA_ARCHITECTURES is not set: the GPUs present
# (nvidia-smi; a 9.0 device gets 90a, which carries the Hopper wgmma tiles), else 80: sm_80 code
# plus its PTX, which newer GPUs compile when the binary loads. nvcc's own default (sm_75 for
# nvcc 13) is older than rdnaconv supports.
function(rdnaconv_default_cuda_archs out)
  find_program(RDNACONV_NVIDIA_SMI nvidia-smi)
  set(found "")
  if(RDNACONV_NVIDIA_SMI)
    execute_process(COMMAND ${RDNACONV_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE lines ERROR_QUIET RESULT_VARIABLE rc TIMEOUT 30)
    if(rc EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" caps "${lines}")
      foreach(c ${caps})
        string(REPLACE "." "" a ${c})
        if(a STREQUAL "90")
          set(a 90a)
        endif()
        list(APPEND found ${a})
      endforeach()
      list(REMOVE_DUPLICATES found)
    endif()
  endif()
  if(found)
    set(why "the GPU present")
  else()
    set(found 80)
    set(why "no NVIDIA GPU found: sm_80 code and PTX that newer GPUs compile at load; 90a on H100/H200")
  endif()
  message(STATUS "rdnaconv: CMAKE_CUDA_ARCHITECTURES not set: ${found} (${why}); "
                 "set it to choose, e.g. -DCMAKE_CUDA_ARCHITECTURES=90a")
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
