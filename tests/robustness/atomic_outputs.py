#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Atomic outputs: a failed run leaves the file system exactly as it was.

For every mode of every tool, each case makes a run fail part of the way
through (after at least one output could have been written), with every
output path already holding a file:

  * an output that cannot be created: its folder is missing or is a file, or
    a folder stands at its path (refused when the output is created, before
    anything is written; a rename that fails at commit, after others
    succeeded, is made to happen in tests/unit/file_io_test.cpp through the
    transaction's test seam, as no unprivileged fault reaches it reliably);
  * a later entry or archive member that is corrupt;
  * a target that is not in the bundle;
  * an input that is missing after the first one.

The whole scratch folder is recorded before and after the run: the run must
exit 1, every pre-existing file must keep its bytes, and no file may appear
(a leftover temporary) or disappear. Each case also has a control run, the
same command without the fault, which must succeed and write exactly the
bytes LLVM 22's tool writes for that command: that proves the fault is what
made the run fail, and that the outputs a run does write are right.

Standard output ("-") is checked where LLVM 22's bundler accepts it: the
same exit status and the same bytes on standard output as the reference.

Faults from outside the run (the bundler's set only):
  * SIGINT, SIGTERM and SIGHUP while a large bundle is being written: the
    tool dies of the signal, its temporaries are gone and the old output
    keeps its bytes; and while -output-dir writes into folders it made:
    the folders are gone too;
  * the input truncated while a large bundle is being unbundled: exit 1,
    one error line, no temporary left, every output as it was;
  * -compress under an address-space limit (ulimit -v) with an alignment
    that makes the bundle larger than memory: exit 1, one error line, no
    temporary (not under the sanitizers, which need the address space).

Cases are grouped by tool (CASE_SETS); a tool's set is selected with --tool
NAME=PATH, so another tool (the offload packager) gets its own function.

Usage: atomic_outputs.py --tool bundler=PATH [--tool packager=PATH]
                         [--reference PATH] [--sanitized]
                         [--only SUBSTRING] [--keep]
"""

import argparse
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import require_executables  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
REFERENCE_BUNDLER = "/usr/lib/llvm-22/bin/clang-offload-bundler"
REFERENCE_PACKAGER = "/usr/lib/llvm-22/bin/llvm-offload-binary"
LLVM_AR = "/usr/lib/llvm-22/bin/llvm-ar"

HOST = "host-x86_64-unknown-linux-gnu"
GFX906 = "hip-amdgcn-amd-amdhsa--gfx906"
GFX90A = "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"
GFX1100 = "hip-amdgcn-amd-amdhsa--gfx1100"
TARGETS = f"{HOST},{GFX906},{GFX90A}"
SAMPLES = {"host.bin": "host.bin", "d906.bin": "device-gfx906.bin",
           "d90a.bin": "device-gfx90a_xnack+.bin"}


def read(path):
    with open(path, "rb") as f:
        return f.read()


def snapshot(root):
    """Every path under root with its kind and content hash."""
    state = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if os.path.isdir(path) and not os.path.islink(path):
                state[rel] = ("dir",)
            else:
                state[rel] = ("file", hashlib.sha256(read(path)).hexdigest())
    return state


class Case:
    def __init__(self, name, args, outputs, fault, control=None, files=None,
                 reference_control=None, expected=None):
        """args: the failing command line (without argv0). outputs: output
        paths, each pre-created with old bytes unless the fault makes it
        something else. fault: a function(root) applied before the failing
        run. control: the command line of a run that must succeed (default:
        args), in a fresh folder without the fault. files: extra files
        {name: bytes} the case needs. The control run's outputs must be those
        LLVM 22 writes for reference_control (default: control), or, for a
        mode LLVM 22 does not have, exactly `expected` ({name: bytes})."""
        self.name = name
        self.args = args
        self.outputs = outputs
        self.fault = fault
        self.control = control if control is not None else args
        self.files = files or {}
        self.reference_control = reference_control or self.control
        self.expected = expected


def no_fault(root):
    pass


def make_folder(path):
    """A fault: the output's destination is a non-empty folder, so the
    rename that puts it in place fails after the others succeeded."""
    def fault(root):
        full = os.path.join(root, path)
        if os.path.exists(full):
            os.remove(full)
        os.makedirs(full)
        with open(os.path.join(full, "keep"), "wb") as f:
            f.write(b"in the way\n")
    return fault


def make_file(path):
    """A fault: the output's folder is a regular file."""
    def fault(root):
        with open(os.path.join(root, path), "wb") as f:
            f.write(b"not a folder\n")
    return fault


def write_files(root, files):
    for name, data in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path) or root, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


class Inputs:
    """Inputs shared by the bundler's cases, made once with the tool."""

    def __init__(self, tool, scratch):
        self.files = {name: read(os.path.join(DATA, "sample", source))
                      for name, source in SAMPLES.items()}
        self.files["host.o"] = read(os.path.join(DATA, "elf", "clang-x86_64-O0.o"))
        folder = os.path.join(scratch, "inputs")
        os.makedirs(folder)
        write_files(folder, self.files)

        def bundle(name, type_, *extra, host="host.bin"):
            out = os.path.join(folder, name)
            subprocess.run([tool, "-type=" + type_, "-targets=" + TARGETS,
                            f"-input={folder}/{host}", f"-input={folder}/d906.bin",
                            f"-input={folder}/d90a.bin", "-output=" + out, *extra],
                           check=True)
            self.files[name] = read(out)

        bundle("b.bc", "bc")
        bundle("t.i", "i")
        bundle("c.bc", "bc", "-compress")
        bundle("f.o", "o", host="host.o")
        # A text bundle whose second entry never ends: the walk fails after
        # the first entry was found.
        text = self.files["t.i"]
        cut = text.rindex(b"\n// __CLANG_OFFLOAD_BUNDLE____END__ ")
        self.files["cut.i"] = text[:cut] + b"\n"
        # A compressed bundle whose data is damaged near its end.
        damaged = bytearray(self.files["c.bc"])
        damaged[-8] ^= 0xff
        self.files["bad.bc"] = bytes(damaged)
        # Archives of fat objects: a good one, and one whose third member
        # is a fat object cut short (the first two are processed first).
        for name, members in [("lib.a", ["f.o", "b.bc"]),
                              ("badlib.a", ["f.o", "b.bc", "cutfat.o"])]:
            member_folder = os.path.join(folder, name + ".members")
            os.makedirs(member_folder)
            paths = []
            for member in members:
                data = (self.files["f.o"][:len(self.files["f.o"]) // 2]
                        if member == "cutfat.o" else self.files[member])
                path = os.path.join(member_folder, member.replace(".bc", ".o"))
                with open(path, "wb") as f:
                    f.write(data)
                paths.append(path)
            # No symbol table: llvm-ar would refuse the cut member.
            subprocess.run([LLVM_AR, "qcDS", os.path.join(folder, name)] + paths,
                           check=True)
            self.files[name] = read(os.path.join(folder, name))


def bundler_cases(inputs):
    """Every bundling and unbundling mode, each failing part of the way."""
    cases = []
    inputs3 = ["-input=host.bin", "-input=d906.bin", "-input=d90a.bin"]
    for type_, extra, label in [("bc", [], "binary"), ("i", [], "text"),
                                ("bc", ["-compress"], "compressed"),
                                ("o", [], "object")]:
        host = "host.o" if type_ == "o" else "host.bin"
        args = ["-type=" + type_, "-targets=" + TARGETS, "-input=" + host,
                "-input=d906.bin", "-input=d90a.bin", "-output=out"] + extra
        cases.append(Case(f"bundle-{label}-output-is-folder", args, ["out"],
                          make_folder("out")))
        cases.append(Case(
            f"bundle-{label}-later-input-missing",
            [a if a != "-input=d90a.bin" else "-input=gone.bin" for a in args],
            ["out"], no_fault, control=args))
        cases.append(Case(
            f"bundle-{label}-output-folder-is-file",
            [a if a != "-output=out" else "-output=plain/out" for a in args],
            ["plain/out"], make_file("plain"), control=args))

    # Unbundling to several outputs: the last one fails in each way.
    for source, type_, label in [("b.bc", "bc", "binary"), ("t.i", "i", "text"),
                                 ("c.bc", "bc", "compressed"),
                                 ("f.o", "o", "object")]:
        base = ["-type=" + type_, "-unbundle", "-input=" + source,
                "-targets=" + TARGETS]
        outs = ["o1", "o2", "o3"]
        args = base + ["-output=" + o for o in outs]
        cases.append(Case(f"unbundle-{label}-last-output-is-folder", args, outs,
                          make_folder("o3")))
        cases.append(Case(f"unbundle-{label}-first-output-is-folder", args, outs,
                          make_folder("o1")))
        cases.append(Case(
            f"unbundle-{label}-last-output-folder-missing",
            base + ["-output=o1", "-output=o2", "-output=nowhere/o3"],
            ["o1", "o2"], no_fault, control=args))
        missing = ["-type=" + type_, "-unbundle", "-input=" + source,
                   f"-targets={HOST},{GFX906},{GFX1100}"] + \
            ["-output=" + o for o in outs]
        cases.append(Case(f"unbundle-{label}-missing-target", missing, outs,
                          no_fault, control=missing + ["-allow-missing-bundles"]))

    cases.append(Case("unbundle-text-later-entry-cut",
                      ["-type=i", "-unbundle", "-input=cut.i",
                       "-targets=" + TARGETS, "-output=o1", "-output=o2",
                       "-output=o3"], ["o1", "o2", "o3"], no_fault,
                      control=["-type=i", "-unbundle", "-input=t.i",
                               "-targets=" + TARGETS, "-output=o1",
                               "-output=o2", "-output=o3"]))
    cases.append(Case("unbundle-compressed-corrupt-data",
                      ["-type=bc", "-unbundle", "-input=bad.bc",
                       "-targets=" + TARGETS, "-output=o1", "-output=o2",
                       "-output=o3"], ["o1", "o2", "o3"], no_fault,
                      control=["-type=bc", "-unbundle", "-input=c.bc",
                               "-targets=" + TARGETS, "-output=o1",
                               "-output=o2", "-output=o3"]))

    # Device archives: one per target.
    archive = ["-type=a", "-unbundle", "-input=lib.a",
               f"-targets={GFX906},{GFX90A}", "-output=a1.a", "-output=a2.a"]
    cases.append(Case("archive-second-output-is-folder", archive,
                      ["a1.a", "a2.a"], make_folder("a2.a")))
    cases.append(Case("archive-second-output-folder-missing",
                      archive[:-1] + ["-output=none/a2.a"], ["a1.a"], no_fault,
                      control=archive))
    cases.append(Case("archive-later-member-corrupt",
                      [a if a != "-input=lib.a" else "-input=badlib.a"
                       for a in archive], ["a1.a", "a2.a"], no_fault,
                      control=archive))
    missing_archive = ["-type=a", "-unbundle", "-input=lib.a",
                       f"-targets={GFX906},{GFX1100}", "-output=a1.a",
                       "-output=a2.a"]
    cases.append(Case("archive-missing-target", missing_archive,
                      ["a1.a", "a2.a"], no_fault,
                      control=missing_archive + ["-allow-missing-bundles"]))
    return cases


def bundler_stdout_cases():
    """Command lines writing to "-", compared with the reference."""
    return [
        ["-type=bc", "-targets=" + TARGETS, "-input=host.bin", "-input=d906.bin",
         "-input=d90a.bin", "-output=-"],
        ["-type=i", "-targets=" + TARGETS, "-input=host.bin", "-input=d906.bin",
         "-input=d90a.bin", "-output=-"],
        ["-type=bc", "-compress", "-targets=" + TARGETS, "-input=host.bin",
         "-input=d906.bin", "-input=d90a.bin", "-output=-"],
        ["-type=o", "-targets=" + TARGETS, "-input=host.o", "-input=d906.bin",
         "-input=d90a.bin", "-output=-"],
        ["-type=bc", "-unbundle", "-input=b.bc", "-targets=" + GFX906,
         "-output=-"],
        ["-type=i", "-unbundle", "-input=t.i", f"-targets={HOST},{GFX906}",
         "-output=-", "-output=o2"],
        ["-type=bc", "-unbundle", "-input=c.bc", "-targets=" + GFX90A,
         "-output=-"],
        ["-type=o", "-unbundle", "-input=f.o", "-targets=" + HOST, "-output=-"],
        ["-type=a", "-unbundle", "-input=lib.a", "-targets=" + GFX906,
         "-output=-"],
    ]


class PackagerInputs:
    """Two device images, the offload binaries the packager makes of them,
    and the same binaries with the second one's magic broken."""

    IMAGES = ["--image=file=a.img,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip",
              "--image=file=b.img,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip"]

    def __init__(self, tool, scratch):
        root = tempfile.mkdtemp(dir=scratch, prefix="packager-inputs.")
        self.files = {"a.img": b"image for gfx906\n" * 40,
                      "b.img": b"image for gfx90a\n" * 50}
        write_files(root, self.files)
        made = run(tool, ["-o", "two.bin"] + self.IMAGES, root)
        if made.returncode != 0:
            raise RuntimeError("packaging the inputs failed: " +
                               made.stderr.decode(errors="replace"))
        two = read(os.path.join(root, "two.bin"))
        # The archive of both images, as llvm-ar 22 writes it.
        names = ["two-amdgcn-amd-amdhsa-gfx906.0.", "two-amdgcn-amd-amdhsa-gfx90a.1."]
        for name, image in zip(names, ["a.img", "b.img"]):
            shutil.copy(os.path.join(root, image), os.path.join(root, name))
        subprocess.run([LLVM_AR, "qcD", "all.a"] + names, cwd=root, check=True)
        self.every_image_archive = read(os.path.join(root, "all.a"))
        shutil.rmtree(root)
        first_size = int.from_bytes(two[8:16], "little")
        self.files["two.bin"] = two
        self.files["later-bad.bin"] = (two[:first_size] + b"\x10\xff\x10\xae" +
                                       two[first_size + 4:])


def packager_cases(inputs):
    images = PackagerInputs.IMAGES
    pick = ["--image=file=x1.img,arch=gfx906", "--image=file=x2.img,arch=gfx90a"]
    missing_folder = ["--image=file=x1.img,arch=gfx906",
                      "--image=file=nodir/x2.img,arch=gfx90a"]
    return [
        Case("package-output-is-folder", ["-o", "out.bin"] + images,
             ["out.bin"], make_folder("out.bin")),
        Case("package-output-folder-missing", ["-o", "nodir/out.bin"] + images,
             ["nodir/out.bin"], no_fault, control=["-o", "out.bin"] + images),
        Case("package-later-image-missing",
             ["-o", "out.bin", images[0], images[1].replace("b.img", "gone.img")],
             ["out.bin"], no_fault, control=["-o", "out.bin"] + images),
        Case("extract-second-output-is-folder", ["two.bin"] + pick,
             ["x1.img", "x2.img"], make_folder("x2.img")),
        Case("extract-second-output-folder-missing", ["two.bin"] + missing_folder,
             ["x1.img", "nodir/x2.img"], no_fault,
             control=["two.bin"] + pick),
        Case("extract-later-binary-corrupt", ["later-bad.bin"] + pick,
             ["x1.img", "x2.img"], no_fault, control=["two.bin"] + pick),
        # Extracting everything and --archive -o are ours alone: the first
        # must give back the images, the second the archive llvm-ar 22 makes
        # of them.
        Case("extract-all-later-binary-corrupt", ["later-bad.bin"], [],
             no_fault, control=["two.bin"],
             expected={"two-amdgcn-amd-amdhsa-gfx906.0.": inputs.files["a.img"],
                       "two-amdgcn-amd-amdhsa-gfx90a.1.": inputs.files["b.img"]}),
        Case("archive-all-output-is-folder", ["two.bin", "--archive", "-o", "lib.a"],
             ["lib.a"], make_folder("lib.a"),
             expected={"lib.a": inputs.every_image_archive}),
        Case("archive-all-later-binary-corrupt",
             ["later-bad.bin", "--archive", "-o", "lib.a"], ["lib.a"], no_fault,
             control=["two.bin", "--archive", "-o", "lib.a"],
             expected={"lib.a": inputs.every_image_archive}),
        Case("archive-filter-later-binary-corrupt",
             ["later-bad.bin", "--archive", "--image=file=lib.a,kind=hip"],
             ["lib.a"], no_fault,
             control=["two.bin", "--archive", "--image=file=lib.a,kind=hip"]),
    ]


def packager_stdout_cases():
    return [["-o", "-"] + PackagerInputs.IMAGES,
            ["-o", "-", PackagerInputs.IMAGES[1]]]


# Large enough that writing a bundle of two of them takes a good fraction of
# a second, so a temporary is seen before the run ends.
LARGE_INPUT_SIZE = 192 << 20


def temporaries(root):
    return [name for name in os.listdir(root) if name.startswith(".")]


def start_and_wait_for_temporary(command, root, timeout=60):
    """Starts the command, and returns it once a temporary output appears
    in root (or None, with the process ended, if it never does)."""
    process = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        if temporaries(root):
            return process
        time.sleep(0.0005)
    process.kill()
    process.communicate()
    return None


def large_inputs(root):
    """A small host input and a large device input (sparse, so cheap to
    make; the tool reads it as ordinary zeros)."""
    write_files(root, {"host.bin": b"host\n"})
    with open(os.path.join(root, "large.bin"), "wb") as f:
        f.truncate(LARGE_INPUT_SIZE)


def check_signal(tool, scratch, signal_number):
    """A termination signal while a large bundle is written."""
    root = tempfile.mkdtemp(dir=scratch, prefix=f"signal-{signal_number}.")
    large_inputs(root)
    write_files(root, {"out": b"old bytes of out\n"})
    before = snapshot(root)
    command = [tool, "-type=bc", f"-targets={HOST},{GFX906},{GFX90A}",
               "-input=host.bin", "-input=large.bin", "-input=large.bin",
               "-output=out"]
    process = start_and_wait_for_temporary(command, root)
    if process is None:
        shutil.rmtree(root)
        return ["the run ended before its temporary output was seen"]
    return interrupted(process, signal_number, root, before)


def interrupted(process, signal_number, root, before):
    """Sends the signal to the running tool: the problems, when it does
    not die of it or the folder is not as it was (the folder is then
    removed)."""
    process.send_signal(signal_number)
    process.communicate(timeout=60)
    problems = []
    if process.returncode != -signal_number:
        problems.append(f"exit status {process.returncode}, expected death "
                        f"by signal {signal_number}")
    after = snapshot(root)
    if after != before:
        changed = sorted(p for p in set(before) | set(after)
                         if before.get(p) != after.get(p))
        problems.append("the interrupted run changed: " + ", ".join(changed))
    shutil.rmtree(root)
    return problems


def check_signal_output_dir(tool, scratch, signal_number):
    """A termination signal while -unbundle -output-dir writes into folders
    it made: the temporaries go, and so do the folders, left empty."""
    root = tempfile.mkdtemp(dir=scratch, prefix=f"folders-{signal_number}.")
    large_inputs(root)
    done = subprocess.run([tool, "-type=bc", f"-targets={HOST},{GFX906},"
                           f"{GFX90A}", "-input=host.bin", "-input=large.bin",
                           "-input=large.bin", "-output=big.bc"], cwd=root,
                          capture_output=True)
    if done.returncode != 0:
        shutil.rmtree(root)
        return [f"the bundle to unbundle was not made: {done.stderr!r}"]
    before = snapshot(root)
    deeper = os.path.join(root, "made", "deeper")
    process = subprocess.Popen([tool, "-unbundle", "-type=bc",
                                "-input=big.bc", "-output-dir=made/deeper"],
                               cwd=root, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline and not (
            os.path.isdir(deeper) and temporaries(deeper)):
        time.sleep(0.0005)
    if process.poll() is not None:
        process.communicate()
        shutil.rmtree(root)
        return ["the run ended before its temporary output was seen"]
    return interrupted(process, signal_number, root, before)


def check_truncated_input(tool, scratch, type_):
    """The input truncated while a large bundle is unbundled from it: a
    binary bundle's payloads are read with pread (a short read), a text
    bundle is scanned in its mapping (SIGBUS)."""
    root = tempfile.mkdtemp(dir=scratch, prefix="truncated.")
    large_inputs(root)
    made = run(tool, ["-type=" + type_, f"-targets={HOST},{GFX906},{GFX90A}",
                      "-input=host.bin", "-input=large.bin", "-input=large.bin",
                      "-output=fat.bc"], root)
    if made.returncode != 0:
        shutil.rmtree(root)
        return ["making the large bundle failed"]
    os.remove(os.path.join(root, "large.bin"))
    outputs = ["o1", "o2", "o3"]
    write_files(root, {o: b"old bytes of " + o.encode() + b"\n" for o in outputs})
    command = [tool, "-type=" + type_, "-unbundle", "-input=fat.bc",
               f"-targets={HOST},{GFX906},{GFX90A}"] + \
        ["-output=" + o for o in outputs]
    before = snapshot(root)
    process = start_and_wait_for_temporary(command, root)
    if process is None:
        shutil.rmtree(root)
        return ["the run ended before its temporary output was seen"]
    os.truncate(os.path.join(root, "fat.bc"), 4096)
    stdout, stderr = process.communicate(timeout=60)
    problems = []
    if process.returncode != 1:
        problems.append(f"exit status {process.returncode}, expected 1")
    lines = stderr.decode(errors="replace").splitlines()
    if len(lines) != 1 or ": error: 'fat.bc': " not in lines[0]:
        problems.append(f"standard error is not one error line about "
                        f"fat.bc: {lines!r}")
    after = snapshot(root)
    changed = sorted(p for p in set(before) | set(after)
                     if before.get(p) != after.get(p) and p != "fat.bc")
    if changed:
        problems.append("the failed run changed: " + ", ".join(changed))
    shutil.rmtree(root)
    return problems


def check_address_space_limit(tool, scratch):
    """-compress of a bundle that cannot fit under ulimit -v."""
    root = tempfile.mkdtemp(dir=scratch, prefix="address-space.")
    write_files(root, {"host.bin": b"host\n", "d906.bin": b"gfx906\n",
                       "d90a.bin": b"gfx90a\n", "out": b"old bytes of out\n"})
    before = snapshot(root)
    limit = 4000000 * 1024  # ulimit -v 4000000

    def limit_address_space():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    result = subprocess.run(
        [tool, "-type=bc", "-compress", "-bundle-align=4294967295",
         f"-targets={HOST},{GFX906},{GFX90A}", "-input=host.bin",
         "-input=d906.bin", "-input=d90a.bin", "-output=out"],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL, preexec_fn=limit_address_space, timeout=60)
    problems = []
    if result.returncode != 1:
        problems.append(f"exit status {result.returncode}, expected 1")
    lines = result.stderr.decode(errors="replace").splitlines()
    if len(lines) != 1 or ": error: " not in lines[0]:
        problems.append(f"standard error is not one error line: {lines!r}")
    if snapshot(root) != before:
        problems.append("the failed run changed the folder")
    shutil.rmtree(root)
    return problems


def interruption_checks(tool, scratch, sanitized):
    """(name, check) for the faults from outside: check() returns the
    problems found; it is None when the check cannot run here."""
    checks = [(f"signal-{signal.Signals(number).name}",
               lambda number=number: check_signal(tool, scratch, number))
              for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    checks += [(f"signal-{signal.Signals(number).name}-in-made-folders",
                lambda number=number: check_signal_output_dir(tool, scratch,
                                                              number))
               for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
    for type_ in ("bc", "i"):
        checks.append((f"input-truncated-while-unbundling-{type_}",
                       lambda type_=type_: check_truncated_input(tool, scratch,
                                                                 type_)))
    checks.append(("compress-under-ulimit-v",
                   None if sanitized else
                   lambda: check_address_space_limit(tool, scratch)))
    return checks


CASE_SETS = {"bundler": (Inputs, bundler_cases, bundler_stdout_cases),
             "packager": (PackagerInputs, packager_cases, packager_stdout_cases)}
# The reference tool each set's standard-output cases are compared with.
STDOUT_REFERENCES = {"bundler": REFERENCE_BUNDLER, "packager": REFERENCE_PACKAGER}


def run(tool, args, cwd):
    return subprocess.run([tool] + args, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          timeout=60)


def written_files(root, inputs):
    """What a run wrote: every path under root that is not an input."""
    return {path: state for path, state in snapshot(root).items()
            if path not in inputs.files}


def check_case(case, tool, reference, inputs, scratch, keep):
    problems = []
    # The control run: without the fault the command succeeds, and writes
    # what LLVM 22 writes for it.
    written = []
    runs = [(tool, case.control, "control run")]
    if case.expected is None:
        runs.append((reference, case.reference_control, "reference control run"))
    for program, control, who in runs:
        root = tempfile.mkdtemp(dir=scratch, prefix=case.name + ".control.")
        write_files(root, inputs.files)
        result = run(program, control, root)
        if result.returncode != 0:
            problems.append(who + " failed: " +
                            result.stderr.decode(errors="replace").strip())
        written.append(written_files(root, inputs))
        if not keep:
            shutil.rmtree(root)
    if case.expected is not None:
        written.append({name: ("file", hashlib.sha256(data).hexdigest())
                        for name, data in case.expected.items()})
    if not written[0]:
        problems.append("control run wrote nothing")
    if written[0] != written[1]:
        differing = sorted(p for p in set(written[0]) | set(written[1])
                           if written[0].get(p) != written[1].get(p))
        problems.append("control run's outputs differ from LLVM 22's: " +
                        ", ".join(differing))

    root = tempfile.mkdtemp(dir=scratch, prefix=case.name + ".")
    write_files(root, inputs.files)
    for output in case.outputs:
        if os.path.isdir(os.path.dirname(os.path.join(root, output))):
            write_files(root, {output: b"old bytes of " + output.encode() + b"\n"})
    case.fault(root)
    before = snapshot(root)
    result = run(tool, case.args, root)
    after = snapshot(root)
    if result.returncode != 1:
        problems.append(f"exit status {result.returncode}, expected 1")
    if result.stdout:
        problems.append(f"printed on standard output: {result.stdout[:80]!r}")
    lines = result.stderr.decode(errors="replace").splitlines()
    if len(lines) != 1 or ": error: " not in lines[0]:
        problems.append(f"standard error is not one error line: {lines!r}")
    changed = sorted(p for p in set(before) | set(after)
                     if before.get(p) != after.get(p))
    if changed:
        problems.append("the failed run changed: " + ", ".join(changed))
    if not keep:
        shutil.rmtree(root)
    return problems


def check_stdout(args, tool, reference, inputs, scratch):
    outcomes = []
    for program in (tool, reference):
        root = tempfile.mkdtemp(dir=scratch, prefix="stdout.")
        write_files(root, inputs.files)
        result = run(program, args, root)
        files = {p: v for p, v in snapshot(root).items()
                 if p not in inputs.files}
        outcomes.append((result.returncode, result.stdout, files))
        shutil.rmtree(root)
    ours, theirs = outcomes
    problems = []
    if ours[0] != theirs[0]:
        problems.append(f"exit status {ours[0]}, reference {theirs[0]}")
    if ours[1] != theirs[1]:
        problems.append(f"standard output differs ({len(ours[1])} bytes, "
                        f"reference {len(theirs[1])})")
    if ours[2] != theirs[2]:
        problems.append("files written differ from the reference's")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", action="append", required=True,
                        help="NAME=PATH, NAME one of " + ", ".join(CASE_SETS))
    parser.add_argument("--reference", default=REFERENCE_BUNDLER,
                        help="LLVM 22's clang-offload-bundler, for the "
                             "bundler's '-' outputs (the packager's is "
                             + REFERENCE_PACKAGER + ")")
    parser.add_argument("--only", help="run cases whose name contains this")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scratch folders of the cases")
    parser.add_argument("--sanitized", action="store_true",
                        help="the tools are built with ASan, which cannot "
                             "run under an address-space limit")
    args = parser.parse_args()
    # The standard-output cases compare with LLVM 22's tools.
    require_executables(args.reference, STDOUT_REFERENCES["packager"])

    counts = {"passed": 0, "failed": 0, "skipped": 0}

    def record(label, problems):
        if problems:
            counts["failed"] += 1
            print("FAIL " + label)
            for problem in problems:
                print("    " + problem)
        else:
            counts["passed"] += 1

    scratch = tempfile.mkdtemp(prefix="atomic-outputs.")
    try:
        for spec in args.tool:
            name, _, path = spec.partition("=")
            if name not in CASE_SETS:
                parser.error(f"unknown tool {name!r}")
            tool = os.path.abspath(path)
            make_inputs, make_cases, make_stdout_cases = CASE_SETS[name]
            inputs = make_inputs(tool, scratch)
            reference = (args.reference if name == "bundler"
                         else STDOUT_REFERENCES[name])
            for case in make_cases(inputs):
                if args.only and args.only not in case.name:
                    continue
                record(f"{name} {case.name}",
                       check_case(case, tool, reference, inputs, scratch,
                                  args.keep))
            external = (interruption_checks(tool, scratch, args.sanitized)
                        if name == "bundler" else [])
            for check_name, check in external:
                if args.only and args.only not in check_name:
                    continue
                if check is None:
                    counts["skipped"] += 1
                    print(f"SKIP {name} {check_name} (needs an address-space "
                          "limit, which ASan cannot run under)")
                else:
                    record(f"{name} {check_name}", check())
            if args.only and args.only not in "stdout":
                continue
            for stdout_args in make_stdout_cases():
                record(f"{name} stdout: " + " ".join(stdout_args),
                       check_stdout(stdout_args, tool, reference, inputs,
                                    scratch))
    finally:
        if args.keep:
            print("scratch folders kept in " + scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"atomic outputs: {counts['passed']} passed, {counts['failed']} "
          f"failed, {counts['skipped']} skipped")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
