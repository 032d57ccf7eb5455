#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Archive symbol tables for members of every object format, against LLVM 22.

LLVM's archive writer lists the global defined symbols of every member its
identify_magic() takes for an object file, whatever the format; a member it
cannot read fails the whole archive. This suite generates small objects of
those formats, valid and damaged:
  - COFF objects for several machines, for the unknown machine (any bytes
    starting with two zero bytes are one to LLVM), big objects (version 2,
    and version 1, which LLVM reads as an empty import header), with global,
    static, undefined, common, absolute, weak external (alias and library
    search, with and without an auxiliary record), file and section
    definition symbols, short and string-table names;
  - short import library members: code, data and constant imports, ARM64EC
    and ARM64X names with and without their mangling;
  - damaged ones: headers and section tables cut short, symbol and string
    tables that do not fit or lack their NUL, missing symbol tables, names
    past the string table;
  - DirectX containers (no symbols, but they make the archive get a symbol
    table) with program, feature flag, hash, signature and unknown parts,
    and damaged ones: headers, offset tables and parts cut short or
    overlapping, parts given twice, signature names outside their table,
    pipeline state without a program.
  - PE images (PE32 and PE32+, with and without symbols) whose data
    directories point into sections, past them, into their stripped part or
    past the file, with TLS and debug directories of wrong sizes, load
    configurations, and headers cut short;
  - GOFF records, which LLVM 22 recognises but never opens;
  - Mach-O objects, 32 and 64-bit, either byte order, with local, external,
    undefined, common, weak, private extern, absolute, indirect, stab and
    nameless symbols, optional commands, and names past the end of the
    file; of every file type; programs and dylibs with the load commands of
    linked files (dylib, dylinker and rpath names, LC_MAIN, dyld info,
    linkedit data, linker options, notes, encryption, sub-framework,
    unknown commands, thread states), well-formed and broken in each way
    LLVM checks; and damaged copies of them (cut short, bytes changed),
    whose archives or messages must be LLVM's;
  - Mach-O objects and a DLL made by LLVM 22's clang and lld-link.
Each goes, as an image of every offload kind LLVM's packager names, into an
offload binary made by LLVM 22's clang-offload-packager, and then out into an
archive with `llvm-offload-binary IN --archive --image=file=out.a`; and, as a
device entry of a bundle inside an input archive, through
`clang-offload-bundler -unbundle -type=a`. LLVM 22's tools and ours run on
the same inputs; exit codes, stdout, stderr and the archive must be the same
(after a failure LLVM may leave files behind that ours does not, so there only
the messages are compared).

Usage: archive_member_formats.py --ours-bundler PATH --ours-binary PATH
                                 --reference-bin FOLDER [--only PREFIX]
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
from suite_support import finish, require_executables, skip_suite  # noqa: E402
from bundle_bytes import ar_archive, binary_bundle  # noqa: E402
from bundle_bytes import offload_binary  # noqa: E402

BIG_OBJECT_CLASS_ID = bytes.fromhex("c7a1bad1eebaa94baf20faf66aa4dcb8")

# Storage classes.
EXTERNAL, STATIC, FILE, WEAK_EXTERNAL = 2, 3, 103, 105


# -- COFF generator -----------------------------------------------------------

def coff_symbol(name, value=0, section=1, sclass=EXTERNAL, aux=(), big=False,
                strings=None):
    """One symbol record and its auxiliary records. Long names go into
    `strings` (a bytearray holding the string table after its size field)."""
    raw = name.encode() if isinstance(name, str) else name
    if len(raw) > 8:
        offset = 4 + len(strings)
        strings.extend(raw + b"\0")
        field = struct.pack("<II", 0, offset)
    else:
        field = raw.ljust(8, b"\0")
    if big:
        record = field + struct.pack("<IiHBB", value, section, 0, sclass, len(aux))
        size = 20
    else:
        record = field + struct.pack("<IhHBB", value, section, 0, sclass, len(aux))
        size = 18
    for entry in aux:
        record += entry.ljust(size, b"\0")
    return record


def weak_aux(characteristics, tag=0):
    return struct.pack("<II", tag, characteristics)


ALL_KINDS_OF_SYMBOLS = [
    dict(name="global_function"),
    dict(name="local", sclass=STATIC),
    dict(name=".text", sclass=STATIC, aux=[b"\x10"]),  # section definition
    dict(name=".file", section=-2, sclass=FILE, aux=[b"k.c"]),
    dict(name="undefined_symbol", section=0),
    dict(name="common_var", section=0, value=16),
    dict(name="absolute", section=-1),
    dict(name="appdomain", section=-1, aux=[b"\0"]),  # a section definition
    dict(name="weak_alias", section=0, sclass=WEAK_EXTERNAL, aux=[weak_aux(3)]),
    dict(name="weak_library", section=0, sclass=WEAK_EXTERNAL, aux=[weak_aux(2)]),
    dict(name="weak_nosearch", section=0, sclass=WEAK_EXTERNAL, aux=[weak_aux(1)]),
    dict(name="weak_no_aux", section=0, sclass=WEAK_EXTERNAL),
    dict(name="eight_ch"),
    dict(name=b"ab\0cdefg"),  # no NUL at the end: all eight bytes
    dict(name=b"ab\0cdef\0"),
    dict(name="x", section=2),
    dict(name="", value=1),
    dict(name="label", sclass=6),  # IMAGE_SYM_CLASS_LABEL
]


def coff_object(machine=0x8664, symbols=ALL_KINDS_OF_SYMBOLS, big=False,
                version=2, optional_header=b"", section_count=1,
                symbol_table_offset=None, symbol_count=None,
                string_table_size=None, strings_tail=b"", truncate=None):
    """A COFF object: header, section table, section data, symbols, strings.
    The keyword arguments after `symbols` damage it on purpose."""
    strings = bytearray()
    records = b"".join(coff_symbol(big=big, strings=strings, **s) for s in symbols)
    count = sum(1 + len(s.get("aux", ())) for s in symbols)
    header_size = 56 if big else 20 + len(optional_header)
    data = b"\xc3" * 8
    sections = b""
    data_offset = header_size + 40 * section_count
    for index in range(section_count):
        sections += struct.pack("<8sIIIIIIHHI", f".s{index}".encode(), 0, 0,
                                len(data), data_offset, 0, 0, 0, 0, 0x60000020)
    table = data_offset + len(data)
    string_bytes = bytes(strings) + strings_tail
    size_field = (4 + len(string_bytes) if string_table_size is None
                  else string_table_size)
    if symbol_table_offset is None:
        symbol_table_offset = table
    if symbol_count is None:
        symbol_count = count
    if big:
        header = struct.pack("<HHHHI16sIIIIIII", 0, 0xffff, version, machine,
                             0, BIG_OBJECT_CLASS_ID, 0, 0, 0, 0, section_count,
                             symbol_table_offset, symbol_count)
    else:
        header = struct.pack("<HHIIIHH", machine, section_count, 0,
                             symbol_table_offset, symbol_count,
                             len(optional_header), 0) + optional_header
    blob = (header + sections + data + records + struct.pack("<I", size_field) +
            string_bytes)
    return blob if truncate is None else blob[:truncate]


def import_member(name, machine=0x8664, kind=0, dll=b"lib.dll"):
    raw = name.encode() if isinstance(name, str) else name
    body = raw + b"\0" + dll + b"\0"
    return struct.pack("<HHHHIIHH", 0, 0xffff, 0, machine, 0, len(body), 7,
                       kind | (1 << 2)) + body


# -- DirectX container generator ----------------------------------------------

def dx_part(name, data):
    return name + struct.pack("<I", len(data)) + data


def dx_signature(names, first=8, name_offsets=None):
    """A signature part: header, 32-byte parameters, then the names."""
    strings = b""
    offsets = []
    for name in names:
        offsets.append(first + 32 * len(names) + len(strings))
        strings += name + b"\0"
    if name_offsets is not None:
        offsets = name_offsets
    params = b"".join(struct.pack("<IIIIIIBBHI", 0, offset, 0, 0, 3, index,
                                  0xf, 0, 0, 0)
                      for index, offset in enumerate(offsets))
    return (struct.pack("<II", len(names), first) + b"\0" * (first - 8) +
            params + strings)


def dx_container(parts, offsets=None, part_count=None, truncate=None):
    """A "DXBC" container of `parts` (already framed by dx_part)."""
    count = len(parts) if part_count is None else part_count
    position = 32 + 4 * len(parts)
    computed = []
    for part in parts:
        computed.append(position)
        position += len(part)
    offsets = computed if offsets is None else offsets
    body = b"".join(parts)
    blob = (b"DXBC" + bytes(16) + struct.pack("<HHII", 1, 0, 32 + 4 * len(parts)
                                              + len(body), count) +
            b"".join(struct.pack("<I", o) for o in offsets) + body)
    return blob if truncate is None else blob[:truncate]


def dx_members():
    program = struct.pack("<BBHI", 0x60, 0, 6, 6) + b"DXIL" + struct.pack(
        "<BBHII", 6, 1, 0, 16, 0)
    signature = dx_signature([b"POSITION", b"COLOR"])
    out = {
        "dx-empty.dxbc": dx_container([]),
        "dx-parts.dxbc": dx_container([
            dx_part(b"DXIL", program), dx_part(b"SFI0", bytes(8)),
            dx_part(b"HASH", bytes(20)), dx_part(b"ISG1", signature),
            dx_part(b"OSG1", dx_signature([])), dx_part(b"PSG1", signature),
            dx_part(b"XYZW", b"anything")]),
        "dx-signature-gap.dxbc": dx_container([dx_part(b"ISG1", dx_signature(
            [b"A"], first=16))]),
        "dx-two-signatures.dxbc": dx_container([
            dx_part(b"ISG1", signature), dx_part(b"ISG1", signature)]),
        "dx-name-at-end.dxbc": dx_container([dx_part(b"ISG1", dx_signature(
            [b"A"], name_offsets=[8 + 32 + 2]))]),
        # Damaged containers.
        "dx-short-header.dxbc": dx_container([], truncate=20),
        "dx-offsets-cut.dxbc": dx_container([], part_count=3),
        "dx-offset-in-table.dxbc": dx_container(
            [dx_part(b"XYZW", b"12345678")], offsets=[20]),
        "dx-overlap.dxbc": dx_container(
            [dx_part(b"XYZW", b"12345678"), dx_part(b"ABCD", b"")],
            offsets=[40, 44]),
        "dx-offset-past-end.dxbc": dx_container(
            [dx_part(b"XYZW", b"12")], offsets=[1000]),
        "dx-name-cut.dxbc": dx_container([dx_part(b"XYZW", b"")],
                                         truncate=39),
        "dx-size-cut.dxbc": dx_container([dx_part(b"XYZW", b"")],
                                         truncate=42),
        "dx-size-past-end.dxbc": dx_container([b"XYZW" + struct.pack(
            "<I", 1000) + b"abc"]),
        "dx-two-dxil.dxbc": dx_container([dx_part(b"DXIL", program),
                                          dx_part(b"DXIL", program)]),
        "dx-two-hash.dxbc": dx_container([dx_part(b"HASH", bytes(20)),
                                          dx_part(b"HASH", bytes(20))]),
        "dx-two-sfi0.dxbc": dx_container([dx_part(b"SFI0", bytes(8)),
                                          dx_part(b"SFI0", bytes(8))]),
        "dx-dxil-short.dxbc": dx_container([dx_part(b"DXIL", program[:20])]),
        "dx-sfi0-short.dxbc": dx_container([dx_part(b"SFI0", bytes(7))]),
        "dx-hash-short.dxbc": dx_container([dx_part(b"HASH", bytes(19))]),
        "dx-signature-short.dxbc": dx_container([dx_part(b"ISG1", b"1234")]),
        "dx-signature-past-part.dxbc": dx_container([dx_part(
            b"ISG1", dx_signature([b"A"])[:39])]),
        "dx-name-before.dxbc": dx_container([dx_part(b"ISG1", dx_signature(
            [b"A"], name_offsets=[8]))]),
        "dx-name-after.dxbc": dx_container([dx_part(b"ISG1", dx_signature(
            [b"A"], name_offsets=[8 + 32 + 3]))]),
        "dx-psv-without-dxil.dxbc": dx_container([dx_part(b"PSV0", bytes(8))]),
        "dx-two-psv.dxbc": dx_container([dx_part(b"PSV0", bytes(8)),
                                         dx_part(b"PSV0", bytes(8))]),
    }
    return out


