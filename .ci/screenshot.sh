#!/usr/bin/env bash
# Runs the demo's scripted scene on a virtual X display with the software Vulkan
# driver and saves its screenshot (default docs/screenshot.png, 1280 x 720).
#
#   .ci/screenshot.sh [output.png]
#
# Needs: apt-get install -y xvfb mesa-vulkan-drivers libvulkan1
# Extra cargo flags can be passed in CARGO_FLAGS (default --release).
set -euo pipefail

cd "$(dirname "$0")/.."
out="${1:-docs/screenshot.png}"
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
chmod 700 "$XDG_RUNTIME_DIR"
export WGPU_BACKEND=vulkan
export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
export WALKMASK_DEMO_SCRIPT=1
export WALKMASK_SCREENSHOT="$out"

# shellcheck disable=SC2086
xvfb-run -a -s "-screen 0 1280x720x24" cargo run ${CARGO_FLAGS:---release} --example demo
test -s "$out"
echo "screenshot: $out"
