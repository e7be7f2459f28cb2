#!/usr/bin/env bash
# Builds vx from this checkout and installs it as ~/.local/bin/vx (or $VX_INSTALL_DIR/vx).
# Builds only with the Bun version this checkout pins (scripts/bun-version.sh): when bun is missing
# it installs that version with npm; when another version is on PATH it installs the pinned one with
# npm into a private directory for this build and leaves the other one alone. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(scripts/bun-version.sh)
dest_dir=${VX_INSTALL_DIR:-$HOME/.local/bin}
# Where a pinned bun goes when the user's own bun is another version; reused by the next install.
private_dir=${XDG_CACHE_HOME:-$HOME/.cache}/vx/bun-$want

version_of() {
  "$1" --version 2>/dev/null | head -n 1 | tr -d '[:space:]' || true
}

# Installs the pinned bun into the private directory and uses it.
install_private() {
  npm install -g --prefix "$private_dir" "bun@${want}" >/dev/null
  bun=$private_dir/bin/bun
}

bun=""
found=$(command -v bun 2>/dev/null || true)
if [ -n "$found" ]; then
  have=$(version_of "$found")
  if [ "$have" = "$want" ]; then
    bun=$found
  else
    echo "install: found bun ${have:-of unknown version} at $found, but this checkout builds with bun $want" >&2
  fi
fi
if [ -z "$bun" ] && [ -x "$private_dir/bin/bun" ] && [ "$(version_of "$private_dir/bin/bun")" = "$want" ]; then
  bun=$private_dir/bin/bun
  echo "install: using bun $want from $private_dir" >&2
fi

if [ -z "$bun" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    if [ -n "$found" ]; then
      echo "install: npm is missing, so bun $want cannot be installed for this build; install bun $want (or Node.js with npm, and this script installs it), then run this again" >&2
    else
      echo "install: bun and npm are both missing; install Node.js (npm) or bun $want first, then run this again" >&2
    fi
    exit 1
  fi
  if [ -n "$found" ]; then
    echo "install: installing bun@${want} with npm into $private_dir for this build (the bun at $found is left as it is)" >&2
    install_private
  else
    echo "install: bun not found, installing bun@${want} with npm (npm install -g)" >&2
    if npm install -g "bun@${want}" >/dev/null; then
      bun=$(command -v bun 2>/dev/null || true)
      if [ -z "$bun" ]; then
        # npm's global bin directory is often not on PATH (a custom prefix, nvm before a new shell).
        npm_bin="$(npm prefix -g)/bin"
        bun=$npm_bin/bun
        echo "install: npm put bun in $npm_bin, which is not on your PATH; this install uses it from there (add $npm_bin to PATH to run bun yourself)" >&2
      fi
    else
      echo "install: npm install -g failed (no permission for npm's global directory?); installing bun@${want} into $private_dir instead" >&2
      install_private
    fi
  fi
  have=$(version_of "$bun")
  if [ "$have" != "$want" ]; then
    echo "install: the bun npm installed at $bun reports version ${have:-none}, not $want; install bun $want yourself, then run this again" >&2
    exit 1
  fi
fi

user_path=$PATH
# The build's own `bun` calls (package scripts) must find the same bun.
PATH="$(dirname "$bun"):$PATH"
export PATH
"$bun" install --frozen-lockfile >/dev/null
"$bun" run build

mkdir -p "$dest_dir"
# Copy then rename, so a running sentinel's binary is replaced whole (it notices and retires).
tmp="$dest_dir/.vx.$$.tmp"
cp dist/vx "$tmp"
chmod 755 "$tmp"
mv -f "$tmp" "$dest_dir/vx"
echo "installed $("$dest_dir/vx" --version) to $dest_dir/vx" >&2

case ":$user_path:" in
  *":$dest_dir:"*) ;;
  *) echo "install: $dest_dir is not on your PATH; add it, e.g. export PATH=\"$dest_dir:\$PATH\"" >&2 ;;
esac