# -- PE image generator -------------------------------------------------------

# Data directory indexes LLVM looks at.
EXPORT_DIR, IMPORT_DIR, BASERELOC_DIR, DEBUG_DIR, TLS_DIR, LOAD_CONFIG_DIR, \
    DELAY_IMPORT_DIR = 0, 1, 5, 6, 9, 10, 13


def pe_image(plus=False, symbols=(), directories=None, directory_count=16,
             sections=None, magic=None, section_count=None,
             optional_header_size=None, tail=b"", truncate=None):
    """A PE image: DOS stub, "PE\\0\\0", file header, PE32 or PE32+ header,
    data directories, section table, one section of data (at file offset
    0x200, address 0x1000, 0x100 bytes), symbols and strings, then `tail`.
    `directories` maps an index to (address, size); `sections` replaces the
    section table with (virtual address, virtual size, raw size, raw offset)
    tuples."""
    strings = bytearray()
    records = b"".join(coff_symbol(strings=strings, **s) for s in symbols)
    count = sum(1 + len(s.get("aux", ())) for s in symbols)
    if sections is None:
        sections = [(0x1000, 0x100, 0x100, 0x200)]
    header_size = 112 if plus else 96
    optional = bytearray(header_size)
    struct.pack_into("<H", optional, 0, magic or (0x20b if plus else 0x10b))
    struct.pack_into("<I", optional, header_size - 4, directory_count)
    table = bytearray(8 * directory_count)
    for index, (address, size) in (directories or {}).items():
        struct.pack_into("<II", table, 8 * index, address, size)
    optional = bytes(optional) + bytes(table)
    if optional_header_size is None:
        optional_header_size = len(optional)
    section_table = b"".join(
        struct.pack("<8sIIIIIIHHI", f".s{index}".encode(), vsize, address,
                    raw_size, raw, 0, 0, 0, 0, 0x40000040)
        for index, (address, vsize, raw_size, raw) in enumerate(sections))
    headers_end = 64 + 4 + 20 + len(optional) + len(section_table)
    assert headers_end <= 0x200
    symbol_offset = 0x300 if symbols else 0
    header = struct.pack("<HHIIIHH", 0x8664 if plus else 0x14c,
                         len(sections) if section_count is None
                         else section_count, 0, symbol_offset, count,
                         optional_header_size, 0x2022)
    dos = bytearray(64)
    dos[0:2] = b"MZ"
    struct.pack_into("<I", dos, 0x3c, 64)
    blob = bytearray(bytes(dos) + b"PE\0\0" + header + optional + section_table)
    blob.extend(bytes(0x200 - len(blob)))
    blob.extend(bytes(range(256)))  # the section's data
    if symbols:
        blob.extend(records + struct.pack("<I", 4 + len(strings)) + strings)
    blob = bytes(blob) + tail
    return blob if truncate is None else blob[:truncate]


def patch32(blob, offset, value):
    patched = bytearray(blob)
    struct.pack_into("<I", patched, offset, value)
    return bytes(patched)


def load_config(size, length):
    """A load configuration whose size field says `size`, `length` bytes."""
    return struct.pack("<I", size) + bytes(length - 4)


def load_config_with(size, fields):
    """load_config(size, 0x100) with `fields` {offset: (width, value)}."""
    config = bytearray(load_config(size, 0x100))
    for offset, (width, value) in fields.items():
        config[offset:offset + width] = value.to_bytes(width, "little")
    return bytes(config)


# Three sections: the second holds a load configuration at 0x1300 and
# hybrid metadata at 0x1400; the file leaves out the third's second half.
HYBRID_SECTIONS = [(0x1000, 0x100, 0x100, 0x200), (0x1300, 0x200, 0x200, 0x300),
                   (0x2000, 0x200, 0x100, 0x500)]


def pe_hybrid_image(address, metadata=(), image_base=0, section=0):
    """A PE32+ image whose load configuration names hybrid metadata at
    `address` (the image base added), the metadata (92 bytes) at 0x1400
    holding `metadata` {field offset: u32}, and the dynamic relocation
    table's section."""
    fields = {0xc8: (8, address), 0xe4: (2, section)}
    tail = bytearray(load_config_with(0x100, fields) + bytes(0x200))
    for offset, value in dict(metadata).items():
        struct.pack_into("<I", tail, 0x100 + offset, value)
    image = bytearray(pe_image(plus=True, directories={LOAD_CONFIG_DIR: (0x1300, 0x10)},
                               sections=HYBRID_SECTIONS, tail=bytes(tail)))
    struct.pack_into("<Q", image, 64 + 4 + 20 + 24, image_base)
    return bytes(image)


def pe_hybrid_members():
    """Hybrid (CHPE) metadata LLVM checks: its address and its code map,
    entry point range and redirection tables (address at 4, 12, 16; entry
    count at 8, 48, 52) must be in sections and in the file; an address in
    the part of a section the file leaves out ends the checks."""
    code_map, entries, redirections = (4, 8), (12, 48), (16, 52)
    out = {"pe-hybrid-empty.dll": pe_hybrid_image(0x1400),
           "pe-hybrid-image-base.dll": pe_hybrid_image(0x11400, image_base=0x10000),
           "pe-hybrid-below-image-base.dll": pe_hybrid_image(0x1400, image_base=0x10000),
           "pe-hybrid-not-found.dll": pe_hybrid_image(0x9999),
           "pe-hybrid-high-bits.dll": pe_hybrid_image(0x1400 << 32),
           "pe-hybrid-stripped.dll": pe_hybrid_image(0x2150, section=9),
           "pe-hybrid-past-end.dll": pe_hybrid_image(0x2100 - 88),
           "pe-hybrid-at-end.dll": pe_hybrid_image(0x2100 - 92)}
    for name, (address, count), entry_size in (
            ("code-map", code_map, 8), ("entry-points", entries, 12),
            ("redirections", redirections, 8)):
        fits = 0x300 // entry_size  # from 0x1300 (file 0x300) to the end
        for label, metadata in (
                ("fits", {address: 0x1300, count: fits}),
                ("past-end", {address: 0x1300, count: fits + 1}),
                ("huge", {address: 0x1300, count: 0xffffffff}),
                ("not-found", {address: 0x9999, count: 1}),
                ("stripped", {address: 0x2150, count: 1}),
                ("no-count", {address: 0x9999})):
            out[f"pe-hybrid-{name}-{label}.dll"] = pe_hybrid_image(0x1400, metadata)
    # The first failing table decides, in LLVM's order.
    out["pe-hybrid-all-not-found.dll"] = pe_hybrid_image(0x1400, {
        4: 0x9999, 8: 1, 12: 0x8888, 48: 1, 16: 0x7777, 52: 1})
    out["pe-hybrid-later-not-found.dll"] = pe_hybrid_image(0x1400, {
        12: 0x8888, 48: 1, 16: 0x7777, 52: 1})
    return out


def pe_load_config_refused():
    """Images whose load configuration names hybrid metadata or a dynamic
    relocation table (LLVM follows them; ours refuses), or is cut before a
    field its size covers."""
    out = {}
    for plus, offset, width in ((False, 0x8c, 2), (True, 0xc8, 8),
                                (True, 0xe4, 2)):
        for value in (1, 2, 0x1301, 0xff00ff00 & ((1 << 8 * width) - 1)):
            out[f"pe{64 if plus else 32}-config-{offset:x}-{value:x}.dll"] = \
                pe_image(plus=plus, directories={LOAD_CONFIG_DIR: (0x1300, 0x10)},
                         sections=TWO_SECTIONS,
                         tail=load_config_with(0x100, {offset: (width, value)}))
    # Hybrid metadata that passes, then a dynamic relocation table.
    out["pe64-config-hybrid-and-dynamic.dll"] = pe_hybrid_image(0x1400, section=2)
    out["pe64-config-hybrid-and-bad-section.dll"] = pe_hybrid_image(0x1400, section=9)
    out["pe64-config-cut.dll"] = pe_image(
        plus=True, directories={LOAD_CONFIG_DIR: (0x1300, 0x10)},
        sections=TWO_SECTIONS, tail=load_config(0x100, 0x40))
    return out


# A section at address 0x1300 whose data (0x100 bytes at file offset 0x300)
# is a pe_image() tail.
TWO_SECTIONS = [(0x1000, 0x100, 0x100, 0x200), (0x1300, 0x100, 0x100, 0x300)]


