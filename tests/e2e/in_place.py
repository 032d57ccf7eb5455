# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""offbundle prune, compress and decompress --in-place over a tree.

The tree is built in the test from the checked-in samples (tests/data) and
a 96 MiB bundle written by our clang-offload-bundler: a non-PIE HIP program
with a file capability and an ACL, a shared library with a second hard link
and an extended attribute, a read-only bundle, a compressed bundle, an
archive of a new-driver object (offload binaries: nothing to compress), a damaged library, a library with a hard
link outside the tree, plain files, a FIFO, and symlinks (to a library
outside the tree, dangling). Checked:

- --dry-run writes nothing and prints the lines the real run prints;
- the real run rewrites every file holding GPU code, and each keeps its
  mode, owner, group, ACL, capability and extended attributes; hard links
  stay one file; the rewritten files verify and hold the same entries;
- the damaged library and the one with a link outside the tree get one
  error line each and stay as they were; the library outside, reached only
  through a symlink, is untouched; the exit status is 1;
- a second identical run rewrites nothing, says so, and leaves every inode
  and mtime as it was;
- run as an unprivileged user, a file it could write but not give back to
  its owner stays as it was, with an error line;
- a file holding none of the targets prune keeps is left as it is, its
  line giving the reason -o gives as an error;
- a file named twice is rewritten once, whatever -j says; two spellings of
  one hard link do not stand in for another link;
- targets prune cannot take (malformed, or host alone) are one error line
  before any file, however many are given;
- on a file system with no room for the new bytes (a 256 KiB tmpfs,
  filled), one error line, the file as it was, no temporary left;
- a run killed by SIGKILL while writing leaves the file with its old bytes
  and a temporary; running the same command again removes the temporary
  and finishes the job; a run naming the file, not its folder, removes
  the temporary left beside it too.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_support import require_executables, skip_suite  # noqa: E402
from file_trees import (TreeSuite, copy_sample, read_sample,  # noqa: E402
                        scratch_folders, snapshot)

BIG_MIB = 96


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def metadata(path):
    info = os.lstat(path)
    attributes = {name: os.getxattr(path, name, follow_symlinks=False)
                  for name in os.listxattr(path, follow_symlinks=False)}
    return (info.st_mode, info.st_uid, info.st_gid, info.st_nlink,
            attributes)


def entries(suite, path):
    done = suite.run(["list", path])
    return sorted("\t".join(line.split("\t")[1:])
                  for line in done.stdout.splitlines() if "\t" in line)


def build_big_bundle(bundler, folder):
    """A 96 MiB plain bundle (random device images), slow enough to
    compress that a run can be killed while it writes."""
    images = []
    for index, arch in enumerate(("gfx906", "gfx90a")):
        image = os.path.join(folder, f"{arch}.bin")
        with open(image, "wb") as handle:
            handle.write(os.urandom(BIG_MIB << 19))
        images.append(image)
    host = os.path.join(folder, "host.bin")
    with open(host, "wb") as handle:
        handle.write(b"host")
    output = os.path.join(folder, "big.hipfb")
    subprocess.run([bundler, "-type=o",
                    "-targets=host-x86_64-unknown-linux-gnu,"
                    "hipv4-amdgcn-amd-amdhsa--gfx906,"
                    "hipv4-amdgcn-amd-amdhsa--gfx90a",
                    f"-input={host}", f"-input={images[0]}",
                    f"-input={images[1]}", f"-output={output}"], check=True)
    for path in images + [host]:
        os.remove(path)
    return output


