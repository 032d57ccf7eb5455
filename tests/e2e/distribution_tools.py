#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Rewritten programs and libraries through the tools distributions run.

Every program or library offbundle prune, compress or decompress rewrote is
put through what packaging runs on every binary (Debian's dh_strip,
Fedora's find-debuginfo, build scripts), each on a copy of its own:

  GNU binutils: strip --strip-unneeded, --strip-all, --strip-debug;
  dh_strip's sequence: objcopy --only-keep-debug, strip --remove-section=
    .comment --remove-section=.note --strip-unneeded, objcopy
    --add-gnu-debuglink;
  objcopy --remove-section, --add-section, --set-section-flags;
  elfutils: eu-strip, eu-strip -f;
  patchelf --set-rpath, --set-interpreter (programs), --add-needed;
  llvm-strip and llvm-objcopy (LLVM 22).

Each tool also runs on the original file, as a control. After each tool,
the result must run (a program) or load with dlopen (a library) against a
stand-in HIP runtime (tests/e2e/stand_in_runtime.py) and register exactly
the entries the rewrite kept, byte for byte; the tool must print nothing
it does not print for the original; and the result must keep the layout
rules of rewrite/elf/linked_layout.h (checked here independently of
offbundle: among them, an executable's program header table mapped at the
load address plus e_phoff, where kernels before Linux 5.18 look for it,
and one of patchelf's own: in a library or position-independent program,
only sections nothing but the dynamic table and the program headers
address may start within one entry after the program header table, as
patchelf moves what its grown table reaches) wherever the control keeps
them. The rewritten file itself must pass
`offbundle verify` and those rules, read without a warning in binutils'
`readelf -a`, and get nothing from `eu-elflint --gnu-ld` that the original
does not (section numbers aside, which the rewrite may change).

Inputs, chosen with --inputs:
  programs  clang 22 builds: a PIE linked by lld, a program linked with
            -no-pie, one linked by GNU ld, one from --offload-compress
            objects, a shared library, and a program of the new offloading
            driver (clang-linker-wrapper);
  rocsparse Debian's librocsparse0 (ROCm 5.3, a 1.25 GiB library), fetched
            with apt-get download into --cache, never installed; the suite
            skips only when the download is impossible.

The rewrites: prune to one target, compress, and decompress (of the input
when it is compressed, of its compressed rewrite otherwise). A rewrite that
changes nothing (compress of a compressed input) is not a case.

Usage: distribution_tools.py --offbundle PATH --reference-bin DIR
                             --inputs programs|rocsparse [--cache DIR]
                             [--jobs N]
"""

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import Tally, finish, require_executables  # noqa: E402
from suite_support import skip_suite  # noqa: E402
import stand_in_runtime  # noqa: E402
import rocm_library  # noqa: E402
from hip_binaries import ARCHES, COMMON, SOURCES  # noqa: E402

# A run path long enough that patchelf must move .dynstr; the stand-in
# runtime is found through LD_LIBRARY_PATH whatever it says.
LONG_RUN_PATH = "/opt/offbundle-test/" + "x" * 120 + "/lib"
# The same interpreter, named by a longer path, so that .interp grows.
LONGER_INTERPRETER = "/lib/../lib64/../lib64/ld-linux-x86-64.so.2"
TOOL_TIMEOUT = 600
PT_LOAD, PT_INTERP, PT_PHDR = 1, 3, 6
SHF_ALLOC, SHT_NOBITS = 2, 8
ET_DYN = 3
# Section types only the dynamic table and the program headers address:
# .dynstr, relocations, hash tables, notes, .dynsym, RELR, GNU hash, symbol
# versions.
MOVABLE_TYPES = {3, 4, 5, 7, 9, 11, 19, 0x6ffffff6, 0x6ffffffd, 0x6ffffffe,
                 0x6fffffff}


def tool_steps(name, source, path, is_program, extra_section, flags_section,
               llvm_bin):
    """The commands one tool (by name) runs to make `path` from `source`, in
    order; None when the tool does not apply. Tools that edit a file in
    place work on a copy (None as a step)."""
    debug = path + ".debug"
    llvm_strip = os.path.join(llvm_bin, "llvm-strip")
    llvm_objcopy = os.path.join(llvm_bin, "llvm-objcopy")
    steps = {
        "strip --strip-unneeded": [["strip", "--strip-unneeded", "-o", path,
                                    source]],
        "strip --strip-all": [["strip", "--strip-all", "-o", path, source]],
        "strip --strip-debug": [["strip", "--strip-debug", "-o", path,
                                 source]],
        "dh_strip sequence": [
            ["objcopy", "--only-keep-debug", source, debug],
            ["strip", "--remove-section=.comment", "--remove-section=.note",
             "--strip-unneeded", "-o", path, source],
            ["objcopy", f"--add-gnu-debuglink={debug}", path]],
        "objcopy --remove-section": [
            ["objcopy", "--remove-section=.comment", source, path]],
        "objcopy --add-section": [
            ["objcopy", "--add-section", f".offbundle.test={extra_section}",
             source, path]],
        "objcopy --set-section-flags": [
            ["objcopy", "--set-section-flags",
             f"{flags_section}=contents,readonly", source, path]],
        "eu-strip": [["eu-strip", "-o", path, source]],
        "eu-strip -f": [["eu-strip", "-f", debug, "-o", path, source]],
        "patchelf --set-rpath": [
            ["patchelf", "--set-rpath", LONG_RUN_PATH, "--output", path,
             source]],
        "patchelf --set-interpreter": [
            ["patchelf", "--set-interpreter", LONGER_INTERPRETER, "--output",
             path, source]],
        "patchelf --add-needed": [
            ["patchelf", "--add-needed", "libz.so.1", "--output", path,
             source]],
        "llvm-strip": [[llvm_strip, "-o", path, source]],
        "llvm-objcopy": [[llvm_objcopy, "--remove-section=.comment", source,
                          path]],
    }
    if name == "patchelf --set-interpreter" and not is_program:
        return None
    return steps[name]


TOOLS = ["strip --strip-unneeded", "strip --strip-all", "strip --strip-debug",
         "dh_strip sequence", "objcopy --remove-section",
         "objcopy --add-section", "objcopy --set-section-flags", "eu-strip",
         "eu-strip -f", "patchelf --set-rpath", "patchelf --set-interpreter",
         "patchelf --add-needed", "llvm-strip", "llvm-objcopy"]


def elf_layout(path):
    """(e_phoff, program headers as (type, offset, vaddr, filesz, memsz),
    section names) of a 64-bit little-endian ELF file."""
    with open(path, "rb") as handle:
        header = handle.read(64)
        phoff, shoff = struct.unpack_from("<QQ", header, 32)
        phnum = struct.unpack_from("<H", header, 56)[0]
        shnum, shstrndx = struct.unpack_from("<HH", header, 60)
        handle.seek(phoff)
        table = handle.read(56 * phnum)
        segments = []
        for i in range(phnum):
            kind, _, offset, vaddr, _, filesz, memsz, _ = struct.unpack_from(
                "<IIQQQQQQ", table, 56 * i)
            segments.append((kind, offset, vaddr, filesz, memsz))
        handle.seek(shoff)
        headers = handle.read(64 * shnum)
        entries = [struct.unpack_from("<IIQQQQ", headers, 64 * i)
                   for i in range(shnum)]
        names = []
        if shstrndx < shnum:
            handle.seek(entries[shstrndx][4])
            strings = handle.read(entries[shstrndx][5])
            for entry in entries:
                end = strings.find(b"\0", entry[0])
                names.append(strings[entry[0]:end].decode(errors="replace"))
    return phoff, segments, names


def layout_problem(path):
    """The first layout rule of rewrite/elf/linked_layout.h the file breaks
    (read here independently of offbundle), or None: the program header
    table after the ELF header in the first PT_LOAD or starting one,
    PT_PHDR on it, an executable's table where kernels before 5.18 look for
    it (the load address plus e_phoff), PT_LOADs in address order and
    congruent, allocated sections inside a PT_LOAD at their address, and
    the section header table in file order for them."""
    phoff, segments, _ = elf_layout(path)
    sections = section_headers(path)
    phnum = len(segments)
    loads = [s for s in segments if s[0] == PT_LOAD]
    if not loads:
        return "no PT_LOAD"
    holder = [s for s in loads if s[1] <= phoff and
              phoff + 56 * phnum <= s[1] + s[3] and
              (s[1] == phoff or (s[1] == 0 and phoff == 64))]
    if not holder:
        return f"the program header table (at {phoff:#x}) starts no PT_LOAD"
    mapped = holder[0][2] + (phoff - holder[0][1])
    for kind, offset, vaddr, filesz, _ in segments:
        if kind == PT_PHDR and (offset, vaddr, filesz) != (phoff, mapped,
                                                          56 * phnum):
            return "PT_PHDR is not the program header table"
    if any(kind == PT_INTERP for kind, *_ in segments):
        first = loads[0]
        wanted = first[2] - first[1] + phoff
        if mapped != wanted:
            return (f"the table is mapped at {mapped:#x}, kernels before "
                    f"5.18 look at {wanted:#x}")
    for before, after in zip(loads, loads[1:]):
        if after[2] < before[2] + before[4]:
            return "PT_LOADs out of address order"
    with open(path, "rb") as handle:
        file_type = struct.unpack_from("<H", handle.read(18), 16)[0]
    if file_type == ET_DYN:
        # patchelf 0.14 grows a library's or PIE's table by one entry and
        # moves the sections from the first (in header order) while they
        # start where the grown table ends or before: only those nothing but
        # the dynamic table and the program headers address may be there.
        grown_end = phoff + 56 * (phnum + 1)
        for name, kind, _, _, offset, _ in sections:
            if offset > grown_end:
                break
            if kind not in MOVABLE_TYPES and name != ".interp":
                return (f"{name} starts within one entry of the program "
                        "header table, where patchelf would move it")
    last = 0
    for name, kind, flags, address, offset, size in sections:
        if not flags & SHF_ALLOC or size == 0 or kind == SHT_NOBITS:
            continue
        if not any(o <= offset and offset + size <= o + f and
                   v + (offset - o) == address
                   for _, o, v, f, _ in loads):
            return f"{name} lies in no PT_LOAD at its address"
        if offset < last:
            return f"{name} is out of file order in the section header table"
        last = offset
    return None


def section_headers(path):
    """(name, type, flags, address, offset, size) of every section."""
    with open(path, "rb") as handle:
        header = handle.read(64)
        shoff = struct.unpack_from("<Q", header, 40)[0]
        shnum, shstrndx = struct.unpack_from("<HH", header, 60)
        handle.seek(shoff)
        table = handle.read(64 * shnum)
        entries = [struct.unpack_from("<IIQQQQ", table, 64 * i)
                   for i in range(shnum)]
        handle.seek(entries[shstrndx][4])
        strings = handle.read(entries[shstrndx][5])
    return [(strings[n:strings.find(b"\0", n)].decode(errors="replace"),
             kind, flags, address, offset, size)
            for n, kind, flags, address, offset, size in entries[1:]]


def normalized(text, *paths):
    """Lines of tool output with the file's names made one word, so that
    the control's lines and ours compare."""
    lines = set()
    for line in text.decode(errors="replace").splitlines():
        for path in sorted(paths, key=len, reverse=True):
            line = line.replace(path, "FILE")
            line = line.replace(os.path.basename(path), "FILE")
        # BFD names its temporary copies at random.
        line = re.sub(r"\bst[A-Za-z0-9]{6}\b", "TEMP", line)
        line = re.sub(r"section \[\s*\d+\]", "section [N]", line)
        lines.add(line)
    return lines


class Suite(Tally):
    def __init__(self, offbundle, llvm_bin, work, jobs):
        super().__init__()
        self.offbundle = offbundle
        self.llvm_bin = llvm_bin
        self.work = work
        self.jobs = jobs
        self.runtime = stand_in_runtime.build(work)
        self.extra = os.path.join(work, "extra-section.bin")
        with open(self.extra, "wb") as handle:
            handle.write(b"offbundle test section\n")

    def registrations(self, path, folder, label):
        """(exit status, stderr, registrations) of running or dlopen-ing
        `path` under the stand-in runtime."""
        command = ([os.path.join(self.runtime, "load"), path]
                   if ".so" in os.path.basename(path) else [path])
        return stand_in_runtime.registrations(
            command, os.path.join(folder, f"{label}.registry"),
            self.runtime, folder)

    def verify(self, path):
        return subprocess.run([self.offbundle, "verify", path],
                              capture_output=True, timeout=TOOL_TIMEOUT)

    def apply_tool(self, tool, source, folder, is_program):
        """Runs the tool on `source`, its output in `folder` under the same
        name: (output's path, exit status of the first failing step or 0,
        stderr lines), or None when the tool does not apply."""
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, os.path.basename(source))
        _, _, names = elf_layout(source)
        flags_section = ".comment" if ".comment" in names else \
            ".gnu_debuglink"
        steps = tool_steps(tool, source, path, is_program, self.extra,
                           flags_section, self.llvm_bin)
        if steps is None:
            return None
        errors = b""
        for step in steps:
            done = subprocess.run(step, capture_output=True, cwd=folder,
                                  timeout=TOOL_TIMEOUT)
            errors += done.stderr
            if done.returncode != 0:
                return path, done.returncode, normalized(errors, path,
                                                         source)
        # The output runs as the input did.
        if os.path.exists(path):
            shutil.copymode(source, path)
        return path, 0, normalized(errors, path, source)

    def control(self, original, tool, is_program):
        """The tool on the original: (exit status, stderr lines, whether
        the result still runs, whether it keeps the layout rules), or None
        when the tool does not apply."""
        folder = os.path.join(self.work, "controls",
                              os.path.basename(original),
                              re.sub(r"[^A-Za-z0-9]+", "-", tool))
        applied = self.apply_tool(tool, original, folder, is_program)
        if applied is None:
            return None
        path, status, errors = applied
        ran, _, seen = self.registrations(path, folder, "control")
        laid_out = layout_problem(path) is None
        shutil.rmtree(folder, ignore_errors=True)
        return status, errors, ran == 0 and bool(seen), laid_out

    def check_case(self, label, original, rewritten, wanted, is_program,
                   controls):
        """Every tool on `rewritten`, against its control on `original`
        (`controls`, by tool). Returns the list of (ok, label, detail)
        checks, for printing in order."""
        checks = []

        def check(what, ok, detail=""):
            checks.append((ok, f"{label}: {what}", detail))

        verified = self.verify(rewritten)
        check("offbundle verify passes (its layout rules included)",
              verified.returncode == 0,
              verified.stderr.decode(errors="replace").strip())
        problem = layout_problem(rewritten)
        check("keeps the layout rules", problem is None, problem or "")
        listed = subprocess.run(["readelf", "-a", "-W", rewritten],
                                capture_output=True, timeout=TOOL_TIMEOUT)
        check("readelf -a reads it without a warning",
              listed.returncode == 0 and not listed.stderr,
              listed.stderr[:300].decode(errors="replace"))
        lint = {}
        for which, path in (("original", original), ("rewritten", rewritten)):
            done = subprocess.run(["eu-elflint", "--gnu-ld", path],
                                  capture_output=True, timeout=TOOL_TIMEOUT)
            lint[which] = normalized(done.stdout + done.stderr, path)
        new_lint = lint["rewritten"] - lint["original"] - {"No errors"}
        check("eu-elflint --gnu-ld reports nothing it does not report for "
              "the original", not new_lint, "; ".join(sorted(new_lint))[:400])
        status, errors, seen = self.registrations(
            rewritten, os.path.dirname(rewritten),
            os.path.basename(rewritten))
        check("runs and registers the kept entries",
              status == 0 and seen == wanted,
              f"exit {status}, {errors[-200:]!r}, {len(seen)} registrations")

        base = os.path.join(self.work, "tools",
                            re.sub(r"[^A-Za-z0-9]+", "-", label))
        for tool in TOOLS:
            control = controls.get(tool)
            if control is None:
                continue
            control_status, control_errors, control_runs, control_laid_out = \
                control
            folder = os.path.join(base, re.sub(r"[^A-Za-z0-9]+", "-", tool))
            path, ours_status, ours_errors = self.apply_tool(
                tool, rewritten, folder, is_program)
            check(f"{tool}: the control (the original) works",
                  control_status == 0 and control_runs,
                  f"exit {control_status}: {sorted(control_errors)[:3]}")
            check(f"{tool}: exits 0", ours_status == 0,
                  f"exit {ours_status}: {sorted(ours_errors)[:3]}")
            extra = ours_errors - control_errors
            check(f"{tool}: says nothing it does not say of the original",
                  not extra, "; ".join(sorted(extra))[:400])
            status, errors, seen = self.registrations(path, folder,
                                                      "rewritten")
            check(f"{tool}: runs and registers the kept entries",
                  status == 0 and seen == wanted,
                  f"exit {status}, {errors[-300:]!r}, {len(seen)} "
                  "registrations")
            if control_laid_out:
                problem = layout_problem(path)
                check(f"{tool}: keeps the layout rules", problem is None,
                      problem or "")
            shutil.rmtree(folder, ignore_errors=True)
        return checks

    def rewrite(self, command, source, output, extra):
        done = subprocess.run([self.offbundle, command, source, "-o", output]
                              + extra, capture_output=True,
                              timeout=TOOL_TIMEOUT)
        return done

    def cases(self, name, path, target, is_program, compressed):
        """The (label, original, rewritten, wanted registrations, is
        program) cases of one input: prune, compress, decompress."""
        status, errors, original = self.registrations(
            path, os.path.dirname(path), f"{name}-original")
        self.check(f"{name}: the original runs and registers its entries",
                   status == 0 and original and
                   all("error:" not in r for r in original),
                   f"exit {status}, {errors[-300:]!r}")
        folder = os.path.dirname(path)
        pruned_wanted = [{i: v for i, v in r.items()
                          if i.startswith("host") or i.endswith(target)}
                         for r in original]
        made = []
        plan = [("prune", path, ["-k", target], pruned_wanted)]
        if not compressed:
            plan.append(("compress", path, [], original))
        for command, source, extra, wanted in plan:
            out = os.path.join(folder, f"{name}.{command}")
            if ".so" in name:
                out = os.path.join(folder, f"{command}-{name}")
            done = self.rewrite(command, source, out, extra)
            self.check(f"{name}: offbundle {command}", done.returncode == 0,
                       done.stderr.decode(errors="replace"))
            if done.returncode == 0:
                made.append((f"{name} {command}", out, wanted))
        source = path if compressed else made[-1][1] if made else None
        if source:
            out = os.path.join(folder, (f"decompress-{name}" if ".so" in name
                                        else f"{name}.decompress"))
            done = self.rewrite("decompress", source, out, [])
            self.check(f"{name}: offbundle decompress", done.returncode == 0,
                       done.stderr.decode(errors="replace"))
            if done.returncode == 0:
                made.append((f"{name} decompress", out, original))
        return [(label, path, out, wanted, is_program)
                for label, out, wanted in made]

    def run_cases(self, cases):
        """Runs the controls of every original, then the cases, `jobs` at
        a time; prints the checks of each case in order."""
        originals = {(case[1], case[4]) for case in cases}
        work = [(original, tool, is_program) for original, is_program in
                sorted(originals) for tool in TOOLS]
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            done = list(pool.map(lambda item: self.control(*item), work))
            controls = {}
            for (original, tool, _), result in zip(work, done):
                if result is not None:
                    controls.setdefault(original, {})[tool] = result
            results = list(pool.map(
                lambda case: self.check_case(*case,
                                             controls.get(case[1], {})),
                cases))
        for checks, case in zip(results, cases):
            print(f"-- {case[0]}: {sum(ok for ok, *_ in checks)} of "
                  f"{len(checks)} checks passed", flush=True)
            for ok, label, detail in checks:
                self.check(label, ok, detail)