def pe_members():
    symbols = ALL_KINDS_OF_SYMBOLS
    valid = dict(directories={IMPORT_DIR: (0x1010, 0x28),
                              EXPORT_DIR: (0x1000, 0x10),
                              BASERELOC_DIR: (0x1040, 0x8),
                              DEBUG_DIR: (0x1060, 28),
                              DELAY_IMPORT_DIR: (0x1080, 0x40)})
    out = {
        "pe32.dll": pe_image(symbols=symbols, **valid),
        "pe32plus.dll": pe_image(plus=True, symbols=symbols, **valid),
        "pe-no-symbols.dll": pe_image(),
        "pe-few-directories.dll": pe_image(directory_count=2,
                                           directories={IMPORT_DIR: (0x1010, 8)}),
        "pe-no-directories.dll": pe_image(directory_count=0),
        "pe-tls32.dll": pe_image(directories={TLS_DIR: (0x1000, 24)}),
        "pe-tls64.dll": pe_image(plus=True, directories={TLS_DIR: (0x1000, 40)}),
        # Load configurations that end before the fields LLVM follows.
        "pe-load-config32.dll": pe_image(
            directories={LOAD_CONFIG_DIR: (0x1300, 0x40)}, sections=TWO_SECTIONS,
            tail=load_config(120, 0x100)),
        "pe-load-config64.dll": pe_image(
            plus=True, directories={LOAD_CONFIG_DIR: (0x1300, 0x10)},
            sections=TWO_SECTIONS, tail=load_config(192, 0x100)),
        # Configurations covering the fields LLVM follows (in PE32+ the
        # hybrid metadata address, in both the dynamic relocation table's
        # section) with those fields zero, and PE32 fields LLVM leaves
        # alone: the table's offset without its section, the CHPE address.
        "pe-load-config32-covered.dll": pe_image(
            directories={LOAD_CONFIG_DIR: (0x1300, 0x40)}, sections=TWO_SECTIONS,
            tail=load_config_with(0x100, {0x88: (4, 0x1300), 0x78: (4, 0xff00ff)})),
        "pe-load-config64-covered.dll": pe_image(
            plus=True, directories={LOAD_CONFIG_DIR: (0x1300, 0x10)},
            sections=TWO_SECTIONS, tail=load_config_with(0x100, {0xe0: (4, 0x10)})),
        "pe-load-config-past-end.dll": pe_image(
            directories={LOAD_CONFIG_DIR: (0x1300, 0x200)},
            sections=TWO_SECTIONS, tail=load_config(64, 0x100)),
        # Stripped: the table lies past the section's raw data, which LLVM
        # ignores.
        "pe-stripped.dll": pe_image(
            sections=[(0x1000, 0x800, 0x100, 0x200)],
            directories={IMPORT_DIR: (0x1400, 0x28), DEBUG_DIR: (0x1500, 28)}),
        "pe-import-header.dll": pe_image(section_count=0xffff),
        "pe-no-sections.dll": pe_image(sections=[]),
        "pe-bigger-optional-header.dll": pe_image(optional_header_size=96 + 128 + 8),
        # Damaged images.
        "pe-file-header-cut.dll": pe_image(truncate=64 + 4 + 10),
        "pe-optional-header-cut.dll": pe_image(truncate=64 + 4 + 20 + 50),
        "pe-directories-cut.dll": pe_image(truncate=64 + 4 + 20 + 96 + 20),
        "pe-directory-count-huge.dll": patch32(pe_image(), 64 + 4 + 20 + 92,
                                               1000),
        "pe-bad-magic.dll": pe_image(magic=0x107),
        "pe-sections-cut.dll": pe_image(section_count=40),
        "pe-import-not-found.dll": pe_image(directories={IMPORT_DIR: (0x5000, 8)}),
        "pe-export-not-found.dll": pe_image(directories={EXPORT_DIR: (0x800, 8)}),
        "pe-delay-not-found.dll": pe_image(directories={DELAY_IMPORT_DIR: (0xabc0, 8)}),
        "pe-reloc-not-found.dll": pe_image(directories={BASERELOC_DIR: (0x10000, 8)}),
        "pe-debug-not-found.dll": pe_image(directories={DEBUG_DIR: (0x2000, 28)}),
        "pe-tls-not-found.dll": pe_image(directories={TLS_DIR: (0x2000, 24)}),
        "pe-load-config-not-found.dll": pe_image(directories={LOAD_CONFIG_DIR: (0x3000, 24)}),
        "pe-import-past-end.dll": pe_image(directories={IMPORT_DIR: (0x1010, 0x1000)}),
        "pe-section-data-past-end.dll": pe_image(
            sections=[(0x1000, 0x100, 0x100, 0x10000)],
            directories={IMPORT_DIR: (0x1010, 8)}),
        "pe-debug-uneven.dll": pe_image(directories={DEBUG_DIR: (0x1000, 30)}),
        "pe-tls32-wrong-size.dll": pe_image(directories={TLS_DIR: (0x1000, 40)}),
        "pe-tls64-wrong-size.dll": pe_image(plus=True, directories={TLS_DIR: (0x1000, 24)}),
        "pe-symbols-past-end.dll": pe_image(symbols=symbols)[:0x320],
    }
    # Too short for LLVM to look for the PE header: a COFF object for
    # machine "MZ".
    tiny = bytearray(64)
    tiny[0:8] = b"MZ\0\0PE\0\0"
    struct.pack_into("<I", tiny, 0x3c, 4)
    out["pe-tiny.dll"] = bytes(tiny)
    out.update(pe_hybrid_members())
    return out


# -- Mach-O generator ---------------------------------------------------------

# nlist types and descriptions.
N_EXT, N_PEXT, N_SECT, N_ABS, N_INDR, N_FUN = 0x01, 0x10, 0x0e, 0x02, 0x0a, 0x24
N_WEAK_DEF, N_WEAK_REF = 0x80, 0x40

MACHO_SYMBOLS = [
    dict(name="_local", type=N_SECT),
    dict(name="_global", type=N_SECT | N_EXT),
    dict(name="_undefined", type=N_EXT),
    dict(name="_common", type=N_EXT, value=16),
    dict(name="_weak_def", type=N_SECT | N_EXT, desc=N_WEAK_DEF),
    dict(name="_weak_ref", type=N_EXT, desc=N_WEAK_REF),
    dict(name="_private_extern", type=N_SECT | N_EXT | N_PEXT),
    dict(name="_was_private", type=N_SECT | N_PEXT),
    dict(name="_absolute", type=N_ABS | N_EXT, value=5),
    dict(name="_indirect", type=N_INDR | N_EXT),
    dict(name="_stab", type=N_FUN | N_EXT),
    dict(name="", type=N_SECT | N_EXT),  # name offset 0: no name
]


def macho_object(bits=64, big_endian=False, symbols=MACHO_SYMBOLS,
                 extra_commands=(), name_offset=None, file_type=1,
                 dysymtab=True, truncate=None):
    """A Mach-O object: header, LC_SEGMENT(_64) with __text, __data and a
    zero-fill __bss, LC_BUILD_VERSION, LC_SYMTAB, LC_DYSYMTAB, section data,
    relocations, symbols, strings. `name_offset` replaces the name offset
    of the second symbol."""
    e = ">" if big_endian else "<"
    word = "Q" if bits == 64 else "I"
    header_size = 32 if bits == 64 else 28
    section_size = 80 if bits == 64 else 68
    segment_size = (72 if bits == 64 else 56) + 3 * section_size
    commands_size = (segment_size + 24 + 24 + (80 if dysymtab else 0) +
                     sum(len(c) for c in extra_commands))
    data_offset = header_size + commands_size
    text = b"\xc3" * 16
    data = b"\x01\0\0\0" * 4
    relocations_offset = data_offset + len(text) + len(data)
    relocations = struct.pack(e + "iI", 0, 0x0d000001)
    symbols_offset = relocations_offset + len(relocations)
    strings = bytearray(b"\0")
    records = b""
    for index, symbol in enumerate(symbols):
        offset = 0
        if symbol["name"]:
            offset = len(strings)
            strings += symbol["name"].encode() + b"\0"
        if index == 1 and name_offset is not None:
            offset = name_offset
        records += struct.pack(e + "IBBH" + word, offset, symbol["type"],
                               1 if symbol["type"] & N_SECT == N_SECT else 0,
                               symbol.get("desc", 0), symbol.get("value", 0))
    strings_offset = symbols_offset + len(records)

    def section(name, address, size, offset, relocs_at, relocs, flags):
        return struct.pack(e + "16s16s" + word + word + "IIIIIIII",
                           name, b"__TEXT" if name == b"__text" else b"__DATA",
                           address, size, offset, 0, relocs_at, relocs, flags,
                           0, 0, 0)[:section_size]

    file_size = len(text) + len(data)
    segment = struct.pack(e + "II16s" + word * 4 + "iiII",
                          0x19 if bits == 64 else 0x1, segment_size, b"",
                          0, 0x40, data_offset, file_size, 7, 7, 3, 0)
    segment += section(b"__text", 0, 16, data_offset, relocations_offset, 1,
                       0x80000400)
    segment += section(b"__data", 16, 16, data_offset + 16, 0, 0, 0)
    segment += section(b"__bss", 32, 32, 0, 0, 0, 1)
    build = struct.pack(e + "IIIIII", 0x32, 24, 1, 0xb0000, 0, 0)
    symtab = struct.pack(e + "IIIIII", 2, 24, symbols_offset, len(symbols),
                         strings_offset, len(strings))
    commands = segment + build + symtab
    if dysymtab:
        commands += struct.pack(e + "II" + "I" * 18, 0xb, 80, 0, 1, 1,
                                len(symbols) - 1, len(symbols), 0,
                                *([0] * 12))
    commands += b"".join(extra_commands)
    magic = 0xfeedfacf if bits == 64 else 0xfeedface
    header = struct.pack(e + "IiiIIII", magic, 0x01000007 if bits == 64 else 7,
                         3, file_type, 3 + (1 if dysymtab else 0) +
                         len(extra_commands), len(commands), 0)
    if bits == 64:
        header += bytes(4)
    blob = (header + commands + text + data + relocations + records +
            bytes(strings))
    return blob if truncate is None else blob[:truncate]


def padded(data, multiple=8):
    return data + bytes(-len(data) % multiple)


def macho_named(command, struct_size, name, extra=b"", offset=None):
    """A load command naming a string inside itself (LC_ID_DYLIB and the
    other dylib commands, LC_LOAD_DYLINKER, LC_RPATH, LC_SUB_*): cmd,
    cmdsize, the string's offset, `extra` fields, then the string."""
    body = struct.pack("<I", struct_size if offset is None else offset) + extra
    body = body.ljust(struct_size - 8, b"\0") + name
    return padded(struct.pack("<II", command, 8 + len(padded(body))) +
                  body[:len(body)])


def macho_linker_option(count, strings):
    size = len(padded(bytes(12) + strings))
    return padded(struct.pack("<III", 0x2d, size, count) + strings)


def macho_linkedit(command, offset, size):
    return struct.pack("<IIII", command, 16, offset, size)


def macho_linked(file_type=2, commands=None, trailer_size=72):
    """A 64-bit little-endian Mach-O file of type `file_type` with the load
    commands of linked programs and dylibs after the object's own:
    `commands(trailer)` gives them, `trailer` being the offset of
    `trailer_size` spare bytes appended to the file for their tables."""
    probe = macho_object(file_type=file_type,
                         extra_commands=commands(0))
    trailer = len(probe)
    blob = macho_object(file_type=file_type, extra_commands=commands(trailer))
    return blob + bytes(range(trailer_size))


LC_REQ_DYLD = 0x80000000


def macho_program_commands(trailer):
    """Well-formed commands of a linked x86-64 program or dylib."""
    return [
        macho_named(0xe, 12, b"/usr/lib/dyld\0"),
        macho_named(0xc, 24, b"/usr/lib/libSystem.B.dylib\0",
                    struct.pack("<III", 2, 0x10000, 0x10000)),
        macho_named(0x1c | LC_REQ_DYLD, 12, b"@loader_path/../lib\0"),
        struct.pack("<IIQQ", 0x28 | LC_REQ_DYLD, 24, 0x1000, 0),
        struct.pack("<IIQ", 0x2a, 16, 0x10203),
        struct.pack("<II" + "I" * 10, 0x22 | LC_REQ_DYLD, 48,
                    trailer, 8, trailer + 8, 8, 0, 0, 0, 0, trailer + 16, 8),
        macho_linkedit(0x26, trailer + 24, 8),
        macho_linkedit(0x1d, trailer + 32, 16),
        macho_linkedit(0x36, trailer + 48, 8),
        macho_linker_option(2, b"-lfoo\0-framework\0"),
        struct.pack("<II16sQQ", 0x31, 40, b"owner", trailer + 56, 8),
        struct.pack("<IIII", 0x2c, 24, 0, 0) + bytes(8),
        macho_named(0x12, 12, b"Umbrella\0"),
        struct.pack("<II", 0x7f, 16) + bytes(8),
        struct.pack("<IIII", 5, 184, 4, 42) + bytes(168),
    ]


