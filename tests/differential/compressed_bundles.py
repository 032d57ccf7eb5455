#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compressed bundles LLVM 22 cannot write or read, checked end to end.

LLVM 22 writes only zstd bundles in format versions 2 and 3 and fails on
several compressed bundles laid end to end. This suite makes the other kinds
itself (version 1, zlib in every version, concatenations), with the
uncompressed bundles written by LLVM 22's own tool, and checks that ours lists
and unbundles them exactly as LLVM lists and unbundles the uncompressed
originals, and that every entry of every bundle holds its input's bytes. It
also checks the integrity refusals: a wrong hash, wrong sizes and
a header claiming an absurd size all end in exit 1 with one error line
(-list reads only the header of the bundle inside, so of these it refuses
all but the wrong hash).

Without LLVM 22's tool the suite is skipped (exit 77, a failure when CI is
"true").

Usage: compressed_bundles.py --ours PATH --reference PATH
"""

import argparse
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import Tally, finish, require_executables  # noqa: E402
from bundle_bytes import ccob, truncated_md5  # noqa: E402

TARGETS = ["host-x86_64-unknown-linux-gnu", "hip-amdgcn-amd-amdhsa--gfx906",
           "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"]
# The entry IDs LLVM writes for them (the -list checks compare the IDs with
# LLVM's listing), and the names -output-dir gives their files.
WRITTEN_IDS = ["host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa--gfx906",
               "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"]


def run(tool, args, folder):
    done = subprocess.run([tool] + args, cwd=folder, capture_output=True,
                          timeout=120)
    return done.returncode, done.stdout, done.stderr


class Suite(Tally):
    def __init__(self, ours, reference, folder):
        super().__init__()
        self.ours = ours
        self.reference = reference
        self.folder = folder

    def path(self, name):
        return os.path.join(self.folder, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as handle:
            handle.write(data)

    def read(self, name):
        with open(self.path(name), "rb") as handle:
            return handle.read()


    def make_bundle(self, name, file_type, seed):
        rng = random.Random(seed)
        inputs = []
        for index, _ in enumerate(TARGETS):
            payload = bytes(rng.choice(b"abcdefgh\n") for _ in
                            range(rng.randint(100, 3000)))
            self.write(f"{name}.in{index}", payload)
            inputs.append(payload)
        code, _, err = run(self.reference,
                           [f"-type={file_type}", "-targets=" + ",".join(TARGETS),
                            f"-output={name}"] +
                           [f"-input={name}.in{i}" for i in range(len(TARGETS))],
                           self.folder)
        assert code == 0, err
        return self.read(name), inputs

    def reference_list(self, file_type, name):
        return run(self.reference, [f"-type={file_type}", "-list",
                                    f"-input={name}"], self.folder)[1]

    def expect_same_contents(self, label, file_type, compressed, plain_names,
                             inputs_by_bundle):
        self.write("packed", compressed)
        expected = b"".join(self.reference_list(file_type, n)
                            for n in plain_names)
        code, out, err = run(self.ours, [f"-type={file_type}", "-list",
                                         "-input=packed"], self.folder)
        self.check(f"{label}: -list", code == 0 and out == expected,
                   f"exit {code}, stdout {out!r}, expected {expected!r}, {err!r}")
        # Each target is found in whichever bundle holds it; with several
        # bundles, the first one that has it wins.
        for index, target in enumerate(TARGETS):
            code, _, err = run(self.ours, [f"-type={file_type}", "-unbundle",
                                           "-input=packed", f"-targets={target}",
                                           "-output=out"], self.folder)
            got = self.read("out") if code == 0 else None
            self.check(f"{label}: -unbundle {target}",
                       code == 0 and got == inputs_by_bundle[0][index],
                       f"exit {code}, {err!r}")
        # Every entry of every bundle: -output-dir writes them all, named
        # after their IDs (":" written "_"), with ".<n>" for bundle n when
        # the IDs repeat.
        folder = self.path("all")
        shutil.rmtree(folder, ignore_errors=True)
        code, _, err = run(self.ours, [f"-type={file_type}", "-unbundle",
                                       "-input=packed", "-output-dir=all"],
                           self.folder)
        self.check(f"{label}: -output-dir", code == 0, f"exit {code}, {err!r}")
        expected = {}
        for number, inputs in enumerate(inputs_by_bundle):
            suffix = f".{number}" if len(inputs_by_bundle) > 1 else ""
            for index, entry_id in enumerate(WRITTEN_IDS):
                expected[entry_id.replace(":", "_") + suffix] = inputs[index]
        written = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        self.check(f"{label}: one file per entry of every bundle",
                   written == sorted(expected), f"{written}")
        for name, payload in sorted(expected.items()):
            path = os.path.join(folder, name)
            got = self.read(os.path.join("all", name)) if os.path.exists(path) else None
            self.check(f"{label}: entry {name}", got == payload,
                       "absent" if got is None else f"{len(got)} bytes")

    def expect_refusal(self, label, data, file_type="bc", listing=True):
        """`listing`: whether -list must refuse too. It reads only the
        bundle's header, so it cannot see a wrong hash."""
        self.write("bad", data)
        self.write("out", b"previous contents")
        modes = [["-unbundle", f"-targets={TARGETS[1]}", "-output=out"]]
        if listing:
            modes.append(["-list"])
        for args in modes:
            code, _, err = run(self.ours, [f"-type={file_type}", "-input=bad"] +
                               args, self.folder)
            lines = err.decode(errors="replace").splitlines()
            self.check(f"{label} {args[0]}",
                       code == 1 and len(lines) == 1 and ": error: " in lines[0]
                       and self.read("out") == b"previous contents",
                       f"exit {code}, stderr {err!r}")

    def run_all(self):
        for file_type in ("bc", "ll"):
            plain, inputs = self.make_bundle(f"one.{file_type}", file_type, 1)
            for version in (1, 2, 3):
                for level in (1, 6, 9):
                    self.expect_same_contents(
                        f"zlib v{version} level {level} -type={file_type}",
                        file_type, ccob(plain, version, 0, level),
                        [f"one.{file_type}"], [inputs])
            # Concatenations: two zlib bundles, and zstd bundles that LLVM 22
            # wrote itself, laid end to end.
            other, other_inputs = self.make_bundle(f"two.{file_type}", file_type, 2)
            self.expect_same_contents(
                f"zlib v3 + v2 concatenated -type={file_type}", file_type,
                ccob(plain, 3, 0) + ccob(other, 2, 0),
                [f"one.{file_type}", f"two.{file_type}"], [inputs, other_inputs])
            for name in (f"one.{file_type}", f"two.{file_type}"):
                code, _, err = run(self.reference,
                                   [f"-type={file_type}", "-compress",
                                    "-targets=" + ",".join(TARGETS),
                                    f"-output={name}.ccob"] +
                                   [f"-input={name}.in{i}" for i in range(3)],
                                   self.folder)
                assert code == 0, err
            self.expect_same_contents(
                f"zstd from LLVM, concatenated -type={file_type}", file_type,
                self.read(f"one.{file_type}.ccob") +
                self.read(f"two.{file_type}.ccob"),
                [f"one.{file_type}", f"two.{file_type}"], [inputs, other_inputs])

        plain, _ = self.make_bundle("three.bc", "bc", 3)
        good = ccob(plain, 3, 0)
        self.expect_refusal("hash mismatch", ccob(plain, 3, 0, stored_hash=1),
                            listing=False)
        self.expect_refusal("claimed size too small",
                            ccob(plain, 3, 0, uncompressed_size=len(plain) - 1))
        self.expect_refusal("claimed size too large",
                            ccob(plain, 3, 0, uncompressed_size=len(plain) + 1))
        self.expect_refusal("claimed 2^62 bytes",
                            ccob(plain, 3, 0, uncompressed_size=1 << 62))
        self.expect_refusal("total size past the end",
                            ccob(plain, 3, 0, total_size=len(good) + 10))
        self.expect_refusal("total size inside the header",
                            ccob(plain, 3, 0, total_size=8))
        self.expect_refusal("corrupt compressed data",
                            good[:40] + bytes(b ^ 0x5A for b in good[40:80]) +
                            good[80:])
        self.expect_refusal("truncated compressed data", good[:-7])
        self.expect_refusal("unknown method",
                            good[:6] + struct.pack("<H", 9) + good[8:])
        self.expect_refusal("garbage after a bundle", good + b"garbage!")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    args = parser.parse_args()
    require_executables(args.reference)
    with tempfile.TemporaryDirectory(prefix="offbundle-ccob-") as folder:
        suite = Suite(args.ours, args.reference, folder)
        suite.run_all()
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
