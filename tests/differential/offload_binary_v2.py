#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Offload binaries of format version 2 and 3 (several images in one binary,
explicit value sizes, compression) through both tools.

The inputs are written here from the format's definition (see
formats/offload_binary.h and formats/compressed_offload_binary.h): version 2
binaries with several entries, their version 1 equivalents (one binary per
image, concatenated), mixtures of both, the same inside an ELF object's
`.llvm.offloading` section, inside a COFF object's and a bitcode module's
(embedded there by LLVM 22's clang -fembed-offload-object) and inside ar
archives, compressed binaries, and damaged ones. Checked:

  - what llvm-offload-binary extracts from a version 2 binary is exactly the
    images put in, under the names the version 1 equivalent gives;
  - --list of a version 2 binary equals --list of its version 1 equivalent,
    and filtered extraction from it equals what LLVM 22's tool extracts from
    the version 1 equivalent (LLVM 22 cannot read version 2);
  - clang-offload-bundler -list (text and JSON entries) and -unbundle read a
    version 2 binary as its version 1 equivalent;
  - a damaged version 2 or 3 binary gives exit 1, exactly one error line and
    no output file, in every mode of both tools;
  - --compress, --compression-format and --compression-level write the
    layout defined here (the zlib data is inflated here and compared with
    the uncompressed version 3 binary written here), and read back;
  - member= picks one archive member.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (Tally, finish, require_executables,  # noqa: E402
                           skip_suite)

MAGIC = b"\x10\xff\x10\xad"
SHT_LLVM_OFFLOADING = 0x6FFF4C0B
IMAGE_OBJECT, IMAGE_BITCODE, IMAGE_CUBIN = 1, 2, 3
OFFLOAD_OPENMP, OFFLOAD_CUDA, OFFLOAD_HIP = 1, 2, 4


def align(value, alignment=8):
    return (value + alignment - 1) // alignment * alignment


class Image:
    def __init__(self, data, strings, image_kind=IMAGE_OBJECT,
                 offload_kind=OFFLOAD_HIP, flags=0):
        self.data = data
        self.strings = strings  # [(key, value)] as bytes
        self.image_kind = image_kind
        self.offload_kind = offload_kind
        self.flags = flags


def string_table(images, start):
    """A plain table of every string, each null-terminated: offset of each."""
    table = b"\0"
    offsets = {b"": start}
    for image in images:
        for text in (t for pair in image.strings for t in pair):
            if text not in offsets:
                offsets[text] = start + len(table)
                table += text + b"\0"
    return table, offsets


def entry(image, string_offset, image_offset):
    return struct.pack("<HHIQQQQ", image.image_kind, image.offload_kind,
                       image.flags, string_offset, len(image.strings),
                       image_offset, len(image.data))


def version1(image):
    """One version 1 binary (LLVM 22's layout)."""
    strings_at = 32 + 40
    table_at = strings_at + 16 * len(image.strings)
    table, offsets = string_table([image], table_at)
    image_at = align(table_at + len(table))
    size = align(image_at + len(image.data))
    out = MAGIC + struct.pack("<IQQQ", 1, size, 32, 40)
    out += entry(image, strings_at, image_at)
    for key, value in image.strings:
        out += struct.pack("<QQ", offsets[key], offsets[value])
    out += table
    out += b"\0" * (image_at - len(out)) + image.data
    return out + b"\0" * (size - len(out))


def multi(images, version=2, sized_values=None):
    """One version 2 (or uncompressed 3) binary holding every image.
    `sized_values` maps a value to (text it is read from, length) to store
    it as a prefix of a longer, unrelated string."""
    sized_values = sized_values or {}
    header_size = 40 if version >= 3 else 32
    strings_at = header_size + 40 * len(images)
    count = sum(len(image.strings) for image in images)
    table_at = strings_at + 24 * count
    holders = [Image(b"", [(k, sized_values.get(v, (v, 0))[0])
                           for k, v in image.strings]) for image in images]
    table, offsets = string_table(holders, table_at)
    first_image = align(table_at + len(table))
    size = align(first_image + sum(len(image.data) for image in images))
    out = MAGIC + struct.pack("<IQQQ", version, size, header_size, len(images))
    if version >= 3:
        out += struct.pack("<Q", 0)
    string_at, image_at = strings_at, first_image
    for image in images:
        out += entry(image, string_at, image_at)
        string_at += 24 * len(image.strings)
        image_at += len(image.data)
    for image in images:
        for key, value in image.strings:
            holder = sized_values.get(value, (value, 0))[0]
            out += struct.pack("<QQQ", offsets[key], offsets[holder], len(value))
    out += table
    out += b"\0" * (first_image - len(out))
    out += b"".join(image.data for image in images)
    return out + b"\0" * (size - len(out))


def compressed(uncompressed_v3, codec):
    body = uncompressed_v3[40:]
    if codec == "zlib":
        packed = zlib.compress(body, 6)
    else:
        packed = subprocess.run(["zstd", "-q", "-c"], input=body,
                                capture_output=True, check=True).stdout
    size = 40 + len(packed)
    header = bytearray(uncompressed_v3[:40])
    struct.pack_into("<Q", header, 8, size)
    struct.pack_into("<Q", header, 32, len(uncompressed_v3))
    out = bytes(header) + packed
    return out + b"\0" * (align(size) - size)


def elf_object(section):
    """A minimal x86-64 relocatable ELF file whose only section besides the
    name table is `.llvm.offloading` of type SHT_LLVM_OFFLOADING."""
    names = b"\0.llvm.offloading\0.shstrtab\0"
    data_at = 64
    names_at = data_at + len(section)
    headers_at = align(names_at + len(names))
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, headers_at, 0, 64,
                        0, 0, 64, 3, 2))
    out = ehdr + section + names
    out += b"\0" * (headers_at - len(out))
    out += b"\0" * 64
    out += struct.pack("<IIQQQQIIQQ", 1, SHT_LLVM_OFFLOADING, 0, 0, data_at,
                       len(section), 0, 0, 8, 0)
    out += struct.pack("<IIQQQQIIQQ", 18, 3, 0, 0, names_at, len(names), 0, 0,
                       1, 0)
    return out