def macho_dylib_commands(trailer):
    return [macho_named(0xd, 24, b"/usr/lib/libx.dylib\0",
                        struct.pack("<III", 2, 0x10000, 0x10000))] + \
        macho_program_commands(trailer)[:1] + \
        macho_program_commands(trailer)[4:]


def macho_command_members():
    """Members with the load commands of linked files, well-formed (listed
    as objects are) and broken in each way LLVM checks."""
    out = {"macho-program.o": macho_linked(2, macho_program_commands),
           "macho-dylib-id.o": macho_linked(6, macho_dylib_commands),
           "macho-dylib-stub-id.o": macho_linked(9, macho_dylib_commands)}

    def variant(name, change, file_type=2):
        def commands(trailer):
            return change(macho_program_commands(trailer), trailer)
        out[name] = macho_linked(file_type, commands)

    def replace(index, command):
        return lambda cs, t: cs[:index] + [command(t)] + cs[index + 1:]

    def append(*commands):
        return lambda cs, t: cs + [command(t) for command in commands]

    variant("macho-id-dylib-in-program.o", append(
        lambda t: macho_named(0xd, 24, b"x\0")))
    variant("macho-two-mains.o", append(
        lambda t: struct.pack("<IIQQ", 0x28 | LC_REQ_DYLD, 24, 0, 0)))
    variant("macho-main-size.o", replace(3, lambda t: struct.pack(
        "<IIQQQ", 0x28 | LC_REQ_DYLD, 32, 0, 0, 0)))
    variant("macho-dylib-name-small.o", replace(1, lambda t: macho_named(
        0xc, 24, b"lib\0", offset=8)))
    variant("macho-dylib-name-past.o", replace(1, lambda t: macho_named(
        0xc, 24, b"lib\0", offset=200)))
    variant("macho-dylib-name-unterminated.o", replace(1, lambda t: padded(
        struct.pack("<IIIIII", 0xc, 32, 24, 0, 0, 0) + b"libxxxxx")))
    variant("macho-dylinker-name-small.o", replace(0, lambda t: macho_named(
        0xe, 12, b"d\0", offset=4)))
    variant("macho-rpath-unterminated.o", replace(2, lambda t: struct.pack(
        "<III", 0x1c | LC_REQ_DYLD, 16, 12) + b"abcd"))
    variant("macho-dyld-info-past.o", replace(5, lambda t: struct.pack(
        "<II" + "I" * 10, 0x22 | LC_REQ_DYLD, 48, t, 8, t + 8, 800, 0, 0,
        0, 0, 0, 0)))
    variant("macho-dyld-info-overlap.o", replace(5, lambda t: struct.pack(
        "<II" + "I" * 10, 0x22 | LC_REQ_DYLD, 48, t, 8, t + 4, 8, 0, 0, 0,
        0, 0, 0)))
    variant("macho-two-dyld-info.o", append(lambda t: struct.pack(
        "<II" + "I" * 10, 0x22, 48, *([0] * 10))))
    variant("macho-function-starts-past.o", replace(6, lambda t: macho_linkedit(
        0x26, t + 60, 8)))
    variant("macho-function-starts-overlap.o", replace(
        6, lambda t: macho_linkedit(0x26, 40, 8)))
    variant("macho-code-signature-size.o", replace(7, lambda t: struct.pack(
        "<IIIII", 0x1d, 24, t + 32, 16, 0) + bytes(4)))
    variant("macho-atom-info-past.o", replace(8, lambda t: macho_linkedit(
        0x36, t + 1000, 8)))
    variant("macho-linker-option-count.o", replace(9, lambda t:
            macho_linker_option(3, b"-lfoo\0-framework\0")))
    variant("macho-linker-option-unterminated.o", replace(9, lambda t: struct.pack(
        "<III", 0x2d, 24, 1) + b"-lfoo\0\0\0-lba"))
    variant("macho-note-past.o", replace(10, lambda t: struct.pack(
        "<II16sQQ", 0x31, 40, b"owner", t + 60, 8)))
    variant("macho-note-huge.o", replace(10, lambda t: struct.pack(
        "<II16sQQ", 0x31, 40, b"owner", 8, 0xfffffffffffffff8)))
    variant("macho-two-encryption.o", append(lambda t: struct.pack(
        "<IIIIII", 0x2c, 24, 0, 0, 0, 0)))
    variant("macho-encryption-past.o", replace(11, lambda t: struct.pack(
        "<IIIIII", 0x2c, 24, t, 4096, 0, 0)))
    variant("macho-sub-framework-past.o", replace(12, lambda t: macho_named(
        0x12, 12, b"U\0", offset=64)))
    variant("macho-thread-count.o", replace(14, lambda t: struct.pack(
        "<IIII", 5, 184, 4, 41) + bytes(168)))
    variant("macho-thread-flavor.o", replace(14, lambda t: struct.pack(
        "<IIII", 5, 184, 99, 42) + bytes(168)))
    variant("macho-thread-short.o", replace(14, lambda t: struct.pack(
        "<IIII", 5, 176, 4, 42) + bytes(160)))
    variant("macho-two-unixthreads.o", append(lambda t: struct.pack(
        "<IIII", 5, 184, 4, 42) + bytes(168)))
    variant("macho-obsolete-prebound.o", append(lambda t: struct.pack(
        "<IIII", 0x10, 16, 0, 0)))
    variant("macho-two-level-hints.o", append(lambda t: struct.pack(
        "<IIII", 0x16, 16, t + 64, 1)))
    variant("macho-two-level-hints-past.o", append(lambda t: struct.pack(
        "<IIII", 0x16, 16, t + 64, 3)))
    # LLVM looks at nothing after an LC_IDENT: not even a broken LC_MAIN.
    variant("macho-ident-then-garbage.o", append(
        lambda t: struct.pack("<II", 8, 8),
        lambda t: struct.pack("<IIQQQ", 0x28 | LC_REQ_DYLD, 32, 0, 0, 0)))
    variant("macho-routines-both.o", append(
        lambda t: struct.pack("<II", 0x1a, 72) + bytes(64),
        lambda t: struct.pack("<II", 0x11, 40) + bytes(32)))
    variant("macho-source-version-size.o", replace(4, lambda t: struct.pack(
        "<IIQQ", 0x2a, 24, 0, 0)))
    variant("macho-uuid-twice.o", append(
        lambda t: struct.pack("<II16s", 0x1b, 24, b"x"),
        lambda t: struct.pack("<II16s", 0x1b, 24, b"y")))
    variant("macho-version-min-twice.o", append(
        lambda t: struct.pack("<IIII", 0x24, 16, 0, 0),
        lambda t: struct.pack("<IIII", 0x25, 16, 0, 0)))
    variant("macho-ident-first.o", lambda cs, t: [struct.pack(
        "<II", 8, 8)] + cs)
    return out


def mutated(blob, seed, count, limit=400):
    """`count` copies of `blob`, each cut short or with a byte or two of its
    first `limit` changed."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        changed = bytearray(blob)
        if rng.random() < 0.15:
            changed = changed[:rng.randrange(len(changed))]
        else:
            for _ in range(rng.choice([1, 1, 2])):
                changed[rng.randrange(min(len(changed), limit))] = rng.choice(
                    [0, 1, 0x7f, 0x80, 0xff, rng.randrange(256)])
        out.append(bytes(changed))
    return out


def macho_members():
    out = {}
    for bits in (32, 64):
        for big_endian in (False, True):
            name = f"macho{bits}-{'be' if big_endian else 'le'}.o"
            out[name] = macho_object(bits, big_endian)
    out["macho-no-dysymtab.o"] = macho_object(dysymtab=False)
    out["macho-no-symbols.o"] = macho_object(symbols=[], dysymtab=False)
    out["macho-only-locals.o"] = macho_object(
        symbols=[dict(name="_l", type=N_SECT)], dysymtab=False)
    out["macho-uuid.o"] = macho_object(extra_commands=[
        struct.pack("<II16s", 0x1b, 24, b"0123456789abcdef")])
    out["macho-data-in-code.o"] = macho_object(extra_commands=[
        struct.pack("<IIII", 0x29, 16, 0, 0)])
    # Every file type identify_magic names lists its symbols alike, but a
    # dylib (6) or dylib stub (9) without LC_ID_DYLIB fails with LLVM's
    # message; 13 is no Mach-O type (a member without symbols).
    for file_type in range(2, 14):
        out[f"macho-type{file_type}.o"] = macho_object(
            32 if file_type % 2 else 64, file_type % 3 == 0,
            file_type=file_type)
    # LLVM's own failure: a name offset past the end of the file.
    out["macho-bad-name.o"] = macho_object(name_offset=100000)
    out["macho32-bad-name.o"] = macho_object(32, True, name_offset=70000)
    out.update(macho_command_members())
    return out


# -- GOFF ---------------------------------------------------------------------

# The refusal of Wasm members this reader does not take (see the differences
# table of docs/compatibility.md): where ours says so, LLVM may succeed or
# fail.
WASM_REFUSAL = b"archive symbol tables for this Wasm member are not supported"

WASM_SOURCE = """int defined_data = 3; static int local_data = 4;
__attribute__((weak)) int weak_data = 5;
__attribute__((visibility("hidden"))) int hidden_data = 6;
extern int undefined_data; extern int undefined_function(int);
static int local_function(int x) { return x + local_data; }
__attribute__((weak)) int weak_function(int x) { return x; }
__attribute__((visibility("hidden"))) int hidden_function(int x) { return x; }
int function(int x) { return undefined_function(x) + local_function(x) +
  undefined_data + hidden_data + weak_data + defined_data; }
int (*pointer)(int) = hidden_function;
"""


WASM_CXX_SOURCE = """template <typename T> T twice(T x) { return x + x; }
inline int counted(int x) { static int counter; return x + ++counter; }
struct Shape { virtual int sides() { return 3; } };
int use(int x) { Shape s; return twice(x) + twice<long>(x) + counted(x) +
  s.sides(); }
int thrower(int x) { if (x) throw x; return 0; }
int catcher(int x) { try { return thrower(x); } catch (int y) { return y; } }
"""


def wasm_generated():
    """Hand-made Wasm members on paths where LLVM's messages are ours too."""
    header = b"\0asm\x01\0\0\0"
    out = {
        "wasm-version-2.o": b"\0asm\x02\0\0\0",
        "wasm-no-version.o": b"\0asm\x01\0",
        "wasm-zero-length.o": header + b"\x01\x00",
        "wasm-section-too-large.o": header + b"\x01\x05\x01\x60\x00",
    }
    out.update(wasm_linked_generated())
    out.update(wasm_object_generated())
    return out


def wasm_section(section_id, payload):
    return bytes([section_id, len(payload)]) + payload


def wasm_name(name):
    return bytes([len(name)]) + name.encode()


def wasm_custom(name, payload):
    return wasm_section(0, wasm_name(name) + payload)


