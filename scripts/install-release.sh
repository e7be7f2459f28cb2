#!/bin/sh
# Installs a released vx binary: curl -fsSL <releases>/latest/download/install.sh | sh
#
# Shipped in every release as install.sh (scripts/release.ts writes the releases base and the
# binary's size limit in; this file in a checkout is the template). POSIX sh with curl or wget.
# It downloads the archive for this OS and architecture and the release's checksums.txt, verifies
# the SHA-256 (sha256sum or shasum), takes out vx only if it is a regular file within the size
# limit, checks it runs here, then replaces <dir>/vx in one rename, so nothing is installed unless
# everything checked out and a running vx sentinel sees a whole new file.
#   VX_INSTALL_DIR   where vx goes (default ~/.local/bin)
#   VX_VERSION       a version to install (e.g. 0.2.0) instead of the latest
#   VX_RELEASES_URL  another releases base with the same layout (a mirror)
# It leaves a receipt, <dir>/.vx-install, which is how `vx upgrade` knows this script installed it
# (and from which releases base, so a mirror's install upgrades from the same mirror).
set -eu

say() { printf 'vx install: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

base=${VX_RELEASES_URL:-@RELEASES_URL@}
base=${base%/}
case $base in
  @*) die "this is the installer's template; run the install.sh of a release, or set VX_RELEASES_URL" ;;
  # The receipt records it in JSON, so `vx upgrade` goes back to the same mirror.
  *'"'*|*'\'*|*[[:space:]]*) die "VX_RELEASES_URL must be a URL without quotes, backslashes or spaces" ;;
esac
# The most bytes the archive's vx may have (MAX_BINARY_BYTES in src/release-info.ts, written in
# at release time): a gzip archive of a few MB can unpack to gigabytes.
max_bytes=@MAX_BINARY_BYTES@
case $max_bytes in
  "" | *[!0-9]*) die "this is the installer's template (no size limit written in); run the install.sh of a release" ;;
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
receipt=""
cleanup() {
  rm -rf "$tmp"
  if [ -n "$staged" ]; then rm -f "$staged"; fi
  if [ -n "$receipt" ]; then rm -f "$receipt"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

say "downloading $asset from $from"
fetch "$from/$asset" "$tmp/$asset" || die "could not download $from/$asset (no such release, or the network is down); nothing was installed"
fetch_quiet "$from/checksums.txt" "$tmp/checksums.txt" || die "could not download $from/checksums.txt; nothing was installed"
# checksums.txt is read by the rules vx upgrade reads it by (src/upgrade/checksums.ts), and both
# are tested against the same inputs: lines are split at LF and one CR ending a line is dropped
# (CRLF is accepted); an entry is 64 hex digits, one space, a space (text mode) or "*" (binary
# mode), then the asset's name exactly to the end of the line, and any other line is not an
# entry; the hex is compared case-insensitively; the asset must have exactly one entry (none is
# refused, and so is more than one, even when they agree).
expected=$(awk -v f="$asset" '
  { sub(/\r$/, "") }
  length($0) == 66 + length(f) && substr($0, 1, 64) !~ /[^0-9A-Fa-f]/ && substr($0, 65, 1) == " " &&
    (substr($0, 66, 1) == " " || substr($0, 66, 1) == "*") && substr($0, 67) == f { n++; hex = tolower(substr($0, 1, 64)) }
  END { if (n == 1) print hex; else if (n > 1) print "duplicate" }' "$tmp/checksums.txt")
case $expected in
  "") die "checksums.txt lists no checksum for $asset; nothing was installed" ;;
  duplicate) die "checksums.txt lists $asset more than once; nothing was installed" ;;
esac
actual=$(sha256 "$tmp/$asset" | tr 'A-F' 'a-f')
[ "$expected" = "$actual" ] || die "checksum mismatch for $asset (expected $expected, got $actual); nothing was installed"

