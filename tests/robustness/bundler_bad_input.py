#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Robustness tests: clang-offload-bundler fed bad input.

The tool promises that for any bad input it
  * exits with status 1,
  * prints exactly one line on standard error, "<argv0>: error: <text>",
  * never crashes (no signal, no sanitizer or LLVM crash report),
  * never hangs,
  * never reads outside its input (a successful unbundle only writes bytes
    that are a slice of the input), and
  * leaves every output as it was when it fails: pre-existing output files
    keep their bytes and no new file (final or temporary) appears.

Every case runs in a fresh scratch folder holding its inputs and pre-created
outputs. The whole folder tree is recorded before and after the run, so any
disturbance (a changed byte, a leftover ".out.XXXXXX" temporary, a created
folder) is caught without knowing how the tool names its temporaries.

Cases either MUST fail (the input is definitely broken) or MAY fail (the input
is damaged but possibly still readable, e.g. a flipped payload byte): a
MAY-fail case passes when the run either succeeds or fails cleanly.

Some outputs can only be made unwritable with the help of permissions: a
read-only folder (which root ignores, so those cases are skipped with a note
when permission bits do not bite) and another user's file in a sticky folder
(which needs root to set up; the tool then runs as "nobody", so it must be
executable by that user). Skipped cases are listed by reason and counted
neither as passed nor as failed; when every case is skipped, or LLVM 22's
bundler (which makes the valid compressed bundles) is missing, the suite is
skipped (exit 77, a failure when CI is "true").

Random cases come from a fixed seed, so a failing case name can be rerun with
--only NAME --keep to inspect its scratch folder.