def build_tree(root, outside):
    """The tree; the files that hold GPU code and must be rewritten."""
    lib = os.path.join(root, "lib")
    os.makedirs(os.path.join(root, "bin"))
    os.makedirs(lib)
    os.makedirs(os.path.join(root, "share"))
    os.makedirs(outside)
    app = os.path.join(root, "bin", "app")
    copy_sample("linked/unit-nopie", app)
    os.chmod(app, 0o755)
    subprocess.run(["setfacl", "-m", "u:nobody:r", app], check=True)
    subprocess.run(["setcap", "cap_net_raw+ep", app], check=True)
    library = os.path.join(lib, "libunit.so")
    copy_sample("linked/unit-plain.so", library)
    os.setxattr(library, "user.origin", b"tests/data/linked")
    os.link(library, os.path.join(lib, "libunit-copy.so"))
    readonly = os.path.join(root, "share", "kernels.hipfb")
    copy_sample("compression/small.bundle", readonly)
    os.chmod(readonly, 0o444)
    copy_sample("compression/small.v3.level3.ccob",
         os.path.join(root, "share", "kernels.ccob"))
    kernels = os.path.join(root, "share", "kernels.o")
    copy_sample("linked/unit-new-driver.o", kernels)
    subprocess.run(["ar", "rc", os.path.join(lib, "libkernels.a"), kernels],
                   check=True)
    os.remove(kernels)
    head = read_sample("linked/unit-plain.so")[:100]
    with open(os.path.join(lib, "damaged.so"), "wb") as damaged:
        damaged.write(head)
    linked_out = os.path.join(lib, "libshared.so")
    copy_sample("linked/unit-plain.so", linked_out)
    os.link(linked_out, os.path.join(outside, "libshared-elsewhere.so"))
    copy_sample("linked/unit-plain.so", os.path.join(outside, "elsewhere.so"))
    os.symlink(os.path.join(outside, "elsewhere.so"),
               os.path.join(lib, "elsewhere.so"))
    os.symlink("missing.so", os.path.join(lib, "dangling.so"))
    os.mkfifo(os.path.join(root, "share", "fifo"))
    for i in range(200):
        with open(os.path.join(root, "share", f"doc{i:03}.txt"), "w") as doc:
            doc.write("documentation\n")
    return [app, library, readonly]


def check_without_kept_targets(suite, work):
    """prune in place of a file holding none of the targets kept: left as it
    is, with the reason -o gives as its error, not counted as failed."""
    folder = os.path.join(work, "other-gpus")
    os.makedirs(folder)
    bundle = os.path.join(folder, "kernels.ccob")
    copy_sample("compression/small.v3.level3.ccob", bundle)
    before = snapshot(folder)
    refused = suite.run(["prune", "-k", "gfx90a", bundle, "-o",
                         os.path.join(work, "never.ccob")])
    prefix = f"offbundle: error: '{bundle}': "
    suite.check(refused.returncode == 1 and refused.stderr.startswith(prefix),
                f"-o refuses a file without the targets: {refused.stderr}")
    size = os.path.getsize(bundle)
    done = suite.run(["prune", "-k", "gfx90a", "--in-place", folder])
    suite.check(done.returncode == 0 and not done.stderr and
                done.stdout.splitlines()[0] ==
                f"{bundle}: {size} -> {size} bytes, unchanged: " +
                refused.stderr[len(prefix):].rstrip("\n") and
                done.stdout.splitlines()[-1].startswith(
                    "0 files rewritten, 1 unchanged, 0 failed; "),
                f"--in-place leaves it, saying why once: {done.stdout!r}")
    suite.check(snapshot(folder) == before,
                "the file without the targets keeps its inode and mtime")


def check_named_twice(suite, work):
    """A file named twice, by one spelling or two, is rewritten once, with
    every core as with one, and counted once; two spellings of one hard link
    are one of its names, so a link left out still refuses the rewrite."""
    folder = os.path.join(work, "named-twice")
    os.makedirs(folder)
    bundle = os.path.join(folder, "kernels.ccob")
    for jobs in ("1", "2"):
        copy_sample("compression/small.v3.level3.ccob", bundle)
        size = os.path.getsize(bundle)
        done = suite.run(["decompress", "-j", jobs, "--in-place", bundle,
                          bundle, os.path.join(folder, ".", "kernels.ccob")])
        lines = done.stdout.splitlines()
        suite.check(done.returncode == 0 and not done.stderr and
                    len(lines) == 2 and
                    lines[1] == f"1 file rewritten, 0 unchanged, 0 failed; "
                    f"{size} -> {os.path.getsize(bundle)} bytes",
                    f"-j {jobs}: one file, rewritten once: {done.stdout!r} "
                    f"{done.stderr!r}")
        verified = suite.run(["verify", bundle])
        suite.check(verified.returncode == 0 and "0 compressed" in
                    verified.stdout, f"-j {jobs}: {verified.stdout}")
    copy_sample("compression/small.v3.level3.ccob", bundle)
    other = os.path.join(folder, "other-name.ccob")
    os.link(bundle, other)
    before = snapshot(folder)
    refused = suite.run(["decompress", "--in-place", bundle,
                         os.path.join(folder, ".", "kernels.ccob")])
    suite.check(refused.returncode == 1 and "hard links" in refused.stderr and
                snapshot(folder) == before,
                f"one link given twice, the other not: {refused.stderr!r}")