# The archive must hold one entry, a regular file named vx of at most max_bytes bytes: the rules
# vx upgrade applies (src/upgrade/untar.ts). The entry's tar header is read before anything is
# extracted, so a huge vx is never written out and a link named vx is never made (chmod and cp
# would follow it to whatever it points at).
gzip -dc "$tmp/$asset" 2>/dev/null | dd bs=1 count=512 of="$tmp/header" 2>/dev/null || true
header() { dd if="$tmp/header" bs=1 skip="$1" count="$2" 2>/dev/null | tr -d '\000'; }
name=$(header 0 100)
name=${name%/} # a directory's name ends in "/": vx/ is vx as a directory, refused as such below
[ -n "$name" ] || die "$asset is not a vx release archive; nothing was installed"
[ "$name" = vx ] || die "$asset holds \"$name\" where the vx binary should be; nothing was installed"
case $(header 156 1) in
  0 | "") kind="" ;;
  1) kind="a hard link" ;;
  2) kind="a symbolic link" ;;
  5) kind="a directory" ;;
  *) kind="an entry of type \"$(header 156 1)\"" ;;
esac
[ -z "$kind" ] || die "$asset holds vx as $kind, not a regular file; refusing it; nothing was installed"
size=$(header 124 12 | tr -d ' ')
case $size in
  "" | *[!0-7]*) die "$asset holds a vx of an unreadable size, over the $max_bytes-byte limit for a vx binary; refusing it; nothing was installed" ;;
esac
size=$((0$size)) # tar writes the size in octal, which a leading 0 means here
[ "$size" -le "$max_bytes" ] || die "$asset holds a vx of $size bytes, over the $max_bytes-byte limit for a vx binary; refusing it; nothing was installed"
list=$(tar -tzf "$tmp/$asset" 2>/dev/null) || die "$asset is not a vx release archive; nothing was installed"
[ "$list" = vx ] || die "$asset holds more than the vx binary (a release archive holds vx alone); nothing was installed"
# An empty private dir of its own, so nothing already there can be a link tar writes through.
x=$(mktemp -d "$tmp/x.XXXXXX")
tar -xzf "$tmp/$asset" -C "$x" vx 2>/dev/null || die "$asset is not a vx release archive; nothing was installed"
if [ -L "$x/vx" ] || [ ! -f "$x/vx" ]; then die "$asset holds vx as something other than a regular file; refusing it; nothing was installed"; fi
[ "$(($(wc -c <"$x/vx")))" -le "$max_bytes" ] || die "$asset holds a vx over the $max_bytes-byte limit for a vx binary; refusing it; nothing was installed"
chmod 755 "$x/vx"
got=$("$x/vx" --version 2>/dev/null) || die "the downloaded vx does not run on this machine ($os $arch); nothing was installed"
got=${got#vx }
if [ -n "$version" ] && [ "$got" != "$version" ]; then
  die "asked for vx $version but the release holds vx $got; nothing was installed"
fi

mkdir -p "$dir" || die "cannot create $dir; set VX_INSTALL_DIR to a directory you can write"
[ ! -d "$dir/vx" ] || die "$dir/vx is a directory; move it away and run this again"
# Staged under a new, unpredictable name in the same directory (mktemp creates it, so a link
# planted there is never written through), then renamed over the old one: one atomic step.
staged=$(mktemp "$dir/.vx.XXXXXX") || die "cannot write to $dir; set VX_INSTALL_DIR to a directory you can write"
cp "$x/vx" "$staged" || die "cannot write to $dir; set VX_INSTALL_DIR to a directory you can write"
chmod 755 "$staged"
mv -f "$staged" "$dir/vx" || die "cannot replace $dir/vx"
staged=""
receipt=$(mktemp "$dir/.vx-install.XXXXXX") || die "cannot write the receipt in $dir"
printf '{"installer":"install.sh","version":"%s","os":"%s","arch":"%s","releases":"%s"}\n' "$got" "$os" "$arch" "$base" >"$receipt"
chmod 644 "$receipt"
mv -f "$receipt" "$dir/.vx-install"
receipt=""

say "installed vx $got to $dir/vx"
case ":${PATH:-}:" in
  *":$dir:"*) say "$dir is on your PATH" ;;
  *) say "$dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\" in your shell's profile" ;;
esac
say "next: in your project, run 'vx init', then 'vx doctor'"
