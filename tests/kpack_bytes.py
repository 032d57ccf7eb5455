# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Shared by the Python test suites under tests/: ROCm kpack archives and
markers built from their definition (ROCm/rocm-systems shared/kpack, the
layout formats/kpack/kpack_archive.h and formats/kpack/kpack_marker.h describe), and
the MessagePack they are written in.

An archive is "KPAK", version 1 (u32) and the table's offset (u64), all
little-endian, zeros up to offset 64, the blobs, then one MessagePack map,
the table of contents, to the end of the file. With "none" the blobs are
the code objects one after another and the table's "blobs" gives each one's
offset in the file and size; with "zstd-per-kernel" the blob region is a
u32 count, then per code object a u32 size and one zstd frame, and the
table gives the region's offset and size.

MessagePack is written with the smallest encoding of each value, as
msgpack-python writes it (fixmap, fixarray, fixstr, str8/16, fixint,
uint8/16/32/64).

A suite imports it as it imports suite_support (tests/ on its path).
"""

import struct

MAGIC = b"KPAK"
HEADER_SIZE = 16
BLOB_START = 64


def msgpack(value):
    """The MessagePack encoding of a dict (in its order), list, str, bytes
    or non-negative int."""
    if isinstance(value, dict):
        out = _header(len(value), 0x80, 0xde, 0xdf)
        for key, item in value.items():
            out += msgpack(key) + msgpack(item)
        return out
    if isinstance(value, list):
        out = _header(len(value), 0x90, 0xdc, 0xdd)
        for item in value:
            out += msgpack(item)
        return out
    if isinstance(value, str):
        data = value.encode()
        if len(data) < 32:
            return bytes([0xa0 | len(data)]) + data
        if len(data) < 256:
            return bytes([0xd9, len(data)]) + data
        return b"\xda" + struct.pack(">H", len(data)) + data
    if isinstance(value, bytes):
        return bytes([0xc4, len(value)]) + value
    if isinstance(value, int) and value >= 0:
        if value < 128:
            return bytes([value])
        for code, fmt, limit in ((0xcc, ">B", 1 << 8), (0xcd, ">H", 1 << 16),
                                 (0xce, ">I", 1 << 32)):
            if value < limit:
                return bytes([code]) + struct.pack(fmt, value)
        return b"\xcf" + struct.pack(">Q", value)
    raise TypeError(f"cannot encode {value!r}")


def _header(count, fixed, code16, code32):
    if count < 16:
        return bytes([fixed | count])
    if count < 1 << 16:
        return bytes([code16]) + struct.pack(">H", count)
    return bytes([code32]) + struct.pack(">I", count)


def kpack_archive(kernels, gfx_arches, scheme, compress=None,
                  group_name="test", size_offset=0):
    """An archive of `kernels`, (binary key, architecture, code object)
    each, in ordinal order. `compress` makes one zstd frame of bytes (for
    "zstd-per-kernel"). `size_offset` is added to every original_size, to
    make tables that lie."""
    toc = {}
    region = b""
    blobs = []
    frames = []
    for ordinal, (key, arch, data) in enumerate(kernels):
        toc.setdefault(key, {})[arch] = {
            "type": "hsaco", "ordinal": ordinal,
            "original_size": len(data) + size_offset}
        if scheme == "none":
            blobs.append({"offset": BLOB_START + len(region),
                          "size": len(data)})
            region += data
        else:
            frames.append(compress(data))
    if scheme != "none":
        region = struct.pack("<I", len(frames))
        for frame in frames:
            region += struct.pack("<I", len(frame)) + frame
    table = {"format_version": 1, "group_name": group_name,
             "gfx_arch_family": gfx_arches[0], "gfx_arches": gfx_arches,
             "toc": toc, "compression_scheme": scheme}
    if scheme == "none":
        table["blobs"] = blobs
    else:
        table["zstd_offset"] = BLOB_START
        table["zstd_size"] = len(region)
    toc_offset = BLOB_START + len(region)
    header = MAGIC + struct.pack("<IQ", 1, toc_offset)
    return (header + bytes(BLOB_START - HEADER_SIZE) + region +
            msgpack(table))


def kpack_marker(kernel_name, search_paths):
    """A kpack'd binary's marker, keys in the order ROCm's tool writes
    them."""
    return msgpack({"kpack_search_paths": search_paths,
                    "kernel_name": kernel_name})