def wasm_linked_module(names=True, dylink=False, start=None, tags=False,
                       tail=b""):
    """A linked module (no linking section): two functions, a table, a
    memory, a global, a data segment, exports of all but the second
    function, and optionally a name, dylink.0, start or tag section."""
    module = b"\0asm\x01\0\0\0"
    if dylink:
        module += wasm_custom("dylink.0", b"\x01\x04\0\0\0\0")
    module += wasm_section(1, b"\x01\x60\0\0") + wasm_section(3, b"\x02\0\0")
    module += wasm_section(4, b"\x01\x70\0\x01") + wasm_section(5, b"\x01\0\x01")
    if tags:
        module += wasm_section(13, b"\x01\0\0")
    module += wasm_section(6, b"\x01\x7f\0\x41\0\x0b")
    exports = (wasm_name("f") + b"\0\0" + wasm_name("mem") + b"\x02\0" +
               wasm_name("g") + b"\x03\0" + wasm_name("tab") + b"\x01\0")
    if tags:
        exports += wasm_name("tag") + b"\x04\0"
    module += wasm_section(7, bytes([5 if tags else 4]) + exports)
    if start is not None:
        module += wasm_section(8, bytes([start]))
    module += wasm_section(10, b"\x02\x02\0\x0b\x02\0\x0b")
    module += wasm_section(11, b"\x01\0\x41\0\x0b\x02hi")
    if names:
        functions = b"\x02\0" + wasm_name("f_name") + b"\x01" + wasm_name("local")
        globals_ = b"\x01\0" + wasm_name("g_name")
        segments = b"\x01\0" + wasm_name(".data")
        module += wasm_custom("name", b"".join(
            bytes([kind, len(body)]) + body for kind, body in
            ((1, functions), (7, globals_), (9, segments))))
    return module + wasm_custom(".debug_info", b"\x01\x02") + tail


def wasm_object(symbols, linking_tail=b"", tail=b""):
    """A relocatable object: two functions, a data segment and a linking
    section with `symbols` (encoded entries) and further subsections."""
    table = bytes([len(symbols)]) + b"".join(symbols)
    linking = b"\x02\x08" + bytes([len(table)]) + table + linking_tail
    return (b"\0asm\x01\0\0\0" + wasm_section(1, b"\x01\x60\0\0") +
            wasm_section(3, b"\x02\0\0") +
            wasm_section(10, b"\x02\x02\0\x0b\x02\0\x0b") +
            wasm_section(11, b"\x01\0\x41\0\x0b\x04abcd") +
            wasm_custom("linking", linking) + tail)


def wasm_object_generated():
    """Objects with comdats, debug relocations and symbols of every kind of
    flag, and LLVM's messages for the faults in linking metadata its reader
    names."""
    f0 = b"\0\0\0" + wasm_name("f0")
    comdat = b"\x01" + wasm_name("c") + b"\0\x02\x01\0\0\0"
    twice = b"\x01" + wasm_name("c") + b"\0\x02\x01\0\x01\0"
    data = b"\x01\0" + wasm_name("d") + b"\0\0\x04"
    return {
        "wasm-object-comdat.o": wasm_object(
            [f0], b"\x07" + bytes([len(comdat)]) + comdat),
        "wasm-object-empty-name.o": wasm_object([b"\0\0\0" + wasm_name("")]),
        "wasm-object-binding-3.o": wasm_object([b"\0\x03\0" + wasm_name("f")]),
        "wasm-object-absolute.o": wasm_object(
            [b"\x01\x80\x04" + wasm_name("abs") + b"\x07\x05\x05"]),
        "wasm-object-unknown-subsection.o": wasm_object(
            [f0], b"\x63\x02\x01\x02"),
        "wasm-object-comdat-twice.o": wasm_object(
            [f0], b"\x07" + bytes([len(twice)]) + twice),
        "wasm-object-comdat-kind.o": wasm_object(
            [f0], b"\x07\x07\x01" + wasm_name("c") + b"\0\x01\x03\0"),
        "wasm-object-duplicate.o": wasm_object(
            [f0, b"\0\0\x01" + wasm_name("f0")]),
        "wasm-object-symbol-kind.o": wasm_object([b"\x09\0\0"]),
        "wasm-object-global-section-symbol.o": wasm_object([b"\x03\0\0"]),
        "wasm-object-data-segment.o": wasm_object(
            [b"\x01\0" + wasm_name("abs") + b"\x07\x05\x05"]),
        "wasm-object-init-function.o": wasm_object(
            [f0], b"\x06\x03\x01\0\x05"),
        "wasm-object-segment-names.o": wasm_object(
            [f0], b"\x05\x04\x02\0\0\0"),
        "wasm-object-debug-relocation.o": wasm_object(
            [f0], tail=wasm_custom(".debug_info", bytes(8)) +
            wasm_custom("reloc..debug_info", b"\x05\x01\x09\0\0\0")),
        "wasm-object-relocation-offset.o": wasm_object(
            [f0], tail=wasm_custom("reloc.CODE",
                                   b"\x02\x02\0\x03\0\0\x01\0")),
        "wasm-object-relocation-symbol.o": wasm_object(
            [f0, data], tail=wasm_custom("reloc.CODE", b"\x03\x01\0\x01\x01")),
        "wasm-object-relocation-type.o": wasm_object(
            [f0], tail=wasm_custom("reloc.CODE", b"\x03\x01\x06\x01\0")),
    }


def wasm_linked_generated():
    """Linked modules: listed by their exports or their name section, and
    LLVM's messages for the faults its reader names."""
    return {
        "wasm-linked-exports.wasm": wasm_linked_module(names=False),
        "wasm-linked-names.wasm": wasm_linked_module(),
        "wasm-linked-dylink.wasm": wasm_linked_module(dylink=True),
        "wasm-linked-start.wasm": wasm_linked_module(start=1),
        "wasm-linked-tags.wasm": wasm_linked_module(names=False, tags=True),
        "wasm-linked-bad-start.wasm": wasm_linked_module(start=7),
        "wasm-linked-unknown-section.wasm": wasm_linked_module(
            tail=wasm_section(14, b"\0")),
        "wasm-linked-late-start.wasm": wasm_linked_module(
            tail=wasm_section(8, b"\0")),
        "wasm-linked-padded-numbers.wasm": wasm_linked_module(
            tail=wasm_section(0, b"\x81\x80\x80\x80\x80\x80\x00x")),
        "wasm-linked-late-dylink.wasm": wasm_linked_module(
            tail=wasm_section(0, b"\x08dylink.0\x05\x81\x80\x80\x80\x00")),
        "wasm-linked-two-names.wasm": wasm_linked_module(
            tail=wasm_custom("name", b"\x00\x01\x00")),
        "wasm-linked-bad-name.wasm": wasm_linked_module(names=False,
            tail=wasm_custom("name", b"\x01\x03\x01\x05\0")),
        "wasm-linked-cut-name.wasm": wasm_linked_module(names=False,
            tail=wasm_custom("name", b"\x04\x09\0")),
    }


# The refusals of PE images whose load configuration LLVM follows further.
PE_LOAD_CONFIG_REFUSAL = b"load configuration"

# The refusal of XCOFF members this reader does not take (see the differences
# table of docs/compatibility.md): where ours says so, LLVM may succeed or
# fail.
XCOFF_REFUSAL = b"archive symbol tables for this XCOFF member are not supported"

XCOFF_SOURCE = """int gdata = 1; static int sdata = 2;
__attribute__((weak)) int wdata = 3;
__attribute__((visibility("hidden"))) int hdata = 4;
int common_var; extern int undef_var; extern int undef_fn(void);
int f(void) { return undef_fn() + undef_var + sdata; }
static int sf(void) { return 1; }
__attribute__((weak)) int wf(void) { return sf(); }
__attribute__((visibility("hidden"))) int a_function_with_a_long_name(void)
{ return 2; }
"""


# XCOFF storage classes, csect types and symbol type bits (visibility in the
# top nibble) used by the generated XCOFF members.
C_EXT, C_HIDEXT, C_WEAKEXT, C_STAT, C_FILE, C_DWARF, C_GSYM, C_BLOCK = (
    2, 107, 111, 3, 103, 112, 0x80, 100)
XTY_ER, XTY_SD, XTY_LD, XTY_CM = 0, 1, 2, 3
SYM_V_INTERNAL, SYM_V_HIDDEN, SYM_V_PROTECTED, SYM_V_EXPORTED = (
    0x1000, 0x2000, 0x3000, 0x4000)
AUX_CSECT, AUX_FILE, AUX_FCN, AUX_SECT = 251, 252, 254, 250
# Section types: one of each LLVM names.
XCOFF_SECTIONS = [(b".pad", 0x8), (b".dwinfo", 0x10 | 0x10000),
                  (b".text", 0x20), (b".data", 0x40), (b".bss", 0x80),
                  (b".except", 0x100), (b".info", 0x200), (b".tdata", 0x400),
                  (b".tbss", 0x800), (b".loader", 0x1000),
                  (b".debug", 0x2000), (b".typchk", 0x4000),
                  (b".ovrflo", 0x8000)]


def xcoff_aux(bits, kind=AUX_CSECT, csect_type=XTY_SD, mapping=0):
    """An 18-byte auxiliary entry: a csect one (csect type in the low bits
    of byte 10, mapping class at 11) or, in 64-bit files, another type."""
    entry = bytearray(18)
    if kind == AUX_CSECT:
        entry[10] = csect_type | 0x28  # alignment bits above the type
        entry[11] = mapping
    elif kind == AUX_FILE:
        entry[0:8] = b"file.c\0\0"
    if bits == 64:
        entry[17] = kind
    return bytes(entry)


def xcoff_symbol(name, sclass=C_EXT, section=1, csect_type=XTY_SD,
                 sym_type=0, aux=None):
    """A symbol for xcoff_object(): its auxiliary entries are `aux` (a list
    of (kind, csect type) pairs, or raw 18-byte entries), by default one
    csect entry of `csect_type` for csect classes and none for others."""
    if aux is None:
        aux = ([(AUX_CSECT, csect_type)]
               if sclass in (C_EXT, C_HIDEXT, C_WEAKEXT) else [])
    return dict(name=name, sclass=sclass, section=section, sym_type=sym_type,
                aux=aux)


def xcoff_object(bits=32, symbols=(), flags=0, aux_header=b"",
                 sections=(), symbol_count=None, symbol_offset=None,
                 strings_size=None, strings_end=b"", truncate=None):
    """An XCOFF file laid out as the format describes: file header, optional
    header, section headers (each with 16 bytes of data unless it is .bss
    or .tbss), symbol table, string table (its size field `strings_size` if
    given, then names, then `strings_end`)."""
    header_size = 20 if bits == 32 else 24
    section_header_size = 40 if bits == 32 else 72
    data_offset = header_size + len(aux_header) + \
        section_header_size * len(sections)
    headers, data = b"", b""
    for index, (name, section_flags) in enumerate(sections):
        virtual = section_flags & 0xffff in (0x80, 0x800)
        offset = 0 if virtual else data_offset + len(data)
        fields = [0x100 * index, 0x100 * index, 16, offset, 0, 0]
        if bits == 32:
            headers += name.ljust(8, b"\0") + struct.pack(
                ">6I2HI", *fields, 0, 0, section_flags)
        else:
            headers += name.ljust(8, b"\0") + struct.pack(
                ">6Q2I2I", *fields, 0, 0, section_flags, 0)
        if not virtual:
            data += bytes(range(index, index + 16))
    table, strings = b"", b""
    for symbol in symbols:
        name = symbol["name"].encode()
        if bits == 32 and len(name) <= 8:
            name_field = name.ljust(8, b"\0")
        else:
            name_field = struct.pack(">II", 0, 4 + len(strings))
            strings += name + b"\0"
        fixed = struct.pack(">hHBB", symbol["section"], symbol["sym_type"],
                            symbol["sclass"], len(symbol["aux"]))
        if bits == 32:
            table += name_field + struct.pack(">I", 0x40) + fixed
        else:
            table += struct.pack(">QI", 0x40, 4 + len(strings) - len(name) - 1
                                 if len(name) else 0) + fixed
        for entry in symbol["aux"]:
            table += entry if isinstance(entry, bytes) else xcoff_aux(
                bits, *entry)
    count = len(table) // 18 if symbol_count is None else symbol_count
    offset = data_offset + len(data) if symbol_offset is None else \
        symbol_offset
    if bits == 32:
        header = struct.pack(">HHIIiHH", 0x01df, len(sections), 0, offset,
                             count, len(aux_header), flags)
    else:
        header = struct.pack(">HHIQHHI", 0x01f7, len(sections), 0, offset,
                             len(aux_header), flags, count)
    size = 4 + len(strings) + len(strings_end) if strings_size is None \
        else strings_size
    blob = (header + aux_header + headers + data + table +
            struct.pack(">I", size) + strings + strings_end)
    return blob if truncate is None else blob[:truncate]


