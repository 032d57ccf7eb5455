#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: unit tests and the
# differential suites against LLVM 22's tools.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure -j2 "$@"
