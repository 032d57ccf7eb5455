#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Robustness tests: llvm-offload-binary fed bad offload binaries.

For input that is definitely broken (wrong magic, unsupported version,
offsets or sizes outside the binary, string offsets past it, strings without
a terminator, misaligned tables, trailing garbage, a broken binary after a
good one, inside objects, archives, bitcode and nested binaries) the tool
must, in every mode that reads the input (extracting with filters, to an
archive, everything, --list):
  * exit with status 1 and print exactly one line, "<argv0>: error: ...",
  * print LLVM's own message where LLVM 22 refuses the input too,
  * never crash, hang or exhaust memory (runs are limited to 1 GiB), and
  * leave the folder as it was: no new file, pre-existing outputs keep their
    bytes.
Randomly damaged and truncated inputs may also be read successfully; then
every image written must be a slice of the input (nothing is read from
outside it). Bitcode holds its images as decoded constants, not as slices:
there a success must give what LLVM 22 gives (the files it writes with the
same filters; with no filter, the images LLVM's --archive collects, in
order). LLVM 22 parses the whole module and refuses damage anywhere in it,
while ours reads only the embedded objects: where LLVM refuses the damaged
bitcode, a success must give what LLVM gives for the undamaged bitcode (the
damage missed the images). Random cases come from a fixed seed.

The containers (objects, archives, bitcode) are made with LLVM 22's tools
found beside --reference; without them the suite is skipped (exit 77, a
failure when CI is "true").

Usage: offload_binary_bad_input.py --tool PATH --reference PATH
                                   [--seed S] [--random-cases N]
                                   [--no-memory-limit]
