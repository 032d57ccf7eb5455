#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs what the build and the tests need (Debian packages, by name) and
# builds everything into build/. Safe to run again: it installs only what is
# missing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake g++ make pkg-config
  # The .deb (cpack -G DEB computes its dependencies with dpkg-shlibdeps,
  # which reads binaries with file) and its install test.
  dpkg-dev file
  # What a distribution checks the .debs with (ctest lintian_debs).
  lintian
  libboost-program-options-dev zlib1g-dev libzstd-dev libgtest-dev
  # MessagePack, for kpack archives and markers (msgpack-c's static library).
  libmsgpack-dev
  # MD5 comes from LLVM Support's static archive, which needs libtinfo.a.
  llvm-14-dev libncurses-dev
  # LLVM 14's llvm-as makes bitcode of an older LLVM for the archive tests.
  llvm-14
  python3
  # The reference tools the differential tests and benchmarks compare with;
  # clang 22 with its runtime libraries also builds the fuzz targets
  # (libFuzzer, ASan, UBSan) for scripts/fuzz.sh and the test command.
  clang-22 llvm-22 lld-22 libclang-rt-22-dev
  hyperfine time
  # What distributions run on the binaries offbundle rewrites, which the
  # tests run on its outputs (tests/e2e/distribution_tools.py).
  binutils elfutils patchelf
  # What rewriting in place must keep: ACLs and file capabilities
  # (tests/e2e/in_place.py); chattr's flags, which can block it, and runs
  # as another user (tests/robustness/in_place_attacks.py).
  acl libcap2-bin e2fsprogs util-linux
  # Renders the page sizes --html writes (tests/e2e/folders.py).
  chromium
  # Compresses the code objects of the kpack archives tests/e2e/kpack.py
  # writes, as ROCm's kpack tool does.
  zstd
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "Installing: ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

build_type=${BUILD_TYPE:-Release}
cmake -S . -B build -DCMAKE_BUILD_TYPE="$build_type" \
  -DOFFBUNDLE_WERROR="${OFFBUNDLE_WERROR:-OFF}" \
  -DOFFBUNDLE_FAULT_POINTS="${OFFBUNDLE_FAULT_POINTS:-OFF}" >/dev/null
cmake --build build -j2