def ar_archive(members):
    """A GNU ar archive of (name, bytes) with short names."""
    out = b"!<arch>\n"
    for name, data in members:
        out += (f"{name}/".ljust(16) + "0".ljust(12) + "0".ljust(6) +
                "0".ljust(6) + "644".ljust(8) + str(len(data)).ljust(10) +
                "`\n").encode()
        out += data + (b"\n" if len(data) % 2 else b"")
    return out


def sample_images():
    return [
        Image(b"gfx90a-code-" * 5,
              [(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx90a")]),
        Image(b"gfx1030-code" * 3,
              [(b"triple", b"amdgcn-amd-amdhsa"), (b"arch", b"gfx1030"),
               (b"feature", b"+wavefrontsize64")], IMAGE_BITCODE),
        Image(b"cubin-bytes-" * 7 + b"x",
              [(b"triple", b"nvptx64-nvidia-cuda"), (b"arch", b"sm_70")],
              IMAGE_CUBIN, OFFLOAD_CUDA),
        Image(b"", [(b"triple", b"x86_64-unknown-linux-gnu"),
                    (b"arch", b"generic")], IMAGE_OBJECT, OFFLOAD_OPENMP),
    ]


class Suite(Tally):
    def __init__(self, ours, bundler, reference, folder):
        super().__init__()
        self.ours, self.bundler = ours, bundler
        self.reference, self.folder = reference, folder
        self.cases = 0


    def workspace(self, files):
        self.cases += 1
        folder = os.path.join(self.folder, f"case{self.cases}")
        os.makedirs(folder)
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
        return folder

    @staticmethod
    def run(executable, args, cwd):
        done = subprocess.run([executable] + args, cwd=cwd,
                              capture_output=True, timeout=60,
                              env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
        return done.returncode, done.stdout, done.stderr

    @staticmethod
    def tree(folder):
        files = {}
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), "rb") as handle:
                files[name] = handle.read()
        return files

    def ours_in(self, files, args, tool=None):
        folder = self.workspace(files)
        code, out, err = self.run(tool or self.ours, args, folder)
        return code, out, err, self.tree(folder)

    # -- llvm-offload-binary ---------------------------------------------------

    def extraction(self, label, v2, v1, images):
        """Everything extracted from `v2` is the images, named as from `v1`;
        both list alike."""
        code, out, err, after = self.ours_in({"in.bin": v2}, ["in.bin"])
        names = [line[len(b"Extracted: "):].decode()
                 for line in out.splitlines()]
        self.check(f"{label}: extract everything", code == 0 and not err and
                   [after.get(name) for name in names] ==
                   [image.data for image in images], f"{code} {err!r} {names}")
        code1, out1, _, _ = self.ours_in({"in.bin": v1}, ["in.bin"])
        self.check(f"{label}: names as from version 1", code1 == 0 and
                   out1 == out, f"{out!r} vs {out1!r}")
        listed = self.ours_in({"in.bin": v2}, ["in.bin", "--list"])
        listed1 = self.ours_in({"in.bin": v1}, ["in.bin", "--list"])
        self.check(f"{label}: --list as version 1",
                   listed[0] == 0 and listed[1] and listed[:3] == listed1[:3],
                   f"{listed[:3]!r} vs {listed1[:3]!r}")

    def against_llvm22(self, label, v2, v1, filters):
        """Filtered extraction (to files, to an archive) from `v2` by us
        equals LLVM 22's from `v1`."""
        for extra in ([], ["--archive"]):
            # An archive needs a file= in every filter.
            wanted = [f if "file=" in f or not extra else f + ",file=lib.a"
                      for f in filters]
            args = ["in.bin"] + [f"--image={f}" for f in wanted] + extra
            ours = self.ours_in({"in.bin": v2}, args)
            theirs = self.ours_in({"in.bin": v1}, args, tool=self.reference)
            ours[3].pop("in.bin")
            theirs[3].pop("in.bin")
            self.check(f"{label}: {extra} {filters} as LLVM 22 from version 1",
                       ours[0] == theirs[0] == 0 and ours[3] == theirs[3] and
                       ours[3] and ours[1] == theirs[1],
                       f"{ours[:3]!r} vs {theirs[:3]!r} "
                       f"{sorted(ours[3])} vs {sorted(theirs[3])}")

    def must_fail(self, label, data, name="in.bin"):
        modes = {"list": [name, "--list"], "all": [name],
                 "filter": [name, "--image=triple=amdgcn-amd-amdhsa,file=o"],
                 "archive": [name, "--archive",
                             "--image=triple=amdgcn-amd-amdhsa,file=o.a"]}
        for mode, args in modes.items():
            code, out, err, after = self.ours_in({name: data}, args)
            self.check(f"damaged {label} [{mode}]",
                       code == 1 and err.count(b"\n") == 1 and
                       b"error: " in err and set(after) == {name} and
                       (mode != "list" or not out), f"{code} {err!r}")
        for args in (["-list"], ["-list", "-format=json"]):
            code, out, err, after = self.ours_in(
                {name: data}, ["-type=o", f"-input={name}"] + args,
                tool=self.bundler)
            self.check(f"damaged {label} [bundler {args}]",
                       code == 1 and err.count(b"\n") == 1 and
                       b"error: " in err, f"{code} {err!r}")

    # -- clang-offload-bundler -------------------------------------------------

    def bundler_reads(self, label, v2, v1, images, name="in.bin"):
        lists = [self.ours_in({name: data}, ["-list", "-type=o",
                                             f"-input={name}"],
                              tool=self.bundler) for data in (v2, v1)]
        self.check(f"{label}: bundler -list as version 1",
                   lists[0][0] == 0 and lists[0][1] and
                   lists[0][:3] == lists[1][:3], f"{lists[0][:3]!r}")
        jsons = []
        for data in (v2, v1):
            code, out, err, _ = self.ours_in(
                {name: data}, ["-list", "-format=json", "-type=o",
                               f"-input={name}"], tool=self.bundler)
            entries = [] if code else [
                (e["id"], e["size"], e["image"])
                for b in json.loads(out)["bundles"] for e in b["entries"]]
            jsons.append(entries)
        self.check(f"{label}: bundler JSON entries as version 1",
                   jsons[0] and jsons[0] == jsons[1], f"{jsons!r}")
        ids = lists[0][1].decode().split()
        for index, target in enumerate(ids):
            # The bundler's -targets knows the kinds of bundle entry IDs.
            if not target.startswith(("hip-", "openmp-")):
                continue
            code, _, err, after = self.ours_in(
                {name: v2}, ["-unbundle", "-type=o", f"-input={name}",
                             f"-targets={target}", "-output=out"],
                tool=self.bundler)
            self.check(f"{label}: bundler -unbundle {target}",
                       code == 0 and after.get("out") == images[index].data,
                       f"{code} {err!r}")

    # -- cases -----------------------------------------------------------------

    def formats(self):
        images = sample_images()
        v1 = b"".join(version1(image) for image in images)
        v2 = multi(images)
        v3 = multi(images, version=3)
        self.extraction("version 2", v2, v1, images)
        self.extraction("version 3", v3, v1, images)
        mixed = version1(images[0]) + multi(images[1:3]) + version1(images[3])
        self.extraction("version 1 and 2 mixed", mixed, v1, images)
        two_v2 = multi(images[:2]) + multi(images[2:])
        self.extraction("two version 2 binaries", two_v2, v1, images)
        self.extraction("version 2 in an ELF section", elf_object(v2),
                        elf_object(v1), images)
        for codec in ("zlib", "zstd"):
            self.extraction(f"compressed {codec}", compressed(v3, codec), v1,
                            images)
            self.extraction(f"compressed {codec} then version 1",
                            compressed(multi(images[:3], 3), codec) +
                            version1(images[3]), v1, images)

        # Values read by their size, here the start of a longer string.
        sized = multi(images, sized_values={
            b"gfx90a": (b"gfx90a:xnack+", 6), b"sm_70": (b"sm_70a-extra", 5)})
        self.extraction("sized values", sized, v1, images)

        filters = [["triple=amdgcn-amd-amdhsa,arch=gfx90a,file=one.o"],
                   ["kind=cuda"], ["triple=amdgcn-amd-amdhsa"],
                   ["arch=generic,file=g.o", "feature=+wavefrontsize64"]]
        for wanted in filters:
            self.against_llvm22("version 2", v2, v1, wanted)
            self.against_llvm22("version 2 in an ELF section", elf_object(v2),
                                elf_object(v1), wanted)
            self.against_llvm22("archive of version 2",
                                ar_archive([("a.o", v2)]),
                                ar_archive([("a.o", v1)]), wanted)

        self.bundler_reads("version 2", v2, v1, images)
        self.bundler_reads("version 2 in an ELF section", elf_object(v2),
                           elf_object(v1), images, name="in.o")
        self.bundler_reads("compressed zlib", compressed(v3, "zlib"), v1,
                           images)
        self.bundler_reads("archive of version 2 and compressed",
                           ar_archive([("a.o", multi(images[:2])),
                                       ("b.o", compressed(
                                           multi(images[2:], 3), "zstd"))]),
                           ar_archive([("a.o", v1[:len(version1(images[0])) +
                                                  len(version1(images[1]))]),
                                       ("b.o", b"".join(version1(i) for i in
                                                       images[2:]))]),
                           images, name="in.a")

    def embedded(self):
        """Version 2 binaries in a COFF object's `.llvm.offloading` section
        and in a bitcode module's, as LLVM 22's clang embeds a file there,
        read by llvm-offload-binary as the version 1 equivalents embedded the
        same way (the bundler lists offload binaries of ELF files only)."""
        images = sample_images()
        clang = os.path.join(os.path.dirname(self.reference), "clang")
        require_executables(clang)
        v1 = b"".join(version1(image) for image in images)
        v2 = multi(images)
        folder = self.workspace({"a.c": b"int defined_data = 1;\n",
                                 "v1.bin": v1, "v2.bin": v2})
        made = {}
        for label, flags, suffix in (
                ("a COFF object", ["--target=x86_64-pc-windows-msvc", "-c"],
                 "obj"),
                ("a bitcode module", ["--target=x86_64-unknown-linux-gnu",
                                      "-c", "-emit-llvm"], "bc")):
            for version in ("v1", "v2"):
                output = f"{version}.{suffix}"
                code, _, err = self.run(clang, flags + [
                    "a.c", "-Xclang", f"-fembed-offload-object={version}.bin",
                    "-o", output], folder)
                if code != 0:
                    skip_suite(f"LLVM 22's clang could not embed an offload "
                               f"binary in {label}: {err[:300]!r}")
                with open(os.path.join(folder, output), "rb") as handle:
                    made[version] = handle.read()
            self.extraction(f"version 2 in {label}", made["v2"], made["v1"],
                            images)
            for wanted in (["triple=amdgcn-amd-amdhsa"], ["kind=cuda"]):
                self.against_llvm22(f"version 2 in {label}", made["v2"],
                                    made["v1"], wanted)

    def damaged(self):
        images = sample_images()
        good = multi(images)
        size = len(good)

        def patched(offset, value, data=good):
            out = bytearray(data)
            struct.pack_into("<Q", out, offset, value)
            return bytes(out)

        # An image that fills the binary's end: no null byte after it.
        unterminated = multi([Image(b"NO-NULL-AT-END!!", [(b"k", b"v")])])
        entry_at = 32
        strings_at = struct.unpack_from("<Q", good, entry_at + 8)[0]
        cases = {
            "truncated": good[:size - 16],
            "header only": good[:32],
            "size past the end": patched(8, size + 8),
            "size not a multiple of 8": patched(8, size - 4)[:size - 4],
            "entry count huge": patched(24, 2**61),
            "entry count past the end": patched(24, size // 40),
            "entries offset past the end": patched(16, size - 8),
            "entries offset misaligned": patched(16, 36),
            "string entries past the end": patched(entry_at + 8, size),
            "string count wrapping": patched(entry_at + 16, 2**64 - 1),
            "image offset past the end": patched(entry_at + 24, size + 8),
            "image size past the end": patched(entry_at + 32, size),
            "key offset past the end": patched(strings_at, size),
            "value offset past the end": patched(strings_at + 8, 2**63),
            "value size past the end": patched(strings_at + 16, size),
            "value size wrapping": patched(strings_at + 16, 2**64 - 1),
            "key without a terminator": patched(
                struct.unpack_from("<Q", unterminated, entry_at + 8)[0],
                len(unterminated) - 8, unterminated),
            "version 4": good[:4] + b"\4\0\0\0" + good[8:],
        }
        v3 = multi(images, version=3)
        for codec in ("zlib", "zstd"):
            packed = compressed(v3, codec)
            length = struct.unpack_from("<Q", packed, 8)[0]
            cases[f"{codec}: inflated size too small"] = patched(
                32, len(v3) - 8, packed)
            cases[f"{codec}: inflated size too large"] = patched(
                32, len(v3) + 8, packed)
            cases[f"{codec}: inflated size absurd"] = patched(32, 2**62, packed)
            cases[f"{codec}: data cut"] = patched(8, length - 5, packed)
            corrupt = bytearray(packed)
            for at in range(48, min(length, 80)):
                corrupt[at] ^= 0x5A
            cases[f"{codec}: data corrupt"] = bytes(corrupt)
            cases[f"{codec}: data inside the header"] = patched(16, 16, packed)
        for label, data in cases.items():
            self.must_fail(label, data)
        self.must_fail("version 2 in an ELF section",
                       elf_object(patched(24, 2**61)), name="in.o")
        self.must_fail("version 2 in an archive",
                       ar_archive([("a.o", patched(entry_at + 32, size))]),
                       name="in.a")

    def compression(self):
        images = sample_images()[:3]
        files = {f"i{n}.{'bc' if image.image_kind == IMAGE_BITCODE else 'o'}":
                 image.data for n, image in enumerate(images)}
        image_args = [
            f"--image=file={name},triple={dict(image.strings)[b'triple'].decode()}"
            f",arch={dict(image.strings)[b'arch'].decode()}"
            for name, image in zip(files, images)]
        plain = self.ours_in(dict(files), ["-o", "out.bin"] + image_args)
        for options in (["--compress"],
                        ["--compress", "--compression-format=zstd"],
                        ["--compress", "--compression-format=zlib"],
                        ["--compress", "--compression-format=zlib",
                         "--compression-level=9"],
                        ["--compress", "--compression-format=zlib",
                         "--compression-level=0"],
                        ["--compress", "--compression-level=-5"],
                        ["--compress", "--compression-level=19"]):
            code, _, err, after = self.ours_in(
                dict(files), ["-o", "out.bin"] + options + image_args)
            packed = after.get("out.bin", b"")
            ok = code == 0 and not err and len(packed) % 8 == 0 and \
                packed[:8] == MAGIC + b"\3\0\0\0"
            self.check(f"{options}: writes a compressed binary", ok,
                       f"{code} {err!r}")
            if not ok:
                continue
            size, entries_at, count, inflated = struct.unpack_from(
                "<QQQQ", packed, 8)
            body = packed[entries_at:size]
            zstd = body[:4] == b"\x28\xb5\x2f\xfd"
            self.check(f"{options}: codec",
                       zstd == ("--compression-format=zlib" not in options))
            # What the compressed data holds: the uncompressed version 3
            # binary of the same images, as written here, after its header.
            if not zstd:
                ours_images = [Image(image.data,
                                     [(b"arch", dict(image.strings)[b"arch"]),
                                      (b"triple",
                                       dict(image.strings)[b"triple"])],
                                     image.image_kind, 0)
                               for image in images]
                inflated_body = zlib.decompress(body)
                self.check(f"{options}: inflates to its header's size",
                           inflated == entries_at + len(inflated_body),
                           f"{inflated} {len(inflated_body)}")
                # The string table may be laid out differently; the images
                # sit at the end in order, each entry points at its own.
                whole = packed[:entries_at] + inflated_body
                self.check(f"{options}: the images lie back to back",
                           b"".join(i.data for i in ours_images) in whole and
                           count == len(images))
            folder = self.workspace({"c.bin": packed})
            code, out, err = self.run(self.ours, ["c.bin"], folder)
            names = [line[len(b"Extracted: "):].decode()
                     for line in out.splitlines()]
            after = self.tree(folder)
            self.check(f"{options}: extracted again", code == 0 and
                       [after.get(n) for n in names] ==
                       [image.data for image in images], f"{code} {err!r}")
            listed = self.run(self.ours, ["c.bin", "--list"], folder)
            self.check(f"{options}: lists as without --compress",
                       listed[:2] == self.run(
                           self.ours, ["out.bin", "--list"],
                           self.workspace({"out.bin": plain[3]["out.bin"]}))[:2])
        self.check("without --compress: version 1 as LLVM 22 writes",
                   plain[0] == 0 and plain[3]["out.bin"][4:8] == b"\1\0\0\0")
        for options, message in (
                (["--compression-format=zlib", "--compression-level=12"],
                 b"invalid zlib compression level 12; expected a value in "
                 b"[0, 9]"),
                (["--compression-level=23"], b"invalid zstd compression level 23"),
                (["--compression-format=lz4"],
                 b"for the --compression-format option: Cannot find option "
                 b"named 'lz4'!"),
                (["--compression-level=x"], b"'x' value invalid for integer")):
            code, _, err, after = self.ours_in(
                dict(files), ["-o", "out.bin", "--compress"] + options +
                image_args)
            self.check(f"{options}: refused", code == 1 and message in err and
                       err.count(b"\n") == 1 and "out.bin" not in after,
                       f"{code} {err!r}")

    def members(self):
        a = version1(Image(b"aaaa", [(b"triple", b"x-y-z"), (b"arch", b"gfx90a")],
                           offload_kind=OFFLOAD_OPENMP))
        b = multi([Image(b"bbbb", [(b"triple", b"x-y-z"), (b"arch", b"gfx90a")],
                         offload_kind=OFFLOAD_OPENMP)])
        library = ar_archive([("a.o", a), ("b.o", b)])
        for member, expected in (("a.o", b"aaaa"), ("b.o", b"bbbb")):
            code, _, err, after = self.ours_in(
                {"lib.a": library},
                ["lib.a", f"--image=member={member},triple=x-y-z,arch=gfx90a,"
                 "kind=openmp,file=out"])
            self.check(f"member={member}", code == 0 and not err and
                       after.get("out") == expected, f"{code} {err!r}")
        code, _, err, after = self.ours_in(
            {"lib.a": library}, ["lib.a", "--image=member=c.o,file=out"])
        self.check("member= naming no member extracts nothing",
                   code == 0 and "out" not in after, f"{code} {err!r}")
        code, _, err, after = self.ours_in(
            {"lib.a": library}, ["lib.a", "--image=triple=x-y-z,file=out"])
        self.check("without member=, both match",
                   code == 0 and b"Multiple inputs match to a single file" in err
                   and after.get("out") == b"bbbb", f"{code} {err!r}")
        code, out, _, _ = self.ours_in(
            {"lib.a": library}, ["lib.a", "--list", "--image=member=b.o"])
        self.check("member= in a --list filter",
                   code == 0 and out.count(b"\n") == 1 and b"\t4\n" in out,
                   f"{out!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--bundler", required=True)
    parser.add_argument("--reference", required=True)
    args = parser.parse_args()
    require_executables(args.ours, args.bundler, args.reference,
                        "/usr/bin/zstd")
    folder = tempfile.mkdtemp(prefix="offload_binary_v2.")
    try:
        suite = Suite(os.path.abspath(args.ours), os.path.abspath(args.bundler),
                      args.reference, folder)
        suite.formats()
        suite.embedded()
        suite.damaged()
        suite.compression()
        suite.members()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
