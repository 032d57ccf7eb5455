"""Shared by the Python test suites under tests/: offload bundles built from
their definition, for inputs no tool writes (damaged, hand-laid, compressed
with hand-picked header fields).

A binary bundle is the 24-byte magic, the entry count (u64), then per entry
its payload's offset and size and its ID's length (u64 each) and the ID,
then the payloads. A compressed bundle (CCOB) is a header (magic, version
and method as u16, then sizes and the hash, whose widths depend on the
version) and the compressed data; its hash is the first 8 bytes of the MD5
of the uncompressed bundle, read little-endian.

A suite imports it as it imports suite_support (tests/ on its path).
"""

import hashlib
import struct
import zlib

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
CCOB_MAGIC = b"CCOB"
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
