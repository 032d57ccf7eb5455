#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""offbundle prune, compress and decompress refuse what verify refuses.

A rewrite reads its input as `offbundle verify` reads it, and a file verify
finds damaged must not come out of a rewrite as a file that looks sound
(stray bytes folded into a new compressed payload, a damaged archive written
again as a good one). The damaged inputs are built here from the samples of
tests/data:

  * a plain bundle with 100 stray bytes after it;
  * a compressed bundle with 100 stray bytes after it;
  * a compressed bundle with one payload byte flipped, which zstd decodes
    without noticing (the frame has no checksum): a hash mismatch;
  * an archive of an object holding a bundle in .hip_fatbin, whose symbol
    table member is named ".." instead of "/";
  * a HIP shared library (tests/data/linked) whose bundle in .hip_fatbin has
    an entry reaching past the bundle's end;
  * the compressed HIP shared library with a flipped hash in its bundle's
    header.

For each: verify fails with one error line; prune -k gfx906, compress and
decompress with -o OUT fail with exit status 1 and exactly verify's error
line (after the "offbundle: error: " prefix both share), OUT is not created,
and an OUT that exists is left as it was, bytes and inode; with --in-place
the run exits 1 with the same error line, and the file keeps its bytes,
inode and modification time. The undamaged originals are the control:
they verify, and every rewrite of them succeeds, with -o and in place.

Usage: rewrites_refuse_damage.py --offbundle PATH
"""

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (Tally, finish, require_executables,  # noqa: E402
                           skip_suite)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                    "data")
PREFIX = "offbundle: error: "
REWRITES = (["prune", "-k", "gfx906"], ["compress"], ["decompress"])
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
# Stray bytes: not zeros, which could pass for padding.
STRAY = bytes(range(0x41, 0x41 + 100))


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def write(path, data):
    with open(path, "wb") as handle:
        handle.write(data)


def sample(name):
    return read(os.path.join(DATA, name))


def elf_section(data, wanted):
    """(offset, size) of the section named `wanted` in a 64-bit
    little-endian ELF file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    for header in headers:
        start = names + header[0]
        name = data[start:data.index(b"\0", start)].decode()
        if name == wanted:
            return header[4], header[5]
    raise KeyError(wanted)


def compressed_header_size(data):
    """The size of a compressed bundle's header: 24 bytes in version 2,
    32 in version 3."""
    version, = struct.unpack_from("<H", data, 4)
    return {2: 24, 3: 32}[version]


def flip_hash(data, start=0):
    """The compressed bundle at `start` with its stored hash's first byte
    flipped (the last 8 bytes of its header)."""
    damaged = bytearray(data)
    damaged[start + compressed_header_size(data[start:]) - 8] ^= 0xff
    return bytes(damaged)