Compressed bundles ("CCOB") are decompressed before they are read, so
what a successful unbundle writes is checked against the real payloads
rather than the input file. These cases run under a 1 GiB address-space
limit, which turns trusting a hostile size claim or a decompression bomb
into a quick allocation failure (that must be reported cleanly) instead of
an exhausted host. The valid zstd bundles they start from are made by a
reference bundler (LLVM 22's by default, else the tool under test); zlib
ones are made here.

Usage: bundler_bad_input.py --tool PATH [--seed S] [--random-cases N]
                            [--random-compressed-cases N]
                            [--reference PATH] [--timeout SECONDS]
                            [--only SUBSTRING] [--keep] [--sanitized]
"""

import argparse
import hashlib
import os
import pwd
import random
import re
import resource
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (finish, report_skipped_cases,  # noqa: E402
                           skip_suite)
from bundle_bytes import (BUNDLE_MAGIC, CCOB_MAGIC, ZLIB,  # noqa: E402
                          ZSTD, binary_bundle, truncated_md5)

# ---------------------------------------------------------------------------
# Bundle formats

MAGIC = BUNDLE_MAGIC
HOST = "host-x86_64-unknown-linux-gnu"
GFX906 = "hip-amdgcn-amd-amdhsa--gfx906"
GFX908 = "hip-amdgcn-amd-amdhsa--gfx908"
# IDs as the bundler stores them (the host triple gains an empty environment).
STORED_IDS = [HOST + "-", GFX906, GFX908]
TARGETS = ",".join([HOST, GFX906, GFX908])
# Distinct payloads of different lengths, so a mixed-up offset or size shows.
PAYLOADS = [b"HOST-PAYLOAD\n", b"GFX906-PAYLOAD-BYTES\n", b"gfx908\n"]

TEXT_COMMENTS = {"i": "//", "ii": "//", "cui": "//", "hipi": "//",
                 "d": "#", "s": "#", "ll": ";"}

U64_MAX = 2**64 - 1

# Makes the valid zstd compressed bundles (see make_compressed_samples).
REFERENCE_BUNDLER = "/usr/lib/llvm-22/bin/clang-offload-bundler"


def u64(value):
    return struct.pack("<Q", value & U64_MAX)


def raw_binary_bundle(count, entries, tail=b""):
    """A binary header from literal fields: entries are (offset, size,
    id_length, id_bytes) written as given, however inconsistent."""
    data = MAGIC + u64(count)
    for offset, size, id_length, entry_id in entries:
        data += u64(offset) + u64(size) + u64(id_length) + entry_id
    return data + tail


def field_positions(ids):
    """Byte offsets of the count and of each entry's three u64 fields in a
    bundle made by binary_bundle(ids, ...)."""
    positions = {"count": len(MAGIC)}
    pos = len(MAGIC) + 8
    for index, entry_id in enumerate(ids):
        positions[(index, "offset")] = pos
        positions[(index, "size")] = pos + 8
        positions[(index, "id_length")] = pos + 16
        pos += 24 + len(entry_id)
    positions["header_end"] = pos
    return positions


def set_u64(data, position, value):
    return data[:position] + u64(value) + data[position + 8:]


def start_marker(comment, entry_id):
    return f"\n{comment} __CLANG_OFFLOAD_BUNDLE____START__ {entry_id}\n"


def end_marker(comment, entry_id):
    return f"\n{comment} __CLANG_OFFLOAD_BUNDLE____END__ {entry_id}\n"


def text_bundle(comment, ids, payloads):
    out = []
    for entry_id, payload in zip(ids, payloads):
        out += [start_marker(comment, entry_id).encode(), payload,
                end_marker(comment, entry_id).encode()]
    return b"".join(out)


VALID_BINARY = binary_bundle([i.encode() for i in STORED_IDS], PAYLOADS)
VALID_FIELDS = field_positions([i.encode() for i in STORED_IDS])
HEADER_END = VALID_FIELDS["header_end"]

# ---------------------------------------------------------------------------
# Cases


class Dir:
    """A folder to create in the scratch tree."""

    def __init__(self, read_only=False):
        self.read_only = read_only


class ReadOnlyFile:
    """A file created with mode 0444."""

    def __init__(self, data):
        self.data = data


MUST_FAIL = "must fail"
MAY_FAIL = "may fail"

PRE_EXISTING = b"pre-existing output bytes that a failed run must keep\n"


class Case:
    def __init__(self, name, files, args, expect, outputs=(),
                 slice_source=None, needs_read_only=False, stdin=None,
                 file_size_limit=None, setup=None, argv0=None,
                 memory_limit=None, payload_sources=None, timeout=None):
        self.name = name
        self.files = files  # relative path -> bytes | Dir | ReadOnlyFile
        self.args = args  # arguments after argv0
        self.expect = expect
        # Paths a successful run may create or replace.
        self.outputs = list(outputs)
        # When set, every output of a successful run must be a byte slice of
        # this input: anything else came from outside the input.
        self.slice_source = slice_source
        # When set (a list of bytes), every output of a successful run must
        # be a byte slice of one of these: for compressed input, whose file
        # bytes are not what a correct unbundle writes.
        self.payload_sources = payload_sources
        # Seconds before the run counts as a hang, when not the default.
        self.timeout = timeout
        # Relies on permission bits denying writes (which root ignores).
        self.needs_read_only = needs_read_only
        self.stdin = stdin  # bytes, or the path of a file to read from
        self.file_size_limit = file_size_limit
        # Address-space limit in bytes, so that an input without end makes
        # the tool run out of memory quickly instead of exhausting the host.
        self.memory_limit = memory_limit
        # Called with the scratch folder after the files exist, for
        # ownership changes; such cases run the tool as an unprivileged user
        # and need root to set up (they are skipped otherwise).
        self.setup = setup
        # Run with this argv[0] instead of the tool's path.
        self.argv0 = argv0


def with_outputs(files, outputs):
    """The files plus every output pre-created with known bytes."""
    files = dict(files)
    for output in outputs:
        files.setdefault(output, PRE_EXISTING)
    return files


def list_case(name, file_type, data, expect):
    return Case(name, {"in.bundle": data},
                [f"-type={file_type}", "-list", "-input=in.bundle"], expect)


def unbundle_case(name, file_type, data, expect, targets=TARGETS,
                  allow_missing=False):
    count = len(targets.split(","))
    outputs = [f"out{n}" for n in range(1, count + 1)]
    args = [f"-type={file_type}", "-unbundle", "-input=in.bundle",
            f"-targets={targets}"] + [f"-output={o}" for o in outputs]
    if allow_missing:
        args.append("-allow-missing-bundles")
    return Case(name, with_outputs({"in.bundle": data}, outputs), args,
                expect, outputs=outputs, slice_source="in.bundle")


def both_modes(name, file_type, data, list_expect, unbundle_expect=None):
    """The same input read by -list and by -unbundle of every entry."""
    if unbundle_expect is None:
        unbundle_expect = list_expect
    return [list_case(f"{name} [list]", file_type, data, list_expect),
            unbundle_case(f"{name} [unbundle]", file_type, data,
                          unbundle_expect)]


def binary_truncation_cases():
    """The valid 3-entry bundle cut at every length up to its last byte."""
    cases = []
    for length in range(len(VALID_BINARY)):
        data = VALID_BINARY[:length]
        # Without the full magic the input is not a bundle: -list may print
        # nothing and succeed, as LLVM does. With the magic, any cut leaves a
        # header or payload that points past the end: a definite error.
        list_expect = MAY_FAIL if length < len(MAGIC) else MUST_FAIL
        where = "header" if length < HEADER_END else "payloads"
        cases += both_modes(f"binary bc truncated to {length} bytes ({where})",
                            "bc", data, list_expect, MUST_FAIL)
    # The fallback of -type=o for non-object content reads the same format.
    for length in range(len(MAGIC), HEADER_END, 7):
        cases.append(list_case(f"binary o truncated to {length} bytes [list]",
                               "o", VALID_BINARY[:length], MUST_FAIL))
    return cases


def binary_header_field_cases():
    """Hostile values in the count and in each entry's fields."""
    cases = []
    size = len(VALID_BINARY)
    capacity = (size - len(MAGIC) - 8) // 24
    for label, count in [("2^63", 2**63), ("2^64-1", U64_MAX),
                         ("2^32", 2**32), ("2^61+1 (x24 wraps)", 2**61 + 1),
                         (f"{capacity + 1} (more than the file holds)",
                          capacity + 1),
                         ("4 (one more than present)", 4)]:
        data = set_u64(VALID_BINARY, VALID_FIELDS["count"], count)
        cases += both_modes(f"binary entry count {label}", "bc", data,
                            MUST_FAIL)
    # Zero entries is a well-formed, empty bundle; unbundling finds nothing.
    cases += both_modes("binary entry count 0", "bc",
                        set_u64(VALID_BINARY, VALID_FIELDS["count"], 0),
                        MAY_FAIL, MUST_FAIL)

    hostile = {
        "offset": [("0", 0, MUST_FAIL),
                   ("file size with its payload size", size, MUST_FAIL),
                   ("file size + 1", size + 1, MUST_FAIL),
                   ("2^63", 2**63, MUST_FAIL),
                   ("2^64-1 (offset+size wraps)", U64_MAX, MUST_FAIL),
                   ("2^64-4 (offset+size wraps to small)", U64_MAX - 3,
                    MUST_FAIL)],
        "size": [("file size + 1", size + 1, MUST_FAIL),
                 ("one past the end", None, MUST_FAIL),
                 ("2^63", 2**63, MUST_FAIL),
                 ("2^64-1 (offset+size wraps)", U64_MAX, MUST_FAIL),
                 ("0", 0, MAY_FAIL)],
        "id_length": [("2^63", 2**63, MUST_FAIL),
                      ("2^64-1 (position+length wraps)", U64_MAX, MUST_FAIL),
                      ("2^64-40 (wraps to a small position)", 2**64 - 40,
                       MUST_FAIL),
                      ("file size", size, MUST_FAIL),
                      ("0", 0, MAY_FAIL),
                      ("one more", None, MAY_FAIL)],
    }
    for index in range(3):
        for field, values in hostile.items():
            position = VALID_FIELDS[(index, field)]
            original = struct.unpack_from("<Q", VALID_BINARY, position)[0]
            for label, value, expect in values:
                if value is None and field == "size":
                    offset = struct.unpack_from(
                        "<Q", VALID_BINARY, VALID_FIELDS[(index, "offset")])[0]
                    value = size - offset + 1
                elif value is None:
                    value = original + 1
                data = set_u64(VALID_BINARY, position, value)
                cases += both_modes(
                    f"binary entry {index + 1} {field} {label}", "bc", data,
                    expect)

    # Offset exactly at the end with size 0 is inside the file.
    cases += both_modes(
        "binary empty payload at end of file", "bc",
        raw_binary_bundle(1, [(len(MAGIC) + 8 + 24 + len(STORED_IDS[0]), 0,
                               len(STORED_IDS[0]), STORED_IDS[0].encode())]),
        MAY_FAIL)
    # An ID holding a newline must not split the error message in two.
    newline_id = b"bad\nentry-id"
    cases += both_modes(
        "binary out-of-range entry whose ID contains a newline", "bc",
        raw_binary_bundle(1, [(10**6, 4, len(newline_id), newline_id)]),
        MUST_FAIL)
    # Magic alone, and magic with the count but no entries.
    cases += both_modes("binary magic only", "bc", MAGIC, MUST_FAIL)
    cases += both_modes("binary count 1 and nothing else", "bc",
                        MAGIC + u64(1), MUST_FAIL)
    # A repeated ID is legal (the last offset wins) and must not confuse.
    dup = binary_bundle([STORED_IDS[0].encode()] * 2 + [GFX906.encode()],
                        [b"first", b"second", b"dev"])
    cases += both_modes("binary repeated entry ID", "bc", dup, MAY_FAIL)
    # Many tiny entries: must finish quickly (no quadratic walk).
    many_ids = [f"hip-amdgcn-amd-amdhsa--gfx{n}".encode()
                for n in range(20000)]
    cases.append(list_case("binary 20000 entries [list]", "bc",
                           binary_bundle(many_ids, [b"x"] * len(many_ids)),
                           MAY_FAIL))
    # A compressed-bundle magic with nothing behind it, and a truncated ELF
    # for -type=o. Listing may treat either as "not a bundle" and print
    # nothing, as LLVM does; unbundling finds no host entry in them.
    cases += both_modes("compressed bundle magic only", "bc", b"CCOB",
                        MAY_FAIL, MUST_FAIL)
    cases += both_modes("compressed bundle truncated header", "bc",
                        b"CCOB\x03\x00\x01\x00\xff\xff", MAY_FAIL, MUST_FAIL)
    cases += both_modes("object type with truncated ELF", "o",
                        b"\x7fELF\x02\x01\x01" + b"\0" * 9, MAY_FAIL,
                        MUST_FAIL)
    return cases


INTERESTING_U64 = [0, 1, 7, 8, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63,
                   U64_MAX, U64_MAX - 7]


def corrupt_binary(rng, data):
    """One random corruption of a valid bundle, biased towards the header
    (which is where a reader can go wrong) but sometimes hitting payloads."""
    data = bytearray(data)
    kind = rng.choice(["bit flips", "header bytes", "field value",
                       "truncation", "truncation and flips", "junk appended",
                       "payload bytes"])

    def header_position():
        if rng.random() < 0.85:
            return rng.randrange(len(MAGIC), HEADER_END)
        return rng.randrange(len(data))

    if kind in ("bit flips", "truncation and flips"):
        for _ in range(rng.randint(1, 4)):
            position = header_position()
            data[position] ^= 1 << rng.randrange(8)
    if kind == "header bytes":
        for _ in range(rng.randint(1, 4)):
            data[header_position()] = rng.choice(
                [0x00, 0xff, 0x7f, 0x80, 0x0a, rng.randrange(256)])
    if kind == "field value":
        fields = [key for key in VALID_FIELDS if key != "header_end"]
        key = rng.choice(fields)
        value = rng.choice(INTERESTING_U64 + [len(data) - 1, len(data),
                                              len(data) + 1,
                                              rng.getrandbits(64)])
        data = bytearray(set_u64(bytes(data), VALID_FIELDS[key], value))
    if kind in ("truncation", "truncation and flips"):
        data = data[:rng.randrange(len(data))]
    if kind == "junk appended":
        data += rng.randbytes(rng.randint(1, 64))
    if kind == "payload bytes":
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(HEADER_END, len(data))] = rng.randrange(256)
    return kind, bytes(data)


