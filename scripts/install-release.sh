#!/bin/sh
# Installs a released vx binary: curl -fsSL <releases>/latest/download/install.sh | sh
#
# Shipped in every release as install.sh (scripts/release.ts writes the releases base in; this
# file in a checkout is the template). POSIX sh with curl or wget. It downloads the archive for
# this OS and architecture and the release's checksums.txt, verifies the SHA-256 (sha256sum or
# shasum), checks the binary runs here, then replaces <dir>/vx in one rename, so nothing is
# installed unless everything checked out and a running vx sentinel sees a whole new file.
#   VX_INSTALL_DIR   where vx goes (default ~/.local/bin)
#   VX_VERSION       a version to install (e.g. 0.2.0) instead of the latest
#   VX_RELEASES_URL  another releases base with the same layout (a mirror)
# It leaves a receipt, <dir>/.vx-install, which is how `vx upgrade` knows this script installed it.
set -eu

say() { printf 'vx install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

base=${VX_RELEASES_URL:-@RELEASES_URL@}
base=${base%/}
case $base in
  @*) die "this is the installer's template; run the install.sh of a release, or set VX_RELEASES_URL" ;;
esac
if [ -z "${VX_INSTALL_DIR:-}" ] && [ -z "${HOME:-}" ]; then die "HOME is not set; set HOME or VX_INSTALL_DIR"; fi
dir=${VX_INSTALL_DIR:-$HOME/.local/bin}
version=${VX_VERSION:-}
version=${version#v}

os=$(uname -s)
arch=$(uname -m)
case $os in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "unsupported operating system \"$os\": vx is released for Linux and macOS only" ;;
esac
case $arch in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "unsupported architecture \"$arch\": vx is released for x64 and arm64 only" ;;
esac
# A shell under Rosetta reports x86_64 on Apple silicon; the native build is the one to run.
if [ "$os-$arch" = darwin-x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
  arch=arm64
fi
asset="vx-$os-$arch.tar.gz"
if [ -n "$version" ]; then
  case $version in
    *[!0-9A-Za-z.-]* | "") die "VX_VERSION must look like 1.2.3 (got \"$version\")" ;;
  esac
  from="$base/download/v$version"
else
  from="$base/latest/download"
fi

if command -v curl >/dev/null 2>&1; then
  if [ -t 2 ]; then progress=--progress-bar; else progress=-sS; fi
  fetch() { curl -fL $progress --retry 2 -o "$2" "$1"; }
  fetch_quiet() { curl -fsSL --retry 2 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -q -O "$2" "$1"; }
  fetch_quiet() { wget -q -O "$2" "$1"; }
else
  die "needs curl or wget to download vx; install one of them and run this again"
fi
if command -v sha256sum >/dev/null 2>&1; then
  sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
  sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
  die "needs sha256sum or shasum to verify the download; install one of them and run this again"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vx-install.XXXXXX")
staged=""
cleanup() {
  rm -rf "$tmp"
  if [ -n "$staged" ]; then rm -f "$staged"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

say "downloading $asset from $from"
fetch "$from/$asset" "$tmp/$asset" || die "could not download $from/$asset (no such release, or the network is down); nothing was installed"
fetch_quiet "$from/checksums.txt" "$tmp/checksums.txt" || die "could not download $from/checksums.txt; nothing was installed"
expected=$(awk -v f="$asset" '$2 == f || $2 == ("*" f) { print $1; exit }' "$tmp/checksums.txt")
[ -n "$expected" ] || die "checksums.txt lists no checksum for $asset; nothing was installed"
actual=$(sha256 "$tmp/$asset")
[ "$expected" = "$actual" ] || die "checksum mismatch for $asset (expected $expected, got $actual); nothing was installed"

mkdir "$tmp/x"
tar -xzf "$tmp/$asset" -C "$tmp/x" vx 2>/dev/null || die "$asset is not a vx release archive; nothing was installed"
[ -f "$tmp/x/vx" ] || die "$asset holds no vx binary; nothing was installed"
chmod 755 "$tmp/x/vx"
got=$("$tmp/x/vx" --version 2>/dev/null) || die "the downloaded vx does not run on this machine ($os $arch); nothing was installed"
got=${got#vx }
if [ -n "$version" ] && [ "$got" != "$version" ]; then
  die "asked for vx $version but the release holds vx $got; nothing was installed"
fi

mkdir -p "$dir" || die "cannot create $dir; set VX_INSTALL_DIR to a directory you can write"
[ ! -d "$dir/vx" ] || die "$dir/vx is a directory; move it away and run this again"
# Staged in the same directory, then renamed over the old one: one atomic step.
staged="$dir/.vx.install.$$"
cp "$tmp/x/vx" "$staged" || die "cannot write to $dir; set VX_INSTALL_DIR to a directory you can write"
chmod 755 "$staged"
mv -f "$staged" "$dir/vx" || die "cannot replace $dir/vx"
staged=""
printf '{"installer":"install.sh","version":"%s","os":"%s","arch":"%s"}\n' "$got" "$os" "$arch" >"$dir/.vx-install.$$"
mv -f "$dir/.vx-install.$$" "$dir/.vx-install"

say "installed vx $got to $dir/vx"
case ":${PATH:-}:" in
  *":$dir:"*) say "$dir is on your PATH" ;;
  *) say "$dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\" in your shell's profile" ;;
esac
say "next: in your project, run 'vx init', then 'vx doctor'"
