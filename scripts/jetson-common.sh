# The helpers of the Jetson configuration checks (scripts/nano-check.sh for
# JetPack 4.6, scripts/orin-check.sh for JetPack 6): sourced, not run, as
#   . "$(dirname "$0")/jetson-common.sh" BOARD "$@"
# It sets src (the tree, made the current folder), update (1 with --update:
# rewrite the committed tables), cache (downloads kept between runs,
# $JF_CACHE) and work (the check's build folder, $JF_NANO_WORK or
# $JF_ORIN_WORK, else build-BOARD).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
src=$PWD
update=0
[ "${2:-}" = "--update" ] && update=1
cache=${JF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jetfilter-ci}
work_variable=JF_${1^^}_WORK
work=${!work_variable:-$src/build-$1}
mkdir -p "$cache" "$work"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
passed=0 failed=0
declare -a report

step() { # name, description, function
  local name=$1 what=$2 fn=$3 t0=$SECONDS
  echo "== $name: $what"
  if ( "$fn" ) > "$work/$name.log" 2>&1; then
    passed=$((passed + 1)); report+=("PASS  $name ($((SECONDS - t0)) s): $what")
    echo "PASS $name"
  else
    failed=$((failed + 1)); report+=("FAIL  $name ($((SECONDS - t0)) s): $what; log $work/$name.log")
    echo "FAIL $name"; tail -30 "$work/$name.log"
  fi
}

finish() { # check's name, its start time
  echo
  printf '%s\n' "${report[@]}"
  echo "$1: $passed passed, $failed failed in $((SECONDS - $2)) s"
  [ "$failed" -eq 0 ]
}

# apt with a private source list: Debian non-free (CUDA 11.8 in bookworm,
# 12.4 in trixie) and bullseye (GCC 9), without touching the machine's own
# sources.  Name a package with its release (nvidia-cuda-dev/trixie).
apt_private() {
  local dir=$cache/apt
  mkdir -p "$dir/lists/partial" "$dir/archives/partial"
  cat > "$dir/sources.list" <<EOF
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main contrib non-free
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bullseye main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie non-free
EOF
  apt-get -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
          -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir" -o Dir::Cache::archives="$dir/archives" \
          -o APT::Sandbox::User=root "$@"
}

