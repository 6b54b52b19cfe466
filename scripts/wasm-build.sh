#!/usr/bin/env bash
# Builds the engine for the browser: mancala-wasm for wasm32-unknown-unknown in release, then
# the wasm-bindgen CLI of exactly the version Cargo.lock pins (installed here with
# `cargo install --locked` where missing) writes the module and its JS glue into web/pkg/
# (`--target web`: an ES module the Web Worker imports). Prints the .wasm's size, raw and
# gzipped. Exits 0 with a message where the target or the CLI cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown \
   && ! timeout 300 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
  echo "skipped: the wasm32-unknown-unknown target could not be installed here"
  exit 0
fi
# The crates first (mancala-wasm compiles the rules, the engine and the session in): a
# compile check of them for the browser even where the CLI below cannot be had.
cargo build --locked -p mancala-wasm --target wasm32-unknown-unknown --release
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$version" ]; then
  echo "installing wasm-bindgen-cli $version"
  # Without --locked only where a registry lacks one of the CLI's locked dependencies.
  if ! cargo install --locked --version "$version" wasm-bindgen-cli >/dev/null 2>&1; then
    echo "note: the locked install failed; trying with the newest compatible dependencies"
    if ! cargo install --version "$version" wasm-bindgen-cli >/dev/null 2>&1; then
      echo "skipped: wasm-bindgen-cli $version could not be installed here"
      exit 0
    fi
  fi
fi
rm -rf web/pkg
wasm-bindgen --target web --no-typescript --out-dir web/pkg \
  target/wasm32-unknown-unknown/release/mancala_wasm.wasm
wasm=web/pkg/mancala_wasm_bg.wasm
echo "mancala_wasm_bg.wasm: $(stat -c %s "$wasm") bytes, $(gzip -9c "$wasm" | wc -c) gzipped"
