#!/usr/bin/env bash
# A Debian 11 (bullseye, glibc 2.31) root directory, made once with debootstrap from Debian's
# archive and cached; prints its path. Older than Amazon Linux 2023 (glibc 2.34), so what is built
# in it or runs in it also runs there.
#
#   scripts/debian-root.sh [--preset build|run] [--include pkg,pkg,...] [--arch amd64]
#
# --preset build: g++, make, python3 and the aarch64 cross compiler (scripts/prebuilds.mjs).
# --preset run: arm64's glibc, libstdc++ and libgcc beside amd64's, for qemu-aarch64 -L
#   ROOT/usr/aarch64-linux-gnu (the bundle, install and arm64 tests under tests/publish/).
# --include adds packages of the caller's own.
#
# Roots are cached under $VOLBENCH_CACHE (default /var/cache/volbench-ci)/debian-roots/, one per
# suite, architecture and package list; a second caller waits for the first (flock) and shares its
# root. The versions installed are listed in ROOT.packages beside the root. Callers that change a
# root (files added for a test) work on a copy or clean up after themselves.
set -euo pipefail

suite=bullseye
arch=amd64
include=
preset=
while (($#)); do
  case "$1" in
    --preset) preset="$2"; shift 2 ;;
    --preset=*) preset="${1#*=}"; shift ;;
    --include) include="$2"; shift 2 ;;
    --include=*) include="${1#*=}"; shift ;;
    --arch) arch="$2"; shift 2 ;;
    --arch=*) arch="${1#*=}"; shift ;;
    *) echo "debian-root.sh: unknown argument $1; usage: debian-root.sh [--preset build|run] [--include pkg,...] [--arch amd64]" >&2; exit 2 ;;
  esac
done
case "$preset" in
  build) include="g++,make,python3,g++-aarch64-linux-gnu${include:+,$include}" ;;
  run) include="libc6-arm64-cross,libstdc++6-arm64-cross,libgcc-s1-arm64-cross${include:+,$include}" ;;
  '') ;;
  *) echo "debian-root.sh: --preset is build or run, not $preset" >&2; exit 2 ;;
esac

if [[ $(id -u) != 0 ]]; then echo "debian-root.sh: debootstrap needs root" >&2; exit 1; fi

# The package list in a stable order, so the same set always names the same root.
sorted=$(tr ',' '\n' <<<"$include" | sed '/^$/d' | sort -u | paste -sd, -)
key=$(printf '%s %s %s v1' "$suite" "$arch" "$sorted" | sha256sum | cut -c1-12)
cache="${VOLBENCH_CACHE:-/var/cache/volbench-ci}/debian-roots"
root="$cache/$suite-$arch-$key"
mkdir -p "$cache"

exec 9>"$root.lock"
flock 9
if [[ -x "$root/bin/sh" && -f "$root.packages" ]]; then
  echo "$root"
  exit 0
fi

if ! command -v debootstrap >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends debootstrap >&2
fi

# The archive this machine's apt already uses (its first non-security Debian source); debootstrap's
# own default otherwise.
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n' | grep -v security | head -n1 || true)
[[ -n "$mirror" ]] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)

rm -rf "$root.part"
args=(--variant=minbase --arch="$arch")
[[ -n "$sorted" ]] && args+=(--include="$sorted")
echo "debian-root.sh: debootstrap $suite ($arch) ${sorted:+with $sorted }into $root" >&2
debootstrap "${args[@]}" "$suite" "$root.part" ${mirror:+"$mirror"} >&2 || {
  tail -n 30 "$root.part/debootstrap/debootstrap.log" >&2 2>/dev/null || true
  exit 1
}
# Nothing in the root needs the package lists or downloaded archives again.
rm -rf "$root.part"/var/cache/apt/archives/*.deb "$root.part"/var/lib/apt/lists/*
chroot "$root.part" dpkg-query -W -f '${Package} ${Version}\n' >"$root.packages.part"
rm -rf "$root"
mv "$root.part" "$root"
mv "$root.packages.part" "$root.packages"
echo "$root"
