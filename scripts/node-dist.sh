#!/usr/bin/env bash
# An official Node.js release for Linux, unpacked and cached; prints its directory (bin/node,
# include/node for node-gyp's --nodedir). The binaries and headers come from the npm registry's
# node-linux-<arch> package, through npm itself, so nothing but the registry is reached.
#
#   scripts/node-dist.sh VERSION [x64|arm64]      (the machine's architecture by default)
#
# Cached under $VOLBENCH_CACHE (default /var/cache/volbench-ci)/node/node-vVERSION-linux-ARCH.
set -euo pipefail

version="${1:?usage: node-dist.sh VERSION [x64|arm64]}"
arch="${2:-}"
if [[ -z "$arch" ]]; then
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) echo "node-dist.sh: unsupported machine $(uname -m)" >&2; exit 1 ;; esac
fi
case "$arch" in x64|arm64) ;; *) echo "node-dist.sh: arch must be x64 or arm64, not $arch" >&2; exit 2 ;; esac
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "node-dist.sh: VERSION must be like 24.21.0, not $version" >&2; exit 2; }

cache="${VOLBENCH_CACHE:-/var/cache/volbench-ci}/node"
dir="$cache/node-v$version-linux-$arch"
mkdir -p "$cache"
exec 9>"$dir.lock"
flock 9
if [[ ! -x "$dir/bin/node" ]]; then
  tmp=$(mktemp -d "$cache/tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  tgz=$(cd "$tmp" && npm pack --silent "node-linux-$arch@$version")
  mkdir "$tmp/unpacked"
  tar xzf "$tmp/$tgz" -C "$tmp/unpacked" --strip-components=1
  [[ -f "$tmp/unpacked/bin/node" && -f "$tmp/unpacked/include/node/node_api.h" ]] || {
    echo "node-dist.sh: node-linux-$arch@$version holds no bin/node or include/node" >&2
    exit 1
  }
  # node-gyp reads the version of the headers from include/node/node_version.h and wants no
  # download when --nodedir names this directory.
  rm -rf "$dir"
  mv "$tmp/unpacked" "$dir"
fi
echo "$dir"
