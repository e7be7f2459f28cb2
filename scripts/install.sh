#!/usr/bin/env bash
# Builds vx from this checkout and installs it as ~/.local/bin/vx (or $VX_INSTALL_DIR/vx).
# Installs bun from the npm registry first when it is missing. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

BUN_VERSION=1.4.5
dest_dir=${VX_INSTALL_DIR:-$HOME/.local/bin}

if ! command -v bun >/dev/null 2>&1; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "install: bun and npm are both missing; install Node.js (npm) or Bun first, then run this again" >&2
    exit 1
  fi
  echo "install: bun not found, installing bun@${BUN_VERSION} with npm" >&2
  npm install -g "bun@${BUN_VERSION}" >/dev/null
fi

bun install --frozen-lockfile >/dev/null
bun run build

mkdir -p "$dest_dir"
# Copy then rename, so a running sentinel's binary is replaced whole (it notices and retires).
tmp="$dest_dir/.vx.$$.tmp"
cp dist/vx "$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$dest_dir/vx"
echo "installed $("$dest_dir/vx" --version) to $dest_dir/vx" >&2

case ":$PATH:" in
  *":$dest_dir:"*) ;;
  *) echo "install: $dest_dir is not on your PATH; add it, e.g. export PATH=\"$dest_dir:\$PATH\"" >&2 ;;
esac
