#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Fat objects (-type=o) against LLVM 22's bundler, which runs llvm-objcopy.

Compiles small C, C++ and HIP sources with clang 22 and gcc into relocatable
objects for several machines, then checks, byte for byte, that:
  - bundling a host object with device images makes the same fat object,
  - -list prints the same entry IDs,
  - unbundling (host object without bundle sections, device images) gives
    the same files, from LLVM's fat objects and from ours,
  - LLVM 22's bundler unbundles our fat objects as it does its own, and
    llvm-readelf reads them without a warning,
  - --### prints the same llvm-objcopy command lines (temporary file names
    and the llvm-objcopy path, which differ per run and per machine, aside),
    and -compress, with -verbose or --###, the same report and output,
  - truncated or damaged fat objects end cleanly (exit 1, one error line,
    outputs untouched) or succeed, and never crash; where ours succeeds,
    LLVM 22 must succeed too with the same output and files, byte for byte.
    Each run is a check of its own.
Every object is built here with clang 22, gcc and g++; when one of them is
missing or cannot build an object, the suite is skipped (exit 77, a failure
when CI is "true").
Our tool runs with a PATH that holds no llvm-objcopy, so nothing can be
delegated to it; LLVM's bundler finds the llvm-objcopy installed beside it.

Usage: fat_objects.py --ours PATH --reference PATH
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (Tally, finish, require_executables,  # noqa: E402
                           skip_suite)

SOURCES = {
    "plain.c": "int counter;\nint add(int a, int b) { return a + b + counter; }\n",
    "data.c": ("static const char message[] = \"hello\";\n"
               "const char *get(void) { return message; }\n"
               "int table[64] = {1, 2, 3};\nstatic int local_bss[100];\n"
               "int *bss(void) { return local_bss; }\n"),
    "many.c": "".join(f"int function{i}(int x) {{ return x * {i}; }}\n"
                      for i in range(40)),
    "comdat.cpp": ("template <typename T> T twice(T x) { return x + x; }\n"
                   "inline int shared() { static int n; return ++n; }\n"
                   "int use(int a) { return twice(a) + twice(1.0) + shared(); }\n"),
    # Without HIP headers (-nogpuinc) the host side of a kernel needs the
    # launch function declared.
    "kernel.hip": ("struct dim3 { unsigned x, y, z; };\n"
                   "typedef struct ihipStream_t *hipStream_t;\n"
                   "extern \"C\" int hipLaunchKernel(const void *, dim3, dim3,"
                   " void **, unsigned long, hipStream_t);\n"
                   "__attribute__((global)) void scale(float *p, float f) {\n"
                   "  p[0] *= f;\n}\n"),
}

# (name, compiler, flags, source)
OBJECTS = [
    ("clang-O0", "clang", ["-O0"], "plain.c"),
    ("clang-O2-g", "clang", ["-O2", "-g"], "data.c"),
    ("clang-sections", "clang", ["-O1", "-ffunction-sections",
                                 "-fdata-sections"], "many.c"),
    ("clang-aarch64", "clang", ["--target=aarch64-linux-gnu", "-ffreestanding",
                                "-O2"], "data.c"),
    ("clang-i386", "clang", ["--target=i386-linux-gnu", "-ffreestanding",
                             "-O1", "-g"], "many.c"),
    ("clangxx-comdat", "clang++", ["-O1", "-g"], "comdat.cpp"),
    ("gcc-O2-g", "gcc", ["-O2", "-g"], "data.c"),
    ("gcc-sections", "gcc", ["-Os", "-ffunction-sections"], "many.c"),
    ("gxx-comdat", "g++", ["-O0", "-g"], "comdat.cpp"),
    ("gcc-m32", "gcc", ["-m32", "-O1"], "plain.c"),
    ("hip-host", "clang++", ["-x", "hip", "--offload-arch=gfx906",
                             "-nogpulib", "-nogpuinc", "--cuda-host-only",
                             "-O1"], "kernel.hip"),
]

TARGETS = ["host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx906",
           "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"]

VOLATILE = re.compile(rb'"[^"]*llvm-objcopy"|/[^"]*/clang-offload-bundler-[0-9a-f]{6}\.tmp'
                      rb'|speed: [0-9.]+ MB/s')


