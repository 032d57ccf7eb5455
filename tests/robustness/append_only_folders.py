#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Outputs in an append-only folder (chattr +a), where files can be created
and written but not renamed or removed.

LLVM 22's bundler writes its outputs there as anywhere else: it opens the
output and truncates it. Its packager and archive writer rename a temporary,
fail to, copy it over the output instead and leave the temporary behind.
Ours writes such outputs to temporaries without a name and copies them over
the outputs at commit. Checked, in folders made append-only here:

- the bundler's -bundle (text and binary, compressed too) and -unbundle,
  and the packager, write a new output with LLVM 22's bytes and leave no
  other file;
- an output over an existing file keeps that file's inode, so its other
  hard link sees the new bytes, as with LLVM 22's bundler;
- a run that fails (a target not in the bundle) exits 1 and leaves every
  file as it was, with no file added;
- offbundle prune -o writes the pruned copy, and prune --in-place, which
  could not replace the file atomically there, refuses with one error line
  and leaves the file as it was;
- a symbolic link as the packager's output (to a file, to nowhere) is
  written through there, as LLVM 22's packager does once its rename fails.

And, run as another user (setpriv), an output the user may write in a
folder the user may not write to: written in place, as LLVM 22's bundler
writes it; a new output beside it fails, naming it.

Making a folder append-only needs CAP_LINUX_IMMUTABLE (root) and a file
system that keeps the flag; without them the suite is skipped.

Usage: append_only_folders.py --bundler PATH --reference PATH
                              --packager PATH --reference-packager PATH
                              --offbundle PATH
"""

import argparse
import array
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import Tally, finish, require_executables, skip_suite  # noqa: E402

# linux/fs.h
FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_APPEND_FL = 0x00000020

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                      "data", "linked", "unit-plain.so")
TARGETS = "host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906"


def set_append_only(folder, on):
    """Sets or clears the folder's append-only flag; False when refused."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags)
        flags[0] = (flags[0] | FS_APPEND_FL) if on else (
            flags[0] & ~FS_APPEND_FL)
        fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def contents(folder):
    """{name: (inode, bytes)} of every file in the folder."""
    found = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        with open(path, "rb") as handle:
            found[name] = (os.stat(path).st_ino, handle.read())
    return found


