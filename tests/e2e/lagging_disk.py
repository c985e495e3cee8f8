# SPDX-License-Identifier: GPL-2.0-only
"""Disks for the direct path's tests: a small ext4 loop-mounted in a
workspace, whether a file system takes O_DIRECT, and a cgroup (v1 blkio)
that holds a process's direct writes to a device to a rate, so that the
device lags behind the writers on purpose."""

import os
import subprocess
import tempfile

MIB = 1 << 20
O_DIRECT = 0o40000


def refuses_direct(path):
    """Why the file system of path cannot show the direct path, or None."""
    fstype = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True,
                            text=True).stdout.strip()
    if fstype == "tmpfs":
        return "tmpfs"
    fd, name = tempfile.mkstemp(dir=path)
    os.close(fd)
    try:
        os.close(os.open(name, os.O_WRONLY | O_DIRECT))
    except OSError as e:
        return "%s refuses O_DIRECT: %s" % (fstype, e)
    finally:
        os.unlink(name)
    return None


def small_ext4(ws, size_mib):
    """An ext4 image of size_mib loop-mounted on a new directory of ws:
    (path, None), or (None, why) when it cannot be."""
    img = os.path.join(ws.root, "disk.img")
    mnt = tempfile.mkdtemp(prefix="ust-ext4-")
    with open(img, "wb") as f:
        f.truncate(size_mib * MIB)
    for cmd in (["mkfs.ext4", "-q", img], ["mount", "-o", "loop", img, mnt]):
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            os.rmdir(mnt)
            return None, "%s: %s" % (cmd[0], res.stderr.strip())
    return mnt, None


def blkio_throttle(mnt, bps):
    """A cgroup (v1 blkio) whose direct writes to mnt's block device are
    held to bps bytes a second, the kernel's flusher threads (the page
    cache's writeback, in the root group) left alone: a device that lags
    behind the writers. Its directory, or (None, why)."""
    base = "/sys/fs/cgroup/blkio"
    src = subprocess.run(["findmnt", "-n", "-o", "SOURCE", mnt], capture_output=True,
                         text=True).stdout.strip()
    if not os.path.exists(os.path.join(base, "blkio.throttle.write_bps_device")) or not src:
        return None, "no cgroup v1 blkio throttling here (%s)" % (src or "no device")
    rdev = os.stat(src).st_rdev
    cg = os.path.join(base, "ust-test-%d" % os.getpid())
    try:
        os.mkdir(cg)
        with open(os.path.join(cg, "blkio.throttle.write_bps_device"), "w") as f:
            f.write("%d:%d %d\n" % (os.major(rdev), os.minor(rdev), bps))
    except OSError as e:
        if os.path.isdir(cg):
            os.rmdir(cg)
        return None, "cannot make a throttled blkio cgroup: %s" % e
    return cg, None


def blkio_leave(cg, pid):
    """pid back to the root group, the group removed."""
    try:
        with open("/sys/fs/cgroup/blkio/cgroup.procs", "w") as f:
            f.write("%d\n" % pid)
    except OSError:
        pass
    os.rmdir(cg)