def random_binary_cases(rng, count):
    cases = []
    for number in range(count):
        file_type = rng.choice(["bc", "bc", "bc", "gch", "ast", "o"])
        kind, data = corrupt_binary(rng, VALID_BINARY)
        name = f"random binary #{number} ({kind}, -type={file_type})"
        cases.append(list_case(f"{name} [list]", file_type, data, MAY_FAIL))
        cases.append(unbundle_case(f"{name} [unbundle]", file_type, data,
                                   MAY_FAIL, allow_missing=number % 2 == 1))
    return cases


def text_cases(rng):
    cases = []
    # An entry with no end marker, in every text type: LLVM's reader walks
    # off the end of the buffer here (-list loops, -unbundle writes memory
    # that follows the input).
    for file_type, c in TEXT_COMMENTS.items():
        t = f"text -type={file_type}"
        no_end = start_marker(c, STORED_IDS[0]).encode() + b"payload, no end\n"
        cases += both_modes(f"{t} start marker without end marker", file_type,
                            no_end, MUST_FAIL)
        cases.append(unbundle_case(
            f"{t} start marker without end marker, only that entry "
            f"[unbundle]", file_type, no_end, MUST_FAIL, targets=HOST))

    # The other shapes for one type per comment style.
    for file_type in ["i", "d", "ll"]:
        c = TEXT_COMMENTS[file_type]
        valid = text_bundle(c, STORED_IDS, PAYLOADS)
        t = f"text -type={file_type}"

        middle_broken = (text_bundle(c, STORED_IDS[:1], PAYLOADS[:1]) +
                         start_marker(c, GFX906).encode() + PAYLOADS[1] +
                         text_bundle(c, STORED_IDS[2:], PAYLOADS[2:])
                         .replace(b"__END__", b"__ENX__"))
        cases += both_modes(f"{t} last two entries missing end markers",
                            file_type, middle_broken, MUST_FAIL)

        at_eof = valid + start_marker(c, GFX906).encode().rstrip(b"\n")
        cases += both_modes(f"{t} start marker at EOF without newline",
                            file_type, at_eof, MAY_FAIL)
        bare_eof = start_marker(c, HOST).encode().rstrip(b"\n")
        cases += both_modes(f"{t} lone start marker at EOF without newline",
                            file_type, bare_eof, MAY_FAIL)

        end_at_eof = valid.rstrip(b"\n")
        cases += both_modes(f"{t} last end marker without newline",
                            file_type, end_at_eof, MAY_FAIL)

        nested = (start_marker(c, STORED_IDS[0]) + "outer\n" +
                  start_marker(c, GFX906) + "inner\n" +
                  end_marker(c, GFX906) + end_marker(c, STORED_IDS[0]))
        cases += both_modes(f"{t} nested markers", file_type,
                            nested.encode(), MAY_FAIL)

        duplicated = valid + text_bundle(c, STORED_IDS, [b"2nd"] * 3)
        cases += both_modes(f"{t} every entry twice", file_type, duplicated,
                            MAY_FAIL)

        doubled_start = (start_marker(c, STORED_IDS[0]) +
                         start_marker(c, STORED_IDS[0]) + "x" +
                         end_marker(c, STORED_IDS[0])).encode()
        cases += both_modes(f"{t} start marker repeated", file_type,
                            doubled_start, MAY_FAIL)

        end_only = (end_marker(c, STORED_IDS[0]) * 3).encode()
        cases += both_modes(f"{t} end markers without start", file_type,
                            end_only, MAY_FAIL)

        empty_id = (start_marker(c, "") + "x" + end_marker(c, "")).encode()
        cases += both_modes(f"{t} empty entry ID", file_type, empty_id,
                            MAY_FAIL)

        crlf = valid.replace(b"\n", b"\r\n")
        cases += both_modes(f"{t} CRLF line endings", file_type, crlf,
                            MAY_FAIL)

        # Random edits of a valid bundle: cut, delete, duplicate, overwrite.
        for number in range(20):
            data = bytearray(valid)
            for _ in range(rng.randint(1, 3)):
                position = rng.randrange(len(data))
                edit = rng.randrange(4)
                if edit == 0:
                    data = data[:position]
                elif edit == 1:
                    del data[position:position + rng.randint(1, 40)]
                elif edit == 2:
                    data[position:position] = data[position:position + 50]
                elif data:
                    data[position % len(data)] = rng.choice(b"\n /_ASx")
                if not data:
                    break
            cases += both_modes(f"{t} random edit #{number}", file_type,
                                bytes(data), MAY_FAIL)

    # Megabytes of noise, with and without scattered marker fragments.
    noise = rng.randbytes(4 << 20)
    cases += both_modes("text huge random bytes", "i", noise, MAY_FAIL)
    pieces = []
    for _ in range(2000):
        pieces.append(rng.randbytes(rng.randint(0, 2000)))
        pieces.append(rng.choice([start_marker("//", HOST + "-"),
                                  end_marker("//", HOST + "-"),
                                  start_marker("//", GFX906),
                                  "\n// __CLANG_OFFLOAD_BUNDLE____"]).encode())
    cases += both_modes("text huge random bytes with marker fragments", "i",
                        b"".join(pieces), MAY_FAIL)
    many = text_bundle("//", [f"{GFX906}-{n}" for n in range(50000)],
                       [b"x"] * 50000)
    cases.append(list_case("text 50000 entries [list]", "i", many, MAY_FAIL))
    return cases


def bundle_args(file_type, inputs, output, targets=TARGETS, extra=()):
    return ([f"-type={file_type}", f"-targets={targets}"] +
            [f"-input={i}" for i in inputs] + [f"-output={output}"] +
            list(extra))


INPUT_FILES = {"host.in": PAYLOADS[0], "gfx906.in": PAYLOADS[1],
               "gfx908.in": PAYLOADS[2]}
INPUT_NAMES = list(INPUT_FILES)


def alignment_cases():
    cases = []
    files = with_outputs(INPUT_FILES, ["out.bundle"])
    for file_type in ["bc", "gch", "ast", "o"]:
        cases.append(Case(f"bundle -type={file_type} -bundle-align=0", files,
                          bundle_args(file_type, INPUT_NAMES, "out.bundle",
                                      extra=["-bundle-align=0"]),
                          MUST_FAIL, outputs=["out.bundle"]))
    # Alignment is unused by text bundles, so 0 may be accepted there.
    for file_type in ["i", "ll", "s"]:
        cases.append(Case(f"bundle -type={file_type} -bundle-align=0", files,
                          bundle_args(file_type, INPUT_NAMES, "out.bundle",
                                      extra=["-bundle-align=0"]),
                          MAY_FAIL, outputs=["out.bundle"]))
    # A 4 GiB alignment pads with gigabytes of zeros; under a 16 MiB file
    # size limit the write fails part-way, and that failure must still leave
    # the old output intact and no temporary behind.
    cases.append(Case("bundle -bundle-align=4294967295 hits the file size "
                      "limit", files,
                      bundle_args("bc", INPUT_NAMES, "out.bundle",
                                  extra=["-bundle-align=4294967295"]),
                      MUST_FAIL, outputs=["out.bundle"],
                      file_size_limit=16 << 20))
    return cases


