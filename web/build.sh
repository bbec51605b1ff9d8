#!/usr/bin/env bash
# Builds the demo for the browser (wasm32-unknown-unknown, WebGL2) into a static
# folder that any static file server can serve:
#
#     web/build.sh            # writes web/dist
#     web/build.sh OUT_DIR    # writes OUT_DIR
#     python3 -m http.server -d web/dist 8080    # then open http://localhost:8080
#
# WALKMASK_WEB_NAMES=1 keeps the wasm's function names (21 MB more): panics and
# browser profiles then name Rust functions.
#
# Installs what it needs when it is missing: the rustup target, and the
# wasm-bindgen CLI of the same version as the `wasm-bindgen` crate in Cargo.lock
# (the two must match).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/web/dist}"
cd "$root"

target_dir="${CARGO_TARGET_DIR:-$root/target}"
profile=web

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || true

want="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)"
if [ -z "$want" ]; then
    echo "error: no wasm-bindgen crate in Cargo.lock" >&2
    exit 1
fi
have="$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)"
if [ "$have" != "$want" ]; then
    echo "installing wasm-bindgen-cli $want (found: ${have:-none})"
    cargo install wasm-bindgen-cli --version "$want"
fi

cargo build --profile "$profile" --example demo --target wasm32-unknown-unknown
# The search worker: the core as a wasm module of its own (`WalkmaskPlugin::search_worker`).
cargo build --profile "$profile" -p walkmask_web_worker --target wasm32-unknown-unknown

rm -rf "$out"
mkdir -p "$out"
names=(--remove-name-section)
if [ "${WALKMASK_WEB_NAMES:-0}" = 1 ]; then
    names=()
fi
wasm-bindgen --target web --no-typescript "${names[@]}" --out-dir "$out" --out-name demo \
    "$target_dir/wasm32-unknown-unknown/$profile/examples/demo.wasm"
wasm-bindgen --target web --no-typescript "${names[@]}" --out-dir "$out" --out-name walkmask_worker \
    "$target_dir/wasm32-unknown-unknown/$profile/walkmask_web_worker.wasm"
cp crates/walkmask_web_worker/walkmask_search_worker.js "$out/"
cp web/index.html "$out/"
cp -R assets "$out/assets"
echo "web build in $out ($(du -sh "$out" | cut -f1)); serve it with: python3 -m http.server -d $out 8080"
