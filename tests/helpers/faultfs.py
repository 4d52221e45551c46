#!/usr/bin/python3
"""A FUSE filesystem that misbehaves on request, for the fault tests.

It serves one file, `disk.img`, of a fixed size held in memory, and a control file, `ctl`.
Lines written to `ctl` change how `disk.img` behaves from then on:

    eio read|write|any OFFSET LENGTH   fail I/O that touches [OFFSET, OFFSET+LENGTH) with EIO
    eio-after read|write|any BYTES     fail every such I/O once BYTES more have been served
    stall read|write|any OFFSET LENGTH never answer I/O that touches the range (until `release`)
    stall-after read|write|any BYTES   never answer such I/O once BYTES more have been served
    release                            answer the stalled I/O (with EIO) and stall no more
    delay read|write|any MICROSECONDS  answer every such I/O that much later (each on its own, so
                                       I/Os in flight together wait together: a device's latency)
    clear                              behave again

Reading `ctl` gives counters: `served_bytes failed stalled`. `disk.img` is opened with
direct_io, so every read and write of it, a loop device's included, reaches this process.

Usage: faultfs.py MOUNTPOINT SIZE_BYTES; prints "ready" on stdout once mounted, unmounts on
SIGTERM or when stdin closes.
"""

import errno
import os
import stat
import sys

import pyfuse3
import trio

DISK_INODE = pyfuse3.ROOT_INODE + 1
CTL_INODE = pyfuse3.ROOT_INODE + 2
NAMES = {b"disk.img": DISK_INODE, b"ctl": CTL_INODE}


class Rule:
    def __init__(self, kind, direction, start, length, served):
        self.kind = kind
        self.served_at_start = served
        self.direction = direction
        self.start = start
        self.end = start + length

    def matches(self, direction, offset, length, served):
        if self.direction not in ("any", direction):
            return False
        if self.kind.endswith("-after"):
            return served - self.served_at_start >= self.start
        return offset < self.end and offset + length > self.start