"""

import argparse
import os
import random
import resource
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from bundle_bytes import OFFLOAD_BINARY_MAGIC as MAGIC  # noqa: E402
from bundle_bytes import offload_binary as binary  # noqa: E402
from suite_support import (Tally, finish, require_executables,  # noqa: E402
                           skip_suite)

ARGV0 = "llvm-offload-binary"
PREVIOUS = b"previous contents\n"
# What LLVM 22 says when it refuses an offload binary.
LLVM_MESSAGES = (b"Invalid data was encountered while parsing the file",
                 b"The end of the file was unexpectedly encountered")
# The ways of reading an input: each with the outputs it may touch.
MODES = {
    "filter": ["--image=file=out.img,kind=openmp", "--image=triple=t"],
    "archive": ["--archive", "--image=file=out.a"],
    "all": [],
    "archive-all": ["--archive", "-o", "out.a"],
    "list": ["--list"],
}


MEMORY_LIMIT = [1 << 30]


def limit_memory():
    if MEMORY_LIMIT[0]:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT[0], MEMORY_LIMIT[0]))


def archive_members(data):
    """The contents of a GNU archive's members, in order, without the
    symbol and name tables."""
    members = []
    at = 8
    while at + 60 <= len(data):
        name = data[at:at + 16].rstrip(b" ")
        size = int(data[at + 48:at + 58])
        if name not in (b"/", b"//"):
            members.append(data[at + 60:at + 60 + size])
        at += 60 + size + (size & 1)
    return members


def patched(data, offset, fmt, value):
    data = bytearray(data)
    struct.pack_into(fmt, data, offset, value)
    return bytes(data)


class Suite(Tally):
    def __init__(self, tool, reference, folder):
        super().__init__()
        self.tool = tool
        self.reference = reference
        self.folder = folder
        self.count = 0


    def run(self, executable, folder, args):
        try:
            done = subprocess.run([ARGV0] + args, executable=executable,
                                  cwd=folder, capture_output=True, timeout=30,
                                  preexec_fn=limit_memory)
        except subprocess.TimeoutExpired:
            return None, b"", b"timeout"
        return done.returncode, done.stdout, done.stderr

    def scratch(self, files):
        self.count += 1
        folder = os.path.join(self.folder, f"case{self.count}")
        os.makedirs(folder)
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
        for output in ("out.img", "out.a"):
            with open(os.path.join(folder, output), "wb") as handle:
                handle.write(PREVIOUS)
        return folder

    @staticmethod
    def tree(folder):
        state = {}
        for root, _, names in os.walk(folder):
            for name in names:
                path = os.path.join(root, name)
                with open(path, "rb") as handle:
                    state[os.path.relpath(path, folder)] = handle.read()
        return state

    def clean_failure(self, code, err):
        lines = err.decode(errors="replace").splitlines()
        return (code == 1 and len(lines) == 1 and
                lines[0].startswith(ARGV0 + ": error: "))

    def must_fail(self, label, data, modes=tuple(MODES), extra_files=None,
                  input_name="in.bin"):
        for mode in modes:
            files = {input_name: data, **(extra_files or {})}
            folder = self.scratch(files)
            before = self.tree(folder)
            code, out, err = self.run(self.tool, folder,
                                      [input_name] + MODES[mode])
            after = self.tree(folder)
            self.check(f"{label} [{mode}]",
                       self.clean_failure(code, err) and before == after and
                       (mode != "list" or not out),
                       f"exit {code} {err[:300]!r} "
                       f"changed={sorted(set(before) ^ set(after))}")
            # Where LLVM refuses the input too, the message is LLVM's.
            if mode in ("filter", "archive"):
                ref_folder = self.scratch(files)
                ref = self.run(self.reference, ref_folder,
                               [input_name] + MODES[mode])
                if ref[0] == 1 and any(message in ref[2] for message in
                                       LLVM_MESSAGES):
                    self.check(f"{label} [{mode}]: LLVM's message",
                               err == ref[2], f"{err!r} vs {ref[2]!r}")
                shutil.rmtree(ref_folder)
            shutil.rmtree(folder)

    def may_fail(self, label, data, slice_source, modes=("filter", "all"),
                 original=None):
        """Exit 0 writing only slices of `slice_source`, or fail cleanly.
        Without a `slice_source`, exit 0 must give what LLVM 22 gives for
        `data`, or, where it refuses `data`, for the undamaged `original`."""
        for mode in modes:
            folder = self.scratch({"in.bin": data})
            before = self.tree(folder)
            code, out, err = self.run(self.tool, folder, ["in.bin"] + MODES[mode])
            after = self.tree(folder)
            if code == 0 and slice_source is None:
                self.check(f"{label} [{mode}] succeeds as LLVM 22 does",
                           *self.same_as_llvm(data, original, mode, out, after))
            elif code == 0:
                written = {name: contents for name, contents in after.items()
                           if before.get(name) != contents}
                ok = all(contents in slice_source for contents in written.values())
                self.check(f"{label} [{mode}] succeeds within its input", ok,
                           f"{sorted(written)}")
            else:
                self.check(f"{label} [{mode}] fails cleanly",
                           self.clean_failure(code, err) and before == after,
                           f"exit {code} {err[:300]!r}")
            shutil.rmtree(folder)

    def llvm_result(self, data, mode):
        """LLVM 22's exit status, stderr and folder after reading `data` in
        `mode`."""
        folder = self.scratch({"in.bin": data})
        if mode == "all":
            # LLVM 22 cannot extract everything; its --archive with a filter
            # that takes every image collects them in the same order.
            args = ["in.bin", "--archive", "--image=file=llvm.a"]
        else:
            args = ["in.bin"] + MODES[mode]
        code, _, err = self.run(self.reference, folder, args)
        theirs = self.tree(folder)
        shutil.rmtree(folder)
        return code, err, theirs

    def same_as_llvm(self, data, original, mode, out, after):
        """Whether a successful run that wrote `after` (and printed `out`)
        gives what LLVM 22 gives for `data`, or for `original` where LLVM
        refuses `data`; and a detail."""
        code, err, theirs = self.llvm_result(data, mode)
        if code != 0 and original is not None:
            code, err, theirs = self.llvm_result(original, mode)
        if code != 0:
            return False, f"LLVM 22 refuses it: exit {code} {err[:200]!r}"
        if mode != "all":
            # (The input itself may be the damaged or the undamaged one.)
            written = {n: d for n, d in after.items() if n != "in.bin"}
            theirs.pop("in.bin")
            differing = sorted(n for n in set(written) | set(theirs)
                               if written.get(n) != theirs.get(n))
            return not differing, f"files differ: {differing}"
        names = [line[len(b"Extracted: "):].decode() for line in out.splitlines()]
        ours = [after.get(name) for name in names]
        expected = archive_members(theirs["llvm.a"])
        return ours == expected, f"{len(ours)} images vs LLVM's {len(expected)}"

    # -- cases -----------------------------------------------------------------

    def header_cases(self, good):
        size = len(good)
        self.must_fail("wrong magic", b"\x10\xff\x10\xae" + good[4:])
        self.must_fail("empty file", b"")
        self.must_fail("text file", b"hello, world\n" * 10)
        self.must_fail("magic only", MAGIC)
        self.must_fail("header only", good[:32])
        self.must_fail("shorter than header and entry", good[:71])
        for version in (0, 4, 0xffffffff):
            self.must_fail(f"version {version}", patched(good, 4, "<I", version))
        for value in (size + 8, 2**64 - 8, 39, 0):
            self.must_fail(f"size {value}", patched(good, 8, "<Q", value))
        # LLVM accepts these sizes on its first look, then refuses the
        # binary cut to that size.
        self.must_fail("size 64", patched(patched(good, 8, "<Q", 64), 16, "<Q", 0))
        # The image ends 3 bytes before the padded size: cut there, the
        # binary is whole but its size breaks the format's alignment.
        odd = binary(image=b"12345")
        self.must_fail("size not a multiple of 8",
                       patched(odd, 8, "<Q", len(odd) - 3)[:len(odd) - 3])
        self.must_fail("entry offset past the end", patched(good, 16, "<Q", size))
        self.must_fail("entry offset misaligned", patched(good, 16, "<Q", 36))
        self.must_fail("entry size past the end", patched(good, 24, "<Q", size))

    def entry_cases(self, good):
        size = len(good)
        self.must_fail("string entries past the end", patched(good, 40, "<Q", size))
        self.must_fail("string entries misaligned", patched(good, 40, "<Q", 76))
        self.must_fail("string count past the end", patched(good, 48, "<Q", 1000))
        self.must_fail("string count overflowing", patched(good, 48, "<Q", 2**60))
        self.must_fail("string count wrapping", patched(good, 48, "<Q", 2**64 - 1))
        self.must_fail("image offset past the end", patched(good, 56, "<Q", size + 8))
        self.must_fail("image size past the end", patched(good, 64, "<Q", size))
        self.must_fail("image size wrapping", patched(good, 64, "<Q", 2**64 - 8))
        self.must_fail("key offset past the end", patched(good, 72, "<Q", size))
        self.must_fail("value offset past the end", patched(good, 80, "<Q", 2**63))
        # A key pointing at the image's last bytes, which hold no null byte.
        unterminated = binary(image=b"NO-NULL-AT-END!!")
        image_offset = struct.unpack_from("<Q", unterminated, 56)[0]
        self.must_fail("key without a terminator",
                       patched(unterminated, 72, "<Q", image_offset + 8))

    def container_cases(self, good, objects):
        self.must_fail("broken binary after a good one",
                       good + patched(good, 4, "<I", 7))
        self.must_fail("garbage after a good binary", good + b"garbage!")
        self.must_fail("short garbage after a good binary", good + b"\x01")
        broken = patched(good, 64, "<Q", len(good))
        for name, make in objects.items():
            self.must_fail(f"{name} with a broken binary", make(broken),
                           input_name=name)
        # A nested binary is read only when images are looked into.
        outer = binary(image=patched(good, 64, "<Q", 4096))
        self.must_fail("broken nested binary", outer,
                       modes=("all", "archive-all", "list"))

    def random_cases(self, inputs, count, seed):
        rng = random.Random(seed)
        for name, data in inputs.items():
            for length in sorted(rng.sample(range(len(data)), min(40, len(data)))):
                # Bitcode holds images as decoded constants, not as slices.
                source = None if name.endswith(".bc") else data[:length]
                self.may_fail(f"{name} truncated to {length}", data[:length],
                              source, original=data)
            for index in range(count):
                damaged = bytearray(data)
                for _ in range(rng.randint(1, 4)):
                    at = rng.randrange(min(len(data), 160) if rng.random() < 0.6
                                       else len(data))
                    damaged[at] = rng.randrange(256)
                source = None if name.endswith(".bc") else bytes(damaged)
                self.may_fail(f"{name} damaged #{index}", bytes(damaged), source,
                              original=data)


def make_objects(bin_folder, scratch):
    """Builders of containers around a binary, with LLVM 22's tools."""
    objcopy = os.path.join(bin_folder, "llvm-objcopy")
    clang = os.path.join(bin_folder, "clang")
    ar = os.path.join(bin_folder, "llvm-ar")
    host = os.path.join(scratch, "host.o")
    source = os.path.join(scratch, "host.c")
    with open(source, "w") as handle:
        handle.write("int host(void) { return 1; }\n")
    done = subprocess.run([clang, "-c", source, "-o", host], capture_output=True)
    if done.returncode != 0:
        skip_suite(f"clang 22 could not build host.o: {done.stderr[:300]!r}")

    def elf(data):
        with open(os.path.join(scratch, "section.bin"), "wb") as handle:
            handle.write(data)
        out = os.path.join(scratch, "fat.o")
        done = subprocess.run([objcopy, "--add-section",
                               ".llvm.offloading=" + os.path.join(scratch, "section.bin"),
                               "--set-section-type", ".llvm.offloading=0x6fff4c0b",
                               host, out], capture_output=True)
        if done.returncode != 0:
            skip_suite(f"llvm-objcopy 22 could not make fat.o: {done.stderr[:300]!r}")
        with open(out, "rb") as handle:
            return handle.read()

    def archive(data):
        fat = elf(data)
        path = os.path.join(scratch, "lib.a")
        if os.path.exists(path):
            os.remove(path)
        member = os.path.join(scratch, "member.o")
        with open(member, "wb") as handle:
            handle.write(fat)
        done = subprocess.run([ar, "rcs", path, host, member], capture_output=True)
        if done.returncode != 0:
            skip_suite(f"llvm-ar 22 could not make lib.a: {done.stderr[:300]!r}")
        with open(path, "rb") as handle:
            return handle.read()

    def bitcode(data):
        text = "".join(f"\\{byte:02X}" for byte in data)
        source_ll = os.path.join(scratch, "embedded.ll")
        with open(source_ll, "w") as handle:
            handle.write(f'@object = private constant [{len(data)} x i8] c"{text}"\n'
                         '!llvm.embedded.objects = !{!0}\n'
                         '!0 = !{ptr @object, !".llvm.offloading"}\n')
        out = os.path.join(scratch, "embedded.bc")
        done = subprocess.run([os.path.join(bin_folder, "llvm-as"), source_ll,
                               "-o", out], capture_output=True)
        if done.returncode != 0:
            skip_suite(f"llvm-as 22 could not make host.bc: {done.stderr[:300]!r}")
        with open(out, "rb") as handle:
            return handle.read()

    return {"fat.o": elf, "lib.a": archive, "host.bc": bitcode}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True)
    parser.add_argument("--reference", required=True,
                        help="LLVM 22's llvm-offload-binary, beside the LLVM "
                        "22 tools that make the containers")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--random-cases", type=int, default=60)
    parser.add_argument("--no-memory-limit", action="store_true",
                        help="for tools built with AddressSanitizer, which "
                        "reserves more address space than the limit")
    args = parser.parse_args()
    if args.no_memory_limit:
        MEMORY_LIMIT[0] = 0
    reference = args.reference
    bin_folder = os.path.dirname(reference)
    require_executables(reference, *(os.path.join(bin_folder, name) for name in
                                     ("clang", "llvm-objcopy", "llvm-ar",
                                      "llvm-as")))
    with tempfile.TemporaryDirectory(prefix="offbundle-bad-binaries-") as folder:
        suite = Suite(os.path.abspath(args.tool), reference, folder)
        good = binary()
        suite.header_cases(good)
        suite.entry_cases(good)
        objects = make_objects(bin_folder, folder)
        suite.container_cases(good, objects)
        inputs = {"binary": good + binary(b"second", (("triple", "u"),))}
        for name, make in objects.items():
            inputs[name] = make(inputs["binary"])
        suite.random_cases(inputs, args.random_cases, args.seed)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
