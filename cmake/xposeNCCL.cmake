# SPDX-License-Identifier: Apache-2.0
# Finds NCCL's header and library (the CUDA toolkit may ship them; Debian has libnccl-dev) and
# defines the imported target xpose::nccl. Used by the build and by the installed package's dist
# component. Sets XPOSE_NCCL_FOUND. Needs CUDAToolkit found first; XPOSE_NCCL_GLOBAL set to GLOBAL
# makes the target visible to the whole build.
if(NOT TARGET xpose::nccl)
  find_path(XPOSE_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(XPOSE_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(XPOSE_NCCL_INCLUDE_DIR AND XPOSE_NCCL_LIBRARY)
    add_library(xpose::nccl UNKNOWN IMPORTED ${XPOSE_NCCL_GLOBAL})
    set_target_properties(xpose::nccl PROPERTIES IMPORTED_LOCATION "${XPOSE_NCCL_LIBRARY}"
                          INTERFACE_INCLUDE_DIRECTORIES "${XPOSE_NCCL_INCLUDE_DIR}")
  endif()
endif()
if(TARGET xpose::nccl)
  set(XPOSE_NCCL_FOUND ON)
else()
  set(XPOSE_NCCL_FOUND OFF)
endif()