def xcoff_aux_header(bits, version):
    """An optional (auxiliary) header as an AIX linker writes one for a
    loadable file: magic 0x010b, the version (2 in files whose symbols
    carry visibility), then sizes, entry point and section numbers."""
    if bits == 32:
        return struct.pack(">HH7I8H2I4s2I", 0x010b, version, 16, 16, 0,
                           0x10, 0, 0x100, 0, 3, 4, 5, 7, 10, 5, 0, 0, 0, 0,
                           b"\0\0\0\0", 0, 0)
    return struct.pack(">HHI3Q8H4s8QH2s", 0x010b, version, 0, 0, 0x100,
                       0x200, 3, 4, 5, 7, 10, 5, 0, 0, b"\0\0\0\0", 16, 16, 0,
                       0x10, 0, 0, 0, 0, 0, b"\0\0")


# Symbols of every storage class, csect type and visibility; LLVM lists the
# defined C_EXT and C_WEAKEXT ones.
XCOFF_ALL_SYMBOLS = [
    xcoff_symbol(".file", C_FILE, -2, aux=[(AUX_FILE,)]),
    xcoff_symbol("static_function", C_STAT, 1),
    xcoff_symbol("hidden_csect", C_HIDEXT, 3, XTY_SD),
    xcoff_symbol("defined_sd", C_EXT, 3, XTY_SD),
    xcoff_symbol(".label_ld", C_EXT, 3, XTY_LD),
    xcoff_symbol("common_cm", C_EXT, 5, XTY_CM),
    xcoff_symbol("thread_local", C_EXT, 8, XTY_SD),
    xcoff_symbol("thread_bss", C_EXT, 9, XTY_CM),
    xcoff_symbol("undefined_er", C_EXT, 0, XTY_ER),
    xcoff_symbol("undefined_common", C_EXT, 0, XTY_CM),
    xcoff_symbol("weak_sd", C_WEAKEXT, 4, XTY_SD),
    xcoff_symbol("weak_undefined", C_WEAKEXT, 0, XTY_ER),
    xcoff_symbol("absolute", C_EXT, -1, XTY_SD),
    xcoff_symbol("debug_section", C_EXT, -2, XTY_SD),
    xcoff_symbol("section_past_the_table", C_EXT, 40, XTY_SD),
    xcoff_symbol("hidden_vis", C_EXT, 4, XTY_SD, SYM_V_HIDDEN),
    xcoff_symbol("internal_vis", C_EXT, 4, XTY_SD, SYM_V_INTERNAL),
    xcoff_symbol("protected_vis", C_WEAKEXT, 4, XTY_SD, SYM_V_PROTECTED),
    xcoff_symbol("exported_vis", C_EXT, 4, XTY_SD, SYM_V_EXPORTED | 0x20),
    xcoff_symbol("dwinfo", C_DWARF, 2, aux=[bytes(18)]),
    xcoff_symbol("global_stab:G1", C_GSYM, -2),
    xcoff_symbol("block", C_BLOCK, 3, aux=[bytes(18)]),
    xcoff_symbol("a_symbol_name_of_more_than_eight_bytes", C_EXT, 4),
    xcoff_symbol("exactly8", C_EXT, 4),
    xcoff_symbol("", C_EXT, 4),
]


def xcoff_generated():
    """Hand-made XCOFF files LLVM 22 reads without a fatal error: objects,
    executables and shared objects with optional headers and sections of
    every type, symbols of every kind, and damaged headers and tables."""
    out = {}
    for bits in (32, 64):
        def obj(**options):
            options.setdefault("symbols", XCOFF_ALL_SYMBOLS)
            return xcoff_object(bits, **options)
        out[f"xcoff-gen{bits}-object.o"] = obj(sections=XCOFF_SECTIONS)
        out[f"xcoff-gen{bits}-exec.o"] = obj(
            flags=0x1002, aux_header=xcoff_aux_header(bits, 1),
            sections=XCOFF_SECTIONS)
        out[f"xcoff-gen{bits}-shared.o"] = obj(
            flags=0x3002, aux_header=xcoff_aux_header(bits, 2),
            sections=XCOFF_SECTIONS)
        out[f"xcoff-gen{bits}-short-aux-header.o"] = obj(
            aux_header=xcoff_aux_header(bits, 2)[:28])
        out[f"xcoff-gen{bits}-no-symbols.o"] = obj(symbols=[])
        # Several auxiliary entries: in 64-bit files the last csect one
        # counts, in 32-bit files the last one.
        out[f"xcoff-gen{bits}-aux-entries.o"] = obj(symbols=[
            xcoff_symbol("function", C_EXT, 1, aux=[
                (AUX_FCN,), (AUX_CSECT, XTY_LD), (AUX_SECT,)]
                if bits == 64 else [(AUX_FCN,), (AUX_CSECT, XTY_LD)]),
            xcoff_symbol("common", C_EXT, 1, aux=[(AUX_CSECT, XTY_CM),
                                                  (AUX_CSECT, XTY_SD)])])
        # No string table, or one of no strings, with only short names.
        short = [xcoff_symbol("short", C_EXT, 1)] if bits == 32 else []
        out[f"xcoff-gen{bits}-no-string-table.o"] = obj(
            symbols=short, truncate=len(obj(symbols=short)) - 4)
        out[f"xcoff-gen{bits}-empty-string-table.o"] = obj(
            symbols=short, strings_size=2)
        # Damaged: LLVM's messages.
        whole = obj(sections=XCOFF_SECTIONS)
        header = 20 if bits == 32 else 24
        out[f"xcoff-gen{bits}-header-cut.o"] = whole[:header - 1]
        out[f"xcoff-gen{bits}-aux-header-past-end.o"] = obj(
            symbols=[], aux_header=xcoff_aux_header(bits, 1),
            truncate=header + 20)
        out[f"xcoff-gen{bits}-section-headers-past-end.o"] = obj(
            symbols=[], sections=XCOFF_SECTIONS, truncate=header + 100)
        out[f"xcoff-gen{bits}-symbols-past-end.o"] = obj(
            symbol_count=1000)
        out[f"xcoff-gen{bits}-symbol-offset-past-end.o"] = obj(
            symbol_offset=0xfffffff0)
        out[f"xcoff-gen{bits}-strings-past-end.o"] = obj(
            strings_size=100000)
        out[f"xcoff-gen{bits}-strings-without-nul.o"] = obj(
            strings_end=b"x")
        # A string table size field cut short: no string table.
        out[f"xcoff-gen{bits}-strings-size-cut.o"] = xcoff_object(
            bits, symbols=short, truncate=len(obj(symbols=short)) - 2)
    # A 64-bit symbol table offset of 2^63 or more is before the file to
    # LLVM; when the table's end wraps into the file, LLVM reads the string
    # table there first (here one past the end).
    before = bytearray(xcoff_object(64, symbols=XCOFF_ALL_SYMBOLS))
    before[8:16] = struct.pack(">Q", 2**64 - 0x100)
    out["xcoff-gen64-symbols-before-file.o"] = bytes(before)
    # A negative 32-bit symbol count is no symbol table to LLVM.
    out["xcoff-gen32-negative-count.o"] = xcoff_object(
        32, symbols=XCOFF_ALL_SYMBOLS, symbol_count=-5)
    return out


def xcoff_refused():
    """XCOFF files LLVM 22 stops on with a fatal error (or reads past the
    symbol table for): ours must refuse each."""
    out = {}
    for bits in (32, 64):
        name = "long_name_in_the_string_table"
        out[f"xcoff-fatal{bits}-no-aux.o"] = xcoff_object(
            bits, symbols=[xcoff_symbol(name, C_EXT, 1, aux=[])])
        # A string table of the first name only: the second is past its end.
        out[f"xcoff-fatal{bits}-name-past-strings.o"] = xcoff_object(
            bits, symbols=[xcoff_symbol("first_long_name", C_STAT, 1, aux=[]),
                           xcoff_symbol(name, C_HIDEXT, 1)],
            strings_size=4 + len("first_long_name") + 1)
        out[f"xcoff-fatal{bits}-no-strings.o"] = xcoff_object(
            bits, symbols=[xcoff_symbol(name, C_EXT, 1)], strings_size=4)
        out[f"xcoff-fatal{bits}-aux-past-table.o"] = xcoff_object(
            bits, symbols=[xcoff_symbol("s", C_STAT, 1, aux=[bytes(18)])],
            symbol_count=1)
    # Symbol tables before the file (see xcoff_generated()), ending inside
    # it before a valid string table, or not reaching it.
    for name, offset in (("wrapping", 2**64 - 0x100),
                         ("far", 2**64 - 0x1000), ("top", 2**63)):
        before = bytearray(xcoff_object(64, symbols=XCOFF_ALL_SYMBOLS))
        before[8:16] = struct.pack(">Q", offset)
        before[0x260:0x264] = struct.pack(">I", 4)
        out[f"xcoff-fatal64-symbols-before-file-{name}.o"] = bytes(before)
    out["xcoff-fatal64-no-csect-aux.o"] = xcoff_object(
        64, symbols=[xcoff_symbol("f", C_EXT, 1, aux=[(AUX_FCN,)])])
    return out


def goff_members():
    """LLVM 22 recognises GOFF but opens no GOFF file as a symbolic file."""
    record = b"\x03\xf0\x00" + bytes(77)
    return {"goff-header.goff": record, "goff-short.goff": record[:4],
            "goff-records.goff": record * 3}