def build_programs(llvm_bin, folder, runtime):
    """The clang 22 programs and library: (name, path, is program,
    compressed)."""
    clang = os.path.join(llvm_bin, "clang++")

    def run(command):
        done = subprocess.run(command, cwd=folder, capture_output=True,
                              timeout=TOOL_TIMEOUT)
        if done.returncode != 0:
            skip_suite(f"clang 22 could not build the inputs: {command}: "
                       f"{done.stderr.decode(errors='replace')[-400:]}")

    for name, text in SOURCES.items():
        with open(os.path.join(folder, name), "w") as handle:
            handle.write(text)
    objects = {}
    for label, extra in (("plain", []), ("compressed", ["--offload-compress"])):
        objects[label] = []
        for source in SOURCES:
            obj = f"{source[:-4]}-{label}.o"
            run([clang, "-x", "hip", "-c", "-fPIC", source, "-o", obj,
                 f"-cuid={obj}"] + COMMON + ARCHES + extra)
            objects[label].append(obj)
    hip = ["-L" + runtime, "-lamdhip64", "-Wl,-rpath," + runtime]
    plain = objects["plain"]
    run([clang] + plain + ["-o", "hip-pie", "-fuse-ld=lld"] + hip)
    run([clang] + plain + ["-o", "hip-nopie", "-no-pie", "-fuse-ld=lld"] +
        hip)
    run([clang] + plain + ["-o", "hip-bfd", "-fuse-ld=bfd"] + hip)
    run([clang] + objects["compressed"] + ["-o", "hip-pie-compressed",
                                           "-fuse-ld=lld"] + hip)
    run([clang, "-shared"] + plain[1:] + ["-o", "libhip.so", "-fuse-ld=lld"] +
        hip)
    new_driver = []
    for source in ("main.hip", "shift.hip"):
        obj = f"{source[:-4]}-new-driver.o"
        run([clang, "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-c",
             "-fPIC", source, "-o", obj] + COMMON + ARCHES)
        new_driver.append(obj)
    run([clang] + new_driver + ["-o", "hip-new-driver", "--offload-new-driver",
                                "-fgpu-rdc", "--hip-link", "-nogpulib",
                                "-fuse-ld=lld"] + ARCHES + hip)
    return [("hip-pie", True, False), ("hip-nopie", True, False),
            ("hip-bfd", True, False), ("hip-pie-compressed", True, True),
            ("libhip.so", False, False), ("hip-new-driver", True, False)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--reference-bin", required=True)
    parser.add_argument("--inputs", choices=("programs", "rocsparse"),
                        required=True)
    parser.add_argument("--cache", help="folder keeping the downloaded "
                        "package (rocsparse)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    llvm_bin = os.path.abspath(args.reference_bin)
    require_executables(os.path.abspath(args.offbundle),
                        *(os.path.join(llvm_bin, name) for name in
                          ("clang++", "llvm-strip", "llvm-objcopy")),
                        *(shutil.which(name) or name for name in
                          ("gcc", "strip", "objcopy", "readelf", "eu-strip",
                           "eu-elflint", "patchelf")))
    offbundle = os.path.abspath(args.offbundle)
    if args.inputs == "rocsparse":
        if not args.cache:
            parser.error("--cache is needed for rocsparse")
        if shutil.which("dpkg-deb") is None:
            skip_suite("no dpkg-deb to unpack the package with")
        deb = rocm_library.fetch_package(os.path.abspath(args.cache))
        work = rocm_library.work_folder_beside(deb, "tools-")
    else:
        work = tempfile.mkdtemp(prefix="offbundle-distribution-tools-")
    try:
        suite = Suite(offbundle, llvm_bin, work, args.jobs)
        cases = []
        if args.inputs == "rocsparse":
            unpacked = os.path.join(work, "root")
            subprocess.run(["dpkg-deb", "-x", deb, unpacked], check=True)
            libraries = [p for p in glob.glob(os.path.join(
                unpacked, rocm_library.LIBRARY_GLOB)) if not os.path.islink(p)]
            if len(libraries) != 1:
                print(f"error: expected one library in the package, found "
                      f"{libraries}")
                return 1
            library = os.path.join(work, "librocsparse.so.0.1")
            os.replace(libraries[0], library)
            shutil.rmtree(unpacked)
            cases += suite.cases("librocsparse.so.0.1", library,
                                 "gfx90a:xnack-", False, False)
        else:
            for name, is_program, compressed in build_programs(
                    llvm_bin, work, suite.runtime):
                folder = os.path.join(work, name + ".d")
                os.makedirs(folder)
                path = os.path.join(folder, name)
                os.replace(os.path.join(work, name), path)
                cases += suite.cases(name, path, "gfx906", is_program,
                                     compressed)
        suite.run_cases(cases)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