class FaultFS(pyfuse3.Operations):
    def __init__(self, size):
        super().__init__()
        self.data = bytearray(size)
        self.rules = []
        self.delays = {}
        self.served = 0
        self.failed = 0
        self.stalled = 0
        self.release_event = trio.Event()

    # --- the rules -------------------------------------------------------------------------

    def control(self, text):
        for line in text.decode().splitlines():
            words = line.split()
            if not words:
                continue
            verb = words[0]
            if verb == "clear":
                self.rules = []
                self.delays = {}
            elif verb == "release":
                self.rules = [r for r in self.rules if not r.kind.startswith("stall")]
                self.release_event.set()
                self.release_event = trio.Event()
            elif verb in ("eio", "stall") and len(words) == 4:
                self.rules.append(Rule(verb, words[1], int(words[2]), int(words[3]), self.served))
            elif verb in ("eio-after", "stall-after") and len(words) == 3:
                self.rules.append(Rule(verb, words[1], int(words[2]), 0, self.served))
            elif verb == "delay" and len(words) == 3 and words[1] in ("read", "write", "any"):
                self.delays[words[1]] = int(words[2]) / 1e6
            else:
                raise pyfuse3.FUSEError(errno.EINVAL)

    async def apply_rules(self, direction, offset, length):
        delay = self.delays.get(direction, self.delays.get("any", 0))
        if delay > 0:
            await trio.sleep(delay)
        for rule in list(self.rules):
            if not rule.matches(direction, offset, length, self.served):
                continue
            if rule.kind.startswith("stall"):
                self.stalled += 1
                await self.release_event.wait()
            self.failed += 1
            raise pyfuse3.FUSEError(errno.EIO)

    # --- the filesystem --------------------------------------------------------------------

    def attrs(self, inode):
        entry = pyfuse3.EntryAttributes()
        entry.st_ino = inode
        entry.generation = 0
        entry.entry_timeout = 0
        entry.attr_timeout = 0
        if inode == pyfuse3.ROOT_INODE:
            entry.st_mode = stat.S_IFDIR | 0o755
            entry.st_nlink = 2
            entry.st_size = 0
        else:
            entry.st_mode = stat.S_IFREG | 0o644
            entry.st_nlink = 1
            entry.st_size = len(self.data) if inode == DISK_INODE else 0
        entry.st_uid = os.getuid()
        entry.st_gid = os.getgid()
        entry.st_blksize = 4096
        entry.st_blocks = (entry.st_size + 511) // 512
        entry.st_atime_ns = entry.st_mtime_ns = entry.st_ctime_ns = 0
        return entry

    async def getattr(self, inode, ctx=None):
        if inode not in (pyfuse3.ROOT_INODE, DISK_INODE, CTL_INODE):
            raise pyfuse3.FUSEError(errno.ENOENT)
        return self.attrs(inode)

    async def setattr(self, inode, attr, fields, fh, ctx):
        # Truncation to the file's own size (an O_TRUNC-less open's layout check) is accepted;
        # the image cannot change size.
        if fields.update_size and inode == DISK_INODE and attr.st_size != len(self.data):
            raise pyfuse3.FUSEError(errno.EPERM)
        return self.attrs(inode)

    async def lookup(self, parent_inode, name, ctx=None):
        if parent_inode != pyfuse3.ROOT_INODE or name not in NAMES:
            raise pyfuse3.FUSEError(errno.ENOENT)
        return self.attrs(NAMES[name])

    async def opendir(self, inode, ctx):
        if inode != pyfuse3.ROOT_INODE:
            raise pyfuse3.FUSEError(errno.ENOTDIR)
        return inode

    async def readdir(self, fh, start_id, token):
        entries = sorted(NAMES.items())
        for index, (name, inode) in enumerate(entries):
            if index < start_id:
                continue
            if not pyfuse3.readdir_reply(token, name, self.attrs(inode), index + 1):
                break

    async def open(self, inode, flags, ctx):
        if inode not in (DISK_INODE, CTL_INODE):
            raise pyfuse3.FUSEError(errno.EISDIR)
        return pyfuse3.FileInfo(fh=inode, direct_io=True, keep_cache=False)

    async def statfs(self, ctx):
        s = pyfuse3.StatvfsData()
        s.f_bsize = s.f_frsize = 4096
        s.f_blocks = len(self.data) // 4096
        s.f_bfree = s.f_bavail = 0
        s.f_files = s.f_ffree = s.f_favail = 0
        s.f_namemax = 255
        return s

    async def read(self, fh, offset, length):
        if fh == CTL_INODE:
            text = f"{self.served} {self.failed} {self.stalled}\n".encode()
            return text[offset : offset + length]
        await self.apply_rules("read", offset, length)
        chunk = bytes(self.data[offset : offset + length])
        self.served += len(chunk)
        return chunk

    async def write(self, fh, offset, buf):
        if fh == CTL_INODE:
            self.control(buf)
            return len(buf)
        if offset + len(buf) > len(self.data):
            raise pyfuse3.FUSEError(errno.ENOSPC)
        await self.apply_rules("write", offset, len(buf))
        self.data[offset : offset + len(buf)] = buf
        self.served += len(buf)
        return len(buf)

    async def fsync(self, fh, datasync):
        return None

    async def flush(self, fh):
        return None

    async def release(self, fh):
        return None


async def serve(fs, mountpoint):
    async with trio.open_nursery() as nursery:
        nursery.start_soon(pyfuse3.main)
        print("ready", flush=True)
        # The test ends this filesystem by closing stdin (or by a signal).
        await trio.wrap_file(sys.stdin).read()
        nursery.cancel_scope.cancel()


def main():
    mountpoint, size = sys.argv[1], int(sys.argv[2])
    fs = FaultFS(size)
    options = set(pyfuse3.default_options)
    options.add("fsname=volbench-faultfs")
    options.discard("default_permissions")
    pyfuse3.init(fs, mountpoint, options)
    try:
        trio.run(serve, fs, mountpoint)
    finally:
        pyfuse3.close(unmount=True)


if __name__ == "__main__":
    main()
