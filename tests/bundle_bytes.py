# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Shared by the Python test suites under tests/: offload bundles built from
their definition, for inputs no tool writes (damaged, hand-laid, compressed
with hand-picked header fields).

A binary bundle is the 24-byte magic, the entry count (u64), then per entry
its payload's offset and size and its ID's length (u64 each) and the ID,
then the payloads. A compressed bundle (CCOB) is a header (magic, version
and method as u16, then sizes and the hash, whose widths depend on the
version) and the compressed data; its hash is the first 8 bytes of the MD5
of the uncompressed bundle, read little-endian.

Two containers around them are written here too: offload binaries
(version 1, one image each, as LLVM's packager writes them) and GNU ar
archives (as `llvm-ar rcD` writes members without symbols).

A suite imports it as it imports suite_support (tests/ on its path).
"""

import hashlib
import struct
import zlib

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
CCOB_MAGIC = b"CCOB"
OFFLOAD_BINARY_MAGIC = b"\x10\xff\x10\xad"
# Method numbers in a CCOB header; Python has only zlib.
ZLIB = 0
ZSTD = 1


def binary_bundle(ids, payloads, align=1):
    """A well-formed binary bundle laid out as the bundler writes it, each
    payload's offset a multiple of `align`."""
    header_size = len(BUNDLE_MAGIC) + 8 + sum(24 + len(i) for i in ids)
    header = [BUNDLE_MAGIC, struct.pack("<Q", len(ids))]
    body = []
    end = header_size
    for entry_id, payload in zip(ids, payloads):
        offset = (end + align - 1) // align * align
        body += [b"\0" * (offset - end), payload]
        header += [struct.pack("<QQQ", offset, len(payload), len(entry_id)),
                   entry_id]
        end = offset + len(payload)
    return b"".join(header + body)


def truncated_md5(data):
    """A CCOB header's hash of `data`."""
    return struct.unpack("<Q", hashlib.md5(data).digest()[:8])[0]


def ccob(payload, version, method=ZLIB, level=6, total_size=None,
         uncompressed_size=None, stored_hash=None):
    """A compressed bundle around `payload` (zlib, the only codec Python
    has); the size and hash fields can be forced."""
    assert method == ZLIB
    data = zlib.compress(payload, level)
    size = len(payload) if uncompressed_size is None else uncompressed_size
    digest = truncated_md5(payload) if stored_hash is None else stored_hash
    header_size = {1: 20, 2: 24, 3: 32}[version]
    total = header_size + len(data) if total_size is None else total_size
    header = CCOB_MAGIC + struct.pack("<HH", version, method)
    if version == 1:
        header += struct.pack("<IQ", size, digest)
    elif version == 2:
        header += struct.pack("<IIQ", total, size, digest)
    else:
        header += struct.pack("<QQQ", total, size, digest)
    return header + data


def offload_binary(image=b"IMAGE-BYTES", strings=(("triple", "t"), ("arch", "a")),
                   image_kind=1, offload_kind=1):
    """A version 1 offload binary of one image: a 32-byte header, the 40-byte
    entry, its string entries (key and value offsets), a string table
    starting with a NUL, then the image at a multiple of 8, the whole padded
    to a multiple of 8. Strings are in the given order without tail merging
    (LLVM merges tails; readers must not care)."""
    table = b"\0"
    offsets = {"": 0}
    for key, value in strings:
        for text in (key, value):
            if text not in offsets:
                offsets[text] = len(table)
                table += text.encode() + b"\0"
    string_entries = 72
    table_offset = string_entries + 16 * len(strings)
    image_offset = (table_offset + len(table) + 7) // 8 * 8
    size = (image_offset + len(image) + 7) // 8 * 8
    data = bytearray(size)
    struct.pack_into("<4sIQQQ", data, 0, OFFLOAD_BINARY_MAGIC, 1, size, 32, 40)
    struct.pack_into("<HHIQQQQ", data, 32, image_kind, offload_kind, 0,
                     string_entries, len(strings), image_offset, len(image))
    for index, (key, value) in enumerate(strings):
        struct.pack_into("<QQ", data, string_entries + 16 * index,
                         table_offset + offsets[key], table_offset + offsets[value])
    data[table_offset:table_offset + len(table)] = table
    data[image_offset:image_offset + len(image)] = image
    return bytes(data)


def ar_archive(members):
    """A GNU ar archive of `members` [(name of at most 15 bytes, bytes)] with
    no symbol table, dates, owners and modes zeroed as `llvm-ar rcD` writes
    them; each member padded to an even size with a newline."""
    out = [b"!<arch>\n"]
    for name, data in members:
        header = (f"{name}/".ljust(16) + "0".ljust(12) + "0".ljust(6) +
                  "0".ljust(6) + "644".ljust(8) + str(len(data)).ljust(10) +
                  "`\n").encode()
        assert len(header) == 60 and len(name) <= 15
        out += [header, data, b"\n" * (len(data) % 2)]
    return b"".join(out)
