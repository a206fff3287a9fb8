# Cross toolchain for aarch64 Linux with Debian's gcc-aarch64-linux-gnu and
# libc6-dev-arm64-cross (used by scripts/hwtest.sh):
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DBUILD_TESTING=OFF ...
# Libraries and headers are looked up in the cross sysroot only, so the host's
# libpfm4, hwloc and libdw are not found and get compiled out.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(PMUKIT_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${PMUKIT_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${PMUKIT_CROSS_TRIPLE}-g++)

set(CMAKE_FIND_ROOT_PATH /usr/${PMUKIT_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config would otherwise report the host's (x86-64) .pc files.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${PMUKIT_CROSS_TRIPLE}/pkgconfig:/usr/${PMUKIT_CROSS_TRIPLE}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")

# The guest is a bare initramfs: no shared libraries there.
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
