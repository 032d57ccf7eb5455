#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""llvm-offload-binary against LLVM 22's, and what LLVM 22 cannot do.

Part one runs LLVM 22's llvm-offload-binary and ours with the same argv
(argv[0] included) in twin scratch folders holding the same inputs, and
compares exit codes, stdout, stderr and every file the run leaves behind,
byte for byte:
  - packaging: every image kind and offload kind, repeated and empty keys,
    several file= in one image, standard input and output, and generated
    key sets (up to 70 keys, past the point where LLVM's hash map grows)
    whose string tables share tails;
  - extracting with filters, to files, to generated names, to archives (with
    ELF and bitcode members, whose symbol tables LLVM computes), from raw
    binaries, fat objects made by clang 22's new offload driver (OpenMP and
    HIP -fgpu-rdc, ELF and COFF), objects, executables and shared libraries
    given an SHT_LLVM_OFFLOADING section with llvm-objcopy 22, objects merged
    by ld.lld -r, archives (regular and thin), host bitcode (-emit-llvm) and
    bitcode written with llvm-as;
  - the command line: help, errors, "Did you mean", response files, and the
    clang-offload-packager name with its deprecation warning;
  - binaries LLVM refuses, where both must print LLVM's message.
After a failure LLVM may leave files behind that ours does not; there only
the messages are compared.

Every input is built with LLVM 22's tools; when one of them is missing or
cannot build an input, the suite is skipped (exit 77, a failure when CI is
"true"): it never passes having tested less than it says.

Part two checks what LLVM 22 does not do, against expected contents:
extracting every image with no --image (nested binaries followed), writing
every image into one archive with --archive -o (compared with the archive
llvm-ar 22 makes of the extracted files), and --list.

