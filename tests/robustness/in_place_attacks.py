# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""offbundle's rewrites in place under attack: races, signals and odd files
must never turn a rewrite against the user (docs/robustness.md, the threat
model: a root run over a tree that other users can write).

Checked, each attack made to happen:

- folder swap: while `compress --in-place tree` runs, another thread swaps
  tree/d with a symbolic link to a folder outside the tree
  (renameat2 RENAME_EXCHANGE), as fast as it can, for a bounded number of
  runs; nothing outside the tree changes, no temporary is left there, and
  every file of the tree is whole (its old bytes or its new ones);
- file swap: the same with tree/z.so swapped with a symbolic link to a
  library outside, under `prune --keep gfx906 --in-place tree`: the outside
  library keeps its gfx90a code;
- hard links killed: `decompress --in-place` of a file with names in two
  folders, killed (SIGKILL) at each named step of the replacement
  (OFFBUNDLE_KILL_AT, a build with OFFBUNDLE_FAULT_POINTS); the same
  command run again leaves one file with the new bytes under both names
  and no temporary anywhere;
- hard links that cannot be re-pointed: the other name's folder immutable
  (chattr +i), append-only (+a), or not writable by the user (run as
  nobody), and the file itself immutable: the file is refused with one line
  naming the name that blocks it, and stays as it was (same inode, same
  bytes) under every name, with no temporary left;
- FIFOs, sockets and devices named to a rewrite: refused at once, "not a
  regular file", never opened for writing (a FIFO with no writer would
  hang);
- `-o -`: standard output carries the rewritten file alone, the same bytes
  as `-o FILE`, and the report goes to standard error;
- operands named twice, or a file that is also inside a folder named:
  worked and counted once by list, sizes, verify, kernels and the rewrites.
