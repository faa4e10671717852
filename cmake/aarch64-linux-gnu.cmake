# Cross-compiling for 64-bit Arm Linux (the Jetson's CPU) with Debian's
# gcc-aarch64-linux-gnu and multiarch :arm64 libraries; the tests run under
# qemu-aarch64 (plain, without -L: the multiarch loader and libc are found
# at their usual paths).
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DJETFILTER_CUDA=OFF ..
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
# -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc-11 picks another release (JetPack 6's)
if(NOT CMAKE_C_COMPILER)
  set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
endif()
if(NOT CMAKE_CXX_COMPILER)
  set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
endif()
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
