#!/usr/bin/env bash
# Runs every benchmark against a release build and prints the figures. Usage: run-all.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/kiosk-player}
for script in Benchmarks/[0-9]*.sh; do
    echo "== $script"
    bash "$script" "$bin"
done
