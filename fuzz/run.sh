#!/usr/bin/env bash
# Fuzzes every target, or the ones named, for SECONDS each (default 20):
#
#     fuzz/run.sh [SECONDS] [TARGET...]        targets: position rules movetext record kgp
#                                              manchester engine_protocol split_files
#
# Needs only the stable toolchain: RUSTC_BOOTSTRAP=1 lets it take the nightly flags
# cargo-fuzz passes (-Zsanitizer=address and the coverage options). Installs cargo-fuzz if
# it is missing. New inputs go to fuzz/corpus/TARGET (seeded from fuzz/seeds/TARGET),
# crashing ones to fuzz/artifacts/TARGET; reproduce one with
#     RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET fuzz/artifacts/TARGET/crash-...
# Exits non-zero if any target found a crash.
set -euo pipefail

fuzz_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$fuzz_dir/.."

secs="${1:-20}"
if [[ $# -gt 0 ]]; then shift; fi
if [[ $# -gt 0 ]]; then
    targets=("$@")
else
    targets=(position rules movetext record kgp manchester engine_protocol split_files)
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

export RUSTC_BOOTSTRAP=1
failed=()
for target in "${targets[@]}"; do
    mkdir -p "$fuzz_dir/corpus/$target"
    echo "=== fuzz $target for ${secs}s"
    if ! cargo fuzz run "$target" "$fuzz_dir/corpus/$target" "$fuzz_dir/seeds/$target" -- \
        -max_total_time="$secs" -dict="$fuzz_dir/mancala.dict" -print_final_stats=1; then
        failed+=("$target")
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "crashes in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
echo "no crashes"
