#!/usr/bin/env bash
# Builds a member's root and becomes its init. Runs as PID 1 of fresh mount, PID, UTS and IPC
# namespaces, inside the member's network namespace (member-sandbox.ts starts it so):
#
#   enter.sh CONTROL_DIR
#
# CONTROL_DIR/mounts.conf says what to build, one line each:
#   upper BYTES             the tmpfs that holds everything the member writes to its root
#   hostname NAME
#   hide DIR                DIR empty in the member (host paths it must not see), opaque in the overlay
#   bind SRC DST ro|rw      SRC (host) at DST (member)
#   device NAME HOSTDEV     the host's block device HOSTDEV as /dev/NAME
#   standin NAME PATH...    CONTROL_DIR/rehearsal/bin/NAME installed at each PATH
# CONTROL_DIR/rehearsal is the member's /.rehearsal: stand-in configuration and records.
#
# The root is an overlay: the host's root filesystem read-only below, the member's tmpfs above, so
# /etc, /opt and /var are its own and nothing it writes reaches the host. After pivot_root the
# host's tree is detached; init runs with mknod, module loading and the clock taken away.
set -euo pipefail
ctl=$1
conf="$ctl/mounts.conf"
stage="$ctl/stage"
mkdir -p "$stage"

upper=$(awk '$1=="upper"{print $2}' "$conf")
mount -t tmpfs -o "size=${upper:-2147483648},mode=0755" volbench-member "$stage"
mkdir -p "$stage/upper" "$stage/work" "$stage/root"
# A hidden directory is opaque in the upper layer: empty in the member, and writable there like
# the rest of its root (within the same tmpfs).
while read -r kind dir _; do
  if [[ "$kind" == hide && -d "$dir" ]]; then
    mkdir -p "$stage/upper$dir"
    /usr/bin/python3 -c 'import os, sys; os.setxattr(sys.argv[1], "trusted.overlay.opaque", b"y")' "$stage/upper$dir"
  fi
done < "$conf"
mount -t overlay volbench-member-root -o "lowerdir=/,upperdir=$stage/upper,workdir=$stage/work" "$stage/root"
root="$stage/root"

mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount -t tmpfs -o mode=0755,size=16m volbench-member-dev "$root/dev"
for node in null zero full random urandom tty; do
  : > "$root/dev/$node"
  mount --bind "/dev/$node" "$root/dev/$node"
done
mkdir -p "$root/dev/pts" "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
mount -t tmpfs -o mode=1777 volbench-member-shm "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -t tmpfs -o mode=0755 volbench-member-run "$root/run"
mount -t tmpfs -o mode=1777 volbench-member-tmp "$root/tmp"

while read -r kind a b c rest; do
  case "$kind" in
    bind)
      if [[ -d "$a" ]]; then mkdir -p "$root$b"; else mkdir -p "$(dirname "$root$b")"; : > "$root$b"; fi
      mount --bind "$a" "$root$b"
      [[ "$c" == ro ]] && mount -o remount,bind,ro "$root$b"
      ;;
    device)
      : > "$root/dev/$a"
      mount --bind "$b" "$root/dev/$a"
      ;;
    standin)
      for path in $b $c $rest; do
        mkdir -p "$(dirname "$root$path")"
        rm -f "$root$path"
        install -m 0755 "$ctl/rehearsal/bin/$a" "$root$path"
      done
      ;;
  esac
done < "$conf"

mkdir -p "$root/.rehearsal"
mount --bind "$ctl/rehearsal" "$root/.rehearsal"
name=$(awk '$1=="hostname"{print $2}' "$conf")
hostname "$name"
echo "$name" > "$root/etc/hostname"
# No resolver answers inside; AWS's would be at the VPC's .2 address.
echo 'nameserver 169.254.169.253' > "$root/etc/resolv.conf"
mkdir -p "$root/etc/systemd/system" "$root/var/log" "$root/var/lib/cloud/instance/scripts"

cd "$root"
mkdir -p .oldroot
pivot_root . .oldroot
exec /usr/sbin/chroot . /bin/bash -c 'umount -l /.oldroot && rmdir /.oldroot && exec setpriv --bounding-set -mknod,-sys_module,-sys_time /.rehearsal/bin/init'
