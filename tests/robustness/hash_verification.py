#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Hash verification of compressed bundles ("CCOB").

The MD5-derived hash in a compressed bundle's header is checked whenever the
tool decompresses a bundle (LLVM 22 only prints it with -verbose). These
cases check, on bundles LLVM 22's bundler made and then damaged here:

  * a flipped hash byte, or a flipped payload byte that zstd cannot notice
    (LLVM writes its frames without a checksum), makes every decompressing
    mode (-unbundle, -output-dir, -type=a with and without
    -check-input-archive) fail: exit 1, exactly one line
    "<argv0>: error: '<file>': compressed bundle hash mismatch: stored 0x...,
    computed 0x... (...)", and no output written or changed;
  * -verify-hash=false (any of LLVM's boolean spellings) and
    OFFLOAD_BUNDLER_VERIFY_HASH=0 turn the check off: the run succeeds and
    writes exactly the bytes LLVM 22 writes for the same command; the
    command line beats the variable, and OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1
    makes the tool ignore the variable;
  * -verbose -verify-hash=false prints LLVM's report ("Hashes match: No")
    and writes LLVM's output;
  * -list does not check the hash (it reads headers), and prints what
    LLVM 22 prints;
  * without the check, unbundling decompresses only as far as the requested
    entries end: with the zstd stream damaged after the first device entry
    (a block header made invalid), that entry still unbundles to its
    original bytes, given directly or as an archive member (-type=a, whose
    device archive then equals LLVM 22's from the undamaged bundle), while
    unbundling the last entry, or the first one with the check on, fails;
  * damage that also breaks the bundle inside (an entry ID without its
    dashes, which LLVM 22 calls invalid, under the hash of the undamaged
    bundle) is reported as a hash mismatch, whichever step of unbundling
    meets it first, and without the check fails as in LLVM 22;
  * --help does not mention -verify-hash (it must stay LLVM's).

Usage: hash_verification.py --ours PATH --reference PATH
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import Tally, finish, require_executables  # noqa: E402

HOST = "host-x86_64-unknown-linux-gnu"
DEVICES = ["hip-amdgcn-amd-amdhsa--gfx906", "hip-amdgcn-amd-amdhsa--gfx908",
           "hip-amdgcn-amd-amdhsa--gfx90a", "hip-amdgcn-amd-amdhsa--gfx1030"]
ENTRY_SIZE = 1 << 20
MISMATCH = re.compile(r"^.*: error: '[^']*': compressed bundle hash mismatch: "
                      r"stored 0x[0-9a-f]{16}, computed 0x[0-9a-f]{16} "
                      r"\(.*\)\n$")


def zstd_blocks(frame):
    """(offset, type, decompressed size or None) of every block of the one
    zstd frame in `frame`; raw and RLE blocks state their size."""
    assert frame[:4] == b"\x28\xb5\x2f\xfd", "not a zstd frame"
    descriptor = frame[4]
    single_segment = (descriptor >> 5) & 1
    position = 5 + (0 if single_segment else 1)
    position += [0, 1, 2, 4][descriptor & 3]
    position += [1 if single_segment else 0, 2, 4, 8][descriptor >> 6]
    blocks = []
    while True:
        header = int.from_bytes(frame[position:position + 3], "little")
        last, kind, size = header & 1, (header >> 1) & 3, header >> 3
        blocks.append((position, kind, size if kind in (0, 1) else None))
        position += 3 + (1 if kind == 1 else size)
        if last:
            return blocks


class Suite(Tally):
    def __init__(self, ours, reference, folder):
        super().__init__()
        self.ours, self.reference, self.folder = ours, reference, folder


    def run(self, tool, arguments, env=None):
        environment = dict(os.environ)
        for key in ("OFFLOAD_BUNDLER_VERIFY_HASH",
                    "OFFLOAD_BUNDLER_IGNORE_ENV_VAR", "OFFLOAD_BUNDLER_VERBOSE"):
            environment.pop(key, None)
        environment.update(env or {})
        return subprocess.run([tool] + arguments, cwd=self.folder,
                              env=environment, capture_output=True,
                              text=True, timeout=120)

    def snapshot(self):
        return {name: open(os.path.join(self.folder, name), "rb").read()
                for name in sorted(os.listdir(self.folder))
                if os.path.isfile(os.path.join(self.folder, name))}

    def expect_mismatch(self, name, arguments, env=None):
        """The run fails with one hash-mismatch line, leaving the folder as
        it was (a pre-existing output included)."""
        with open(os.path.join(self.folder, "existing.out"), "wb") as f:
            f.write(b"left alone")
        before = self.snapshot()
        result = self.run(self.ours, arguments, env)
        after = self.snapshot()
        self.check(name, result.returncode == 1,
                   f"exit {result.returncode}, stderr {result.stderr!r}")
        self.check(name + " (one error line)",
                   MISMATCH.match(result.stderr) is not None,
                   repr(result.stderr))
        self.check(name + " (nothing written)", before == after,
                   f"files {sorted(set(after) ^ set(before))} changed")
        os.remove(os.path.join(self.folder, "existing.out"))

    def expect_failure(self, name, arguments):
        """The run fails with one error line and writes nothing."""
        before = self.snapshot()
        result = self.run(self.ours, arguments)
        self.check(f"{name} fails", result.returncode == 1 and
                   result.stderr.count("\n") == 1 and
                   ": error: " in result.stderr, result.stderr)
        self.check(f"{name} writes nothing", self.snapshot() == before,
                   "folder changed")

    def expect_like_llvm(self, name, arguments, outputs, env=None,
                         extra=()):
        """Ours (with `extra` arguments) succeeds and writes, for each output
        name, the bytes LLVM 22 writes for the same command."""
        results = {}
        for tool, suffix, more in ((self.ours, "ours", list(extra)),
                                   (self.reference, "ref", [])):
            named = [a.replace("@OUT@", suffix) for a in arguments] + more
            result = self.run(tool, named, env)
            results[suffix] = (result, {
                out: open(os.path.join(self.folder, out.replace(
                    "@OUT@", suffix)), "rb").read()
                if os.path.exists(os.path.join(self.folder, out.replace(
                    "@OUT@", suffix))) else None
                for out in outputs})
        ours, ref = results["ours"], results["ref"]
        self.check(name, ours[0].returncode == 0 and ref[0].returncode == 0,
                   f"exit {ours[0].returncode} (LLVM {ref[0].returncode}): "
                   f"{ours[0].stderr!r}")
        self.check(name + " (stdout as LLVM)",
                   ours[0].stdout == ref[0].stdout,
                   f"{ours[0].stdout!r} vs {ref[0].stdout!r}")
        self.check(name + " (outputs as LLVM)",
                   ours[1] == ref[1] and None not in ours[1].values(),
                   "outputs differ")
        for out in outputs:
            for suffix in ("ours", "ref"):
                path = os.path.join(self.folder, out.replace("@OUT@", suffix))
                if os.path.exists(path):
                    os.remove(path)
        return ours[1]


def write(folder, name, data):
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    options = parser.parse_args()
    require_executables(options.ours, options.reference)
    ours = os.path.abspath(options.ours)
    reference = os.path.abspath(options.reference)

    folder = tempfile.mkdtemp(prefix="hash-verification-")
    try:
        suite = Suite(ours, reference, folder)
        # Random entries: zstd stores them as raw blocks, whose bytes and
        # sizes can be found and damaged without decoding.
        entries = [os.urandom(ENTRY_SIZE) for _ in DEVICES]
        write(folder, "host.bin", b"host code")
        for index, entry in enumerate(entries):
            write(folder, f"dev{index}.bin", entry)
        targets = ",".join([HOST] + DEVICES)
        made = subprocess.run(
            [reference, "-type=bc", f"-targets={targets}", "-compress",
             "-input=host.bin"] +
            [f"-input=dev{i}.bin" for i in range(len(DEVICES))] +
            ["-output=good.ccob"], cwd=folder, capture_output=True)
        if made.returncode != 0:
            print(f"error: LLVM 22 could not make the bundle: {made.stderr}")
            return 1
        good = open(os.path.join(folder, "good.ccob"), "rb").read()
        header_size = 32  # version 3, what LLVM 22 writes
        frame = good[header_size:]
        blocks = zstd_blocks(frame)

        # Hash byte flipped (version 3: the hash is the last 8 header bytes).
        bad_hash = bytearray(good)
        bad_hash[24] ^= 0x01
        write(folder, "bad_hash.ccob", bytes(bad_hash))

        # A payload byte flipped inside a raw block of the last entry: zstd
        # copies raw blocks without looking, and has no checksum to notice.
        raw = [b for b in blocks if b[1] == 0 and b[2] > 16]
        offset, _, size = raw[-1]
        bad_payload = bytearray(good)
        bad_payload[header_size + offset + 3 + size // 2] ^= 0x40
        write(folder, "bad_payload.ccob", bytes(bad_payload))

        # The frame damaged after the first device entry (host entry, then
        # dev0, in the order LLVM writes payloads): a block header that
        # starts at least 256 KiB past that entry's end, in the uncompressed
        # bundle, gets a reserved block type, which zstd refuses.
        first_entry_end = 1024 + len(b"host code") + ENTRY_SIZE
        produced, damaged_at = 0, None
        for position, kind, decompressed in blocks:
            if produced >= first_entry_end + (256 << 10):
                damaged_at = position
                break
            produced += decompressed or 0
        assert damaged_at is not None, "bundle too small to damage"
        bad_stream = bytearray(good)
        bad_stream[header_size + damaged_at:header_size + damaged_at + 3] = \
            b"\xff\xff\xff"
        write(folder, "bad_stream.ccob", bytes(bad_stream))

        # A library holding the damaged bundle, for -type=a.
        for name in ("bad_hash", "bad_payload"):
            subprocess.run(["ar", "rc", f"{name}.a", f"{name}.ccob"],
                           cwd=folder, check=True)
            subprocess.run(["ar", "rc", f"good_{name}.a", "good.ccob"],
                           cwd=folder, check=True)

        unbundle = ["-type=bc", "-unbundle", f"-targets={DEVICES[0]}",
                    "-output=one.@OUT@"]
        archive = ["-type=a", "-unbundle", f"-targets={DEVICES[3]}",
                   "-output=lib.@OUT@.a", "-allow-missing-bundles"]
        for name in ("bad_hash", "bad_payload"):
            bundle = f"-input={name}.ccob"
            plain = [a.replace("@OUT@", "ours") for a in unbundle]
            suite.expect_mismatch(f"{name} -unbundle", plain + [bundle])
            suite.expect_mismatch(f"{name} -unbundle all", [
                "-type=bc", "-unbundle", f"-targets={targets}", bundle] +
                [f"-output=all{i}.out" for i in range(5)])
            suite.expect_mismatch(f"{name} -output-dir", [
                "-type=bc", "-unbundle", bundle, "-output-dir=extracted"])
            lib = [a.replace("@OUT@", "ours") for a in archive]
            suite.expect_mismatch(f"{name} -type=a",
                                  lib + [f"-input={name}.a"])
            suite.expect_mismatch(f"{name} -type=a -check-input-archive",
                                  lib + [f"-input={name}.a",
                                         "-check-input-archive"])
            for spelling in ("-verify-hash", "-verify-hash=true"):
                suite.expect_mismatch(
                    f"{name} {spelling} beats the variable", plain +
                    [bundle, spelling],
                    env={"OFFLOAD_BUNDLER_VERIFY_HASH": "0"})
            suite.expect_mismatch(
                f"{name} OFFLOAD_BUNDLER_IGNORE_ENV_VAR=1", plain + [bundle],
                env={"OFFLOAD_BUNDLER_VERIFY_HASH": "0",
                     "OFFLOAD_BUNDLER_IGNORE_ENV_VAR": "1"})
            suite.expect_mismatch(
                f"{name} OFFLOAD_BUNDLER_VERIFY_HASH=no keeps the check",
                plain + [bundle], env={"OFFLOAD_BUNDLER_VERIFY_HASH": "no"})

            # Without the check, LLVM 22's bytes; for the damaged payload the
            # last entry differs from its original, which shows zstd did not
            # notice.
            for spelling in ("-verify-hash=false", "-verify-hash=0",
                             "--verify-hash=False"):
                suite.expect_like_llvm(f"{name} {spelling}",
                                       unbundle + [bundle], ["one.@OUT@"],
                                       extra=[spelling])
            last = ["-type=bc", "-unbundle", f"-targets={DEVICES[3]}",
                    "-output=last.@OUT@", bundle]
            written = suite.expect_like_llvm(
                f"{name} OFFLOAD_BUNDLER_VERIFY_HASH=0", last, ["last.@OUT@"],
                env={"OFFLOAD_BUNDLER_VERIFY_HASH": "0"})
            suite.check(f"{name}: damage reaches the output unchecked",
                        (written["last.@OUT@"] == entries[3]) ==
                        (name == "bad_hash"), "unexpected output")
            suite.expect_like_llvm(f"{name} -type=a -verify-hash=false",
                                   archive + [f"-input={name}.a"],
                                   ["lib.@OUT@.a"], extra=["-verify-hash=false"])
            suite.expect_like_llvm(f"{name} -list", [
                "-type=bc", "-list", bundle], [])

        # -verbose without the check: LLVM's report, "Hashes match: No"
        # included, and LLVM's output (the speed line is a timing).
        def verbose_run(tool, output, extra):
            result = suite.run(tool, unbundle[:-1] + [
                f"-output={output}", "-input=bad_hash.ccob", "-verbose"] +
                extra)
            lines = [line for line in result.stderr.splitlines()
                     if "speed" not in line]
            return result.returncode, lines
        ours_verbose = verbose_run(ours, "verbose.ours", ["-verify-hash=false"])
        llvm_verbose = verbose_run(reference, "verbose.ref", [])
        suite.check("-verbose -verify-hash=false reports as LLVM",
                    ours_verbose == llvm_verbose and
                    "Hashes match: No" in ours_verbose[1],
                    f"{ours_verbose} vs {llvm_verbose}")

        # Partial decompression.
        stream = "-input=bad_stream.ccob"
        result = suite.run(ours, ["-type=bc", "-unbundle",
                                  f"-targets={DEVICES[0]}", stream,
                                  "-output=first.out", "-verify-hash=false"])
        suite.check("damaged stream: first entry without the check",
                    result.returncode == 0, result.stderr)
        first = os.path.join(folder, "first.out")
        suite.check("damaged stream: first entry is the original",
                    os.path.exists(first) and
                    open(first, "rb").read() == entries[0], "differs")
        if os.path.exists(first):
            os.remove(first)

        # Partial decompression of an archive member (-type=a): the first
        # entry's device archive comes out as LLVM 22 makes it from the
        # undamaged bundle.
        for name, source in (("stream_good", "good.ccob"),
                             ("stream_bad", "bad_stream.ccob")):
            os.makedirs(os.path.join(folder, name))
            shutil.copy(os.path.join(folder, source),
                        os.path.join(folder, name, "stream.ccob"))
            subprocess.run(["ar", "rc", f"{name}.a", f"{name}/stream.ccob"],
                           cwd=folder, check=True)
        first_lib = ["-type=a", "-unbundle", f"-targets={DEVICES[0]}"]
        made = [suite.run(tool, first_lib + [f"-input={name}.a",
                                             f"-output={output}"] + extra)
                for tool, name, output, extra in (
                    (reference, "stream_good", "first.ref.a", []),
                    (ours, "stream_bad", "first.ours.a",
                     ["-verify-hash=false"]))]
        first_ref = os.path.join(folder, "first.ref.a")
        first_ours = os.path.join(folder, "first.ours.a")
        suite.check("damaged stream -type=a: first entry without the check",
                    made[0].returncode == 0 and made[1].returncode == 0 and
                    os.path.exists(first_ours) and
                    open(first_ours, "rb").read() ==
                    open(first_ref, "rb").read(),
                    f"{made[0].stderr!r} {made[1].stderr!r}")
        for path in (first_ref, first_ours):
            if os.path.exists(path):
                os.remove(path)
        # The first entry with the check, and the last one without it, fail
        # from a bundle and from an archive member.
        for label, arguments in (
                ("first entry with the check", [f"-targets={DEVICES[0]}"]),
                ("last entry without the check", [f"-targets={DEVICES[3]}",
                                                  "-verify-hash=false"])):
            for container in (["-type=bc", stream, "-output=damaged.out"],
                              ["-type=a", "-input=stream_bad.a",
                               "-output=damaged.a"]):
                suite.expect_failure(f"damaged stream {container[0]}: {label}",
                                     ["-unbundle"] + container + arguments)

        # Damage that also breaks the bundle inside: an entry ID without its
        # dashes, which LLVM 22 calls invalid, under the hash of the
        # undamaged bundle (zlib, which this suite can write itself). Unbundling overlaps the hash check
        # with its other steps; whichever step trips over the damage first,
        # the run reports the hash mismatch, and with -verify-hash=false the
        # same error as LLVM 22.
        plain_made = subprocess.run(
            [reference, "-type=bc", f"-targets={targets}", "-input=host.bin"] +
            [f"-input=dev{i}.bin" for i in range(len(DEVICES))] +
            ["-output=good.bc"], cwd=folder, capture_output=True)
        suite.check("LLVM 22 makes the plain bundle",
                    plain_made.returncode == 0, plain_made.stderr)
        plain_bundle = open(os.path.join(folder, "good.bc"), "rb").read()
        broken_bundle = plain_bundle.replace(
            DEVICES[1].encode(), DEVICES[1].replace("-", "X").encode())
        suite.check("the entry ID is damaged", broken_bundle != plain_bundle,
                    "ID not found")
        stored_hash = hashlib.md5(plain_bundle).digest()[:8]
        stream_data = zlib.compress(broken_bundle, 6)
        ccob_header_size = 32
        write(folder, "bad_id.ccob",
              b"CCOB" + struct.pack("<HHQQ", 3, 0,
                                    ccob_header_size + len(stream_data),
                                    len(broken_bundle)) +
              stored_hash + stream_data)
        for requested in (DEVICES[0], DEVICES[2]):
            suite.expect_mismatch(
                f"damaged entry ID, -unbundle {requested}",
                ["-type=bc", "-unbundle", f"-targets={requested}",
                 "-input=bad_id.ccob", "-output=existing.out"])
        unchecked = [suite.run(tool, ["-type=bc", "-unbundle",
                                      f"-targets={DEVICES[2]}",
                                      "-input=bad_id.ccob",
                                      "-output=unchecked.out"] + extra)
                     for tool, extra in ((ours, ["-verify-hash=false"]),
                                         (reference, []))]
        suite.check("damaged entry ID without the check fails as in LLVM 22",
                    unchecked[0].returncode == unchecked[1].returncode == 1
                    and unchecked[0].stderr.split(": ", 1)[1] ==
                    unchecked[1].stderr.split(": ", 1)[1],
                    f"{unchecked[0].stderr!r} vs {unchecked[1].stderr!r}")

        # Help stays LLVM's.
        for flag in ("--help", "--help-hidden", "--help-list-hidden"):
            result = suite.run(ours, [flag])
            suite.check(f"{flag} does not show -verify-hash",
                        "verify-hash" not in result.stdout, flag)
        return finish(suite.passed, suite.failed)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