def unwritable_output_cases():
    """Outputs that cannot be written, alone and as the second of three."""
    cases = []
    # Each: label, extra files, the unwritable path, needs read-only bits.
    unwritable = [
        ("in a missing folder", {}, "no-such-folder/out", False),
        ("under a regular file", {"plain-file": b"data\n"},
         "plain-file/out", False),
        ("that is an existing folder", {"a-folder": Dir()}, "a-folder",
         False),
        ("that is a non-empty folder",
         {"full-folder/keep": b"keep me\n"}, "full-folder", False),
        ("in a read-only folder", {"locked": Dir(read_only=True)},
         "locked/out", True),
        ("that is a read-only file",
         {"locked-file": ReadOnlyFile(b"locked\n")}, "locked-file", True),
    ]
    for label, extra, bad, needs_read_only in unwritable:
        files = dict(INPUT_FILES, **extra)
        for file_type in ["bc", "i"]:
            cases.append(Case(
                f"bundle -type={file_type} output {label}", files,
                bundle_args(file_type, INPUT_NAMES, bad), MUST_FAIL,
                needs_read_only=needs_read_only))
        # Unbundle into three outputs, the second unwritable. The first and
        # third exist with known bytes (the first in its own folder, so a
        # temporary left beside it is seen) and must keep them.
        for file_type, bundle in [("bc", VALID_BINARY),
                                  ("i", text_bundle("//", STORED_IDS,
                                                    PAYLOADS))]:
            outputs = ["first/out1", bad, "out3"]
            unbundle_files = dict(extra)
            unbundle_files["in.bundle"] = bundle
            unbundle_files = with_outputs(unbundle_files,
                                          ["first/out1", "out3"])
            cases.append(Case(
                f"unbundle -type={file_type} second output {label}",
                unbundle_files,
                [f"-type={file_type}", "-unbundle", "-input=in.bundle",
                 f"-targets={TARGETS}"] + [f"-output={o}" for o in outputs],
                MUST_FAIL, needs_read_only=needs_read_only))

    # Another user's world-writable file in a sticky folder (like /tmp): it
    # may be written in place (as LLVM does), but not replaced by renaming a
    # temporary onto it. A tool that renames finds that out only at the very
    # end, after every earlier check passed; it may then fail, but outputs it
    # renamed before must not have been replaced already. Which output is
    # renamed first depends on the tool, so the file takes each position.
    for position in range(3):
        outputs = ["mine/out1", "mine/out2", "mine/out3"]
        outputs[position] = "shared/others-file"
        files = with_outputs({"in.bundle": VALID_BINARY}, outputs)
        cases.append(Case(
            f"unbundle output {position + 1} of 3 is another user's writable "
            f"file in a sticky folder", files,
            ["-type=bc", "-unbundle", "-input=in.bundle",
             f"-targets={TARGETS}"] + [f"-output={o}" for o in outputs],
            MAY_FAIL, outputs=outputs, slice_source="in.bundle",
            setup=hand_to_unprivileged_user_except_shared))
    return cases


def unprivileged_ids():
    try:
        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return 65534, 65534


def hand_to_unprivileged_user_except_shared(root):
    """Gives the case folder to the unprivileged user, except "shared": a
    root-owned sticky folder holding a root-owned, world-writable file."""
    uid, gid = unprivileged_ids()
    os.chmod(root, 0o755)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, gid)
    os.chown(root, uid, gid)
    shared = os.path.join(root, "shared")
    os.chown(shared, 0, 0)
    os.chmod(shared, 0o1777)
    others = os.path.join(shared, "others-file")
    os.chown(others, 0, 0)
    os.chmod(others, 0o666)


def bad_input_file_cases():
    cases = []
    files = with_outputs(dict(INPUT_FILES, **{"a-folder": Dir()}),
                         ["out.bundle"])
    unbundle_outputs = ["out1", "out2", "out3"]
    for file_type in ["bc", "i"]:
        for label, path in [("missing", "no-such-input"),
                            ("a folder", "a-folder"),
                            ("in a missing folder", "no-such-folder/in"),
                            ("under a regular file", "host.in/in"),
                            ("named with a newline", "no-such\ninput")]:
            inputs = [INPUT_NAMES[0], path, INPUT_NAMES[2]]
            cases.append(Case(
                f"bundle -type={file_type} second input {label}", files,
                bundle_args(file_type, inputs, "out.bundle"), MUST_FAIL,
                outputs=["out.bundle"]))
            cases.append(Case(
                f"list -type={file_type} input {label}", files,
                [f"-type={file_type}", "-list", f"-input={path}"], MUST_FAIL))
            cases.append(Case(
                f"unbundle -type={file_type} input {label}",
                with_outputs(files, unbundle_outputs),
                [f"-type={file_type}", "-unbundle", f"-input={path}",
                 f"-targets={TARGETS}"] +
                [f"-output={o}" for o in unbundle_outputs], MUST_FAIL))
    return cases


def preserved_output_cases():
    """Failures at later stages must still leave the outputs alone."""
    cases = []
    count_huge = set_u64(VALID_BINARY, VALID_FIELDS["count"], 2**63)
    last_cut = VALID_BINARY[:-1]
    for label, data in [("entry count 2^63", count_huge),
                        ("last payload cut short", last_cut)]:
        cases.append(unbundle_case(f"unbundle corrupt bundle ({label}) keeps "
                                   f"outputs", "bc", data, MUST_FAIL))
    # Every entry is readable but one requested target is absent.
    cases.append(unbundle_case(
        "unbundle with a target not in the bundle keeps outputs", "bc",
        VALID_BINARY, MUST_FAIL,
        targets=f"{HOST},{GFX906},hip-amdgcn-amd-amdhsa--gfx1030"))
    # The output names the input itself: a failing run must not destroy it.
    cases.append(Case(
        "unbundle failing with an output that is the input", {
            "in.bundle": count_huge, "out2": PRE_EXISTING},
        ["-type=bc", "-unbundle", "-input=in.bundle", f"-targets={HOST},"
         f"{GFX906}", "-output=in.bundle", "-output=out2"], MUST_FAIL))
    cases.append(Case(
        "bundle failing with an output that is the first input",
        dict(INPUT_FILES),
        bundle_args("bc", [INPUT_NAMES[0], "no-such-input", INPUT_NAMES[2]],
                    INPUT_NAMES[0]), MUST_FAIL))
    # Usage errors detected before anything is read.
    files = with_outputs(INPUT_FILES, ["out.bundle"])
    cases.append(Case(
        "bundle with fewer targets than inputs keeps output", files,
        bundle_args("bc", INPUT_NAMES, "out.bundle",
                    targets=f"{HOST},{GFX906}"), MUST_FAIL))
    cases.append(Case(
        "bundle with two host targets keeps output", files,
        bundle_args("bc", INPUT_NAMES, "out.bundle",
                    targets=f"{HOST},{HOST},{GFX906}"), MUST_FAIL))
    # A corrupt bundle read from standard input.
    # The error line must name the program as it was invoked.
    cases.append(Case(
        "error line names the program by its argv[0]", {},
        ["-type=bc", "-list", "-input=no-such-input"], MUST_FAIL,
        argv0="renamed-bundler"))
    cases.append(Case(
        "list corrupt bundle from standard input", {},
        ["-type=bc", "-list", "-input=-"], MUST_FAIL, stdin=last_cut))
    cases.append(Case(
        "unbundle corrupt bundle from standard input keeps outputs",
        {"out1": PRE_EXISTING},
        ["-type=bc", "-unbundle", "-input=-", f"-targets={HOST}",
         "-output=out1"], MUST_FAIL, stdin=count_huge))
    return cases


def device_cases():
    """Inputs without end and outputs that refuse every write."""
    cases = []
    if os.path.exists("/dev/zero"):
        # Not a regular file, so the tool cannot know its size up front; an
        # input that never ends must be refused, not read until memory runs
        # out and the process aborts. The 512 MiB address-space limit only
        # keeps a failing tool from exhausting the host (it would also stop
        # a sanitizer build from starting, so run these on plain builds).
        limit = 512 << 20
        cases.append(Case("list an endless input (/dev/zero)", {},
                          ["-type=bc", "-list", "-input=/dev/zero"],
                          MUST_FAIL, memory_limit=limit))
        cases.append(Case(
            "unbundle an endless standard input keeps outputs",
            {"out1": PRE_EXISTING},
            ["-type=bc", "-unbundle", "-input=-", f"-targets={HOST}",
             "-output=out1"], MUST_FAIL, stdin="/dev/zero",
            memory_limit=limit))
    if os.path.exists("/dev/full"):
        # Every write to /dev/full fails with "no space left on device".
        cases.append(Case(
            "bundle into /dev/full", dict(INPUT_FILES),
            bundle_args("bc", INPUT_NAMES, "/dev/full"), MUST_FAIL))
        for position in range(2):
            outputs = ["out1", "out2"]
            outputs[position] = "/dev/full"
            cases.append(Case(
                f"unbundle with output {position + 1} of 2 /dev/full keeps "
                f"the other", with_outputs({"in.bundle": VALID_BINARY},
                                           ["out1", "out2"]),
                ["-type=bc", "-unbundle", "-input=in.bundle",
                 f"-targets={HOST},{GFX906}"] +
                [f"-output={o}" for o in outputs], MUST_FAIL))
    return cases