def flip_payload_byte(data, work):
    """The compressed bundle with one byte of its zstd frame flipped such
    that zstd still decodes it, to the same size and different bytes: only
    the hash can tell. None when zstd is missing or no byte does."""
    zstd = shutil.which("zstd")
    if not zstd:
        return None
    header = compressed_header_size(data)
    frame = data[header:]
    original = subprocess.run([zstd, "-d", "-c"], input=frame,
                              capture_output=True).stdout
    # From the end of the frame backwards: the last literals of the last
    # block, which decode however their bytes are changed.
    for offset in range(len(frame) - 1, len(frame) // 2, -1):
        damaged = bytearray(frame)
        damaged[offset] ^= 0x01
        decoded = subprocess.run([zstd, "-d", "-c"], input=bytes(damaged),
                                 capture_output=True)
        if (decoded.returncode == 0 and len(decoded.stdout) == len(original)
                and decoded.stdout != original):
            return data[:header] + bytes(damaged)
    return None


def archive_with_dotdot_symbol_table(work):
    """An archive (GNU ar, with a symbol table) of one object holding
    small.bundle in .hip_fatbin, and the same archive with its symbol
    table member named ".."."""
    objcopy, ar = shutil.which("objcopy"), shutil.which("ar")
    if not objcopy or not ar:
        skip_suite("objcopy and ar (binutils) are needed")
    member = os.path.join(work, "kernels.o")
    subprocess.run([objcopy, "--add-section",
                    ".hip_fatbin=" + os.path.join(DATA, "compression",
                                                  "small.bundle"),
                    "--set-section-flags", ".hip_fatbin=alloc,readonly",
                    os.path.join(DATA, "elf", "clang-x86_64-O0.o"), member],
                   check=True)
    archive = os.path.join(work, "libkernels.a")
    subprocess.run([ar, "rcs", archive, member], check=True)
    good = read(archive)
    os.remove(archive)
    os.remove(member)
    # The first member's header follows "!<arch>\n"; its name field is 16
    # bytes, "/" and spaces for GNU's symbol table.
    if good[8:24] != b"/".ljust(16):
        skip_suite("ar wrote no GNU symbol table")
    return good, good[:8] + b"..".ljust(16) + good[24:]


def linked_with_entry_past_end():
    """unit-plain.so with the first entry of its bundle in .hip_fatbin
    made to reach past the bundle's end."""
    good = sample("linked/unit-plain.so")
    offset, _ = elf_section(good, ".hip_fatbin")
    if good[offset:offset + len(BUNDLE_MAGIC)] != BUNDLE_MAGIC:
        skip_suite("unit-plain.so's .hip_fatbin does not start with a bundle")
    # Magic, the entry count, then each entry's offset and size.
    size_field = offset + len(BUNDLE_MAGIC) + 8 + 8
    damaged = bytearray(good)
    struct.pack_into("<Q", damaged, size_field, 1 << 40)
    return good, bytes(damaged)


def linked_compressed_with_bad_hash():
    good = sample("linked/unit-compressed.so")
    offset, _ = elf_section(good, ".hip_fatbin")
    if good[offset:offset + 4] != b"CCOB":
        skip_suite("unit-compressed.so's .hip_fatbin does not start with a "
                   "compressed bundle")
    return good, flip_hash(good, offset)


def build_cases(work):
    """(name, file name, undamaged bytes, damaged bytes) of every case."""
    plain = sample("compression/small.bundle")
    compressed = sample("compression/small.v3.level3.ccob")
    flipped = flip_payload_byte(compressed, work)
    if flipped is None:
        skip_suite("no payload byte of small.v3.level3.ccob could be "
                   "flipped unnoticed by zstd (is zstd installed?)")
    archive, dotdot = archive_with_dotdot_symbol_table(work)
    linked, past_end = linked_with_entry_past_end()
    linked_compressed, bad_hash = linked_compressed_with_bad_hash()
    return [
        ("plain bundle + 100 stray bytes", "kernels.hipfb", plain,
         plain + STRAY),
        ("compressed bundle + 100 stray bytes", "kernels.ccob", compressed,
         compressed + STRAY),
        ("compressed bundle, a payload byte flipped", "flipped.ccob",
         compressed, flipped),
        ("archive whose symbol table is named '..'", "libkernels.a", archive,
         dotdot),
        ("shared library, an entry past its bundle's end", "libunit.so",
         linked, past_end),
        ("compressed shared library, hash flipped", "libcompressed.so",
         linked_compressed, bad_hash),
    ]


class Suite(Tally):
    def __init__(self, offbundle, work):
        super().__init__()
        self.offbundle = offbundle
        self.work = work

    def run(self, arguments):
        return subprocess.run([self.offbundle] + arguments, cwd=self.work,
                              capture_output=True, text=True, timeout=300)

    def error_line(self, label, done):
        """The one error line of a failed run, without its prefix; None
        (and a failure counted) when the run did not fail that way."""
        lines = done.stderr.splitlines()
        ok = (done.returncode == 1 and len(lines) == 1 and
              lines[0].startswith(PREFIX))
        self.check(label + ": exit 1 with one error line", ok,
                   f"exit {done.returncode}, stderr {done.stderr!r}")
        return lines[0][len(PREFIX):] if ok else None

    def state(self, path):
        info = os.lstat(path)
        return read(path), info.st_ino, info.st_mtime_ns

    def damaged(self, name, path):
        verified = self.run(["verify", path])
        expected = self.error_line(f"{name}: verify", verified)
        if expected is None:
            return
        for rewrite in REWRITES:
            label = f"{name}: {' '.join(rewrite)}"
            out = os.path.join(self.work, "out")
            # -o OUT where OUT does not exist: not created.
            done = self.run(rewrite + [path, "-o", out])
            self.check(label + " -o: verify's message",
                       self.error_line(label + " -o", done) == expected,
                       f"{done.stderr!r}, verify says {expected!r}")
            self.check(label + " -o: no output", not os.path.lexists(out))
            # -o OUT where OUT exists: left as it was.
            write(out, b"an earlier output\n")
            before = self.state(out)
            done = self.run(rewrite + [path, "-o", out])
            self.check(label + " -o over a file: verify's message",
                       self.error_line(label + " -o over a file", done) ==
                       expected, done.stderr)
            self.check(label + " -o over a file: left as it was",
                       self.state(out) == before)
            os.remove(out)
            # --in-place: the file as it was.
            before = self.state(path)
            done = self.run(rewrite + ["--in-place", path])
            self.check(label + " --in-place: exit 1", done.returncode == 1,
                       f"exit {done.returncode}")
            self.check(label + " --in-place: verify's message",
                       done.stderr.splitlines() == [PREFIX + expected],
                       f"{done.stderr!r}, verify says {expected!r}")
            self.check(label + " --in-place: the file as it was",
                       self.state(path) == before)
            self.check(label + ": nothing left behind",
                       sorted(os.listdir(self.work)) ==
                       [os.path.basename(path)],
                       str(os.listdir(self.work)))

    def control(self, name, path):
        verified = self.run(["verify", path])
        self.check(f"{name} (undamaged): verify passes",
                   verified.returncode == 0 and not verified.stderr,
                   verified.stderr)
        original = read(path)
        for rewrite in REWRITES:
            label = f"{name} (undamaged): {' '.join(rewrite)}"
            out = os.path.join(self.work, "out")
            done = self.run(rewrite + [path, "-o", out])
            self.check(label + " -o succeeds",
                       done.returncode == 0 and os.path.isfile(out),
                       f"exit {done.returncode}, {done.stderr!r}")
            if os.path.lexists(out):
                os.remove(out)
            done = self.run(rewrite + ["--in-place", path])
            self.check(label + " --in-place succeeds", done.returncode == 0,
                       f"exit {done.returncode}, {done.stderr!r}")
            write(path, original)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offbundle", required=True)
    args = parser.parse_args()
    require_executables(args.offbundle)
    offbundle = os.path.abspath(args.offbundle)
    scratch = tempfile.mkdtemp(prefix="offbundle-rewrites-refuse-")
    try:
        cases = build_cases(scratch)
        suite = Suite(offbundle, scratch)
        for name, file_name, good, bad in cases:
            case = os.path.join(scratch, "case")
            os.mkdir(case)
            suite.work = case
            path = os.path.join(case, file_name)
            write(path, good)
            suite.control(name, path)
            write(path, bad)
            suite.damaged(name, path)
            shutil.rmtree(case)
        return finish(suite.passed, suite.failed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
