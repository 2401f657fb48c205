#!/usr/bin/env bash
# Runs every benchmark against a release build and prints the figures. Usage: run-all.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
# BUILD: the build directory holding kiosk-player and kiosk-bench (default .build/release; a binary in it works too).
build=${1:-.build/release}
[ -f "$build" ] && build=$(dirname "$build")
for script in Benchmarks/[0-9]*.sh; do
    echo "== $script"
    bash "$script" "$build"
done
