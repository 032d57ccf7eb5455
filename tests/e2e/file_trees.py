# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Shared by the suites that run offbundle over trees of files
(tests/e2e/folders.py, tests/e2e/in_place.py): the checks' tally, running
the tool (as an unprivileged user when asked), copying the samples of
tests/data, and a snapshot of a tree to compare before and after.
"""

import os
import shutil
import subprocess
import tempfile

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                    "data")


class TreeSuite:
    def __init__(self, offbundle):
        self.offbundle = offbundle
        self.checks = 0
        self.failures = 0

    def check(self, condition, what):
        self.checks += 1
        if not condition:
            self.failures += 1
            print(f"FAIL: {what}", flush=True)

    def run(self, args, as_nobody=False, timeout=600):
        """offbundle with `args`; as user nobody (setpriv) if asked."""
        command = [self.offbundle] + args
        if as_nobody:
            command = ["setpriv", "--reuid=nobody", "--regid=nogroup",
                       "--clear-groups"] + command
        return subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout)

    def exit_status(self):
        print(f"{self.checks} checks, {self.failures} failed")
        return 1 if self.failures or self.checks == 0 else 0


def copy_sample(name, destination):
    """tests/data/<name> copied to `destination`."""
    shutil.copyfile(os.path.join(DATA, name), destination)


def read_sample(name):
    with open(os.path.join(DATA, name), "rb") as handle:
        return handle.read()


def snapshot(root):
    """Every path under `root` (symlinks not followed) with its inode, size,
    modification time and mode."""
    state = {}
    for folder, names, files in os.walk(root):
        for name in names + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            state[path] = (info.st_ino, info.st_size, info.st_mtime_ns,
                           info.st_mode)
    return state


def scratch_folders(prefix):
    """A fresh folder anyone may enter (the runs as nobody), with the paths
    of the tree to build in it and of a folder outside that tree."""
    work = tempfile.mkdtemp(prefix=prefix)
    os.chmod(work, 0o755)
    return work, os.path.join(work, "tree"), os.path.join(work, "outside")
