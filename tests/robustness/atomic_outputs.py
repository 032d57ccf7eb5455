#!/usr/bin/env python3
"""Atomic outputs: a failed run leaves the file system exactly as it was.

For every mode of every tool, each case makes a run fail part of the way
through (after at least one output could have been written), with every
output path already holding a file:

  * an output that cannot be created (its folder is missing, or is a file);
  * an output that can be written but not put in place (the destination is a
    folder), which fails only when the finished outputs are renamed, so the
    outputs already renamed must be put back;
  * a later entry or archive member that is corrupt;
  * a target that is not in the bundle;
  * an input that is missing after the first one.

The whole scratch folder is recorded before and after the run: the run must
exit 1, every pre-existing file must keep its bytes, and no file may appear
(a leftover temporary) or disappear. Each case also has a control run, the
same command without the fault, which must succeed and write its outputs:
that proves the fault is what made the run fail.

Standard output ("-") is checked where LLVM 22's bundler accepts it: the
same exit status and the same bytes on standard output as the reference.

Cases are grouped by tool (CASE_SETS); a tool's set is selected with --tool
NAME=PATH, so another tool (the offload packager) gets its own function.

Usage: atomic_outputs.py --tool bundler=PATH [--tool packager=PATH]
                         [--reference PATH]
                         [--only SUBSTRING] [--keep]
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

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
    def __init__(self, name, args, outputs, fault, control=None, files=None):
        """args: the failing command line (without argv0). outputs: output
        paths, each pre-created with old bytes unless the fault makes it
        something else. fault: a function(root) applied before the failing
        run. control: the command line of a run that must succeed (default:
        args), in a fresh folder without the fault. files: extra files
        {name: bytes} the case needs."""
        self.name = name
        self.args = args
        self.outputs = outputs
        self.fault = fault
        self.control = control if control is not None else args
        self.files = files or {}


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
        Case("extract-all-later-binary-corrupt", ["later-bad.bin"], [],
             no_fault, control=["two.bin"]),
        Case("archive-all-output-is-folder", ["two.bin", "--archive", "-o", "lib.a"],
             ["lib.a"], make_folder("lib.a")),
        Case("archive-all-later-binary-corrupt",
             ["later-bad.bin", "--archive", "-o", "lib.a"], ["lib.a"], no_fault,
             control=["two.bin", "--archive", "-o", "lib.a"]),
        Case("archive-filter-later-binary-corrupt",
             ["later-bad.bin", "--archive", "--image=file=lib.a,kind=hip"],
             ["lib.a"], no_fault,
             control=["two.bin", "--archive", "--image=file=lib.a,kind=hip"]),
    ]


def packager_stdout_cases():
    return [["-o", "-"] + PackagerInputs.IMAGES,
            ["-o", "-", PackagerInputs.IMAGES[1]]]


CASE_SETS = {"bundler": (Inputs, bundler_cases, bundler_stdout_cases),
             "packager": (PackagerInputs, packager_cases, packager_stdout_cases)}
# The reference tool each set's standard-output cases are compared with.
STDOUT_REFERENCES = {"bundler": REFERENCE_BUNDLER, "packager": REFERENCE_PACKAGER}


def run(tool, args, cwd):
    return subprocess.run([tool] + args, cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          timeout=60)


def check_case(case, tool, inputs, scratch, keep):
    problems = []
    # The control run: without the fault the command succeeds.
    root = tempfile.mkdtemp(dir=scratch, prefix=case.name + ".control.")
    write_files(root, inputs.files)
    result = run(tool, case.control, root)
    if result.returncode != 0:
        problems.append("control run failed: " + result.stderr.decode(errors="replace").strip())
    if not keep:
        shutil.rmtree(root)

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
    args = parser.parse_args()
    # The standard-output cases compare with LLVM 22's tools.
    require_executables(args.reference, STDOUT_REFERENCES["packager"])

    passed = failed = 0
    scratch = tempfile.mkdtemp(prefix="atomic-outputs.")
    try:
        for spec in args.tool:
            name, _, path = spec.partition("=")
            if name not in CASE_SETS:
                parser.error(f"unknown tool {name!r}")
            tool = os.path.abspath(path)
            make_inputs, make_cases, make_stdout_cases = CASE_SETS[name]
            inputs = make_inputs(tool, scratch)
            for case in make_cases(inputs):
                if args.only and args.only not in case.name:
                    continue
                problems = check_case(case, tool, inputs, scratch, args.keep)
                if problems:
                    failed += 1
                    print(f"FAIL {name} {case.name}")
                    for problem in problems:
                        print("    " + problem)
                else:
                    passed += 1
            if args.only and args.only not in "stdout":
                continue
            for stdout_args in make_stdout_cases():
                reference = (args.reference if name == "bundler"
                             else STDOUT_REFERENCES[name])
                problems = check_stdout(stdout_args, tool, reference,
                                        inputs, scratch)
                label = " ".join(stdout_args)
                if problems:
                    failed += 1
                    print(f"FAIL {name} stdout: {label}")
                    for problem in problems:
                        print("    " + problem)
                else:
                    passed += 1
    finally:
        if args.keep:
            print("scratch folders kept in " + scratch)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"atomic outputs: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