class Suite(Tally):
    def __init__(self, ours, reference, folder, truncation_step=7):
        super().__init__()
        # Every truncation_step-th length of the fat object is tried.
        self.truncation_step = truncation_step
        self.ours = ours
        self.reference = reference
        self.folder = folder
        self.bin = os.path.dirname(reference)
        # No llvm-objcopy on this PATH: ours must not need one.
        self.plain_path = os.path.join(folder, "empty-bin")
        os.makedirs(self.plain_path)

    def run(self, tool, args, timeout=120):
        """Exit status (None after a hang), stdout and stderr."""
        env = {"PATH": self.plain_path + ":/usr/bin:/bin", "LC_ALL": "C"}
        if tool == self.ours:
            # /usr/bin may hold an llvm-objcopy too; keep it out of reach.
            env["PATH"] = self.plain_path
        try:
            done = subprocess.run([tool] + args, cwd=self.folder, env=env,
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, b"", b"no exit within the time limit"
        return done.returncode, done.stdout, done.stderr

    def read(self, name):
        with open(os.path.join(self.folder, name), "rb") as handle:
            return handle.read()


    def compile_objects(self):
        for name, text in SOURCES.items():
            with open(os.path.join(self.folder, name), "w") as handle:
                handle.write(text)
        compilers = {"clang": os.path.join(self.bin, "clang"),
                     "clang++": os.path.join(self.bin, "clang++"),
                     "gcc": "gcc", "g++": "g++"}
        built = []
        for name, compiler, flags, source in OBJECTS:
            command = [compilers[compiler]] + flags + ["-c", source, "-o",
                                                       f"{name}.o"]
            done = subprocess.run(command, cwd=self.folder, capture_output=True)
            if done.returncode != 0:
                # A compiler or multilib missing on this machine.
                skip_suite(f"could not build {name}: "
                           f"{done.stderr.decode(errors='replace')[:300]}")
            built.append(name)
        # Device images: a HIP kernel compiled for the two GPUs.
        for arch, out in (("gfx906", "dev0"), ("gfx90a:xnack+", "dev1")):
            done = subprocess.run([compilers["clang++"], "-x", "hip",
                                   f"--offload-arch={arch}", "-nogpulib",
                                   "-nogpuinc", "--cuda-device-only", "-c",
                                   "kernel.hip", "-o", out],
                                  cwd=self.folder, capture_output=True)
            if done.returncode != 0:
                skip_suite(f"could not build the {arch} image: "
                           f"{done.stderr.decode(errors='replace')[:300]}")
        return built

    def same_run(self, label, args, compare_files=()):
        ref = self.run(self.reference, args)
        ref_files = {f: self.read(f) for f in compare_files
                     if os.path.exists(os.path.join(self.folder, f))}
        got = self.run(self.ours, args)
        got_files = {f: self.read(f) for f in compare_files
                     if os.path.exists(os.path.join(self.folder, f))}
        same_output = (ref[0] == got[0] and ref[1] == got[1] and
                       VOLATILE.sub(b"X", ref[2]) == VOLATILE.sub(b"X", got[2]))
        self.check(label, same_output and ref_files == got_files,
                   f"\n  reference {ref!r} {sorted(ref_files)}\n"
                   f"  ours      {got!r} {sorted(got_files)}")
        return ref_files

    def corrupt_fat_objects(self):
        """Truncated and damaged fat objects: exit 0 with what LLVM 22 gives,
        or exit 1 with one error line and the outputs untouched; never a
        crash. Each run is its own check."""
        fat = self.read("clang-O0.ref.fat")
        path = os.path.join(self.folder, "bad.o")
        cases = [("truncated", fat[:length])
                 for length in range(0, len(fat), self.truncation_step)]
        rng = random.Random(4)
        for _ in range(150):
            damaged = bytearray(fat)
            for _ in range(rng.randint(1, 4)):
                damaged[rng.randrange(64 if rng.random() < 0.5 else len(fat))] = \
                    rng.randrange(256)
            cases.append(("damaged", bytes(damaged)))
        outputs = ("k0", "k1", "k2")

        def run_on_bad_object(tool, args):
            for output in outputs:
                with open(os.path.join(self.folder, output), "wb") as handle:
                    handle.write(b"previous")
            # LLVM 22 may hang on a damaged object; 20 s are plenty otherwise.
            code, out, err = self.run(tool, ["-type=o", "-input=bad.o"] + args,
                                      timeout=20 if tool == self.reference
                                      else 120)
            return code, out, err, [self.read(o) for o in outputs]

        for number, (kind, data) in enumerate(cases):
            with open(path, "wb") as handle:
                handle.write(data)
            for args in (["-list"], ["-unbundle", "-targets=" + ",".join(TARGETS),
                                     "-output=k0", "-output=k1", "-output=k2"]):
                label = f"{kind} fat object #{number} ({len(data)} bytes) {args[0]}"
                code, out, err, files = run_on_bad_object(self.ours, args)
                untouched = all(f == b"previous" for f in files)
                self.check(f"{label}: exit 0 or a clean failure",
                           clean_failure_or_success(code, err) and
                           (code == 0 or untouched),
                           f"exit {code} {err!r} untouched={untouched}")
                if code != 0:
                    continue
                # A success must be LLVM's, byte for byte: the listing and
                # every output (unchanged ones included).
                ref = run_on_bad_object(self.reference, args)
                self.check(f"{label}: LLVM 22's output and files",
                           ref[0] == 0 and ref[1] == out and ref[3] == files,
                           f"\n  reference exit {ref[0]} {ref[1][:200]!r} "
                           f"{ref[2][:200]!r} {[len(f) for f in ref[3]]}\n"
                           f"  ours      {out[:200]!r} {[len(f) for f in files]}")

    def run_all(self):
        for name in self.compile_objects():
            inputs = [f"-input={name}.o", "-input=dev0", "-input=dev1"]
            bundle = ["-type=o", "-targets=" + ",".join(TARGETS)] + inputs
            # Bundle with both; keep LLVM's fat object for the next steps.
            self.run(self.reference, bundle + [f"-output={name}.ref.fat"])
            self.run(self.ours, bundle + [f"-output={name}.our.fat"])
            ref_fat = self.read(f"{name}.ref.fat")
            self.check(f"{name}: bundle", ref_fat == self.read(f"{name}.our.fat"))
            readelf = subprocess.run(
                [os.path.join(self.bin, "llvm-readelf"), "-S", "-s", "-r",
                 f"{name}.our.fat"], cwd=self.folder, capture_output=True)
            self.check(f"{name}: llvm-readelf reads our fat object",
                       readelf.returncode == 0 and b"warning" not in readelf.stderr,
                       readelf.stderr[:300])
            for fat in (f"{name}.ref.fat", f"{name}.our.fat"):
                self.same_run(f"{name}: list {fat}",
                              ["-type=o", "-list", f"-input={fat}"])
                outputs = ["host.out", "dev0.out", "dev1.out"]
                files = self.same_run(
                    f"{name}: unbundle {fat}",
                    ["-type=o", "-unbundle", f"-input={fat}",
                     "-targets=" + ",".join(TARGETS)] +
                    [f"-output={o}" for o in outputs], outputs)
                self.check(f"{name}: devices round-trip from {fat}",
                           files.get("dev0.out") == self.read("dev0") and
                           files.get("dev1.out") == self.read("dev1"))
            # The unbundled host object is a fine host for a new bundle, and
            # unbundling a plain object passes it through.
            self.same_run(f"{name}: unbundle plain object",
                          ["-type=o", "-unbundle", f"-input={name}.o",
                           "-targets=" + ",".join(TARGETS[:2]),
                           "-output=p0", "-output=p1", "-allow-missing-bundles"],
                          ["p0", "p1"])
            self.same_run(f"{name}: --### bundle",
                          bundle + ["-output=dry.o", "--###"], ["dry.o"])
            # LLVM compresses the nothing it bundled in memory, reports it
            # with -verbose, and leaves it in the output under --###.
            for extra in (["-verbose"], ["-verbose", "--###"], ["--###"]):
                self.same_run(f"{name}: -compress {' '.join(extra)} bundle",
                              bundle + ["-output=packed.o", "-compress"] +
                              extra, ["packed.o"])
            self.same_run(f"{name}: --### unbundle",
                          ["-type=o", "-unbundle", f"-input={name}.ref.fat",
                           "-targets=" + ",".join(TARGETS[:2]),
                           "-output=q0", "-output=q1", "--###"], ["q0", "q1"])
        self.corrupt_fat_objects()
        # HIP device code only, -type=o: LLVM 22 crashes when bundling it;
        # ours writes a binary bundle that LLVM 22 reads.
        code, _, err = self.run(self.ours, [
            "-type=o", "-targets=" + ",".join(TARGETS[1:]),
            "-input=dev0", "-input=dev1", "-output=devices.o"])
        self.check("device-only -type=o bundles", code == 0, err)
        code, out, _ = self.run(self.reference, ["-type=o", "-list",
                                                 "-input=devices.o"])
        self.check("LLVM lists the device-only bundle",
                   code == 0 and sorted(out.split()) ==
                   sorted(t.encode() for t in TARGETS[1:]))
        code, _, _ = self.run(self.reference, [
            "-type=o", "-unbundle", "-input=devices.o", f"-targets={TARGETS[2]}",
            "-output=back"])
        self.check("LLVM unbundles the device-only bundle",
                   code == 0 and self.read("back") == self.read("dev1"))


def clean_failure_or_success(code, err):
    lines = err.decode(errors="replace").splitlines()
    return code == 0 or (code == 1 and len(lines) == 1 and
                         ": error: " in lines[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--sanitized", action="store_true",
                        help="the tool is built with ASan and UBSan, several "
                             "times slower: try every 29th truncation length "
                             "instead of every 7th")
    args = parser.parse_args()
    bin_folder = os.path.dirname(args.reference)
    # LLVM's bundler runs the llvm-objcopy beside it.
    require_executables(args.reference, *(
        os.path.join(bin_folder, name) for name in
        ("clang", "clang++", "llvm-readelf", "llvm-objcopy")),
        *(shutil.which(name) or name for name in ("gcc", "g++")))
    with tempfile.TemporaryDirectory(prefix="offbundle-fat-") as folder:
        suite = Suite(os.path.abspath(args.ours), args.reference, folder,
                      truncation_step=29 if args.sanitized else 7)
        suite.run_all()
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