"""

import argparse
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "e2e"))
from suite_support import require_executables, skip_suite  # noqa: E402
from file_trees import (TreeSuite, copy_sample, scratch_folders,  # noqa: E402
                        snapshot)

RENAME_EXCHANGE = 2
AT_FDCWD = -100
# The steps of a replacement under several names (support/fault_points.h).
KILL_STEPS = ("temporary-written", "links-made", "journal-written",
              "first-name-replaced", "names-replaced", "old-names-removed")
SWAP_RUNS = 25

libc = ctypes.CDLL(None, use_errno=True)
libc.renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                           ctypes.c_char_p, ctypes.c_uint]


def exchange(first, second):
    """renameat2(first, second, RENAME_EXCHANGE); whether it happened."""
    return libc.renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD,
                          os.fsencode(second), RENAME_EXCHANGE) == 0


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def contents(root):
    """Every regular file under `root` (links not followed) and its bytes."""
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                found[path] = read(path)
    return found


def temporaries(root):
    return [os.path.join(folder, name)
            for folder, _, files in os.walk(root) for name in files
            if ".offbundle-" in name]


class Swapper:
    """Swaps two paths over and over on a thread, until stopped, each state
    held a fraction of a millisecond so that the run meets both; the swaps
    come in pairs, so that stopping leaves both as they were."""

    def __init__(self, first, second):
        self.first, self.second = first, second
        self.stopping = threading.Event()
        self.swaps = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stopping.is_set():
            if exchange(self.first, self.second):
                time.sleep(0.0002)
                exchange(self.first, self.second)
                self.swaps += 2
            time.sleep(0.0002)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stopping.set()
        self.thread.join()


def check_folder_swap(suite, work):
    """tree/d swapped with a link to outside/ while the tree is compressed
    in place: outside/ never changes."""
    root = os.path.join(work, "swap-folder")
    tree, outside = os.path.join(root, "tree"), os.path.join(root, "outside")
    os.makedirs(os.path.join(tree, "d"))
    os.makedirs(outside)
    names = [f"f{index:02}.hipfb" for index in range(12)]
    for name in names:
        copy_sample("compression/small.bundle", os.path.join(outside, name))
    link = os.path.join(root, "link")
    os.symlink(outside, link)
    outside_before = snapshot(outside)
    swaps = 0
    for run in range(SWAP_RUNS):
        for name in names:
            copy_sample("compression/small.bundle",
                        os.path.join(tree, "d", name))
        with Swapper(os.path.join(tree, "d"), link) as swapper:
            done = suite.run(["compress", "--in-place", tree])
        swaps += swapper.swaps
        suite.check(done.returncode in (0, 1),
                    f"run {run}: exit status {done.returncode}: "
                    f"{done.stderr}")
        suite.check(snapshot(outside) == outside_before,
                    f"run {run}: nothing outside the tree changed")
        suite.check(not os.path.islink(os.path.join(tree, "d")),
                    "the swapper put the folder back")
        for path in os.listdir(os.path.join(tree, "d")):
            verified = suite.run(["verify", os.path.join(tree, "d", path)])
            suite.check(verified.returncode == 0,
                        f"run {run}: {path} is whole: {verified.stderr}")
    suite.check(swaps > SWAP_RUNS, f"the folder was swapped ({swaps} times)")
    suite.check(not temporaries(outside), "no temporary left outside")


def check_file_swap(suite, work):
    """tree/z.so (the last file the run reaches) swapped with a link to
    outside/victim.so while the tree is pruned in place: the victim keeps
    its gfx90a code."""
    root = os.path.join(work, "swap-file")
    tree, outside = os.path.join(root, "tree"), os.path.join(root, "outside")
    os.makedirs(tree)
    os.makedirs(outside)
    victim = os.path.join(outside, "victim.so")
    copy_sample("linked/unit-plain.so", victim)
    link = os.path.join(root, "link.so")
    os.symlink(victim, link)
    victim_before = read(victim)
    swaps = 0
    for run in range(SWAP_RUNS):
        target = os.path.join(tree, "z.so")
        copy_sample("linked/unit-plain.so", target)
        for index in range(12):  # more files, a longer run
            copy_sample("compression/small.bundle",
                        os.path.join(tree, f"g{index}.hipfb"))
        with Swapper(target, link) as swapper:
            suite.run(["prune", "--keep", "gfx906", "--in-place", tree])
        swaps += swapper.swaps
        suite.check(read(victim) == victim_before and
                    not os.path.islink(victim),
                    f"run {run}: the file outside is untouched")
    suite.check(swaps > SWAP_RUNS, f"the file was swapped ({swaps} times)")
    suite.check(not temporaries(outside), "no temporary left outside")


def linked_pair(root):
    """A compressed library with a name in each of two folders."""
    shutil.rmtree(root, ignore_errors=True)
    first, second = os.path.join(root, "a"), os.path.join(root, "b")
    os.makedirs(first)
    os.makedirs(second)
    copy_sample("linked/unit-compressed.so", os.path.join(first, "lib.so"))
    os.link(os.path.join(first, "lib.so"), os.path.join(second, "lib.so"))
    return os.path.join(first, "lib.so"), os.path.join(second, "lib.so")


def check_killed_hard_links(suite, work, fault_points):
    """Killed at every step of a replacement under two names, the same
    command again leaves one file with the new bytes."""
    if not fault_points:
        skip_suite("the tools were built without OFFBUNDLE_FAULT_POINTS")
    root = os.path.join(work, "killed")
    first, second = linked_pair(root)
    command = ["decompress", "--in-place", os.path.dirname(first),
               os.path.dirname(second)]
    suite.run(command)
    expected = read(first)
    for step in KILL_STEPS:
        first, second = linked_pair(root)
        environment = dict(os.environ, OFFBUNDLE_KILL_AT=step)
        killed = subprocess.run([suite.offbundle] + command,
                                capture_output=True, env=environment)
        suite.check(killed.returncode == -signal.SIGKILL,
                    f"{step}: the run was killed there: "
                    f"{killed.returncode} {killed.stderr!r}")
        for name in (first, second):
            suite.check(read(name) in (expected,
                                       read_sample_bytes("linked/"
                                                         "unit-compressed."
                                                         "so")),
                        f"{step}: {name} holds old or new bytes")
        again = suite.run(command)
        suite.check(again.returncode == 0,
                    f"{step}: the rerun succeeds: {again.stderr}")
        suite.check(os.path.samefile(first, second) and
                    os.stat(first).st_nlink == 2,
                    f"{step}: both names are one file again")
        suite.check(read(first) == expected,
                    f"{step}: with the new bytes")
        suite.check(not temporaries(root),
                    f"{step}: no temporary left: {temporaries(root)}")


def read_sample_bytes(name):
    from file_trees import read_sample
    return read_sample(name)


def check_blocked_hard_links(suite, work):
    """A name that cannot be pointed at the new file refuses the rewrite:
    one line naming it, nothing changed, no temporary left."""
    root = os.path.join(work, "blocked")
    cases = (("immutable folder", "+i", "folder"),
             ("append-only folder", "+a", "folder"),
             ("immutable file", "+i", "file"),
             ("append-only file", "+a", "file"))
    for label, flag, what in cases:
        first, second = linked_pair(root)
        blocked = os.path.dirname(second) if what == "folder" else second
        subprocess.run(["chattr", flag, blocked], check=True)
        try:
            before = snapshot(root)
            bytes_before = read(first)
            done = suite.run(["decompress", "--in-place",
                              os.path.dirname(first),
                              os.path.dirname(second)])
            errors = done.stderr.splitlines()
            suite.check(done.returncode == 1 and len(errors) == 1 and
                        "cannot be rewritten in place" in errors[0] and
                        (what == "file" or second in errors[0]),
                        f"{label}: one line naming the name: {errors}")
            suite.check(snapshot(root) == before and
                        read(first) == bytes_before and
                        os.path.samefile(first, second),
                        f"{label}: nothing changed")
            suite.check(not temporaries(root),
                        f"{label}: no temporary left: {temporaries(root)}")
        finally:
            subprocess.run(["chattr", flag.replace("+", "-"), blocked],
                           check=True)

    # Run as nobody: the first name's folder is nobody's, the second's not.
    first, second = linked_pair(root)
    os.chmod(root, 0o755)
    os.chown(os.path.dirname(first), 65534, 65534)
    for name in (first,):
        os.chown(name, 65534, 65534)
    before = snapshot(root)
    done = suite.run(["decompress", "--in-place", os.path.dirname(first),
                      os.path.dirname(second)], as_nobody=True)
    errors = done.stderr.splitlines()
    suite.check(done.returncode == 1 and len(errors) == 1 and
                second in errors[0] and "cannot be written" in errors[0],
                f"as nobody: one line naming the name: {errors}")
    suite.check(snapshot(root) == before and os.path.samefile(first, second),
                "as nobody: nothing changed")
    suite.check(not temporaries(root),
                f"as nobody: no temporary left: {temporaries(root)}")


def check_special_files(suite, work):
    """FIFOs, sockets and devices named to a rewrite are refused at once."""
    folder = os.path.join(work, "special")
    os.makedirs(folder)
    fifo = os.path.join(folder, "fifo")
    os.mkfifo(fifo)
    sock_path = os.path.join(folder, "socket")
    server = socket.socket(socket.AF_UNIX)
    server.bind(sock_path)
    try:
        for path in (fifo, sock_path, "/dev/null"):
            for command in (["compress"], ["decompress"],
                            ["prune", "--keep", "gfx906"]):
                try:
                    done = suite.run(command + ["--in-place", path],
                                     timeout=20)
                except subprocess.TimeoutExpired:
                    suite.check(False, f"{command[0]} {path}: hangs")
                    continue
                suite.check(done.returncode == 1 and
                            f"'{path}': not a regular file" in done.stderr,
                            f"{command[0]} --in-place {path}: refused: "
                            f"{done.stderr!r}")
    finally:
        server.close()


def check_filter_output(suite, work):
    """-o - writes the file alone to standard output."""
    folder = os.path.join(work, "filter")
    os.makedirs(folder)
    library = os.path.join(folder, "lib.so")
    copy_sample("linked/unit-plain.so", library)
    to_file = os.path.join(folder, "out.so")
    written = suite.run(["compress", library, "-o", to_file])
    piped = subprocess.run(f"'{suite.offbundle}' compress '{library}' -o - "
                           "| cat", shell=True, capture_output=True)
    suite.check(written.returncode == 0 and piped.returncode == 0 and
                piped.stdout == read(to_file),
                "-o - gives the bytes -o FILE writes, and nothing else")
    suite.check(piped.stderr.decode().strip() ==
                f"-: {os.path.getsize(library)} -> "
                f"{os.path.getsize(to_file)} bytes",
                f"the report goes to standard error: {piped.stderr!r}")


def check_counted_once(suite, work):
    """Operands named twice, or inside a folder named, count once."""
    tree = os.path.join(work, "twice")
    os.makedirs(os.path.join(tree, "lib"))
    library = os.path.join(tree, "lib", "lib.so")
    copy_sample("linked/unit-plain.so", library)
    with open(os.path.join(tree, "notes.txt"), "w") as notes:
        notes.write("no GPU code\n")
    for command in (["list"], ["sizes"], ["verify"], ["kernels"],
                    ["sizes", "--json"]):
        once = suite.run(command + [tree])
        for operands in ([tree, tree], [tree, library],
                         [library, tree], [tree, os.path.join(tree, "lib")]):
            twice = suite.run(command + operands)
            suite.check(twice.returncode == once.returncode and
                        twice.stdout == once.stdout,
                        f"{command} {operands}: as once: {twice.stdout!r} "
                        f"{once.stdout!r}")
    sizes_once = suite.run(["sizes", tree]).stdout.splitlines()[-1]
    for operands in ([tree, tree], [library, tree], [tree, library]):
        last = suite.run(["sizes"] + operands).stdout.splitlines()[-1]
        suite.check(last == sizes_once,
                    f"sizes {operands}: totals counted once: {last!r} "
                    f"{sizes_once!r}")
    done = suite.run(["compress", "--in-place", "--dry-run", tree, library,
                      tree])
    suite.check(done.stdout.splitlines()[-1].startswith(
        "1 file would be rewritten, 0 unchanged, 0 failed;"),
        f"a rewrite counts it once: {done.stdout!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--fault-points", default="OFF",
                        help="whether the tools were built with "
                        "OFFBUNDLE_FAULT_POINTS (ON or OFF)")
    args = parser.parse_args()
    require_executables(args.offbundle)
    for tool in ("chattr", "setpriv"):
        if not shutil.which(tool):
            skip_suite(f"{tool} is missing (e2fsprogs, util-linux)")
    if os.geteuid() != 0:
        skip_suite("chattr, owners and runs as nobody need root")
    suite = TreeSuite(os.path.abspath(args.offbundle))
    work, _, _ = scratch_folders("offbundle-attacks-")
    try:
        check_special_files(suite, work)
        check_filter_output(suite, work)
        check_counted_once(suite, work)
        check_blocked_hard_links(suite, work)
        check_folder_swap(suite, work)
        check_file_swap(suite, work)
        check_killed_hard_links(suite, work,
                                args.fault_points.upper() in ("ON", "1",
                                                              "TRUE"))
    finally:
        subprocess.run(["chattr", "-R", "-i", "-a", work],
                       capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(suite.exit_status())


if __name__ == "__main__":
    main()