def check_temporary_beside_named_file(suite, work):
    """A temporary a killed run left beside a file is removed by the next
    run that names the file, as by one over its folder; another file's
    temporary there is left alone."""
    folder = os.path.join(work, "left-temporary")
    os.makedirs(folder)
    bundle = os.path.join(folder, "kernels.ccob")
    copy_sample("compression/small.v3.level3.ccob", bundle)
    left = os.path.join(folder, ".kernels.ccob.offbundle-Ab12Cd")
    other = os.path.join(folder, ".other.ccob.offbundle-Ab12Cd")
    for path in (left, other):
        with open(path, "wb") as handle:
            handle.write(b"half-written")
    done = suite.run(["decompress", "--in-place", bundle])
    suite.check(done.returncode == 0 and done.stdout.rstrip().endswith(
                "removed 1 temporary a killed run left") and
                not os.path.exists(left) and os.path.exists(other),
                f"a named file's leftover temporary is removed: "
                f"{done.stdout!r} {done.stderr!r}")


def check_wrong_targets(suite, work):
    """Targets prune cannot take are said once, before any file, however
    many files are given; nothing is written."""
    folder = os.path.join(work, "wrong-targets")
    os.makedirs(folder)
    files = [os.path.join(folder, f"kernels{i}.ccob") for i in range(3)]
    for path in files:
        copy_sample("compression/small.v3.level3.ccob", path)
    before = snapshot(folder)
    for keep, message in (("a-b", "'a-b' is no target"),
                          ("host", "prune keeps host entries always")):
        done = suite.run(["prune", "--keep", keep, "--in-place"] + files)
        suite.check(done.returncode == 1 and not done.stdout and
                    done.stderr.startswith(f"offbundle: error: {message}") and
                    len(done.stderr.splitlines()) == 1 and
                    snapshot(folder) == before,
                    f"--keep {keep}: one error line: {done.stderr!r}")


