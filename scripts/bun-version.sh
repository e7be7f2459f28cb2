#!/bin/sh
# Prints the Bun version this checkout builds and tests with. Its one home is the bun-types pin in
# package.json's devDependencies (bun-types is released in lockstep with Bun), so the installer, CI
# and the type definitions never disagree.
set -eu
cd "$(dirname "$0")/.."
v=$(sed -n 's/^ *"bun-types": *"\([^"]*\)".*/\1/p' package.json)
if ! printf '%s\n' "$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; then
  echo "bun-version: package.json must pin devDependencies.bun-types to one exact version (found \"$v\")" >&2
  exit 1
fi
echo "$v"