class Suite(Tally):
    def __init__(self, args, scratch):
        super().__init__()
        self.args = args
        self.scratch = scratch
        self.folders = []
        self.inputs = os.path.join(scratch, "inputs")
        os.mkdir(self.inputs)
        for name, text in (("host.ll", "host code\n"),
                           ("device.ll", "device code\n")):
            with open(os.path.join(self.inputs, name), "w") as handle:
                handle.write(text)
        with open(os.path.join(self.inputs, "image.bin"), "wb") as handle:
            handle.write(bytes(range(256)) * 8)

    def append_only_folder(self, name, files=()):
        """A new folder holding `files` ({name: bytes} or (name, link-to)
        pairs), then made append-only."""
        folder = os.path.join(self.scratch, name)
        os.mkdir(folder)
        for entry in files:
            if isinstance(entry, tuple):
                os.link(os.path.join(folder, entry[1]),
                        os.path.join(folder, entry[0]))
            else:
                with open(os.path.join(folder, entry), "wb") as handle:
                    handle.write(b"old bytes\n")
        if not set_append_only(folder, True):
            skip_suite("cannot make a folder append-only here (needs root "
                       "and a file system with the flag)")
        self.folders.append(folder)
        return folder

    def run(self, command):
        return subprocess.run(command, capture_output=True, timeout=120,
                              cwd=self.inputs)

    def bundle_command(self, tool, type_, output, extra=()):
        return [tool, f"-type={type_}", f"-targets={TARGETS}",
                "-input=host.ll", "-input=device.ll", f"-output={output}",
                *extra]

    def compare_new_output(self, label, ours, reference):
        """Each command writes `out` into its own append-only folder: both
        succeed, with the same bytes, and ours leaves no other file."""
        mine = self.append_only_folder(label + "-ours")
        theirs = self.append_only_folder(label + "-llvm")
        done = self.run(ours(os.path.join(mine, "out")))
        expected = self.run(reference(os.path.join(theirs, "out")))
        self.check(f"{label}: LLVM 22 succeeds", expected.returncode == 0,
                   expected.stderr.decode())
        self.check(f"{label}: ours succeeds", done.returncode == 0,
                   done.stderr.decode())
        found = contents(mine)
        self.check(f"{label}: only the output appears", list(found) == ["out"],
                   str(list(found)))
        if "out" in found and expected.returncode == 0:
            with open(os.path.join(theirs, "out"), "rb") as handle:
                self.check(f"{label}: LLVM 22's bytes",
                           found["out"][1] == handle.read())

    def check_new_outputs(self):
        bundler, reference = self.args.bundler, self.args.reference
        for type_, extra in (("ll", ()), ("bc", ()), ("bc", ("-compress",))):
            label = f"bundle -type={type_}{''.join(extra)}"
            self.compare_new_output(
                label,
                lambda out: self.bundle_command(bundler, type_, out, extra),
                lambda out: self.bundle_command(reference, type_, out, extra))
        packaged = ["--image=file=image.bin,triple=amdgcn-amd-amdhsa,"
                    "arch=gfx906,kind=openmp", "-o"]
        self.compare_new_output(
            "packager", lambda out: [self.args.packager, *packaged, out],
            lambda out: [self.args.reference_packager, *packaged, out])
        # Unbundling into the folder: the host entry.
        bundle = os.path.join(self.scratch, "bundle.ll")
        self.run(self.bundle_command(reference, "ll", bundle))
        self.compare_new_output(
            "unbundle",
            lambda out: [bundler, "-type=ll", "-unbundle",
                         "-targets=host-x86_64-unknown-linux-gnu",
                         f"-input={bundle}", f"-output={out}"],
            lambda out: [reference, "-type=ll", "-unbundle",
                         "-targets=host-x86_64-unknown-linux-gnu",
                         f"-input={bundle}", f"-output={out}"])

    def check_replaced_output(self):
        """An existing output with a second hard link: written in place, as
        LLVM 22's bundler writes it."""
        for who, tool in (("ours", self.args.bundler),
                          ("LLVM 22", self.args.reference)):
            folder = self.append_only_folder(
                "replaced-" + who.replace(" ", ""), ["out", ("link", "out")])
            before = contents(folder)
            done = self.run(self.bundle_command(
                tool, "ll", os.path.join(folder, "out")))
            after = contents(folder)
            self.check(f"replace ({who}): succeeds", done.returncode == 0,
                       done.stderr.decode())
            self.check(f"replace ({who}): no other file",
                       list(after) == ["link", "out"], str(list(after)))
            if list(after) == ["link", "out"]:
                self.check(f"replace ({who}): same inode",
                           after["out"][0] == before["out"][0])
                self.check(f"replace ({who}): the link sees the new bytes",
                           after["link"][1] == after["out"][1] and
                           b"__CLANG_OFFLOAD_BUNDLE" in after["out"][1])

    def check_links(self):
        """A symbolic link as the output (to a file, to nowhere): the
        packager, which would rename over it, copies through it once the
        rename fails, as LLVM 22's does; what each link names ends with the
        same bytes for both tools."""
        packaged = ["--image=file=image.bin,triple=amdgcn-amd-amdhsa,"
                    "arch=gfx906,kind=openmp", "-o"]
        states = []
        for who, tool in (("LLVM 22", self.args.reference_packager),
                          ("ours", self.args.packager)):
            folder = os.path.join(self.scratch,
                                  "links-" + who.replace(" ", ""))
            os.mkdir(folder)
            with open(os.path.join(folder, "out"), "wb") as handle:
                handle.write(b"old bytes\n")
            os.symlink("out", os.path.join(folder, "to-out"))
            os.symlink("nowhere", os.path.join(folder, "to-nowhere"))
            if not set_append_only(folder, True):
                skip_suite("cannot make a folder append-only here")
            self.folders.append(folder)
            codes = [self.run([tool, *packaged,
                               os.path.join(folder, name)]).returncode
                     for name in ("to-out", "to-nowhere")]
            # LLVM leaves its temporaries behind; only what the links name
            # is compared.
            state = {name: (os.path.islink(os.path.join(folder, name)),
                            open(os.path.join(folder, name), "rb").read())
                     for name in ("out", "nowhere", "to-out", "to-nowhere")
                     if os.path.exists(os.path.join(folder, name))}
            states.append((codes, state))
            if who == "ours":
                self.check("links: ours leaves no other file",
                           sorted(os.listdir(folder)) ==
                           ["nowhere", "out", "to-nowhere", "to-out"],
                           str(sorted(os.listdir(folder))))
        self.check("links: as LLVM 22", states[0] == states[1],
                   f"{states[0]!r:.300} / {states[1]!r:.300}")

    def check_read_only_folder(self):
        """An output the user may write, in a folder the user may not
        write to: LLVM 22's bundler writes it in place, and so does ours; a
        new output there fails for both, naming it."""
        bundle = os.path.join(self.scratch, "bundle.ll")
        results = []
        for who, tool in (("LLVM 22", self.args.reference),
                          ("ours", self.args.bundler)):
            folder = os.path.join(self.scratch,
                                  "read-only-" + who.replace(" ", ""))
            os.mkdir(folder)
            out = os.path.join(folder, "out")
            with open(out, "wb") as handle:
                handle.write(b"old bytes\n")
            os.chmod(out, 0o666)
            os.chmod(folder, 0o555)
            before = os.stat(out).st_ino
            as_nobody = ["setpriv", "--reuid=65534", "--regid=65534",
                         "--clear-groups"]
            bundled = subprocess.run(
                as_nobody + self.bundle_command(tool, "ll", out),
                capture_output=True, timeout=120, cwd=self.inputs)
            with open(out, "rb") as handle:
                written = handle.read()
            inode = os.stat(out).st_ino
            unbundled = subprocess.run(
                as_nobody + [tool, "-type=ll", "-unbundle",
                             f"-targets={TARGETS}", f"-input={bundle}",
                             f"-output={out}",
                             f"-output={os.path.join(folder, 'new')}"],
                capture_output=True, timeout=120, cwd=self.inputs)
            os.chmod(folder, 0o755)
            results.append((bundled.returncode, bundled.stderr, written,
                            inode == before, unbundled.returncode,
                            unbundled.stderr.replace(tool.encode(), b"TOOL")
                            .replace(folder.encode(), b"FOLDER"),
                            os.path.exists(os.path.join(folder, "new"))))
        self.check("read-only folder: as LLVM 22", results[0] == results[1],
                   f"{results[0]!r:.400} / {results[1]!r:.400}")
        self.check("read-only folder: the output written in place",
                   results[1][0] == 0 and results[1][3] and
                   b"__CLANG_OFFLOAD_BUNDLE" in results[1][2])

    def check_failed_run(self):
        bundle = os.path.join(self.scratch, "bundle.ll")
        folder = self.append_only_folder("failed", ["host", "device"])
        before = contents(folder)
        done = self.run([self.args.bundler, "-type=ll", "-unbundle",
                         "-targets=host-x86_64-unknown-linux-gnu,"
                         "hip-amdgcn-amd-amdhsa--gfx908",
                         f"-input={bundle}",
                         f"-output={os.path.join(folder, 'host')}",
                         f"-output={os.path.join(folder, 'device')}"])
        stderr = done.stderr.decode()
        self.check("failed run: exit 1", done.returncode == 1, stderr)
        self.check("failed run: one error line",
                   stderr.count("\n") == 1 and "error: " in stderr, stderr)
        self.check("failed run: every file as it was",
                   contents(folder) == before)

    def check_offbundle(self):
        folder = self.append_only_folder("offbundle")
        library = os.path.join(folder, "lib.so")
        shutil.copyfile(SAMPLE, library)
        pruned = os.path.join(folder, "pruned.so")
        done = self.run([self.args.offbundle, "prune", "-k", "gfx906",
                         library, "-o", pruned])
        self.check("prune -o: succeeds", done.returncode == 0,
                   done.stderr.decode())
        listed = self.run([self.args.offbundle, "list", pruned])
        ids = sorted(line.split("\t")[1]
                     for line in listed.stdout.decode().splitlines())
        self.check("prune -o: the copy keeps gfx906 and the host",
                   ids == ["hipv4-amdgcn-amd-amdhsa--gfx906",
                           "host-x86_64-unknown-linux-gnu-"], str(ids))
        before = contents(folder)
        done = self.run([self.args.offbundle, "prune", "-k", "gfx906",
                         "--in-place", library])
        errors = [line for line in done.stderr.decode().splitlines()
                  if "error:" in line]
        self.check("prune --in-place: exit 1", done.returncode == 1)
        self.check("prune --in-place: one error naming the folder",
                   len(errors) == 1 and "folder is append-only" in errors[0],
                   done.stderr.decode())
        self.check("prune --in-place: every file as it was",
                   contents(folder) == before)

    def clean_up(self):
        for folder in self.folders:
            set_append_only(folder, False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundler", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--packager", required=True)
    parser.add_argument("--reference-packager", required=True)
    parser.add_argument("--offbundle", required=True)
    args = parser.parse_args()
    for name in ("bundler", "reference", "packager", "reference_packager",
                 "offbundle"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    require_executables(args.bundler, args.reference, args.packager,
                        args.reference_packager, args.offbundle)
    scratch = tempfile.mkdtemp(prefix="append-only-")
    # Read by another user in the read-only folder case.
    os.chmod(scratch, 0o755)
    suite = Suite(args, scratch)
    try:
        suite.check_new_outputs()
        suite.check_replaced_output()
        suite.check_failed_run()
        suite.check_links()
        suite.check_read_only_folder()
        suite.check_offbundle()
    finally:
        suite.clean_up()
        shutil.rmtree(scratch, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