Usage: offload_binary.py --ours PATH --reference PATH
"""

import argparse
import os
import re
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (Tally, finish,  # noqa: E402
                           report_skipped_cases, require_executables,
                           skip_suite)

TOOL = "llvm-offload-binary"
OLD_NAME = "clang-offload-packager"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def snapshot(folder):
    """Every file under folder: relative path -> bytes."""
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            files[os.path.relpath(path, folder)] = read(path)
    return files


# Options LLVM 22 does not have: --list (ours), --compress,
# --compression-format and --compression-level (newer LLVM's).
EXTENSION_OPTIONS = (b"--list", b"--compress")


def help_without_extensions(text):
    """Help text without the lines of our extra options, and with the padding
    between an option and its description reduced to one space: the longer
    extra options widen that column."""
    kept = []
    for line in text.splitlines(keepends=True):
        if any(option in line for option in EXTENSION_OPTIONS):
            continue
        kept.append(re.sub(rb"^(  \S.*?) +- ", rb"\1 - ", line))
    return b"".join(kept)


class Suite(Tally):
    def __init__(self, ours, reference, folder):
        super().__init__()
        self.ours = ours
        self.reference = reference
        self.bin = os.path.dirname(reference)
        self.folder = folder
        self.corpus = os.path.join(folder, "corpus")
        os.makedirs(self.corpus)
        self.cases = 0
        # Comparisons left out for a documented reason, printed and counted.
        self.skipped = []


    def llvm(self, name):
        return os.path.join(self.bin, name)

    def sh(self, *command, cwd=None):
        done = subprocess.run(list(command), cwd=cwd or self.corpus,
                              capture_output=True)
        return done.returncode == 0, done.stderr.decode(errors="replace")

    def build(self, what, *command, cwd=None):
        """Runs a command that makes an input; the suite cannot run without
        it, so a failure skips the suite."""
        ok, err = self.sh(*command, cwd=cwd)
        if not ok:
            skip_suite(f"LLVM 22 could not build {what}: {err[:300]}")

    # -- running both tools -------------------------------------------------

    def run(self, executable, argv, cwd, stdin=b""):
        done = subprocess.run(argv, executable=executable, cwd=cwd,
                              input=stdin, capture_output=True, timeout=60,
                              env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
        return done.returncode, done.stdout, done.stderr

    def compare(self, label, args, files=None, argv0=TOOL, stdin=b"",
                help_text=False):
        """Runs both tools in twin folders holding `files` (name -> bytes)
        and compares everything they print and leave behind."""
        self.cases += 1
        case = os.path.join(self.folder, f"case{self.cases}")
        results = []
        for side, executable in (("ref", self.reference), ("ours", self.ours)):
            folder = os.path.join(case, side)
            os.makedirs(folder)
            for name, data in (files or {}).items():
                write(os.path.join(folder, name), data)
            code, out, err = self.run(executable, [argv0] + args, folder, stdin)
            results.append((code, out, err, snapshot(folder)))
        ref, ours = results
        if help_text:
            ref = (ref[0], help_without_extensions(ref[1])) + ref[2:]
            ours = (ours[0], help_without_extensions(ours[1])) + ours[2:]
        same = ref[:3] == ours[:3] and (ref[0] != 0 or ref[3] == ours[3])
        detail = ""
        if not same:
            detail = (f"\n  args {args}\n  reference {ref[:3]!r}\n"
                      f"  ours      {ours[:3]!r}")
            if ref[3] != ours[3]:
                differing = sorted(name for name in set(ref[3]) | set(ours[3])
                                   if ref[3].get(name) != ours[3].get(name))
                detail += f"\n  files differ: {differing}"
        self.check(label, same, detail)
        shutil.rmtree(case)
        return ref

    # -- inputs --------------------------------------------------------------

    def make_corpus(self):
        """Device images and fat inputs, all built with LLVM 22's tools."""
        inputs = {}
        c_source = ("int x = 1;\n#pragma omp declare target\n"
                    "int dev(int a) { return a + x; }\n"
                    "#pragma omp end declare target\n"
                    "int run(void) { int r = 0;\n#pragma omp target map(from:r)\n"
                    " r = dev(41);\n return r; }\n")
        hip_source = ("struct dim3 { unsigned x, y, z; };\n"
                      "typedef struct ihipStream_t *hipStream_t;\n"
                      "extern \"C\" int hipLaunchKernel(const void *, dim3, dim3,"
                      " void **, unsigned long, hipStream_t);\n"
                      "__attribute__((global)) void scale(float *p, float f)"
                      " { p[0] *= f; }\n")
        write(os.path.join(self.corpus, "k.c"), c_source)
        write(os.path.join(self.corpus, "k.hip"), hip_source)
        write(os.path.join(self.corpus, "host.c"), "int host(void) { return 1; }\n")
        write(os.path.join(self.corpus, "main.c"), "int main(void) { return 0; }\n")
        write(os.path.join(self.corpus, "dev.c"),
              "int device_add(int a, int b) { return a + b; }\nint shared;\n")
        clang = self.llvm("clang")
        builds = {
            "omp.o": [clang, "-fopenmp", "--offload-arch=gfx906,gfx90a",
                      "-nogpulib", "-c", "k.c", "-o", "omp.o"],
            "omp.bc": [clang, "-fopenmp", "--offload-arch=gfx906", "-nogpulib",
                       "-c", "-emit-llvm", "k.c", "-o", "omp.bc"],
            "hip.o": [clang + "++", "-x", "hip", "--offload-new-driver",
                      "-fgpu-rdc", "--offload-arch=gfx906",
                      "--offload-arch=gfx1030", "-nogpulib", "-nogpuinc", "-c",
                      "k.hip", "-o", "hip.o"],
            "win.obj": [clang, "--target=x86_64-pc-windows-msvc", "-fopenmp",
                        "--offload-arch=gfx906", "-nogpulib", "-nostdinc",
                        "-c", "k.c", "-o", "win.obj"],
            "host.o": [clang, "-c", "host.c", "-o", "host.o"],
            "main": [clang, "main.c", "-o", "main"],
            "libhost.so": [clang, "-shared", "-fPIC", "host.c", "-o",
                           "libhost.so"],
            "dev.elf": [clang, "--target=amdgcn-amd-amdhsa", "-mcpu=gfx906",
                        "-nogpulib", "-O1", "-c", "dev.c", "-o", "dev.elf"],
            "dev.bc": [clang, "--target=amdgcn-amd-amdhsa", "-mcpu=gfx906",
                       "-nogpulib", "-O1", "-c", "-emit-llvm", "dev.c", "-o",
                       "dev.bc"],
        }
        for name, command in builds.items():
            self.build(name, *command)
            inputs[name] = read(os.path.join(self.corpus, name))
        return inputs

    def package(self, args):
        """A binary made by LLVM's tool in the corpus folder."""
        self.build(args[1], self.reference, *args)

    def objcopy_offloading(self, source, binary, target):
        self.build(target, self.llvm("llvm-objcopy"), "--add-section",
                   f".llvm.offloading={binary}", "--set-section-type",
                   ".llvm.offloading=0x6fff4c0b", source, target)
        return read(os.path.join(self.corpus, target))

    def clang_builds(self):
        """clang 22 finds llvm-offload-binary through -B, like the bundler:
        the objects it makes with ours must be LLVM's, byte for byte."""
        ours_bin = os.path.join(self.folder, "ours-bin")
        os.makedirs(ours_bin)
        os.symlink(self.ours, os.path.join(ours_bin, TOOL))
        builds = [("omp", [self.llvm("clang"), "-fopenmp",
                           "--offload-arch=gfx906,gfx90a:xnack+", "-nogpulib",
                           "-O1", "-c", "k.c"]),
                  ("omp-bc", [self.llvm("clang"), "-fopenmp",
                              "--offload-arch=gfx1030", "-nogpulib", "-c",
                              "-emit-llvm", "k.c"]),
                  ("hip-rdc", [self.llvm("clang") + "++", "-x", "hip",
                               # A fixed compilation unit ID: clang
                               # otherwise makes one from temporary names.
                               "--offload-new-driver", "-fgpu-rdc", "-cuid=k",
                               "--offload-arch=gfx906", "--offload-arch=gfx908",
                               "-nogpulib", "-nogpuinc", "-c", "k.hip"])]
        for name, command in builds:
            self.build(f"{name} (with LLVM's {TOOL})", *command, "-o",
                       f"{name}.ref")
            ok, err = self.sh(*command, "-B" + ours_bin, "-o", f"{name}.ours")
            self.check(f"clang -B build {name}", ok and
                       read(os.path.join(self.corpus, f"{name}.ref")) ==
                       read(os.path.join(self.corpus, f"{name}.ours")), err)

    # -- part one: packaging -------------------------------------------------

    def packaging_cases(self, images):
        files = dict(images)
        self.compare("package two images", [
            "-o", "out.bin",
            "--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70,kind=openmp",
            "--image=file=b.cubin,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip"],
            files)
        for extension in ["o", "bc", "cubin", "fatbin", "s", "spv", "ptx",
                          "metallib", "O", "elf", ""]:
            name = f"image.{extension}" if extension else "image"
            self.compare(f"package extension .{extension}", [
                "-o", "x.bin", f"--image=file={name},triple=t,arch=a"],
                {name: b"payload-bytes"})
        for name in [".o", ".hidden", "dot.", "dir.d/noext", "dir.d/x.o"]:
            self.compare(f"package odd name {name}", [
                "-o", "x.bin", f"--image=file={name}"], {name: b"x"})
        self.compare("package bitcode by its magic", [
            "-o", "x.bin", "--image=file=dev.cubin,triple=amdgcn-amd-amdhsa",
            "--image=file=wrapped.o,triple=t"],
            {"dev.cubin": b"BC\xc0\xde\x01\x02", "wrapped.o": b"\xde\xc0\x17\x0b"})
        for kind in ["openmp", "cuda", "hip", "sycl", "none", "OpenMP", "",
                     "openmp,kind=hip"]:
            self.compare(f"package kind={kind}", [
                "-o", "x.bin", f"--image=file=a.o,triple=t,kind={kind}"], files)
        self.compare("package repeated keys, empty keys and values", [
            "-o", "x.bin",
            "--image=file=a.o,triple=t,arch=sm_70,arch=sm_80,,=v,k=,novalue,"
            "x=y=z,feature=+ptx80"], files)
        self.compare("package several file= in one image", [
            "-o", "x.bin", "--image=file=a.o,file=b.cubin,triple=t,arch=a,k=v"],
            files)
        self.compare("package without images", ["-o", "empty.bin"])
        self.compare("package from standard input", [
            "-o", "x.bin", "--image=file=-,triple=t,arch=a"], stdin=b"stdin-image")
        self.compare("package to standard output", [
            "-o", "-", "--image=file=a.o,triple=t,arch=a"], files)
        self.compare("package large image", [
            "-o", "x.bin", "--image=file=big.o,triple=t,arch=a"],
            {"big.o": bytes(range(256)) * 4099})
        self.compare("package without file=", ["-o", "x.bin", "--image=triple=t"])
        self.compare("package a missing file", [
            "-o", "x.bin", "--image=file=a.o,triple=t", "--image=file=none.o"],
            files)
        self.compare("package a folder", ["-o", "x.bin", "--image=file=/tmp"])
        self.compare("package into a missing folder", [
            "-o", "no/x.bin", "--image=file=a.o"], files)
        self.compare("package empty file= value", ["-o", "x.bin", "--image=file="])
        self.compare("package an empty --image", ["-o", "x.bin", "--image="])

        # Generated key sets: tail-sharing strings and enough keys to make
        # LLVM's DenseMap grow (at 48 entries).
        rng = random.Random(6)
        pool = ["arch", "triple", "sm_70", "m_70", "70", "0", "gfx906",
                "gfx90a:xnack+", "xnack+", "amdgcn-amd-amdhsa", "amdhsa", "",
                "a", "aa", "ba", "feature", "+ptx80", "ptx80", "kind", "file2",
                "\xe9t\xe9", "key with spaces"]
        for index in range(70):
            count = rng.choice([0, 1, 2, 3, 5, 8, 20, 47, 48, 49, 70])
            pairs = []
            for _ in range(count):
                key = rng.choice(pool + [f"k{rng.randrange(1000)}"])
                value = rng.choice(pool + [f"v{rng.randrange(100000)}"])
                pairs.append(f"{key}={value}" if rng.random() < 0.9 else key)
            images_args = [f"--image=file=a.o,{','.join(pairs)}"]
            if rng.random() < 0.3:
                images_args.append(f"--image=file=b.cubin,{','.join(reversed(pairs))}")
            self.compare(f"package generated keys #{index}",
                         ["-o", "gen.bin"] + images_args, files)

    # -- part one: extracting ------------------------------------------------

    def extraction_cases(self, inputs):
        filters = [
            ["--image=arch=sm_70"],
            ["--image=triple=amdgcn-amd-amdhsa"],
            ["--image=kind=openmp"],
            ["--image=kind=hip", "--image=kind=openmp"],
            ["--image=file=one.img,triple=amdgcn-amd-amdhsa"],
            ["--image=file=all.img"],
            ["--image=file=-,arch=sm_70"],
            ["--image=arch=gfx906,file=x.img", "--image=arch=gfx90a"],
            ["--image=triple=none-such"],
            ["--image=arch="],
            ["--image=foo=bar,baz"],
            ["--archive", "--image=file=lib.a"],
            ["--archive", "--image=file=lib.a,kind=hip",
             "--image=file=lib2.a,arch=gfx906"],
            ["--archive", "--image=arch=gfx906"],
            ["--archive", "--image=file=no/lib.a"],
            ["--image=file=no/x.img"],
            # One file named twice: it keeps what was written last.
            ["--image=arch=gfx906,file=x.img", "--image=arch=sm_70,file=x.img"],
            ["--image=arch=sm_70,file=x.img", "--image=kind=hip,file=./x.img"],
        ]
        for name in sorted(inputs):
            for extra in filters:
                self.compare(f"extract {name} {extra}",
                             [f"../../in/{name}"] + extra)
        self.compare("extract from standard input",
                     ["-", "--image=file=s.img,arch=sm_70"],
                     stdin=inputs["raw.bin"])
        self.compare("extract a missing input", ["none.bin", "--image=arch=a"])

    def refused_binaries(self, raw):
        """Binaries LLVM 22 refuses: the same message from both."""
        first = raw[:struct.unpack_from("<Q", raw, 8)[0]]
        cases = {"short": first[:40], "version0": first[:4] + b"\0\0\0\0" + first[8:],
                 "version4": first[:4] + b"\4\0\0\0" + first[8:],
                 "trailing": raw + b"\x10\xff\x10\xad" + b"\0" * 4}
        for field, value in (("size", 0x100000), ("size", 16),
                             ("entry", 0x1000), ("entry size", 0x1000)):
            offset = {"size": 8, "entry": 16, "entry size": 24}[field]
            damaged = bytearray(first)
            struct.pack_into("<Q", damaged, offset, value)
            cases[f"{field}={value:#x}"] = bytes(damaged)
        for field, offset in (("strings offset", 40), ("image offset", 56)):
            damaged = bytearray(first)
            struct.pack_into("<Q", damaged, offset, 0x100000)
            cases[field] = bytes(damaged)
        for name, data in cases.items():
            self.compare(f"refused binary: {name}",
                         ["bad.bin", "--image=file=x.img"], {"bad.bin": data})
        # Damaged archives: LLVM's archive reader's message, naming no file.
        member = b"m.bin/          0           0     0     644     "
        archives = {
            "size not decimal": b"!<arch>\n" + member + b"12a       `\n" +
                                b"x" * 12,
            "bad terminator": b"!<arch>\n" + member + b"16        !!" +
                              raw[:16],
        }
        for name, data in archives.items():
            for extra in ([], ["--archive", "--image=file=o.a"]):
                self.compare(f"damaged archive: {name} {extra}",
                             ["bad.a", "--image=arch=gfx90a"] + extra,
                             {"bad.a": data})

    def command_line_cases(self):
        for args in [[], ["--help"], ["--help-hidden"], ["--help-list"],
                     ["--help-list-hidden"], ["-h"], ["-help"],
                     ["--image=file=a.o"]]:
            self.compare(f"help {args}", args, help_text=True)
        self.compare("help, old name", ["--help"], argv0=OLD_NAME, help_text=True)
        self.compare("no arguments, old name", [], argv0=OLD_NAME, help_text=True)
        self.compare("old name in a folder with a suffix", ["-o", "x.bin"],
                     argv0=f"/opt/bin/{OLD_NAME}.exe")
        self.compare("old name as a prefix", ["-o", "x.bin"],
                     argv0=f"{OLD_NAME}-22")
        self.compare("old name packaging", [
            "-o", "x.bin", "--image=file=a.o,triple=t"], {"a.o": b"abc"},
            argv0=OLD_NAME)
        self.compare("old name error", ["in.bin", "-o", "x"], argv0=OLD_NAME)
        # Our second executable, run under its own name, next to LLVM's.
        # (main() made sure LLVM's is there; ours is built beside ours.)
        ours_old = os.path.join(os.path.dirname(self.ours), OLD_NAME)
        reference_old = self.llvm(OLD_NAME)
        self.check(f"{OLD_NAME} executable beside {self.ours}",
                   os.path.exists(ours_old))
        if os.path.exists(ours_old):
            for args in ([], ["--help"], ["-o", "x.bin",
                                          "--image=file=/dev/null,triple=t"]):
                results = []
                for executable in (reference_old, ours_old):
                    with tempfile.TemporaryDirectory(dir=self.folder) as work:
                        code, out, err = self.run(executable, [executable] + args,
                                                  work)
                        out = help_without_extensions(out)
                        results.append((code, out, err, snapshot(work)))
                self.check(f"{OLD_NAME} executable {args}",
                           results[0] == results[1], f"{results!r}")
        for args in [["--bogus"], ["-bogus=3"], ["--imag=file=a"], ["-ox"],
                     ["-oh"], ["-hx"], ["-o"], ["a", "b"], ["a", "--", "-o"],
                     ["--version=1"], ["--help=0"], ["--archive=maybe"],
                     ["--image"], ["in.bin", "-o", "x"],
                     ["--print-options=1", "-o", "x.bin"]]:
            self.compare(f"command line {args}", args)
        self.compare("response file", ["@args.txt"],
                     {"args.txt": b"-o x.bin '--image=file=a b.o,triple=t'\n",
                      "a b.o": b"spaces"})
        self.compare("missing response file", ["@none.txt", "-o", "x.bin"])
        self.compare("-o given twice", ["-o", "a.bin", "-o", "b.bin",
                                        "--image=file=a.o"], {"a.o": b"1"})
        self.compare("-o=file", ["-o=x.bin", "--image=file=a.o"], {"a.o": b"1"})
        self.compare("empty output name", ["-o", "", "--image=file=a.o"],
                     {"a.o": b"1"}, help_text=True)
        self.compare("empty input name", [""], help_text=True)

    def output_path_cases(self):
        """Outputs whose path already holds something: LLVM renames a
        temporary over it, so a symbolic link there (to the input, or to
        nowhere) is replaced, not written through, and a replaced file gets
        a new file's mode. What each path holds afterwards (its kind, mode,
        link target and bytes) must be the same for both tools."""
        packaged = {}

        def prepare(folder):
            write(os.path.join(folder, "a.o"), b"input bytes")
            os.symlink("a.o", os.path.join(folder, "to-input.bin"))
            os.symlink("nowhere/x", os.path.join(folder, "dangling.bin"))
            os.symlink("new.bin", os.path.join(folder, "to-new.bin"))
            write(os.path.join(folder, "executable.bin"), b"old")
            os.chmod(os.path.join(folder, "executable.bin"), 0o755)
            write(os.path.join(folder, "p.bin"), packaged["p.bin"])

        def state(folder):
            found = {}
            for name in sorted(os.listdir(folder)):
                path = os.path.join(folder, name)
                info = os.lstat(path)
                if os.path.islink(path):
                    found[name] = ("link", os.readlink(path))
                else:
                    found[name] = (oct(info.st_mode), read(path))
            return found

        with tempfile.TemporaryDirectory(dir=self.folder) as work:
            write(os.path.join(work, "a.o"), b"input bytes")
            self.run(self.reference, [TOOL, "-o", "p.bin",
                                      "--image=file=a.o,triple=t,arch=g"], work)
            packaged["p.bin"] = read(os.path.join(work, "p.bin"))
        image = "--image=file=a.o,triple=t"
        for args in (["-o", "to-input.bin", image],
                     ["-o", "dangling.bin", image],
                     ["-o", "to-new.bin", image],
                     ["-o", "executable.bin", image],
                     ["p.bin", "--image=arch=g,file=to-input.bin"],
                     ["p.bin", "--image=arch=g,file=executable.bin"],
                     ["p.bin", "--image=arch=g,file=to-input.bin",
                      "--archive"],
                     ["p.bin", "--image=arch=g,file=-", "--archive"],
                     ["p.bin", "--image=arch=g,file="]):
            results = []
            for executable in (self.reference, self.ours):
                with tempfile.TemporaryDirectory(dir=self.folder) as work:
                    prepare(work)
                    code, out, err = self.run(executable, [TOOL] + args, work)
                    results.append((code, out, err.replace(
                        executable.encode(), b"TOOL"), state(work)))
            self.check(f"output over an existing path {args}",
                       results[0] == results[1],
                       f"\n  reference {results[0]!r}\n  ours      "
                       f"{results[1]!r}")

    # -- part two: beyond LLVM 22 ----------------------------------------------

    def ours_in(self, folder, args, stdin=b""):
        return self.run(self.ours, [TOOL] + args, folder, stdin)

    def beyond_cases(self, inputs, images):
        folder = os.path.join(self.folder, "beyond")
        os.makedirs(folder)
        # The inputs, and beside them the files a thin archive names.
        for name in os.listdir(os.path.join(self.folder, "in")):
            write(os.path.join(folder, name),
                  read(os.path.join(self.folder, "in", name)))

        # What LLVM's filters give, one image at a time, is what extracting
        # everything must give, in input order.
        for name in sorted(inputs):
            work = os.path.join(folder, "w-" + name.replace(".", "_"))
            os.makedirs(work)
            code, out, err = self.ours_in(work, ["../" + name, "--list"])
            self.check(f"{name}: --list runs", code == 0 and not err, err)
            listed = [line.split(b"\t") for line in out.splitlines()]
            code, out, err = self.ours_in(work, ["../" + name])
            extracted = [line[len(b"Extracted: "):].decode()
                         for line in out.splitlines()]
            self.check(f"{name}: extract everything", code == 0 and not err and
                       all(l.startswith(b"Extracted: ") for l in out.splitlines())
                       and len(extracted) == len(listed),
                       f"{code} {out!r} {err!r}")
            stem = os.path.splitext(name)[0]
            for index, (fields, file_name) in enumerate(zip(listed, extracted)):
                triple, arch, kind = (fields[1].decode(), fields[2].decode(),
                                      fields[4].decode())
                kind = {"none": ""}.get(kind, kind)
                expected = f"{stem}-{triple}" + (f"-{arch}" if arch != "-" else "")
                expected += f".{index}.{kind}"
                self.check(f"{name}: image {index} named {expected}",
                           file_name == expected and
                           int(fields[5]) == len(read(os.path.join(work, file_name))),
                           f"got {file_name}")
                # LLVM 22 extracts the same bytes when asked for this image
                # alone (by all its strings and its offload kind).
                # (Filters split at commas, so values holding one cannot be
                # asked for.)
                same_strings = lambda other: (other[1:4] + other[6:] ==
                                              fields[1:4] + fields[6:])
                if (sum(1 for other in listed if same_strings(other)) != 1 or
                        any(b"," in field for field in fields)):
                    self.skipped.append((
                        f"{name}: image {index} as LLVM extracts it",
                        "LLVM's filters cannot single the image out (strings "
                        "shared with another image, or holding a comma)"))
                    continue
                keys = [f"triple={'' if triple == '-' else triple}",
                        f"arch={'' if arch == '-' else arch}"]
                keys += [extra.decode() for extra in fields[6:]]
                keys.append("kind=" + fields[3].decode())
                done = subprocess.run([self.reference, "../" + name,
                                       "--image=file=llvm.img," + ",".join(keys)],
                                      cwd=work, capture_output=True)
                llvm_image = os.path.join(work, "llvm.img")
                self.check(f"{name}: image {index} as LLVM extracts it",
                           done.returncode == 0 and os.path.exists(llvm_image)
                           and read(llvm_image) ==
                           read(os.path.join(work, file_name)),
                           f"{keys} {done.stderr!r}")
                if os.path.exists(llvm_image):
                    os.remove(llvm_image)
            # The archive of everything: the same bytes as llvm-ar 22 makes
            # of the extracted files (deterministic GNU archive, symbol table).
            code, _, err = self.ours_in(work, ["../" + name, "--archive", "-o",
                                               "all.a"])
            # (LLVM's archive writer warns about bitcode it cannot read.)
            self.check(f"{name}: --archive -o", code == 0 and
                       all(line.startswith(b"warning: ")
                           for line in err.splitlines()), err)
            # (Every input holds at least one image: "extract everything"
            # above fails when none is extracted.)
            if extracted:
                self.build(f"{name}: ref.a", self.llvm("llvm-ar"), "rcsD",
                           "--format=gnu", "ref.a", *extracted, cwd=work)
                self.check(f"{name}: archive equals llvm-ar's",
                           read(os.path.join(work, "all.a")) ==
                           read(os.path.join(work, "ref.a")))

        # Expected listings.
        work = os.path.join(folder, "listing")
        os.makedirs(work)
        write(os.path.join(work, "a.o"), b"hello")
        write(os.path.join(work, "b.cubin"), b"world!!")
        subprocess.run([self.reference, "-o", "two.bin",
                        "--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70,"
                        "kind=openmp,feature=+ptx80",
                        "--image=file=b.cubin,triple=amdgcn-amd-amdhsa,kind=hip,"
                        "x=,y=tab\there"], cwd=work, check=True)
        code, out, err = self.ours_in(work, ["two.bin", "--list"])
        self.check("listing", code == 0 and out ==
                   b"0\tnvptx64-nvidia-cuda\tsm_70\topenmp\to\t5\tfeature=+ptx80\n"
                   # Keys in the order LLVM wrote them (its hash map's).
                   b"1\tamdgcn-amd-amdhsa\t-\thip\tcubin\t7\ty=tab\\x09here\tx=\n",
                   f"{out!r} {err!r}")
        code, out, err = self.ours_in(work, ["two.bin", "--list",
                                             "--image=kind=hip"])
        self.check("listing with a filter", code == 0 and out.startswith(b"0\tamdgcn")
                   and out.count(b"\n") == 1, f"{out!r} {err!r}")
        code, out, err = self.ours_in(work, ["two.bin", "--list", "-o", "x"])
        self.check("--list with -o refused", code == 1 and b"error:" in err)
        code, out, err = self.ours_in(work, ["two.bin", "--archive"])
        self.check("--archive without a name refused", code == 1 and
                   err.count(b"\n") == 1 and b"error:" in err)

        # Nested binaries: an offload binary packaged as an image.
        subprocess.run([self.reference, "-o", "outer.bin",
                        "--image=file=two.bin,triple=outer,arch=none",
                        "--image=file=a.o,triple=plain"], cwd=work, check=True)
        code, out, err = self.ours_in(work, ["outer.bin"])
        self.check("nested binaries followed", code == 0 and out ==
                   b"Extracted: outer-nvptx64-nvidia-cuda-sm_70.0.o\n"
                   b"Extracted: outer-amdgcn-amd-amdhsa.1.cubin\n"
                   b"Extracted: outer-plain.2.o\n" and
                   read(os.path.join(work, "outer-amdgcn-amd-amdhsa.1.cubin")) ==
                   b"world!!", f"{out!r} {err!r}")
        code, out, _ = self.ours_in(work, ["outer.bin", "--list"])
        self.check("nested binaries listed", out.count(b"\n") == 3, out)

        # Nothing is written when one image cannot be.
        os.remove(os.path.join(work, "outer-plain.2.o"))
        os.makedirs(os.path.join(work, "outer-plain.2.o"))
        before = snapshot(work)
        code, out, err = self.ours_in(work, ["outer.bin"])
        self.check("extract everything fails as a whole",
                   code == 1 and not out and err.count(b"\n") == 1 and
                   snapshot(work) == before, f"{code} {out!r} {err!r}")

        # Padding between binaries, as a linker with a larger alignment
        # leaves it, is skipped.
        padded = read(os.path.join(work, "two.bin"))
        size = struct.unpack_from("<Q", padded, 8)[0]
        write(os.path.join(work, "padded.bin"),
              padded[:size] + b"\0" * 16 + padded[size:] + b"\0" * 8)
        code, out, err = self.ours_in(work, ["padded.bin", "--list"])
        self.check("zero padding between binaries", code == 0 and
                   out.count(b"\n") == 2, f"{out!r} {err!r}")

    def run_all(self):
        images = {"a.o": b"hello", "b.cubin": b"worldxyz1"}
        built = self.make_corpus()
        for name, data in images.items():
            write(os.path.join(self.corpus, name), data)
        self.package(["-o", "raw.bin",
                      "--image=file=a.o,triple=nvptx64-nvidia-cuda,arch=sm_70,"
                      "kind=openmp",
                      "--image=file=b.cubin,triple=amdgcn-amd-amdhsa,"
                      "arch=gfx906,kind=hip,foo=bar,foo=baz"])
        inputs = {"raw.bin": read(os.path.join(self.corpus, "raw.bin"))}
        # Bitcode LLVM's archive writer cannot read: it warns and keeps the
        # member unindexed.
        write(os.path.join(self.corpus, "bad.bc"),
              b"BC\xc0\xde\x01\x02\x03\x04garbage!")
        self.package(["-o", "badbc.bin",
                      "--image=file=bad.bc,triple=t,arch=a,kind=openmp"])
        inputs["badbc.bin"] = read(os.path.join(self.corpus, "badbc.bin"))
        for name in ("omp.o", "omp.bc", "hip.o", "win.obj"):
            inputs[name] = built[name]
        self.package(["-o", "devices.bin",
                      "--image=file=dev.elf,triple=amdgcn-amd-amdhsa,"
                      "arch=gfx906,kind=hip",
                      "--image=file=dev.bc,triple=amdgcn-amd-amdhsa,"
                      "arch=gfx90a,kind=openmp"])
        inputs["devices.bin"] = read(os.path.join(self.corpus, "devices.bin"))
        inputs["fat.o"] = self.objcopy_offloading("host.o", "devices.bin",
                                                  "fat.o")
        for name in ("main", "libhost.so"):
            inputs[name + ".fat"] = self.objcopy_offloading(
                name, "raw.bin", name + ".fat")
        self.build("merged.o", self.llvm("ld.lld"), "-r", "omp.o", "hip.o",
                   "-o", "merged.o")
        inputs["merged.o"] = read(os.path.join(self.corpus, "merged.o"))
        members = ["omp.o", "hip.o", "fat.o", "host.o"]
        for name in members:
            write(os.path.join(self.corpus, name),
                  inputs.get(name, built.get(name)))
        for archive, flags in (("lib.a", "rcs"), ("thin.a", "rcsT")):
            self.build(archive, self.llvm("llvm-ar"), flags, archive, *members,
                       "raw.bin")
            inputs[archive] = read(os.path.join(self.corpus, archive))
        # Bitcode written by llvm-as: globals of i8 and wider elements, a
        # section name that only starts like .llvm.offloading, nodes of other
        # shapes, a function.
        raw = inputs["raw.bin"]
        first, second = raw[:0x98], raw[0x98:]
        as_bytes = lambda data: 'c"' + "".join(f"\\{b:02X}" for b in data) + '"'
        as_i32 = ", ".join(f"i32 {v}" for v in struct.unpack(f"<{len(second)//4}i", second))
        write(os.path.join(self.corpus, "emb.ll"),
              f'@a = private constant [{len(first)} x i8] {as_bytes(first)}\n'
              f'@b = private constant [{len(second)} x i8] {as_bytes(second)}\n'
              f'@c = private constant [{len(second)//4} x i32] [{as_i32}]\n'
              'define void @f() { ret void }\n'
              '!llvm.embedded.objects = !{!0, !1, !2, !3, !4, !5}\n'
              '!0 = !{ptr @a, !".llvm.offloading"}\n'
              '!1 = !{ptr @b, !".llvm.offloading.x"}\n'
              '!2 = !{ptr @c, !".llvm.offloading"}\n'
              '!3 = !{ptr @f, !".llvm.offloading"}\n'
              '!4 = !{ptr @a}\n'
              '!5 = !{ptr @a, !".llvm.offloading", !"extra"}\n')
        self.build("emb.bc", self.llvm("llvm-as"), "emb.ll", "-o", "emb.bc")
        inputs["emb.bc"] = read(os.path.join(self.corpus, "emb.bc"))

        in_folder = os.path.join(self.folder, "in")
        os.makedirs(in_folder)
        for name, data in inputs.items():
            write(os.path.join(in_folder, name), data)
        # Thin archives name their members relative to themselves.
        for name in members + ["raw.bin"]:
            write(os.path.join(in_folder, name), read(os.path.join(self.corpus, name)))

        self.clang_builds()
        self.packaging_cases(images)
        self.extraction_cases(inputs)
        self.refused_binaries(raw)
        self.command_line_cases()
        self.output_path_cases()
        self.beyond_cases(inputs, images)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    args = parser.parse_args()
    # LLVM 22's tool, and the LLVM 22 tools that build the inputs beside it.
    bin_folder = os.path.dirname(args.reference)
    require_executables(args.reference, *(
        os.path.join(bin_folder, name) for name in
        ("clang", "clang++", "llvm-objcopy", "llvm-ar", "ld.lld", "llvm-as",
         OLD_NAME)))
    with tempfile.TemporaryDirectory(prefix="offbundle-packager-") as folder:
        suite = Suite(os.path.abspath(args.ours), args.reference, folder)
        suite.run_all()
    report_skipped_cases(suite.skipped)
    return finish(suite.passed, suite.failed, len(suite.skipped))


if __name__ == "__main__":
    sys.exit(main())
