#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Builds the seed corpora in tests/fuzz/corpus/ from tests/data.

Seeds are small valid inputs of each format; the fuzzers mutate them into
everything else. Bundles are made with LLVM 22's clang-offload-bundler (the
reference the tool copies), so the seeds are what real builds produce.
Targets whose first input byte is a control byte (fuzz_text_bundle,
fuzz_bundler_input) get it prepended here.

Usage: make_corpora.py [--reference PATH]   (rewrites corpus/ in place)
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
# Offload binaries of format version 2 and 3 come from the generator the
# suite offload_binary_v2.py writes them with (LLVM 22 cannot).
sys.path.insert(0, os.path.join(HERE, "..", "differential"))
import offload_binary_v2 as offload_v2  # noqa: E402
# Mach-O files come from the generator of archive_member_formats.py.
import archive_member_formats as member_formats  # noqa: E402
CORPUS = os.path.join(HERE, "corpus")

TARGETS = "host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906,hip-amdgcn-amd-amdhsa--gfx90a:xnack+"
SAMPLES = ["host.bin", "device-gfx906.bin", "device-gfx90a_xnack+.bin"]
# fuzz_bundler_input's control byte: low nibble picks -type from this list.
TYPES = ["i", "ii", "cui", "hipi", "d", "ll", "s", "bc", "gch", "ast", "o", "a"]