# ---------------------------------------------------------------------------
# Compressed bundles ("CCOB")
#
# A compressed bundle is a header (magic, u16 version, u16 method, then the
# sizes and hash of its version) and one zlib stream or zstd frames holding a
# whole uncompressed bundle. The hash is the first 8 bytes of the MD5 of the
# uncompressed bytes, little-endian; version 2 and 3 headers give the total
# size (header included), so such bundles may be concatenated, while a
# version 1 bundle runs to the end of the input.
#
# What the tool writes when unbundling is decompressed, not a slice of the
# input file, so a successful run is checked against the real payloads
# instead: any other output was decoded from damaged data that the header's
# size and hash should have caught.

CCOB_HEADER_SIZES = {1: 20, 2: 24, 3: 32}
# (offset, width) of each header field, by version.
CCOB_FIELDS = {
    1: {"version": (4, 2), "method": (6, 2), "uncompressed size": (8, 4),
        "hash": (12, 8)},
    2: {"version": (4, 2), "method": (6, 2), "total size": (8, 4),
        "uncompressed size": (12, 4), "hash": (16, 8)},
    3: {"version": (4, 2), "method": (6, 2), "total size": (8, 8),
        "uncompressed size": (16, 8), "hash": (24, 8)},
}
# Every compressed case runs under this address-space limit: a reader that
# trusts a header's size claim, or a decompression bomb, then fails to
# allocate within a second instead of exhausting the host. A tool that does
# not catch that failure dies of SIGABRT, which the judge reports as a crash.
COMPRESSED_MEMORY_LIMIT = 1 << 30
# The uncompressed content of the text (-type=ll) sample.
TEXT_LL_BUNDLE = text_bundle(TEXT_COMMENTS["ll"], STORED_IDS, PAYLOADS)
# Payloads of a second bundle, so that concatenated bundles are told apart.
OTHER_PAYLOADS = [b"second-host-payload\n", b"second-gfx906\n", b"2nd-908\n"]
OTHER_BINARY = binary_bundle([i.encode() for i in STORED_IDS], OTHER_PAYLOADS)


def put_uint(data, position, width, value):
    """data with the little-endian field at position replaced (the value is
    cut to the field's width, as a writer storing it would)."""
    value &= (1 << (8 * width)) - 1
    return (data[:position] + value.to_bytes(width, "little") +
            data[position + width:])


def ccob_header(version, method, uncompressed_size, hash_value,
                total_size=None):
    """A header from literal values, however inconsistent."""
    header = CCOB_MAGIC + bytes(CCOB_HEADER_SIZES[version] - 4)
    values = {"version": version, "method": method,
              "total size": total_size, "uncompressed size":
              uncompressed_size, "hash": hash_value}
    for field, (position, width) in CCOB_FIELDS[version].items():
        header = put_uint(header, position, width, values[field])
    return header


def compressed_bundle(version, method, compressed, content):
    """A well-formed header for `content` in front of its compressed data."""
    return ccob_header(version, method, len(content), truncated_md5(content),
                       CCOB_HEADER_SIZES[version] + len(compressed)
                       ) + compressed


def zlib_bundle(version, content):
    return compressed_bundle(version, ZLIB, zlib.compress(content, 6),
                             content)


def set_ccob_field(data, version, field, value):
    position, width = CCOB_FIELDS[version][field]
    return put_uint(data, position, width, value)


def zstd_frame(blocks, content_size=None, window_log=17):
    """A zstd frame written by hand, for shapes no compressor emits: blocks
    are ("raw", bytes) or ("rle", byte, count) (count at most 128 KiB); the
    frame content size is stored only when given."""
    descriptor = 0
    content_size_field = b""
    if content_size is not None:
        descriptor |= 3 << 6  # an 8-byte frame content size
        content_size_field = u64(content_size)
    # Not single-segment, so a window descriptor follows (mantissa 0).
    out = [struct.pack("<I", 0xFD2FB528), bytes([descriptor]),
           bytes([(window_log - 10) << 3]), content_size_field]
    for index, block in enumerate(blocks):
        last = 1 if index == len(blocks) - 1 else 0
        if block[0] == "raw":
            out += [(last | len(block[1]) << 3).to_bytes(3, "little"),
                    block[1]]
        else:
            _, byte, count = block
            out += [(last | 1 << 1 | count << 3).to_bytes(3, "little"),
                    bytes([byte])]
    return b"".join(out)


class CompressedSample:
    """A valid compressed bundle and what it decompresses to."""

    def __init__(self, label, file_type, version, method, data, content,
                 payloads=PAYLOADS):
        self.label = label
        self.file_type = file_type
        self.version = version
        self.method = method
        self.data = data
        self.content = content
        self.payloads = list(payloads)
        self.header_size = CCOB_HEADER_SIZES[version]


def check_sample(sample):
    """Refuses to test with a sample whose header does not describe the
    content the suite expects (a wrong maker would make every verdict
    meaningless)."""
    data = sample.data
    fields = {field: int.from_bytes(data[pos:pos + width], "little")
              for field, (pos, width) in CCOB_FIELDS[sample.version].items()}
    expected = {"version": sample.version, "method": sample.method,
                "uncompressed size": len(sample.content),
                "hash": truncated_md5(sample.content)}
    if "total size" in fields:
        expected["total size"] = len(data)
    if not data.startswith(CCOB_MAGIC) or fields != expected:
        sys.exit(f"error: the {sample.label} bundle made for the compressed "
                 f"cases has header {fields}, expected {expected}")


def make_compressed_samples(maker):
    """The valid bundles the compressed cases start from: zstd ones made by
    `maker` (a clang-offload-bundler -compress), zlib ones made here."""
    folder = tempfile.mkdtemp(prefix="bundler-bad-input-ccob-")
    samples = []
    try:
        for name, payload in INPUT_FILES.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(payload)
        for label, file_type, version, content in [
                ("zstd v3", "bc", 3, VALID_BINARY),
                ("zstd v2", "bc", 2, VALID_BINARY),
                ("zstd v3 text", "ll", 3, TEXT_LL_BUNDLE)]:
            env = dict(os.environ)
            env.pop("COMPRESSED_BUNDLE_FORMAT_VERSION", None)
            if version == 2:
                env["COMPRESSED_BUNDLE_FORMAT_VERSION"] = "2"
            output = os.path.join(folder, f"{label}.ccob".replace(" ", "-"))
            result = subprocess.run(
                [maker] + bundle_args(file_type, INPUT_NAMES, output,
                                      extra=["-compress"]),
                cwd=folder, env=env, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, timeout=60)
            if result.returncode != 0:
                sys.exit(f"error: {maker} could not make the {label} bundle: "
                         f"{result.stderr.decode(errors='replace')}")
            with open(output, "rb") as f:
                samples.append(CompressedSample(label, file_type, version,
                                                ZSTD, f.read(), content))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for version in (1, 2, 3):
        samples.append(CompressedSample(f"zlib v{version}", "bc", version,
                                        ZLIB, zlib_bundle(version,
                                                          VALID_BINARY),
                                        VALID_BINARY))
    for sample in samples:
        check_sample(sample)
    return {sample.label: sample for sample in samples}


def compressed_modes(name, file_type, data, list_expect, unbundle_expect,
                     payloads=PAYLOADS, targets=TARGETS, timeout=None):
    """both_modes for compressed input: under the memory limit, and with
    outputs judged against the real payloads."""
    cases = [list_case(f"{name} [list]", file_type, data, list_expect),
             unbundle_case(f"{name} [unbundle]", file_type, data,
                           unbundle_expect, targets=targets)]
    for case in cases:
        case.memory_limit = COMPRESSED_MEMORY_LIMIT
        case.slice_source = None
        case.payload_sources = list(payloads)
        case.timeout = timeout
    return cases


def sample_modes(name, sample, data, list_expect, unbundle_expect):
    return compressed_modes(f"compressed {sample.label} {name}",
                            sample.file_type, data, list_expect,
                            unbundle_expect, payloads=sample.payloads)


