#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Installs every Debian package that burn-cpp's build, tests, benchmarks and examples need.
# Idempotent: when all of them are installed already it does nothing (no apt-get at all).
#
#   bash cmake/setup-deps.sh               # the build, tests, benchmarks, examples
#   bash cmake/setup-deps.sh --with-torch  # + CPU PyTorch and OpenMP OpenBLAS (benchmark peer,
#                                          #   test fixture generation)
set -euo pipefail

packages=(
    cmake g++ ninja-build ccache pkg-config
    libeigen3-dev libtbb-dev libopenblas-dev
    nlohmann-json3-dev libmsgpack-cxx-dev zlib1g-dev
    libprotobuf-dev protobuf-compiler libonnx-dev
    libgtest-dev libgmock-dev libbenchmark-dev clang-14 libclang-rt-14-dev clang-format-14
    libvulkan-dev glslc libshaderc-dev glslang-tools spirv-tools mesa-vulkan-drivers vulkan-tools
    libstb-dev libcurl4-openssl-dev libsqlite3-dev libgloo-dev
    dataset-fashion-mnist libonnx-testdata
)

for arg in "$@"; do
    case "$arg" in
        --with-torch) packages+=(python3-torch libopenblas0-openmp) ;;
        -h | --help)
            sed -n '3,8p' "$0"
            exit 0
            ;;
        *)
            echo "setup-deps.sh: unknown argument '$arg' (expected --with-torch)" >&2
            exit 2
            ;;
    esac
done

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if ((${#missing[@]} == 0)); then
    echo "setup-deps.sh: all ${#packages[@]} packages are installed"
    exit 0
fi

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
    sudo=(sudo)
fi

echo "setup-deps.sh: installing ${missing[*]}"
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