# "DXBC", hash, version, size, one part: an input signature with one
# parameter named "A".
DX_CONTAINER = (b"DXBC" + bytes(16) + b"\x01\x00\x00\x00\x56\x00\x00\x00"
                b"\x01\x00\x00\x00\x24\x00\x00\x00" + b"ISG1\x2a\x00\x00\x00" +
                b"\x01\x00\x00\x00\x08\x00\x00\x00" + b"\x00" * 4 +
                b"\x28\x00\x00\x00" + b"\x00" * 24 + b"A\x00")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def add(target, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def data_files(folder, suffixes, limit=16384):
    root = os.path.join(DATA, folder)
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if os.path.isfile(path) and name.endswith(suffixes) and os.path.getsize(path) <= limit:
            yield read(path)


def bundle(reference, scratch, type_, extra=(), inputs=None):
    inputs = inputs or [os.path.join(DATA, "sample", s) for s in SAMPLES]
    out = os.path.join(scratch, "out")
    subprocess.run([reference, "-type=" + type_, "-targets=" + TARGETS,
                    *["-input=" + i for i in inputs], "-output=" + out, *extra],
                   check=True)
    return read(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reference", default="/usr/lib/llvm-22/bin/clang-offload-bundler")
    args = parser.parse_args()
    shutil.rmtree(CORPUS, ignore_errors=True)
    with tempfile.TemporaryDirectory() as scratch:
        text = {c: bundle(args.reference, scratch, t) for t, c in
                [("i", "//"), ("s", "#"), ("ll", ";")]}
        binary = bundle(args.reference, scratch, "bc")
        aligned = bundle(args.reference, scratch, "bc", ["-bundle-align=64"])
        compressed = bundle(args.reference, scratch, "bc", ["-compress"])
        compressed_text = bundle(args.reference, scratch, "i", ["-compress"])
        # Larger than the first piece a compressed bundle's header is
        # looked for in (4 KiB), so that listings read a prefix of it only.
        large_inputs = [os.path.join(DATA, "sample", SAMPLES[0])]
        for index, name in enumerate(SAMPLES[1:]):
            path = os.path.join(scratch, "large-" + name)
            with open(path, "wb") as handle:
                handle.write(bytes([index + 1]) * 50000 +
                             read(os.path.join(DATA, "sample", name)) * 8)
            large_inputs.append(path)
        compressed_large = bundle(args.reference, scratch, "bc", ["-compress"],
                                  large_inputs)
        host_object = os.path.join(DATA, "elf", "clang-x86_64-O0.o")
        fat = bundle(args.reference, scratch, "o", [],
                     [host_object] + [os.path.join(DATA, "sample", s) for s in SAMPLES[1:]])
        archive = read(os.path.join(DATA, "archive", "bundler-gfx906.a"))

        for control, comment in [(0, "//"), (1, "#"), (0x82, ";")]:
            add("fuzz_text_bundle", bytes([control]) + text[comment])
        add("fuzz_text_bundle", b"\x00" + text["//"] + text["//"])

        for seed in [binary, aligned, read(os.path.join(DATA, "compression", "small.bundle"))[:4096]]:
            add("fuzz_binary_bundle", seed)

        for seed in [compressed, compressed_text, compressed + compressed]:
            add("fuzz_compressed_bundle", seed)

        # offbundle's rewrites: bundles alone, in an object's .hip_fatbin as
        # clang puts them there, and an archive of bundles.
        objcopy = os.path.join(os.path.dirname(args.reference), "llvm-objcopy")
        fatbin_objects = []
        for index, seed in enumerate([binary, aligned, compressed]):
            add("fuzz_rewrite", seed)
            section = os.path.join(scratch, f"fatbin{index}")
            with open(section, "wb") as f:
                f.write(seed)
            with_fatbin = os.path.join(scratch, f"fatbin{index}.o")
            subprocess.run([objcopy, f"--add-section=.hip_fatbin={section}",
                            "--set-section-flags=.hip_fatbin=alloc,readonly",
                            os.path.join(DATA, "elf", "clang-x86_64-O0.o"),
                            with_fatbin], check=True)
            add("fuzz_rewrite", read(with_fatbin))
            fatbin_objects.append(with_fatbin)
        add("fuzz_rewrite", archive)
        # Rewrites refuse what verify refuses: files of every kind they
        # rewrite, sound, and with damage verify finds (stray bytes after a
        # bundle, a symbol table member named "..", a hash that does not
        # match).
        refuses = "fuzz_rewrite_refuses"
        stray = bytes(range(0x41, 0x41 + 100))
        fatbin_archive = os.path.join(scratch, "fatbin.a")
        subprocess.run([os.path.join(os.path.dirname(args.reference),
                                     "llvm-ar"), "rcs", fatbin_archive,
                        fatbin_objects[0], fatbin_objects[2]], check=True)
        fatbin_archive = read(fatbin_archive)
        bad_hash = bytearray(compressed)
        bad_hash[24] ^= 0xff  # the hash: the last 8 bytes of a v3 header
        for seed in [binary, binary + stray, compressed, compressed + stray,
                     bytes(bad_hash), read(fatbin_objects[0]), fatbin_archive,
                     fatbin_archive[:8] + b"..".ljust(16) + fatbin_archive[24:],
                     read(os.path.join(DATA, "linked", "unit-plain.so")),
                     read(os.path.join(DATA, "linked", "unit-compressed.so"))]:
            add(refuses, seed)
        # Linked HIP files (tests/data/linked/make_linked.sh makes them).
        for name in ("unit-plain.so", "unit-compressed.so", "unit-nopie",
                     "legacy-pruned.so", "legacy-decompressed.so"):
            add("fuzz_linked_rewrite", read(os.path.join(DATA, "linked", name)))
        add("fuzz_rewrite", read(os.path.join(DATA, "linked",
                                              "unit-new-driver.o")))
        for seed in data_files("compression", (".ccob",)):
            add("fuzz_compressed_bundle", seed)

        for seed in data_files("elf", (".o",), 4096):
            add("fuzz_elf_object", seed)
        add("fuzz_elf_object", fat)
        # fuzz_elf_object also lists archive symbols, for any format: a COFF
        # object and a DirectX container with a signature part.
        for seed in data_files("offload_binary", (".obj",), 4096):
            add("fuzz_elf_object", seed)
        add("fuzz_elf_object", DX_CONTAINER)
        add("fuzz_elf_object", member_formats.macho_object())
        add("fuzz_elf_object", member_formats.macho_linked(
            2, member_formats.macho_program_commands))
        add("fuzz_elf_object", member_formats.macho_linked(
            6, member_formats.macho_dylib_commands))

        for seed in data_files("archive", (".a",), 8192):
            add("fuzz_ar_archive", seed)

        for seed in data_files("bitcode", (".bc",)):
            add("fuzz_bitcode_symbols", seed)

        for seed in data_files("offload_binary", (".bin",)):
            add("fuzz_offload_binary", seed)
        images = offload_v2.sample_images()
        version3 = offload_v2.multi(images, version=3)
        for seed in [offload_v2.multi(images),
                     offload_v2.version1(images[0]) + offload_v2.multi(images[1:]),
                     version3,
                     offload_v2.compressed(version3, "zlib"),
                     offload_v2.compressed(version3, "zstd")]:
            add("fuzz_offload_binary", seed)
            add("fuzz_packager_input", seed)
        add("fuzz_packager_input",
            offload_v2.elf_object(offload_v2.multi(images)))
        # The packager reads binaries, COFF objects and host bitcode whole.
        for seed in data_files("offload_binary", (".bin", ".obj", ".bc")):
            add("fuzz_packager_input", seed)

        for seed in [b"hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\0"
                     b"hip-amdgcn-amd-amdhsa--gfx90a:xnack-\0amdgcn-amd-amdhsa\0gfx90a:xnack+",
                     b"host-x86_64-unknown-linux-gnu-\0openmp-x86_64-pc-linux-gnu\0"
                     b"x86_64-pc-linux-gnu\0gfx906",
                     b"openmp-nvptx64-nvidia-cuda--sm_70\0hipv4-amdgcn-amd-amdhsa-unknown-gfx1100\0"
                     b"nvptx64-nvidia-cuda\0gfx1100:wavefrontsize64+",
                     b"hip-spirv64-amd-amdhsa--amdgcnspirv\0hip-amdgcn-amd-amdhsa--gfx942:xnack+\0"
                     b"dxil-pc-shadermodel6.3-library\0gfx942:sramecc-:xnack+",
                     b"openmp-armv7a-linux-gnueabihf\0openmp-aarch64-apple-darwin23.1\0"
                     b"i686-w64-windows-msvc\0gfx1010"]:
            add("fuzz_offload_target", seed)

        for argv in [
            ["-type=bc", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906",
             "-input=h", "-input=d", "-output=o"],
            ["-type=i", "-unbundle", "-input=t", "-targets=hip-amdgcn-amd-amdhsa--gfx906", "-output=x"],
            ["-type=bc", "-list", "-input=c"],
            ["-type=bc", "-unbundle", "-input=b", "-targets=hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+",
             "-output=-"],
            ["--type", "ll", "-inputs=h,d", "-outputs=y", "--targets=host-x86_64-unknown-linux-gnu,"
             "openmp-amdgcn-amd-amdhsa--gfx90a", "-compress", "-compression-level=9", "-verbose"],
            ["-type=o", "-###", "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx906",
             "-input=h", "-input=d", "-output=f"],
            ["-type=a", "-unbundle", "-input=b", "-targets=hip-amdgcn-amd-amdhsa--gfx906",
             "-output=l", "-allow-missing-bundles", "-check-input-archive", "-hip-openmp-compatible"],
            ["-type=bc", "-bundle-align=0x10", "-targets=host-x86_64-unknown-linux-gnu", "-input=h",
             "-output=o", "--", "@h"],
            ["--help-hidden"], ["--version"], ["-typ=bc", "-outptu=x"],
        ]:
            add("fuzz_command_line", "\0".join(argv).encode())

        for type_, seed in [("i", text["//"]), ("s", text["#"]), ("ll", text[";"]),
                            ("bc", binary), ("bc", compressed), ("i", compressed_text),
                            ("bc", compressed_large),
                            ("o", fat), ("o", read(host_object)), ("a", archive),
                            ("bc", aligned)]:
            control = TYPES.index(type_)
            add("fuzz_bundler_input", bytes([control]) + seed)
            add("fuzz_bundler_input", bytes([control | 0x70]) + seed)


if __name__ == "__main__":
    main()