# A CUDA toolkit arranged as NVIDIA lays it out (bin, nvvm, include, lib64)
# from Debian's split packages, so nvcc finds its parts by its own
# nvcc.profile: only the compiler, the headers, the static runtime and NPP's
# filters are kept.
cuda_toolkit() { # version, release, the runtime's package
  local version=$1 release=$2 runtime=$3
  local c=$cache/cuda-$version d=$cache/cuda-debs-$version
  [ -x "$c/bin/nvcc" ] && [ -x "$c/bin/nvdisasm" ] && return 0
  rm -rf "$d" "$c" && mkdir -p "$d/root" "$c/bin" "$c/nvvm/bin" "$c/nvvm/libdevice" "$c/lib64" "$c/include" &&
  (cd "$d" && apt_private download "nvidia-cuda-toolkit/$release" "nvidia-cuda-dev/$release" \
      "$runtime/$release") || return 1
  local lib=./usr/lib/x86_64-linux-gnu r=$d/root
  for deb in "$d"/*.deb; do
    # the whole of nvidia-cuda-dev (2.5 GB unpacked in 12.4) is not needed
    dpkg-deb --fsys-tarfile "$deb" | tar x -C "$r" --wildcards --no-wildcards-match-slash \
        './usr/bin/*' './usr/lib/nvidia-cuda-toolkit/*' './usr/include/*' "$lib/libcudart_static.a" \
        "$lib/libcudadevrt.a" "$lib/libculibos.a" "$lib/libnppif_static.a" "$lib/libnppc_static.a" \
        2> /dev/null
  done
  cp "$r/usr/lib/nvidia-cuda-toolkit/bin/nvcc" "$c/bin/" &&
  cp "$r/usr/lib/nvidia-cuda-toolkit/bin/cicc" "$c/nvvm/bin/" &&
  cp -r "$r/usr/lib/nvidia-cuda-toolkit/bin/crt" "$c/bin/" || return 1
  for t in ptxas fatbinary nvlink cudafe++ bin2c cuobjdump cu++filt nvdisasm; do cp "$r/usr/bin/$t" "$c/bin/" || return 1; done
  cp "$r/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc" "$c/nvvm/libdevice/" &&
  cp -r "$r/usr/include/." "$c/include/" || return 1
  for l in libcudart_static.a libcudadevrt.a libculibos.a libnppif_static.a libnppc_static.a; do
    cp "$r/$lib/$l" "$c/lib64/" || return 1
  done
  cat > "$c/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
  rm -rf "$d"
}

# CMake as a PyPI wheel (the x86-64 build of the release a JetPack ships).
cmake_wheel() { # version
  local w=$cache/cmake-$1
  [ -x "$w/cmake/data/bin/cmake" ] && return 0
  python3 -m pip --version > /dev/null 2>&1 || $sudo apt-get install -y -qq python3-pip > /dev/null
  rm -rf "$w" && mkdir -p "$w" &&
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.6 --abi cp36m \
      --platform manylinux1_x86_64 --platform manylinux2010_x86_64 --platform manylinux2014_x86_64 \
      "cmake==$1" -d "$w" &&
  (cd "$w" && python3 -m zipfile -e cmake-"$1"-*.whl . && chmod +x cmake/data/bin/*)
}

# The aarch64 cross compilers (Debian's and GCC 11, JetPack 6's), qemu and
# the :arm64 libraries the CPU build links.
aarch64_tools() { # extra packages...
  $sudo dpkg --add-architecture arm64 &&
  $sudo apt-get update -qq &&
  $sudo apt-get install -y -qq --no-install-recommends g++-11 qemu-user gcc-aarch64-linux-gnu \
      gcc-11-aarch64-linux-gnu \
      libc6-dev-arm64-cross libjpeg62-turbo-dev:arm64 libpng-dev:arm64 zlib1g-dev:arm64 \
      libtiff-dev:arm64 libwebp-dev:arm64 libdeflate-dev:arm64 libjansson-dev:arm64 libcmocka-dev:arm64 pkg-config "$@" > /dev/null
}

# Configure, build, run every test.
build_and_test() { # dir, ctest, cmake args...
  local dir=$1 ctest=$2; shift 2
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" && "$@" "$src" && make -j"$(nproc)" &&
  "$ctest" --output-on-failure -j"$(nproc)"
}

# The boards' builds (their old compilers, and aarch64 under qemu) run the
# tests whose answers a compiler or an architecture can change (arithmetic,
# char signedness, alignment, byte order): filters, codecs, metrics, the
# library and its options.  Those of processes, pipes, files and documents
# (CLI, safety, hostile files, shards, streams, schema, docs, examples) run
# in the main build on every CI run; under qemu they took two of the step's
# five minutes.  A Jetson has no NVML (its meter is the INA3221), so its
# stand-in stays out.  The generators' checks (scripts/gen_median_fast.py,
# scripts/median_network.py: host Python) are the same on every build.
main_build_only='test_cli|test_safety|test_hostile|test_shard|test_stream|test_schema|test_docs|test_examples|test_power_nvml|test_median_networks|test_median_cpu_networks'
# A board's CUDA build (its CMake, compilers and CUDA): those tests (the
# GPU ones skip), the long tables in their quick sets (the main build and
# the sanitizers run them whole).
ctest_board() { # ctest, args...
  local ctest=$1; shift
  JF_CHECK_QUICK=1 JF_TEST_QUICK=1 "$ctest" -E "^($main_build_only)\$" "$@"
}
ctest_aarch64() {
  ctest -E "^($main_build_only)\$" "$@"
}

# The CPU-only aarch64 build with GCC 11 (the Orin's compiler; the
# oldest aarch64 cross compiler Debian packages, the Nano's being GCC 7),
# warnings as errors, its tests run under qemu by the given function; no
# arm64 GStreamer here: the element's API level is checked apart
# (scripts/gst-api-level.sh).
aarch64_build() { # ctest_aarch64 or ctest_aarch64_quick, cmake args...
  local run=$1; shift
  build_and_test "$work/aarch64" "$run" cmake \
      -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
      -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc-11 -DCMAKE_C_FLAGS="-Werror" \
      -DJETFILTER_CUDA=OFF -DJETFILTER_GSTREAMER=OFF "$@"
}

# No glibc function newer than the board's release in the aarch64 binaries.
aarch64_glibc() { # level
  JF_GLIBC_LEVEL=$1 "$src/scripts/glibc-symbols.sh" aarch64-linux-gnu-objdump "$work/aarch64/jetfilter" \
      "$work/aarch64/jetfilter-example" "$work/aarch64/tests/test_cli"
}

# A second aarch64 build of the same sources with the same compiler: only
# what its configuration changes (libdeflate, which Ubuntu 18.04 lacks).
ctest_aarch64_codecs() {
  ctest -R '^(test_codecs|test_formats)$' "$@"
}

# A board's occupancy and instruction tables: made from its build in
# $work, compared with the committed ones (--update rewrites them).
board_table() { # made, committed
  cat "$1"
  [ "$update" -eq 1 ] && cp "$1" "$2"
  if ! diff -q "$1" "$2" > /dev/null; then
    echo "note: $2 differs from this build; run $0 --update"
  fi
  return 0
}

# Registers, spills and shared memory of each kernel in the board's build,
# and the occupancy of every launch in its launch list: 1 when one spills or
# does not fit.
board_resources() { # board (nano, orin), its name, sm, CUDA version, the library
  local board=$1 name=$2 sm=$3 version=$4 lib=$5 table=$work/resources.md c=$cache/cuda-$4
  g++ -O1 -I"$c/include" "$src/benchmarks/jetson/occupancy.cpp" -o "$work/occupancy" &&
  "$c/bin/cuobjdump" --dump-resource-usage "$lib" | "$c/bin/cu++filt" > "$work/resources.txt" &&
  {
    echo "# Kernels on the Jetson $name (sm_$sm)"
    echo
    echo "Made by \`scripts/$board-check.sh --update\`: registers, spills and shared memory from"
    echo "CUDA $version's \`cuobjdump --dump-resource-usage\` of the sm_$sm build, occupancy of each"
    echo "launch shape in \`launches.txt\` from \`cuda_occupancy.h\`."
    "$work/occupancy" "$board" "$work/resources.txt" "$src/benchmarks/jetson/$board/launches.txt"
  } > "$table"
  local rc=$?
  board_table "$table" "$src/benchmarks/jetson/$board/resources.md"
  return $rc
}

# The mangled names of the kernels jetson-instructions.py reads, comma
# separated (it chooses them): disassembling the whole library took most
# of the step.
instruction_kernels() { # CUDA folder, the library
  local c=$1 lib=$2 names
  names=$("$c/bin/cuobjdump" --dump-resource-usage "$lib" | grep -oE 'Function [^ :]+' | cut -d' ' -f2 | sort -u)
  paste <(echo "$names") <(echo "$names" | "$c/bin/cu++filt") | python3 "$src/scripts/jetson-instructions.py" --kernels
}

# Instructions per output pixel of the fast grey kernels (median,
# convolution) in the board's machine code, with the rows it must have.
board_instructions() { # board, CUDA version, the library, rows...
  local board=$1 c=$cache/cuda-$2 lib=$3 table=$work/instructions.md row kernels
  shift 3
  kernels=$(instruction_kernels "$c" "$lib") && [ -n "$kernels" ] || return 1
  # (each archive member without one of them draws a warning)
  "$c/bin/cuobjdump" -sass -fun "$kernels" "$lib" 2> /dev/null | "$c/bin/cu++filt" |
    python3 "$src/scripts/jetson-instructions.py" "$board" "$src/benchmarks/jetson/$board/launches.txt" > "$table" ||
    return 1
  for row in "$@"; do
    grep -qF "$row" "$table" || { echo "no row $row in $table"; return 1; }
  done
  board_table "$table" "$src/benchmarks/jetson/$board/instructions.md"
}