def check_full_disk(suite, work):
    """A file system too full for the new bytes: one error line, the file
    as it was, no temporary left."""
    small = os.path.join(work, "small")
    os.makedirs(small)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs",
                       small], capture_output=True).returncode != 0:
        skip_suite("cannot mount a small tmpfs to fill (mount -t tmpfs)")
    try:
        library = os.path.join(small, "lib.so")
        copy_sample("linked/unit-plain.so", library)
        original = read(library)
        # Fill it but for a few kilobytes: less than the 12 KiB the
        # compressed library takes.
        filler = os.path.join(small, "filler")
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"\x01" * 4096) > 0:
                pass
        except OSError:
            pass
        os.close(fd)
        os.truncate(filler, os.path.getsize(filler) - 8192)
        done = suite.run(["compress", "--in-place", small])
        errors = done.stderr.splitlines()
        suite.check(done.returncode == 1 and len(errors) == 1 and
                    "No space left on device" in errors[0] and
                    library in errors[0],
                    f"a full disk: one error line: {errors}")
        suite.check(read(library) == original,
                    "a full disk: the file keeps its bytes")
        suite.check(sorted(os.listdir(small)) == ["filler", "lib.so"],
                    f"a full disk: no temporary left: {os.listdir(small)}")
    finally:
        subprocess.run(["umount", small], capture_output=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--bundler", required=True,
                        help="our clang-offload-bundler")
    args = parser.parse_args()
    require_executables(args.offbundle, args.bundler)
    for tool in ("ar", "setfacl", "setcap", "setpriv"):
        if not shutil.which(tool):
            skip_suite(f"{tool} is missing (binutils, acl, libcap2-bin, "
                       "util-linux)")
    if os.geteuid() != 0:
        skip_suite("file capabilities and owners need root")
    suite = TreeSuite(os.path.abspath(args.offbundle))
    work, root, outside = scratch_folders("offbundle-in-place-")
    try:
        rewritten = build_tree(root, outside)
        damaged = os.path.join(root, "lib", "damaged.so")
        shared = os.path.join(root, "lib", "libshared.so")
        before = snapshot(root)
        outside_before = snapshot(outside)
        kept = {path: metadata(path) for path in rewritten}
        held = {path: entries(suite, path) for path in rewritten}

        dry = suite.run(["compress", "--in-place", "--dry-run", root])
        one_at_a_time = suite.run(["compress", "--in-place", "--dry-run",
                                   "-j1", root])
        suite.check(one_at_a_time.stdout == dry.stdout and
                    one_at_a_time.stderr == dry.stderr,
                    "-j 1 prints what all cores print")
        suite.check(snapshot(root) == before, "--dry-run writes nothing")
        real = suite.run(["compress", "--in-place", root])
        suite.check(real.returncode == 1, f"exit status {real.returncode}")
        suite.check(dry.stdout.replace(
            " would be rewritten", " rewritten").replace(
            " (dry run: nothing written)", "") == real.stdout,
            f"--dry-run prints what the run does:\n{dry.stdout}\n"
            f"{real.stdout}")
        errors = real.stderr.splitlines()
        suite.check(len(errors) == 2 and damaged in errors[0]
                    and shared in errors[1] and "hard links" in errors[1],
                    f"one error line each: {errors}")
        suite.check(real.stdout.splitlines()[-1].startswith(
            f"{len(rewritten)} files rewritten, 2 unchanged, 2 failed; "),
            f"the totals: {real.stdout}")
        for path in rewritten:
            suite.check(metadata(path) == kept[path],
                        f"{path} keeps its metadata: {metadata(path)} "
                        f"{kept[path]}")
            suite.check(os.lstat(path).st_ino != before[path][0],
                        f"{path} was replaced")
            suite.check(entries(suite, path) == held[path],
                        f"{path} holds the same entries")
            verified = suite.run(["verify", path])
            suite.check(verified.returncode == 0 and "1 compressed" in
                        verified.stdout, f"{path}: {verified.stdout}")
        library = os.path.join(root, "lib", "libunit.so")
        suite.check(os.path.samefile(library,
                                     os.path.join(root, "lib",
                                                  "libunit-copy.so")),
                    "hard links stay one file")
        archive = os.path.join(root, "lib", "libkernels.a")
        suite.check(f"{archive}: {os.path.getsize(archive)} -> "
                    f"{os.path.getsize(archive)} bytes" in real.stdout,
                    "an archive of offload binaries is reported unchanged")
        for path in (damaged, shared, archive,
                     os.path.join(root, "share", "kernels.ccob")):
            suite.check(snapshot(root)[path] == before[path],
                        f"{path} left as it was")
        suite.check(snapshot(outside) == outside_before,
                    "nothing outside the tree changed")

        settled = snapshot(root)
        again = suite.run(["compress", "--in-place", root])
        suite.check(again.stdout.splitlines()[-1].startswith(
            f"0 files rewritten, {len(rewritten) + 2} unchanged, 2 failed; "),
            f"a second run changes nothing: {again.stdout}")
        suite.check(snapshot(root) == settled,
                    "a second run keeps every inode and mtime")

        # An unprivileged user who may write a file but not give it back
        # to its owner: it stays as it was.
        foreign = os.path.join(work, "foreign")
        os.makedirs(foreign)
        os.chown(foreign, 65534, 65534)
        theirs = os.path.join(foreign, "lib.so")
        copy_sample("linked/unit-plain.so", theirs)
        os.chmod(theirs, 0o666)
        foreign_before = snapshot(foreign)
        done = suite.run(["compress", "--in-place", foreign], as_nobody=True)
        suite.check(done.returncode == 1 and "owner and group" in done.stderr
                    and len(done.stderr.splitlines()) == 1,
                    f"a file that cannot keep its owner: {done.stderr}")
        suite.check(snapshot(foreign) == foreign_before,
                    "the file that cannot keep its owner is left as it was")

        check_without_kept_targets(suite, work)
        check_named_twice(suite, work)
        check_wrong_targets(suite, work)
        check_temporary_beside_named_file(suite, work)
        check_full_disk(suite, work)

        # Killed while writing: the old bytes stay, a temporary is left, and
        # the same command again finishes.
        big_folder = os.path.join(work, "big")
        os.makedirs(big_folder)
        big = build_big_bundle(args.bundler, big_folder)
        original = read(big)
        process = subprocess.Popen([suite.offbundle, "compress",
                                    "--in-place", big_folder],
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and not any(
                ".offbundle-" in name for name in os.listdir(big_folder)):
            time.sleep(0.005)
        process.send_signal(signal.SIGKILL)
        process.wait()
        left = [name for name in os.listdir(big_folder)
                if ".offbundle-" in name]
        suite.check(len(left) == 1, f"a killed run leaves a temporary: {left}")
        suite.check(read(big) == original, "the killed run's file is intact")
        done = suite.run(["compress", "--in-place", big_folder])
        suite.check(done.returncode == 0 and "removed 1 temporary a killed "
                    "run left" in done.stdout,
                    f"the second run cleans up: {done.stdout} {done.stderr}")
        suite.check(os.listdir(big_folder) == ["big.hipfb"],
                    f"only the file remains: {os.listdir(big_folder)}")
        verified = suite.run(["verify", big])
        suite.check(verified.returncode == 0 and "1 compressed" in
                    verified.stdout, f"the job is finished: {verified.stdout}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(suite.exit_status())


if __name__ == "__main__":
    main()