def members():
    """name -> bytes: every generated member."""
    out = {}
    for machine in (0x14c, 0x8664, 0xaa64, 0x1c4, 0xa641, 0xa64e, 0x1f0, 0x0,
                    0x5032, 0x9041, 0x6232, 0x184):
        out[f"coff-{machine:04x}.obj"] = coff_object(machine)
    out["coff-optional-header.obj"] = coff_object(optional_header=b"\x0b\x01" + b"\0" * 26)
    out["coff-no-sections.obj"] = coff_object(section_count=0)
    out["coff-no-symbols.obj"] = coff_object(symbols=[])
    out["coff-only-locals.obj"] = coff_object(symbols=[dict(name="l", sclass=STATIC)])
    out["bigobj.obj"] = coff_object(big=True)
    out["bigobj-arm64.obj"] = coff_object(big=True, machine=0xaa64)
    out["bigobj-version1.obj"] = coff_object(big=True, version=1)
    # Damaged objects.
    out["short-header.obj"] = coff_object(truncate=12)
    out["sections-cut.obj"] = coff_object(section_count=3, truncate=80)
    out["optional-header-past-end.obj"] = coff_object(symbols=[], truncate=20 + 40 + 8 + 4)[:20]
    out["symbol-table-missing.obj"] = coff_object(symbol_table_offset=0)
    out["symbol-table-past-end.obj"] = coff_object(symbol_count=100000)
    out["string-table-past-end.obj"] = coff_object(string_table_size=100000)
    out["string-table-no-nul.obj"] = coff_object(strings_tail=b"tail")
    out["string-table-size-0.obj"] = coff_object(
        symbols=[dict(name="a_long_symbol_name")], string_table_size=0)
    out["string-table-size-4.obj"] = coff_object(
        symbols=[dict(name="a_long_symbol_name")], string_table_size=4)
    out["name-past-strings.obj"] = coff_object(
        symbols=[dict(name="a_long_symbol_name")], string_table_size=8)
    out["aux-past-table.obj"] = coff_object(
        symbols=[dict(name="g"), dict(name="h", aux=[b""] * 200)])
    out["bigobj-cut.obj"] = coff_object(big=True, truncate=60)
    # Import library members.
    out["import-code.lib"] = import_member("function")
    out["import-data.lib"] = import_member("variable", kind=1)
    out["import-const.lib"] = import_member("constant", kind=2)
    out["import-type3.lib"] = import_member("odd", kind=3)
    out["import-i386.lib"] = import_member("_f@4", machine=0x14c)
    out["import-empty-name.lib"] = import_member("")
    for machine in (0xa641, 0xa64e):
        for index, name in enumerate(["#c_function", "c_function",
                                      "?f@@$$hYAXXZ", "?f@@YAXXZ",
                                      "??@0123456789abcdef@$$h@", "?x$$h",
                                      "#"]):
            for kind in (0, 1):
                out[f"import-{machine:04x}-{index}-{kind}.lib"] = import_member(
                    name, machine=machine, kind=kind)
    out.update(dx_members())
    out.update(pe_members())
    out.update(goff_members())
    out.update(macho_members())
    # Raw device images that only look like COFF objects to LLVM.
    rng = random.Random(15)
    for index in range(24):
        size = rng.choice([4, 19, 20, 21, 40, 64, 100, 257, 1024])
        out[f"raw-{index}.cubin"] = b"\0\0" + bytes(
            rng.randrange(256) if rng.random() < 0.5 else 0
            for _ in range(size - 2))
    return out


def read_offload_binary(data):
    """(image kind, offload kind, strings [(key, value)] in order, image) of
    a one-image version 1 offload binary; its flags must be zero."""
    def text(offset):
        return data[offset:data.index(b"\0", offset)].decode()
    entry = struct.unpack_from("<QQ", data, 16)[0]
    (image_kind, offload_kind, flags, strings_at, count, image_at,
     image_size) = struct.unpack_from("<HHIQQQQ", data, entry)
    assert flags == 0
    strings = [tuple(text(o) for o in struct.unpack_from(
        "<QQ", data, strings_at + 16 * i)) for i in range(count)]
    return (image_kind, offload_kind, strings,
            data[image_at:image_at + image_size])


# -- the suite ----------------------------------------------------------------