def compressed_truncation_cases(samples):
    """Small bundles cut at every length, through header and data."""
    cases = []
    for label in ["zstd v3", "zlib v1"]:
        sample = samples[label]
        for length in range(len(sample.data)):
            if length < 8:
                # Shorter than magic, version and method: LLVM reads such
                # input as uncompressed, which is then no bundle at all.
                where, list_expect = "common header", MAY_FAIL
            elif length < sample.header_size:
                where, list_expect = "header", MUST_FAIL
            elif sample.version >= 2:
                # The header's total size says what is missing.
                where, list_expect = "data", MUST_FAIL
            else:
                # Version 1 has no total size, and -list may decode just the
                # inner bundle's header from the part still there.
                where, list_expect = "data", MAY_FAIL
            cases += sample_modes(f"truncated to {length} bytes ({where})",
                                  sample, sample.data[:length], list_expect,
                                  MUST_FAIL)
    return cases


def compressed_header_claim_cases(samples):
    """Hostile values in each header field of each kind of sample."""
    cases = []
    for sample in samples.values():
        version, data = sample.version, sample.data
        width = CCOB_FIELDS[version]["uncompressed size"][1]
        # A size claim that is wrong must be refused by -unbundle; -list
        # decodes only the inner bundle's header and need not notice.
        for label, size in [("0", 0), ("1", 1), ("2^32-1", 2**32 - 1),
                            ("2^62", 2**62), ("2^64-1", U64_MAX),
                            ("one less", len(sample.content) - 1),
                            ("one more", len(sample.content) + 1)]:
            if size >= 1 << (8 * width):
                continue  # does not fit a version 1 or 2 header
            cases += sample_modes(
                f"uncompressed size {label}", sample,
                set_ccob_field(data, version, "uncompressed size", size),
                MAY_FAIL, MUST_FAIL)
        if version >= 2:
            width = CCOB_FIELDS[version]["total size"][1]
            for label, size in [("0", 0),
                                ("header size - 1", sample.header_size - 1),
                                ("header size (no data)", sample.header_size),
                                ("file size + 1", len(data) + 1),
                                ("2^32-1", 2**32 - 1), ("2^64-1", U64_MAX)]:
                if size >= 1 << (8 * width):
                    continue
                cases += sample_modes(
                    f"total size {label}", sample,
                    set_ccob_field(data, version, "total size", size),
                    MUST_FAIL, MUST_FAIL)
        # Whatever -list does, a hash that does not match what decompresses
        # must stop -unbundle.
        real_hash = truncated_md5(sample.content)
        for label, value in [("low bit flipped", real_hash ^ 1),
                             ("high bit flipped", real_hash ^ (1 << 63)),
                             ("0", 0)]:
            cases += sample_modes(
                f"hash {label}", sample,
                set_ccob_field(data, version, "hash", value),
                MAY_FAIL, MUST_FAIL)
        for label, value in [("0", 0), ("4", 4), ("0xffff", 0xffff)]:
            cases += sample_modes(
                f"version {label}", sample,
                set_ccob_field(data, version, "version", value),
                MUST_FAIL, MUST_FAIL)
        # The other codec's decoder rejects the data's very first bytes.
        for label, value in [("2", 2), ("0xffff", 0xffff),
                             ("the other codec", ZLIB + ZSTD - sample.method)]:
            cases += sample_modes(
                f"method {label}", sample,
                set_ccob_field(data, version, "method", value),
                MUST_FAIL, MUST_FAIL)
    return cases


def expected_after_header_damage(sample, data):
    """(list, unbundle) expectations for a same-length corruption of a
    sample, judged by which bytes changed."""
    original = sample.data
    changed = [i for i in range(len(data)) if data[i] != original[i]]
    if any(i >= sample.header_size for i in changed):
        # Damaged data may still decode to the same bytes; if it does not,
        # the hash catches it, which the payload check verifies.
        return MAY_FAIL, MAY_FAIL
    # Every header field is determined by the data, so any header change
    # makes the bundle one that -unbundle must refuse.
    fields = CCOB_FIELDS[sample.version]

    def value(field):
        position, width = fields[field]
        return int.from_bytes(data[position:position + width], "little")

    if any(i < 4 for i in changed):
        # Without the magic the input is read as uncompressed: -list may
        # find no bundle and print nothing.
        return MAY_FAIL, MUST_FAIL
    if value("version") not in CCOB_HEADER_SIZES:
        return MUST_FAIL, MUST_FAIL
    if value("version") != sample.version:
        # Another known version reads the bytes in another layout.
        return MAY_FAIL, MUST_FAIL
    if value("method") != sample.method:
        return MUST_FAIL, MUST_FAIL
    if "total size" in fields and not (
            sample.header_size <= value("total size") <= len(data)):
        return MUST_FAIL, MUST_FAIL
    return MAY_FAIL, MUST_FAIL


CCOB_INTERESTING = [0, 1, 2, 3, 4, 0xff, 0x7fff, 0xffff, 2**31, 2**32 - 1,
                    2**32, 2**62, 2**63, U64_MAX]


def corrupt_compressed(rng, sample):
    """One random same-length corruption: bit flips or byte overwrites
    anywhere, or aimed at the header's fields."""
    data = bytearray(sample.data)
    kind = rng.choice(["bit flips", "byte overwrites", "header bit flips",
                       "header byte overwrites", "header field value"])

    def position():
        if kind.startswith("header"):
            return rng.randrange(4, sample.header_size)
        return rng.randrange(len(data))

    if kind.endswith("bit flips"):
        for _ in range(rng.randint(1, 4)):
            data[position()] ^= 1 << rng.randrange(8)
    elif kind.endswith("byte overwrites"):
        for _ in range(rng.randint(1, 3)):
            data[position()] = rng.choice(
                [0x00, 0xff, 0x7f, 0x80, rng.randrange(256)])
    else:
        field = rng.choice(sorted(CCOB_FIELDS[sample.version]))
        kind = f"{field} set"
        value = rng.choice(CCOB_INTERESTING + [
            len(sample.data) + rng.randint(-3, 3),
            len(sample.content) + rng.randint(-3, 3), rng.getrandbits(64)])
        data = bytearray(set_ccob_field(bytes(data), sample.version, field,
                                        value))
    return kind, bytes(data)


def random_compressed_cases(rng, samples, count):
    cases = []
    labels = sorted(samples)
    for number in range(count):
        sample = samples[labels[number % len(labels)]]
        kind, data = corrupt_compressed(rng, sample)
        if data == sample.data:
            continue  # e.g. a field set to the value it had
        list_expect, unbundle_expect = expected_after_header_damage(sample,
                                                                    data)
        cases += sample_modes(f"random #{number} ({kind})", sample, data,
                              list_expect, unbundle_expect)
    return cases


def concatenated_compressed_cases(samples):
    """Bundles laid end to end, whole or not. A reader may take only the
    first bundle, all of them or refuse the lot, but what it writes must be
    some bundle's real payloads."""
    zstd3, zstd2 = samples["zstd v3"].data, samples["zstd v2"].data
    text = samples["zstd v3 text"].data
    zlib1 = samples["zlib v1"].data
    other_zlib3 = zlib_bundle(3, OTHER_BINARY)
    other_zlib2 = zlib_bundle(2, OTHER_BINARY)
    both = PAYLOADS + OTHER_PAYLOADS
    shapes = [
        ("zstd v3 then zstd v2", "bc", zstd3 + zstd2, PAYLOADS),
        ("zlib v3 then zlib v2 of other payloads", "bc",
         samples["zlib v3"].data + other_zlib2, both),
        ("zstd v2 then zlib v3 of other payloads", "bc",
         zstd2 + other_zlib3, both),
        ("text zstd v3 twice", "ll", text + text, PAYLOADS),
        ("zstd v3 then garbage", "bc", zstd3 + b"garbage, not a bundle",
         PAYLOADS),
        # Zero padding, as an alignment in a containing file would leave.
        ("zstd v3 then 8 zero bytes", "bc", zstd3 + bytes(8), PAYLOADS),
        ("zstd v3 then a lone magic", "bc", zstd3 + CCOB_MAGIC, PAYLOADS),
        ("zstd v3 then a partial header", "bc", zstd3 + zstd2[:10],
         PAYLOADS),
        ("zstd v3 then a truncated zstd v2", "bc", zstd3 + zstd2[:50],
         PAYLOADS),
        ("zlib v3 then a truncated zlib v3 of other payloads", "bc",
         samples["zlib v3"].data + other_zlib3[:-5], both),
        # A version 1 bundle has no total size: its data runs to the end,
        # so whatever follows is trailing bytes of its zlib stream.
        ("zlib v1 then zstd v3", "bc", zlib1 + zstd3, PAYLOADS),
        ("zlib v1 then zlib v3 of other payloads", "bc",
         zlib1 + other_zlib3, both),
        ("zstd v3 then zlib v1 of other payloads", "bc",
         zstd3 + zlib_bundle(1, OTHER_BINARY), both),
    ]
    cases = []
    for label, file_type, data, payloads in shapes:
        cases += compressed_modes(f"concatenated {label}", file_type, data,
                                  MAY_FAIL, MAY_FAIL, payloads=payloads)

    # Many tiny bundles, each with its own host payload: one pass over them
    # must stay quick (no quadratic rescan, no per-bundle reservation).
    host_id = STORED_IDS[0].encode()
    tiny_payloads = [f"tiny host payload {n}\n".encode() for n in range(200)]
    tiny = b"".join(zlib_bundle(2 + n % 2, binary_bundle([host_id], [p]))
                    for n, p in enumerate(tiny_payloads))
    cases += compressed_modes("concatenated 200 tiny zlib v2/v3 bundles",
                              "bc", tiny, MAY_FAIL, MAY_FAIL,
                              payloads=tiny_payloads, targets=HOST)
    cases += compressed_modes("concatenated 200 zstd v3 bundles", "bc",
                              zstd3 * 200, MAY_FAIL, MAY_FAIL)
    return cases


BOMB_SIZE = 1 << 30
ZERO_CHUNK = bytes(1 << 20)


def padded_content_hash(size):
    """Hash of VALID_BINARY padded with zeros to `size` bytes, without
    holding those bytes."""
    digest = hashlib.md5(VALID_BINARY)
    left = size - len(VALID_BINARY)
    while left:
        step = min(left, len(ZERO_CHUNK))
        digest.update(memoryview(ZERO_CHUNK)[:step])
        left -= step
    return struct.unpack("<Q", digest.digest()[:8])[0]


def padded_zlib_data(size):
    compressor = zlib.compressobj(9)
    parts = [compressor.compress(VALID_BINARY)]
    left = size - len(VALID_BINARY)
    while left:
        step = min(left, len(ZERO_CHUNK))
        parts.append(compressor.compress(memoryview(ZERO_CHUNK)[:step]))
        left -= step
    parts.append(compressor.flush())
    return b"".join(parts)


def padded_zstd_frame(size, content_size):
    """VALID_BINARY as a raw block, then zeros as 128 KiB RLE blocks: about
    4 bytes per 128 KiB, far beyond what zlib's format allows."""
    blocks = [("raw", VALID_BINARY)]
    left = size - len(VALID_BINARY)
    while left:
        step = min(left, 128 << 10)
        blocks.append(("rle", 0, step))
        left -= step
    return zstd_frame(blocks, content_size=content_size)


def bomb_header(method, data, claimed_size, hash_value):
    return ccob_header(3, method, claimed_size, hash_value,
                       CCOB_HEADER_SIZES[3] + len(data)) + data


def decompression_bomb_cases():
    """Small inputs that decompress to a lot, or claim to.

    The content is the valid three-entry bundle padded with zeros (trailing
    bytes a binary bundle ignores), so a tool that does decompress it all
    can list and unbundle it; under the 1 GiB address-space limit it cannot
    hold 1 GiB twice, so it has to stream or fail cleanly."""
    cases = []
    bomb_hash = padded_content_hash(BOMB_SIZE)
    # zlib's format caps its ratio near 1032:1, so this is about 1 MiB.
    zlib_bomb = bomb_header(ZLIB, padded_zlib_data(BOMB_SIZE), BOMB_SIZE,
                            bomb_hash)
    zstd_bomb = bomb_header(ZSTD, padded_zstd_frame(BOMB_SIZE, BOMB_SIZE),
                            BOMB_SIZE, bomb_hash)
    # Decoding and hashing 1 GiB honestly takes a few seconds.
    for label, data in [("zlib", zlib_bomb), ("zstd", zstd_bomb)]:
        honest = compressed_modes(
            f"compressed {label} v3 decompressing to 1 GiB, claimed exactly",
            "bc", data, MAY_FAIL, MAY_FAIL, timeout=30)
        for case in honest:
            # Allocating all of an honest claim is right; under the memory
            # limit only an address-space limit lets it fail cleanly.
            case.allocates_up_to_limit = True
        cases += honest

    # 1 MiB of content under a header claiming 2^40 bytes: -unbundle must
    # notice the shortfall (with the default timeout: quickly, so without
    # touching 2^40 bytes of anything). -list decodes only the inner header.
    small = 1 << 20
    small_hash = padded_content_hash(small)
    for label, method, data in [
            ("zlib", ZLIB, padded_zlib_data(small)),
            ("zstd", ZSTD, padded_zstd_frame(small, small))]:
        cases += compressed_modes(
            f"compressed {label} v3 holding 1 MiB, claiming 2^40 bytes",
            "bc", bomb_header(method, data, 1 << 40, small_hash),
            MAY_FAIL, MUST_FAIL)
    # The zstd frame itself lies: its content size field claims 2^40 bytes
    # while the bundle header tells the truth, so a decoder sizing its
    # output from the frame is caught out.
    cases += compressed_modes(
        "compressed zstd v3 frame content size claiming 2^40 bytes", "bc",
        bomb_header(ZSTD, padded_zstd_frame(small, 1 << 40), small,
                    small_hash), MAY_FAIL, MUST_FAIL)
    # A frame without content size declaring a 2 GiB window: a decoder
    # allowing it must still fail cleanly when the window does not fit.
    big_window = zstd_frame([("raw", VALID_BINARY)], window_log=31)
    cases += compressed_modes(
        "compressed zstd v3 frame declaring a 2 GiB window", "bc",
        compressed_bundle(3, ZSTD, big_window, VALID_BINARY), MAY_FAIL,
        MAY_FAIL)
    return cases


def all_cases(seed, random_count, bundle_maker, compressed_random_count):
    rng = random.Random(seed)
    # A separate generator, so the compressed cases do not shift the others.
    compressed_rng = random.Random(f"{seed} compressed")
    samples = make_compressed_samples(bundle_maker)
    return (binary_truncation_cases() + binary_header_field_cases() +
            random_binary_cases(rng, random_count) + text_cases(rng) +
            alignment_cases() + unwritable_output_cases() +
            bad_input_file_cases() + preserved_output_cases() +
            device_cases() + compressed_truncation_cases(samples) +
            compressed_header_claim_cases(samples) +
            random_compressed_cases(compressed_rng, samples,
                                    compressed_random_count) +
            concatenated_compressed_cases(samples) +
            decompression_bomb_cases())

# ---------------------------------------------------------------------------
# Running and judging


def materialize(root, files):
    """Creates the case's files; read-only bits are applied last so the
    folders can still be filled first."""
    locked = []
    for path, content in sorted(files.items()):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if isinstance(content, Dir):
            os.makedirs(full, exist_ok=True)
            if content.read_only:
                locked.append(full)
        elif isinstance(content, ReadOnlyFile):
            with open(full, "wb") as f:
                f.write(content.data)
            os.chmod(full, 0o444)
        else:
            with open(full, "wb") as f:
                f.write(content)
    for folder in locked:
        os.chmod(folder, 0o555)


def snapshot(root):
    """Every path under root with its kind and, for files, its bytes."""
    tree = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root)
            if os.path.islink(full):
                tree[rel] = ("link", os.readlink(full))
            elif os.path.isdir(full):
                tree[rel] = ("dir",)
            else:
                with open(full, "rb") as f:
                    tree[rel] = ("file", f.read())
    return tree


def unlock(root):
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)


def permission_bits_deny_writes(scratch):
    """Whether a 0555 folder refuses new files (not so for root)."""
    probe_dir = os.path.join(scratch, "permission-probe")
    os.makedirs(probe_dir)
    os.chmod(probe_dir, 0o555)
    try:
        with open(os.path.join(probe_dir, "probe"), "wb"):
            pass
        return False
    except OSError:
        return True
    finally:
        os.chmod(probe_dir, 0o755)
        shutil.rmtree(probe_dir)