class Suite:
    def __init__(self, args, folder):
        self.ours_bundler = os.path.abspath(args.ours_bundler)
        self.ours_binary = os.path.abspath(args.ours_binary)
        self.bin = args.reference_bin
        self.only = args.only
        self.folder = folder
        self.passed = 0
        self.failed = 0
        self.cases = 0
        # (extension, kind) -> what LLVM's packager writes for it.
        self.packager_fields = {}
        self.archive_checked = False

    def tool(self, name):
        return os.path.join(self.bin, name)

    def build(self, what, command, cwd):
        done = subprocess.run(command, cwd=cwd, capture_output=True)
        if done.returncode != 0:
            skip_suite(f"LLVM 22 could not build {what}: "
                       f"{done.stderr.decode(errors='replace')[:300]}")

    def compare(self, label, argv0, executables, args, inputs, output):
        """Runs both tools in twin folders holding `inputs`; compares exit
        code, stdout, stderr and the output file."""
        self.cases += 1
        results = []
        for side, executable in zip(("ref", "ours"), executables):
            folder = os.path.join(self.folder, f"case{self.cases}", side)
            os.makedirs(folder)
            for name, data in inputs.items():
                with open(os.path.join(folder, name), "wb") as handle:
                    handle.write(data)
            done = subprocess.run([argv0] + args, executable=executable,
                                  cwd=folder, capture_output=True, timeout=60,
                                  env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
            path = os.path.join(folder, output)
            result = None
            if os.path.exists(path):
                with open(path, "rb") as handle:
                    result = handle.read()
            results.append((done.returncode, done.stdout, done.stderr, result))
        ref, ours = results
        same = ref[:3] == ours[:3] and (ref[0] != 0 or ref[3] == ours[3])
        if same:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {label}: {args}")
            for what, a, b in zip(("exit", "stdout", "stderr"), ref, ours):
                if a != b:
                    print(f"  {what}: reference {a!r}\n  {' ' * len(what)}  "
                          f"ours      {b!r}")
            if ref[0] == 0 and ref[3] != ours[3]:
                print(f"  {output}: reference {len(ref[3] or b'')} bytes, "
                      f"ours {len(ours[3] or b'')} bytes")
        shutil.rmtree(os.path.join(self.folder, f"case{self.cases}"))
        return ref

    def compare_or_refused(self, label, data, refusal):
        """Like compare() through llvm-offload-binary, but a refusal of ours
        (a line holding `refusal`, unless that is None) passes whatever LLVM
        did."""
        self.cases += 1
        work = os.path.join(self.folder, f"case{self.cases}")
        os.makedirs(work)
        with open(os.path.join(work, "member"), "wb") as handle:
            handle.write(data)
        binary = self.packaged(work, "member", data, "openmp")
        results = []
        for name, executable in (("ref", self.tool("llvm-offload-binary")),
                                 ("ours", self.ours_binary)):
            output = os.path.join(work, f"{name}.a")
            done = subprocess.run(
                ["llvm-offload-binary", "x.bin", "--archive",
                 f"--image=file={name}.a"], executable=executable, cwd=work,
                capture_output=True, timeout=60,
                env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
            archive = None
            if os.path.exists(output):
                with open(output, "rb") as handle:
                    archive = handle.read()
            # The archive's own name is in neither message.
            results.append((done.returncode, done.stdout, done.stderr.replace(
                f"{name}.a".encode(), b"OUT"), archive))
        ref, ours = results
        refused = (refusal is not None and ours[0] == 1 and
                   refusal in ours[2] and ours[2].count(b"\n") == 1)
        same = ref[:3] == ours[:3] and (ref[0] != 0 or ref[3] == ours[3])
        if same or refused:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {label}: reference {ref[:3]!r}\n  ours {ours[:3]!r}")
        shutil.rmtree(work)

    def package(self, work, images):
        """An offload binary of `images` [(file name, kind)], by LLVM 22."""
        args = [self.tool("clang-offload-packager"), "-o", "x.bin"]
        for index, (name, kind) in enumerate(images):
            args.append(f"--image=file={name},triple=amdgcn-amd-amdhsa,"
                        f"arch=gfx{900 + index},kind={kind}")
        self.build(f"an offload binary of {images}", args, work)
        with open(os.path.join(work, "x.bin"), "rb") as handle:
            return handle.read()

    def packaged(self, work, name, data, kind):
        """The offload binary LLVM 22's packager makes of the one image
        `name` holding `data`, written here: its header fields (image kind
        from the name's extension, offload kind, flags, strings in order)
        are those of LLVM's own for a stand-in image of the same name and
        kind, made once per extension and kind, and the rest must read back
        as LLVM's does. Thousands of members then cost no packager run."""
        extension = os.path.splitext(name)[1]
        key = (extension, kind)
        if key not in self.packager_fields:
            sample = "sample" + extension
            with open(os.path.join(work, sample), "wb") as handle:
                handle.write(b"SAMPLE-IMAGE")
            fields = read_offload_binary(self.package(work, [(sample, kind)]))
            if (fields[3] != b"SAMPLE-IMAGE" or
                    read_offload_binary(offload_binary(
                        b"SAMPLE-IMAGE", fields[2], fields[0], fields[1])) !=
                    fields):
                self.failed += 1
                print(f"FAIL offload binaries written here no longer read as "
                      f"LLVM 22's packager's for {sample}, kind {kind}: "
                      f"{fields}")
            self.packager_fields[key] = fields
        image_kind, offload_kind, strings, _ = self.packager_fields[key]
        return offload_binary(data, strings, image_kind, offload_kind)

    def bundle_archive(self, work, name, data):
        """An archive holding a bundle whose device entry is `name`'s
        `data`, written here as LLVM 22's bundler and `llvm-ar rcD` write it
        (checked byte for byte on the first member)."""
        archive = ar_archive([("bundle.bc", binary_bundle(
            [b"host-x86_64-unknown-linux-gnu-",
             b"hip-amdgcn-amd-amdhsa--gfx906"], [b"host", data]))])
        if self.archive_checked:
            return archive
        self.archive_checked = True
        with open(os.path.join(work, "host.txt"), "w") as handle:
            handle.write("host")
        self.build(f"a bundle of {name}", [
            self.tool("clang-offload-bundler"), "-type=bc",
            "-targets=host-x86_64-unknown-linux-gnu,"
            "hip-amdgcn-amd-amdhsa--gfx906",
            "-input=host.txt", f"-input={name}", "-output=bundle.bc"], work)
        self.build(f"an archive of the bundle of {name}", [
            self.tool("llvm-ar"), "rcD", "in.a", "bundle.bc"], work)
        with open(os.path.join(work, "in.a"), "rb") as handle:
            if handle.read() != archive:
                self.failed += 1
                print("FAIL archives of bundles written here are no longer "
                      "those LLVM 22's bundler and llvm-ar write")
        return archive

    def compiled_members(self, work):
        """Objects and a DLL LLVM 22's own clang and lld make from C: real
        Mach-O objects (with and without debug information) and a PE image
        with import, export and relocation directories and a symbol table."""
        source = os.path.join(work, "compiled.c")
        with open(source, "w") as handle:
            handle.write("int defined_data = 1; static int local_data = 2;\n"
                         "extern int undefined_data; int common_data;\n"
                         "__attribute__((weak)) int weak_function(void) {\n"
                         "  return undefined_data + local_data; }\n"
                         "int function(void) { return defined_data; }\n")
        out = {}
        for name, flags in (
                ("clang-x86_64-macos.o", ["--target=x86_64-apple-macos"]),
                ("clang-arm64-macos.o", ["--target=arm64-apple-macos"]),
                ("clang-i386-macos.o", ["--target=i386-apple-macos"]),
                ("clang-x86_64-macos-g.o", ["--target=x86_64-apple-macos",
                                            "-g"])):
            self.build(name, [self.tool("clang"), "-c", *flags, source, "-o",
                              name], work)
            with open(os.path.join(work, name), "rb") as handle:
                out[name] = handle.read()
        with open(source, "w") as handle:
            handle.write("int defined_data = 1;\n"
                         "int function(void) { return defined_data; }\n")
        self.build("a Windows object", [
            self.tool("clang"), "-c", "--target=x86_64-pc-windows-msvc",
            source, "-o", "compiled.obj"], work)
        self.build("a DLL", [
            self.tool("lld-link"), "/dll", "/noentry", "/export:function",
            "/debug:symtab", "/out:clang-x86_64.dll", "compiled.obj"], work)
        with open(os.path.join(work, "clang-x86_64.dll"), "rb") as handle:
            out["clang-x86_64.dll"] = handle.read()
        return out

    def wasm_members(self, work):
        """Wasm objects clang 22 makes from C (wasm32 and wasm64, with and
        without optimisation), and an empty one."""
        source = os.path.join(work, "wasm.c")
        with open(source, "w") as handle:
            handle.write(WASM_SOURCE)
        with open(os.path.join(work, "empty.c"), "w") as handle:
            handle.write("")
        out = {}
        for target in ("wasm32", "wasm64"):
            for level in ("-O0", "-O1"):
                for name, from_file in ((f"wasm-clang-{target}{level}.o", source),
                                        (f"wasm-clang-{target}-empty.o",
                                         "empty.c")):
                    self.build(name, [self.tool("clang"), f"--target={target}",
                                      level, "-c", from_file, "-o", name],
                               work)
                    with open(os.path.join(work, name), "rb") as handle:
                        out[name] = handle.read()
        out.update(self.wasm_more_members(work, source))
        return out

    def wasm_more_members(self, work, source):
        """Wasm from clang 22 and wasm-ld beyond plain objects: objects with
        debug information, C++ with comdats and exceptions, and linked
        modules (exports, names, debug sections, a start section, shared
        ones with dylink.0, stripped ones)."""
        cxx = os.path.join(work, "wasm.cpp")
        with open(cxx, "w") as handle:
            handle.write(WASM_CXX_SOURCE)
        clang = self.tool("clang")
        linked = ["-nostdlib", "-Wl,--no-entry",
                  "-Wl,--unresolved-symbols=ignore-all"]
        variants = {
            "wasm-clang-wasm32-g.o": ["--target=wasm32", "-g", "-c", source],
            "wasm-clang-wasm64-g.o": ["--target=wasm64", "-g", "-O1", "-c",
                                      source],
            "wasm-clang-wasm32-pic-g.o": ["--target=wasm32", "-fPIC", "-g",
                                          "-c", source],
            "wasm-clang-wasm32-tls.o": ["--target=wasm32", "-pthread",
                                        "-matomics", "-mbulk-memory", "-c",
                                        source],
            "wasm-clang-cxx-g.o": ["--target=wasm32", "-x", "c++", "-g",
                                   "-fwasm-exceptions", "-c", cxx],
            "wasm-clang-cxx-exnref.o": ["--target=wasm32", "-x", "c++",
                                        "-fwasm-exceptions", "-mllvm",
                                        "-wasm-use-legacy-eh=false", "-c",
                                        cxx],
            "wasm-clang-linked-all.wasm": ["--target=wasm32", *linked,
                                           "-Wl,--export-all", source],
            "wasm-clang-linked-one-g.wasm": ["--target=wasm32", *linked, "-g",
                                             "-Wl,--export=function", source],
            "wasm-clang-linked-stripped.wasm": [
                "--target=wasm32", *linked, "-Wl,--export-all",
                "-Wl,--strip-all", source],
            "wasm-clang-linked-relocs.wasm": [
                "--target=wasm32", *linked, "-Wl,--export=function",
                "-Wl,--emit-relocs", source],
            "wasm-clang-linked-shared-g.wasm": [
                "--target=wasm32", *linked, "-shared", "-fPIC", "-g", source],
            "wasm-clang-linked-start.wasm": [
                "--target=wasm32", *linked, "-Wl,--export-all", "-pthread",
                "-matomics", "-mbulk-memory", "-Wl,--shared-memory",
                "-Wl,--import-memory", "-Wl,--build-id", source],
            "wasm-clang-linked-cxx.wasm": [
                "--target=wasm32", *linked, "-Wl,--export-all",
                "-Wl,--allow-undefined", "-x", "c++", "-fwasm-exceptions",
                cxx],
            "wasm-clang-relocatable.o": ["--target=wasm32", *linked,
                                         "-Wl,-r", source],
        }
        out = {}
        for name, flags in variants.items():
            self.build(name, [clang, *flags, "-o", name], work)
            with open(os.path.join(work, name), "rb") as handle:
                out[name] = handle.read()
        return out

    def xcoff_members(self, work):
        """XCOFF objects LLVM 22's clang makes for AIX, 32 and 64-bit:
        global, static, weak, hidden, common and undefined symbols."""
        source = os.path.join(work, "xcoff.c")
        with open(source, "w") as handle:
            handle.write(XCOFF_SOURCE)
        out = {}
        for name, flags in (
                ("xcoff-clang32.o", ["--target=powerpc-ibm-aix"]),
                ("xcoff-clang64.o", ["--target=powerpc64-ibm-aix"]),
                ("xcoff-clang64-g.o", ["--target=powerpc64-ibm-aix", "-g"]),
                ("xcoff-clang32-sections.o", ["--target=powerpc-ibm-aix",
                                              "-ffunction-sections",
                                              "-fdata-sections"])):
            self.build(name, [self.tool("clang"), "-c", "-fcommon", *flags,
                              source, "-o", name], work)
            with open(os.path.join(work, name), "rb") as handle:
                out[name] = handle.read()
        return out

    def run_all(self):
        work = os.path.join(self.folder, "work")
        os.makedirs(work)
        everything = members()
        everything.update(self.compiled_members(work))
        if self.only.startswith("wasm") or "wasm".startswith(self.only):
            everything.update(self.wasm_members(work))
            everything.update(wasm_generated())
        xcoff = self.xcoff_members(work)
        everything.update(xcoff)
        everything.update(xcoff_generated())
        generated = {name: data for name, data in everything.items()
                     if name.startswith(self.only)}
        kinds = ["openmp", "hip", "cuda", "sycl", "none"]
        failures = 0
        for index, (name, data) in enumerate(sorted(generated.items())):
            with open(os.path.join(work, name), "wb") as handle:
                handle.write(data)
            kind = kinds[index % len(kinds)]
            binary = self.packaged(work, name, data, kind)
            ref = self.compare(f"offload binary {name}", "llvm-offload-binary",
                               (self.tool("llvm-offload-binary"),
                                self.ours_binary),
                               ["x.bin", "--archive", "--image=file=out.a"],
                               {"x.bin": binary}, "out.a")
            failures += ref[0] != 0
            archive = self.bundle_archive(work, name, data)
            self.compare(f"bundler {name}", "clang-offload-bundler",
                         (self.tool("clang-offload-bundler"),
                          self.ours_bundler),
                         ["-unbundle", "-type=a", "-input=in.a",
                          "-targets=hip-amdgcn-amd-amdhsa--gfx906",
                          "-output=out.a"], {"in.a": archive}, "out.a")
        # Several members in one archive: the symbol table in member order.
        valid = [name for name in sorted(generated)
                 if name.startswith(("coff-", "bigobj.", "import-code",
                                     "dx-parts", "pe32", "macho64", "wasm-clang",
                                     "clang-", "xcoff-clang"))]
        binary = self.package(work, [(name, "openmp") for name in valid])
        self.compare("offload binary of several members", "llvm-offload-binary",
                     (self.tool("llvm-offload-binary"), self.ours_binary),
                     ["x.bin", "--archive", "--image=file=out.a"],
                     {"x.bin": binary}, "out.a")
        # Damaged Mach-O files: the archive, or the message, must be LLVM's.
        if "macho".startswith(self.only) or self.only.startswith("macho"):
            linked = macho_linked(2, macho_program_commands)
            for seed, base, limit in (
                    (1, macho_object(), 400),
                    (2, macho_object(32, True), 400),
                    (10, macho_object(file_type=6), 400),
                    (11, linked, len(linked)),
                    (12, macho_linked(6, macho_dylib_commands), 1200)):
                count = 60 if limit == 400 else 150
                for index, data in enumerate(mutated(base, seed, count, limit)):
                    self.compare_or_refused(f"mutated Mach-O {seed}.{index}",
                                            data, None)
        # Damaged Wasm objects from clang, likewise.
        if self.only.startswith("wasm") or "wasm".startswith(self.only):
            for seed, name in ((3, "wasm-clang-wasm32-O1.o"),
                               (4, "wasm-clang-wasm64-O0.o"),
                               (5, "wasm-clang-wasm32-g.o"),
                               (6, "wasm-clang-cxx-g.o"),
                               (7, "wasm-clang-linked-one-g.wasm"),
                               (8, "wasm-clang-linked-shared-g.wasm"),
                               (9, "wasm-linked-names.wasm")):
                for index, data in enumerate(
                        mutated(everything[name], seed, 80)):
                    self.compare_or_refused(f"mutated Wasm {seed}.{index}",
                                            data, WASM_REFUSAL)
        # Damaged XCOFF objects: as for Mach-O.
        if "xcoff".startswith(self.only) or self.only.startswith("xcoff"):
            for seed, data in ((3, xcoff["xcoff-clang32.o"]),
                               (4, xcoff["xcoff-clang64.o"]),
                               (5, everything["xcoff-gen32-exec.o"]),
                               (6, everything["xcoff-gen64-shared.o"])):
                for index, changed in enumerate(mutated(data, seed, 60)):
                    self.compare_or_refused(f"mutated XCOFF {seed}.{index}",
                                            changed, XCOFF_REFUSAL)
            # Where LLVM stops with a fatal error, ours must refuse.
            for name, data in sorted(xcoff_refused().items()):
                before = self.failed
                self.compare_or_refused(name, data, XCOFF_REFUSAL)
                if self.failed != before:
                    print(f"  ({name} must be refused)")
        if "pe".startswith(self.only) or self.only.startswith("pe"):
            for name, data in sorted(pe_load_config_refused().items()):
                self.compare_or_refused(name, data, PE_LOAD_CONFIG_REFUSAL)
        # Both outcomes must have been seen, or the suite tests less than it
        # says.
        # (A run of some members only, with --only, may see one.)
        if not self.only and (failures == 0 or failures == len(generated)):
            self.failed += 1
            print(f"FAIL LLVM 22 refused {failures} of {len(generated)} "
                  "members: the generator no longer covers both outcomes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours-bundler", required=True)
    parser.add_argument("--ours-binary", required=True)
    parser.add_argument("--reference-bin", required=True)
    parser.add_argument("--only", default="",
                        help="run only the members whose names start so")
    args = parser.parse_args()
    require_executables(args.ours_bundler, args.ours_binary, *(
        os.path.join(args.reference_bin, name) for name in
        ("clang-offload-bundler", "llvm-offload-binary",
         "clang-offload-packager", "llvm-ar", "clang", "lld-link")))
    with tempfile.TemporaryDirectory(prefix="offbundle-member-formats-") as folder:
        suite = Suite(args, folder)
        suite.run_all()
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