CRASH_MARKERS = ["Sanitizer", "runtime error:", "LLVM ERROR", "Stack dump",
                 "PLEASE submit a bug report", "terminate called",
                 "Assertion", "Segmentation fault", "core dumped"]


def describe(data, limit=240):
    text = repr(data[:limit])
    return text + (f"... ({len(data)} bytes)" if len(data) > limit else "")


def judge(case, argv0, result, timeout, before, after):
    """The list of broken promises (empty when the case passes)."""
    if result is None:
        return [f"hang: no exit within {timeout} s"]
    problems = []
    rc, stderr = result.returncode, result.stderr
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = str(-rc)
        problems.append(f"crash: killed by {name}")
    text = stderr.decode("utf-8", "replace")
    for marker in CRASH_MARKERS:
        if marker in text:
            problems.append(f"crash report on stderr ({marker!r})")
            break
    if rc not in (0, 1) and rc >= 0:
        problems.append(f"exit status {rc}, expected 0 or 1")

    changed = sorted(p for p in set(before) | set(after)
                     if before.get(p) != after.get(p))
    if rc == 1:
        pattern = re.escape(argv0.encode()) + rb": error: [^\n]*\S[^\n]*\n"
        if stderr.count(b"\n") != 1 or not re.fullmatch(pattern, stderr):
            problems.append("stderr is not exactly one '<argv0>: error: ...' "
                            f"line: {describe(stderr)}")
        if changed:
            problems.append("failed run disturbed the folder: " +
                            ", ".join(changed[:8]))
    elif rc == 0:
        if case.expect == MUST_FAIL:
            problems.append("exited 0 on input that must be refused")
        unexpected = [p for p in changed if p not in case.outputs]
        if unexpected:
            problems.append("successful run changed paths that are not "
                            "outputs (leftover temporaries?): " +
                            ", ".join(unexpected[:8]))
        if case.slice_source is not None and case.slice_source in before:
            source = before[case.slice_source][1]
            for output in case.outputs:
                entry = after.get(output)
                if entry is None or entry[0] != "file":
                    problems.append(f"successful run left no file {output}")
                elif entry[1] not in source:
                    problems.append(
                        f"output {output} holds bytes that are not a slice of "
                        f"the input: {describe(entry[1], 80)}")
        if case.payload_sources is not None:
            for output in case.outputs:
                entry = after.get(output)
                if entry is None or entry[0] != "file":
                    problems.append(f"successful run left no file {output}")
                elif not any(entry[1] in source
                             for source in case.payload_sources):
                    problems.append(
                        f"output {output} holds bytes that are not a slice of "
                        f"any real payload: {describe(entry[1], 80)}")
    return problems


def run_case(case, tool, scratch, timeout, read_only_works, keep,
             sanitized=False):
    """Runs one case; returns a skip reason (a string) when it cannot run
    here, else the list of problems."""
    environment = None
    if sanitized and case.memory_limit is not None:
        # AddressSanitizer reserves terabytes of address space, so no
        # address-space limit can be set. Instead any single allocation over
        # the limit is fatal, which is stricter for inputs that must not
        # make the tool allocate much; an endless input, which is read
        # until memory runs short on purpose, cannot be checked that way.
        if case.stdin == "/dev/zero" or "-input=/dev/zero" in case.args:
            return ("read an endless input under an address-space limit, "
                    "which sanitizer builds cannot run under")
        if getattr(case, "allocates_up_to_limit", False):
            return ("rightly allocate as much as the limit, which sanitizer "
                    "builds report as an over-allocation")
        environment = dict(os.environ)
        options = environment.get("ASAN_OPTIONS", "")
        environment["ASAN_OPTIONS"] = (
            (options + ":" if options else "") +
            f"max_allocation_size_mb={case.memory_limit >> 20}")
    if case.needs_read_only and not read_only_works:
        return ("rely on permission bits denying writes, which this user "
                "bypasses (e.g. root)")
    if case.setup is not None and os.geteuid() != 0:
        return "need root to give files to another user"
    if case.timeout is not None:
        timeout = case.timeout
    root = tempfile.mkdtemp(dir=scratch)
    materialize(root, case.files)
    if case.setup is not None:
        case.setup(root)
    before = snapshot(root)
    argv0 = case.argv0 if case.argv0 is not None else tool
    argv = [argv0] + case.args

    def prepare_child():
        if case.setup is not None:
            uid, gid = unprivileged_ids()
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
        if case.memory_limit is not None and not sanitized:
            resource.setrlimit(resource.RLIMIT_AS,
                               (case.memory_limit, case.memory_limit))
        if case.file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE,
                               (case.file_size_limit, case.file_size_limit))
            # Over the limit, write() fails with EFBIG instead of the
            # process being killed by SIGXFSZ.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    try:
        if isinstance(case.stdin, str):
            with open(case.stdin, "rb") as stdin:
                result = subprocess.run(
                    argv, executable=tool, cwd=root, stdin=stdin,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                    timeout=timeout, preexec_fn=prepare_child,
                    env=environment)
        else:
            result = subprocess.run(
                argv, executable=tool, cwd=root,
                input=case.stdin if case.stdin is not None else b"",
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                timeout=timeout, preexec_fn=prepare_child,
                env=environment)
    except subprocess.TimeoutExpired:
        result = None
    except OSError as error:
        # The tool could not even be started (e.g. not executable by the
        # unprivileged user): a broken test setup, reported as a failure.
        unlock(root)
        shutil.rmtree(root, ignore_errors=True)
        return [f"could not start the tool: {error}"]
    after = snapshot(root)
    problems = judge(case, argv0, result, timeout, before, after)
    if not keep:
        unlock(root)
        shutil.rmtree(root, ignore_errors=True)
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tool", required=True,
                        help="the clang-offload-bundler to test")
    parser.add_argument("--seed", type=int, default=20250122)
    parser.add_argument("--random-cases", type=int, default=300,
                        help="randomly corrupted binary bundles (each run "
                        "with -list and -unbundle)")
    parser.add_argument("--random-compressed-cases", type=int, default=300,
                        help="randomly corrupted compressed bundles (each "
                        "run with -list and -unbundle)")
    parser.add_argument("--reference", default=REFERENCE_BUNDLER,
                        help="the clang-offload-bundler that makes the valid "
                        "zstd compressed bundles the compressed cases start "
                        "from (default: LLVM 22's; the suite is skipped "
                        "without it)")
    parser.add_argument("--timeout", type=float, default=5.0,
                        help="seconds before a run counts as a hang")
    parser.add_argument("--only", help="run cases whose name contains this")
    parser.add_argument("--keep", action="store_true",
                        help="keep the scratch folder")
    parser.add_argument("--sanitized", action="store_true",
                        help="the tool is built with AddressSanitizer: "
                             "memory limits become allocation limits")
    args = parser.parse_args()

    tool = os.path.abspath(args.tool)
    if not os.access(tool, os.X_OK):
        parser.error(f"{tool} is not an executable")

    maker = args.reference
    if not maker or not os.access(maker, os.X_OK):
        skip_suite(f"no reference bundler at {maker} to make the compressed "
                   "bundles")
    cases = all_cases(args.seed, args.random_cases, os.path.abspath(maker),
                      args.random_compressed_cases)
    if args.only:
        cases = [c for c in cases if args.only in c.name]

    scratch = tempfile.mkdtemp(prefix="bundler-bad-input-")
    if os.geteuid() == 0:
        # Cases run as an unprivileged user must reach their folders.
        os.chmod(scratch, 0o711)
    read_only_works = permission_bits_deny_writes(scratch)
    passed = failed = 0
    skipped = []
    try:
        for case in cases:
            problems = run_case(case, tool, scratch, args.timeout,
                                read_only_works, args.keep, args.sanitized)
            if isinstance(problems, str):
                skipped.append((case.name, problems))
            elif problems:
                failed += 1
                print(f"FAIL {case.name}: {'; '.join(problems)}")
                argv0 = case.argv0 if case.argv0 is not None else tool
                print(f"     command: {shlex.join([argv0] + case.args)}")
            else:
                passed += 1
    finally:
        if args.keep:
            print(f"scratch folder kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    report_skipped_cases(skipped)
    return finish(passed, failed, len(skipped))


if __name__ == "__main__":
    sys.exit(main())
