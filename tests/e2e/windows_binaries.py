# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""GPU code in Windows binaries: COFF objects, DLLs and EXEs.

clang 22 compiles HIP for x86_64-pc-windows-msvc into COFF objects whose
.hip_fatbin section holds the bundle (plain, or compressed with
--offload-compress); lld-link links them into a DLL (/dll /noentry
/force:unresolved, no Windows SDK needed) and an EXE, where the section is
named .hip_fat. The reference for what each file holds is LLVM 22 itself:
llvm-objcopy dumps the section, and LLVM 22's clang-offload-bundler lists
and unbundles the dump. Checked, for every file:

- offbundle list prints the entry IDs LLVM 22 lists, and for a plain bundle
  each code object URI points at the bytes LLVM 22 unbundles;
- offbundle extract writes exactly the bytes LLVM 22 unbundles;
- offbundle sizes counts every entry and its bytes; verify says ok;
  kernels lists, per target, the kernels llvm-readelf --notes reads from
  the code objects LLVM 22 unbundles;
- this project's clang-offload-bundler -list and -unbundle read the section
  as they read an ELF file's (LLVM 22 finds nothing there: the README's
  differences table);
- prune of a COFF object: llvm-readobj reads it without a warning and
  differs from the original's only in .hip_fatbin's size and definition
  (its checksum the JamCRC of the new bytes, computed here) and the file
  offsets past it; lld-link links it into a DLL that verifies and holds
  LLVM 22's bytes of the kept entries; compress then decompress gives the
  object back byte for byte, and clang's compressed object decompressed
  links and verifies; a truncated DLL is one error line and exit 1;
- prune of a DLL and an EXE: the file shrinks by what .hip_fat lost,
  rounded to FileAlignment; llvm-readobj --file-headers --sections
  --coff-basereloc reads it without a warning and differs from the
  original's only in SizeOfInitializedData, .hip_fat's RawDataSize and the
  PointerToRawData of the sections after it; verify follows the wrapper;
  extract gives LLVM 22's bytes of the kept entries;
- compress then decompress gives the original DLL byte for byte;
  decompressing lld-link's compressed DLL, whose .hip_fat has no room in
  memory for the plain bundle, is refused with one line; a DLL linked with
  /release has its CheckSum computed again (checked here by an
  implementation of the PE checksum that first agrees with lld-link's).
- an OpenMP object (.llvm.offloading): prune keeps the kept target's
  offload binary, which LLVM 22 extracts as from the original, llvm-readobj
  sees only the section's size, definition and later offsets change, and
  lld-link links it; compress and decompress leave it, saying why;
- an archive of COFF objects holding GPU code is refused, naming the
  member, and nothing is written;
- prune --in-place over a folder holding a DLL, an EXE and an object
  rewrites each where it is, keeping its mode, and the folder verifies;
- copies of a plain and a compressed DLL and of an object cut short or
  with one byte inverted, at --damage-points places through the file (97;
  fewer under the sanitizers) and at every --header-step-th byte of the
  headers (every fourth; fewer under the sanitizers), go through list,
  sizes, verify, kernels, extract, prune, compress and decompress, and
  those of the plain DLL and the object cut at every byte of the headers
  through verify and prune: exit 0 or 1, one error line on failure, never
  a crash, and a failed command writes nothing;
- verify follows the DLL's and EXE's HIP fat binary wrapper (.hipFatB) to a
  bundle start in .hip_fat, and finds copies damaged four ways: the
  wrapper's magic, its pointer moved off the bundle's start or out of
  .hip_fat, and the base relocation of the pointer removed.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (Tally, finish, note_kernels,  # noqa: E402
                           skip_suite, tool_arguments)

TARGET = "--target=x86_64-pc-windows-msvc"
HIP = ["-x", "hip", "-nogpulib", "-nogpuinc", "-O2",
       "--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+"]
SOURCE = """\
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **,
                               unsigned long long, void *);
__attribute__((global)) void scale(float *p, float f) { p[0] *= f; }
__attribute__((global)) void add_one(int *p) { p[0] += 1; }
"""
MAIN = "int main(void) { return 0; }\n"


class Suite(Tally):
    def __init__(self, args, work):
        super().__init__()
        self.bin = args.reference_bin
        self.offbundle = os.path.abspath(args.offbundle)
        self.ours = os.path.abspath(args.ours)
        self.work = work

    def tool(self, name):
        return os.path.join(self.bin, name)

    def expect(self, ok, label, detail=""):
        self.check(label, bool(ok), detail)

    def run(self, command, check=True):
        done = subprocess.run(command, capture_output=True, text=True,
                              timeout=300, cwd=self.work)
        if check and done.returncode != 0:
            skip_suite(f"{' '.join(command)} failed: {done.stderr.strip()}")
        return done

    def build(self):
        """The objects, DLLs and the EXE; skips the suite when clang or
        lld-link cannot make them."""
        with open(os.path.join(self.work, "k.hip"), "w") as handle:
            handle.write(SOURCE)
        with open(os.path.join(self.work, "m.c"), "w") as handle:
            handle.write(MAIN)
        clang = self.tool("clang")
        link = self.tool("lld-link")
        files = {}
        for name, extra in (("plain", []), ("compressed",
                                             ["--offload-compress"])):
            obj = f"{name}.obj"
            self.run([clang, TARGET] + HIP + extra + ["-c", "k.hip", "-o",
                                                     obj])
            dll = f"{name}.dll"
            self.run([link, "/dll", "/noentry", "/force:unresolved", obj,
                      f"/out:{dll}"])
            files[obj] = ".hip_fatbin"
            files[dll] = ".hip_fat"
        self.run([clang, TARGET, "-O2", "-c", "m.c", "-o", "m.obj"])
        self.run([link, "/entry:main", "/subsystem:console",
                  "/force:unresolved", "plain.obj", "m.obj", "/out:app.exe"])
        files["app.exe"] = ".hip_fat"
        return files

    def reference(self, name, section):
        """LLVM 22's view: {entry ID: payload bytes} of the dumped
        section."""
        dump = os.path.join(self.work, name + ".section")
        self.run([self.tool("llvm-objcopy"), f"--dump-section={section}={dump}",
                  name])
        listed = self.run([self.tool("clang-offload-bundler"), "-list",
                           "-type=o", "-input=" + dump])
        entries = {}
        for entry_id in listed.stdout.split():
            out = os.path.join(self.work, "ref.out")
            self.run([self.tool("clang-offload-bundler"), "-unbundle",
                      "-type=o", "-input=" + dump, "-targets=" + entry_id,
                      "-output=" + out])
            with open(out, "rb") as handle:
                entries[entry_id] = handle.read()
        return entries


def pe_sections(data):
    """{name: (file offset, RVA)} of a PE image's sections, and its
    ImageBase (PE32+)."""
    header = struct.unpack_from("<I", data, 0x3c)[0] + 4
    count = struct.unpack_from("<H", data, header + 2)[0]
    optional_size = struct.unpack_from("<H", data, header + 16)[0]
    image_base = struct.unpack_from("<Q", data, header + 20 + 24)[0]
    table = header + 20 + optional_size
    sections = {}
    for index in range(count):
        entry = table + 40 * index
        name = data[entry:entry + 8].rstrip(b"\0").decode()
        rva, _, raw_offset = struct.unpack_from("<III", data, entry + 12)
        sections[name] = (raw_offset, rva)
    return sections, image_base


def damaged_wrappers(data):
    """(what, damaged copy, the words its error line must hold) for each
    way a wrapper can be broken."""
    sections, image_base = pe_sections(data)
    wrapper, wrapper_rva = sections[".hipFatB"]
    pointer = struct.unpack_from("<Q", data, wrapper + 8)[0]
    copies = []

    bad = bytearray(data)
    bad[wrapper] ^= 1
    copies.append(("magic", bad, "not HIPF"))
    bad = bytearray(data)
    struct.pack_into("<Q", bad, wrapper + 8, pointer + 8)
    copies.append(("pointer off the start", bad,
                   "no bundle's start in .hip_fat"))
    bad = bytearray(data)
    struct.pack_into("<Q", bad, wrapper + 8, image_base + 0x10)
    copies.append(("pointer outside", bad, "outside .hip_fat"))

    # The base relocation of the pointer, turned into padding (ABSOLUTE).
    bad = bytearray(data)
    relocs, _ = sections[".reloc"]
    at, target = relocs, wrapper_rva + 8
    while True:
        page, size = struct.unpack_from("<II", bad, at)
        if size < 8:
            break
        for entry in range(at + 8, at + size, 2):
            value = struct.unpack_from("<H", bad, entry)[0]
            if value >> 12 == 10 and page + (value & 0xfff) == target:
                struct.pack_into("<H", bad, entry, value & 0xfff)
        at += size
    copies.append(("base relocation", bad, "has no base relocation"))
    return copies


def check_pe32(suite):
    """An image whose optional header says PE32 (32-bit) holds no 64-bit
    wrappers to follow: prune refuses it with one line."""
    with open(os.path.join(suite.work, "plain.dll"), "rb") as handle:
        data = bytearray(handle.read())
    optional = struct.unpack_from("<I", data, 0x3c)[0] + 4 + 20
    struct.pack_into("<H", data, optional, 0x10b)
    path = os.path.join(suite.work, "pe32.dll")
    with open(path, "wb") as handle:
        handle.write(data)
    written = os.path.join(suite.work, "pe32-pruned.dll")
    done = suite.run([suite.offbundle, "prune", path, "-k", "gfx906", "-o",
                      written], False)
    lines = done.stderr.splitlines()
    suite.expect(done.returncode == 1 and len(lines) == 1 and
                 "no HIP fat binary wrappers" in lines[0] and
                 not os.path.exists(written),
                 "a PE32 image: prune refuses it with one line", done.stderr)


def check_wrappers(suite, name):
    with open(os.path.join(suite.work, name), "rb") as handle:
        data = handle.read()
    for what, bad, words in damaged_wrappers(data):
        path = os.path.join(suite.work, "damaged-" + name)
        with open(path, "wb") as handle:
            handle.write(bad)
        done = suite.run([suite.offbundle, "verify", path], False)
        lines = done.stderr.splitlines()
        suite.expect(done.returncode == 1 and len(lines) == 1 and
                     words in lines[0] and "wrapper 0" in lines[0],
                     f"{name}, wrapper {what}: verify gives one error line",
                     done.stdout + done.stderr)


def pe_checksum(data):
    """The PE format's checksum of an image, its CheckSum field as zero."""
    field = struct.unpack_from("<I", data, 0x3c)[0] + 4 + 20 + 64
    total = 0
    for at in range(0, len(data), 2):
        if field <= at < field + 4:
            continue
        total += int.from_bytes(data[at:at + 2], "little")
        total = (total & 0xffff) + (total >> 16)
    total = (total & 0xffff) + (total >> 16)
    return (total + len(data)) & 0xffffffff, field


def readobj(suite, path, more=("--coff-basereloc",)):
    done = suite.run([suite.tool("llvm-readobj"), "--file-headers",
                      "--sections"] + list(more) + [path], False)
    return done.returncode, done.stdout.replace(path, "FILE"), done.stderr


def changed_fields(before, after):
    """The names of the llvm-readobj fields whose values differ."""
    names = []
    for old, new in zip(before.splitlines(), after.splitlines()):
        if old != new:
            names.append(old.split(":")[0].strip())
    return names


def coff_section(data, name):
    """(header offset, raw data offset, raw size) of a COFF object's
    section, long names read from the string table."""
    count = struct.unpack_from("<H", data, 2)[0]
    symbols, symbol_count = struct.unpack_from("<II", data, 8)
    strings = symbols + 18 * symbol_count
    table = 20 + struct.unpack_from("<H", data, 16)[0]
    for index in range(count):
        entry = table + 40 * index
        raw = data[entry:entry + 8].rstrip(b"\0").decode()
        if raw.startswith("/"):
            start = strings + int(raw[1:])
            raw = data[start:data.index(b"\0", start)].decode()
        if raw == name:
            size, offset = struct.unpack_from("<II", data, entry + 16)
            return entry, offset, size
    raise KeyError(name)


def jam_crc(data):
    """LLVM's JamCRC (initial value 0), which COFF section definitions
    carry."""
    return zlib.crc32(data, 0xffffffff) ^ 0xffffffff


def check_rewritten_section(suite, label, path, rewritten, section):
    """A COFF object whose `section` was rewritten: llvm-readobj reads it
    without a warning, and it differs from the original only in the
    section's size and definition (its checksum the JamCRC of the new bytes,
    computed here) and the file offsets past it."""
    before = readobj(suite, path, ["--symbols", "--relocations"])
    after = readobj(suite, rewritten, ["--symbols", "--relocations"])
    suite.expect(after[0] == 0 and after[2] == "",
                 f"{label}: llvm-readobj reads the rewritten object without "
                 "a warning", after[2])
    changes = set(changed_fields(before[1], after[1]))
    suite.expect(changes <= {"PointerToSymbolTable", "RawDataSize",
                             "PointerToRawData", "PointerToRelocations",
                             "Length", "Checksum"} and
                 {"RawDataSize", "Length", "Checksum"} <= changes,
                 f"{label}: only {section}'s size and definition and the "
                 "offsets past it change", str(sorted(changes)))
    with open(rewritten, "rb") as handle:
        data = handle.read()
    _, offset, size = coff_section(data, section)
    suite.expect(f"Checksum: 0x{jam_crc(data[offset:offset + size]):X}"
                 in after[1],
                 f"{label}: {section}'s checksum is the JamCRC of its new "
                 "bytes")


def check_object_rewrites(suite, expected):
    """prune, compress and decompress of clang's COFF objects."""
    path = os.path.join(suite.work, "plain.obj")
    with open(path, "rb") as handle:
        original = handle.read()
    pruned = os.path.join(suite.work, "pruned.obj")
    done = suite.run([suite.offbundle, "prune", path, "-k", "gfx906", "-o",
                      pruned], False)
    suite.expect(done.returncode == 0, "plain.obj: prune exits 0",
                 done.stderr)
    if done.returncode != 0:
        return
    check_rewritten_section(suite, "plain.obj", path, pruned, ".hip_fatbin")
    link = suite.run([suite.tool("lld-link"), "/dll", "/noentry",
                      "/force:unresolved", pruned, "/out:pruned-obj.dll"],
                     False)
    dll = os.path.join(suite.work, "pruned-obj.dll")
    done = suite.run([suite.offbundle, "verify", dll], False)
    suite.expect(link.returncode == 0 and done.returncode == 0 and
                 "2 entries" in done.stdout,
                 "plain.obj pruned: lld-link links it into a DLL that "
                 "verifies", link.stderr + done.stderr)
    kept = {k.replace(":", "_"): v for k, v in expected.items()
            if "gfx90a" not in k}
    suite.expect(extracted_entries(suite, dll) == kept,
                 "plain.obj pruned and linked: LLVM 22's bytes of the kept "
                 "entries")

    check_round_trip(suite, "plain.obj", original)

    grown = os.path.join(suite.work, "decompressed.obj")
    done = suite.run([suite.offbundle, "decompress",
                      os.path.join(suite.work, "compressed.obj"), "-o",
                      grown], False)
    link = suite.run([suite.tool("lld-link"), "/dll", "/noentry",
                      "/force:unresolved", grown, "/out:decompressed.dll"],
                     False)
    dll = os.path.join(suite.work, "decompressed.dll")
    # clang gives the compressed build other code objects (its CUID
    # differs): LLVM 22's unbundling of that object is the reference.
    reference = suite.reference("compressed.obj", ".hip_fatbin")
    suite.expect(done.returncode == 0 and link.returncode == 0 and
                 extracted_entries(suite, dll) ==
                 {k.replace(":", "_"): v for k, v in reference.items()},
                 "clang's compressed object decompressed links into a DLL "
                 "holding LLVM 22's bytes", done.stderr + link.stderr)


OPENMP_SOURCE = """\
int scale(float *a, int n) {
#pragma omp target map(tofrom : a[0 : n])
  { a[0] = n; }
  return 0;
}
"""


def check_openmp_object(suite):
    """An OpenMP object of clang's new driver for Windows keeps offload
    binaries in .llvm.offloading: prune keeps those of the kept target (LLVM
    22's llvm-offload-binary extracts its image as from the original) in an
    object lld-link links, whose section definition follows; compress and
    decompress leave it as it is, saying why."""
    with open(os.path.join(suite.work, "omp.c"), "w") as handle:
        handle.write(OPENMP_SOURCE)
    suite.run([suite.tool("clang"), TARGET, "-fopenmp", "-nogpulib",
               "-nogpuinc", "-O2", "--offload-arch=gfx906",
               "--offload-arch=gfx90a", "-c", "omp.c", "-o", "omp.obj"])
    path = os.path.join(suite.work, "omp.obj")
    pruned = os.path.join(suite.work, "omp-pruned.obj")
    done = suite.run([suite.offbundle, "prune", path, "-k", "gfx906", "-o",
                      pruned], False)
    suite.expect(done.returncode == 0 and "1 entry kept, 1 removed" in
                 done.stdout, "omp.obj: prune keeps one binary of two",
                 done.stdout + done.stderr)
    if done.returncode != 0:
        return
    listed = suite.run([suite.offbundle, "list", pruned], False).stdout
    suite.expect([line.split("\t")[1] for line in listed.splitlines()] ==
                 ["openmp-amdgcn-amd-amdhsa--gfx906"],
                 "omp.obj pruned: only the gfx906 binary is left", listed)
    images = []
    for source in (path, pruned):
        image = os.path.join(suite.work, "omp-gfx906.img")
        suite.run([suite.tool("llvm-offload-binary"), source,
                   f"--image=arch=gfx906,file={image}"], False)
        with open(image, "rb") as handle:
            images.append(handle.read())
        os.unlink(image)
    suite.expect(images[0] and images[0] == images[1],
                 "omp.obj pruned: LLVM 22 extracts the gfx906 image it "
                 "extracts from the original")
    check_rewritten_section(suite, "omp.obj", path, pruned,
                            ".llvm.offloading")
    link = suite.run([suite.tool("lld-link"), "/dll", "/noentry",
                      "/force:unresolved", pruned, "/out:omp-pruned.dll"],
                     False)
    suite.expect(link.returncode == 0, "omp.obj pruned: lld-link links it",
                 link.stderr)
    with open(path, "rb") as handle:
        original = handle.read()
    for command in ("compress", "decompress"):
        out = os.path.join(suite.work, f"omp-{command}.obj")
        done = suite.run([suite.offbundle, command, path, "-o", out], False)
        with open(out, "rb") as handle:
            same = handle.read() == original
        suite.expect(done.returncode == 0 and same and
                     "unchanged: it holds offload binaries" in done.stdout,
                     f"omp.obj: {command} leaves it as it is and says why",
                     done.stdout + done.stderr)


def check_object_archive(suite):
    """An archive of COFF objects holding GPU code (which llvm-ar writes
    in the COFF archive format) is refused by name, with nothing written,
    rather than passed over as if it held nothing to rewrite."""
    suite.run([suite.tool("llvm-ar"), "rc", "kernels.lib", "plain.obj"])
    path = os.path.join(suite.work, "kernels.lib")
    for command in (["prune", "-k", "gfx906"], ["compress"], ["decompress"]):
        out = os.path.join(suite.work, "rewritten.lib")
        done = suite.run([suite.offbundle] + command + [path, "-o", out],
                         False)
        suite.expect(done.returncode == 1 and not os.path.exists(out) and
                     done.stderr == f"offbundle: error: '{path}(plain.obj)': "
                     "a COFF object holding GPU code: archives of COFF "
                     "objects are not rewritten (llvm-ar writes them in the "
                     "COFF archive format); rewrite the object and archive "
                     "it again\n",
                     f"kernels.lib: {command[0]} is refused, naming the "
                     "member", done.stderr)


def check_round_trip(suite, name, original):
    """compress, then decompress, must give `name` back byte for byte; the
    compressed copy's path."""
    path = os.path.join(suite.work, name)
    compressed = os.path.join(suite.work, "recompressed-" + name)
    restored = os.path.join(suite.work, "restored-" + name)
    done = suite.run([suite.offbundle, "compress", path, "-o", compressed],
                     False)
    later = suite.run([suite.offbundle, "decompress", compressed, "-o",
                       restored], False)
    ok = done.returncode == 0 and later.returncode == 0
    if ok:
        with open(restored, "rb") as handle:
            ok = handle.read() == original
    suite.expect(ok, f"{name}: compress then decompress gives it back byte "
                 "for byte", done.stderr + later.stderr)
    return compressed


def extracted_entries(suite, path):
    """{file name: bytes} offbundle extract writes for a file; None when it
    fails."""
    out = os.path.join(suite.work, "extracted-entries")
    shutil.rmtree(out, ignore_errors=True)
    done = suite.run([suite.offbundle, "extract", path, "-o", out], False)
    if done.returncode != 0:
        return None
    got = {}
    for written in done.stdout.split():
        with open(written, "rb") as handle:
            got[os.path.basename(written)] = handle.read()
    return got


def check_image_rewrites(suite, name, expected):
    """prune, compress and decompress of a DLL or EXE."""
    path = os.path.join(suite.work, name)
    with open(path, "rb") as handle:
        original = handle.read()
    sections, _ = pe_sections(original)
    pruned = os.path.join(suite.work, "pruned-" + name)
    done = suite.run([suite.offbundle, "prune", path, "-k", "gfx906", "-o",
                      pruned], False)
    suite.expect(done.returncode == 0, f"{name}: prune exits 0", done.stderr)
    if done.returncode != 0:
        return
    with open(pruned, "rb") as handle:
        data = handle.read()
    kept = {k: v for k, v in expected.items() if "gfx90a" not in k}
    # .hip_fat lost gfx90a's payload; what is left is rounded up to 512.
    old_raw = struct.unpack_from("<I", original,
                                 pe_section_header(original, ".hip_fat") +
                                 16)[0]
    new_raw = struct.unpack_from("<I", data,
                                 pe_section_header(data, ".hip_fat") + 16)[0]
    suite.expect(new_raw % 512 == 0 and len(original) - len(data) ==
                 old_raw - new_raw and new_raw < old_raw,
                 f"{name}: prune shrinks the file by what .hip_fat lost",
                 f"{len(original)} -> {len(data)}")
    before = readobj(suite, path)
    after = readobj(suite, pruned)
    suite.expect(after[0] == 0 and after[2] == "",
                 f"{name}: llvm-readobj reads the pruned image without a "
                 "warning", after[2])
    changes = changed_fields(before[1], after[1])
    later = [n for n, (offset, _) in sections.items()
             if offset > sections[".hip_fat"][0]]
    suite.expect(changes == ["SizeOfInitializedData", "RawDataSize"] +
                 ["PointerToRawData"] * len(later),
                 f"{name}: only the sizes and the later sections' file "
                 "offsets change", str(changes))
    done = suite.run([suite.offbundle, "verify", pruned], False)
    suite.expect(done.returncode == 0 and "2 entries" in done.stdout,
                 f"{name}: the pruned image verifies", done.stderr)
    got = extracted_entries(suite, pruned)
    suite.expect(got == {k.replace(":", "_"): v for k, v in kept.items()},
                 f"{name}: the pruned image holds LLVM 22's bytes of the "
                 "kept entries", str(sorted(got)))

    if name != "plain.dll":
        return
    compressed = check_round_trip(suite, "plain.dll", original)
    done = suite.run([suite.offbundle, "verify", compressed], False)
    suite.expect(done.returncode == 0 and "1 compressed, hashes match" in
                 done.stdout, "plain.dll compressed: verify says ok",
                 done.stdout + done.stderr)


def pe_section_header(data, name):
    """The file offset of a section's header."""
    header = struct.unpack_from("<I", data, 0x3c)[0] + 4
    count = struct.unpack_from("<H", data, header + 2)[0]
    table = header + 20 + struct.unpack_from("<H", data, header + 16)[0]
    for index in range(count):
        entry = table + 40 * index
        if data[entry:entry + 8].rstrip(b"\0").decode() == name:
            return entry
    raise KeyError(name)


def check_checksum_and_growth(suite):
    """A /release DLL's CheckSum, and a decompression with no room."""
    release = os.path.join(suite.work, "release.dll")
    suite.run([suite.tool("lld-link"), "/dll", "/noentry", "/force:unresolved",
               "/release", "plain.obj", "/out:release.dll"])
    with open(release, "rb") as handle:
        data = handle.read()
    computed, field = pe_checksum(data)
    stored = struct.unpack_from("<I", data, field)[0]
    suite.expect(stored != 0 and computed == stored,
                 "the PE checksum here agrees with lld-link's",
                 f"{computed:#x} != {stored:#x}")
    pruned = os.path.join(suite.work, "release-pruned.dll")
    done = suite.run([suite.offbundle, "prune", release, "-k", "gfx90a",
                      "-o", pruned], False)
    ok = done.returncode == 0
    if ok:
        with open(pruned, "rb") as handle:
            data = handle.read()
        computed, field = pe_checksum(data)
        ok = computed == struct.unpack_from("<I", data, field)[0]
    suite.expect(ok, "a /release DLL pruned carries its new checksum",
                 done.stderr)

    path = os.path.join(suite.work, "compressed.dll")
    written = os.path.join(suite.work, "grown.dll")
    done = suite.run([suite.offbundle, "decompress", path, "-o", written],
                     False)
    lines = done.stderr.splitlines()
    suite.expect(done.returncode == 1 and len(lines) == 1 and
                 "in memory" in lines[0] and not os.path.exists(written),
                 "decompressing lld-link's compressed DLL is refused",
                 done.stderr)


def check_in_place(suite):
    folder = os.path.join(suite.work, "tree")
    os.makedirs(folder, exist_ok=True)
    names = ["plain.dll", "app.exe", "plain.obj"]
    for name in names:
        shutil.copy(os.path.join(suite.work, name), folder)
        os.chmod(os.path.join(folder, name), 0o750)
    sizes = {n: os.path.getsize(os.path.join(folder, n)) for n in names}
    done = suite.run([suite.offbundle, "prune", "-k", "gfx906", "--in-place",
                      "-q", folder], False)
    after = {n: os.path.getsize(os.path.join(folder, n)) for n in names}
    modes = {n: os.stat(os.path.join(folder, n)).st_mode & 0o777
             for n in names}
    suite.expect(done.returncode == 0 and
                 all(after[n] < sizes[n] for n in names) and
                 set(modes.values()) == {0o750} and
                 sorted(os.listdir(folder)) == sorted(names),
                 "prune --in-place rewrites the DLL, EXE and object where "
                 "they are, keeping their mode",
                 f"{done.stderr} {sizes} {after} {modes}")
    done = suite.run([suite.offbundle, "verify", folder], False)
    suite.expect(done.returncode == 0 and done.stdout.count(": ok,") == 3,
                 "the pruned folder verifies", done.stdout + done.stderr)


# Every offbundle command that reads a file, with where it writes.
def damaged_input_commands(path, written, folder):
    return [["list", path], ["sizes", path], ["verify", path],
            ["kernels", path], ["extract", path, "-o", folder],
            ["prune", path, "-k", "gfx906", "-o", written],
            ["compress", path, "-o", written],
            ["decompress", path, "-o", written]]


def damaged_cases(data, points, header_step, every_header_byte):
    """[(label, bytes, all commands?)]: truncations at `points` places
    through the file and at every `header_step`-th byte of the headers
    (every byte when `every_header_byte`, for verify and prune only where
    not among the others), and copies with one byte inverted at the same
    places."""
    spread = set(range(0, len(data), max(1, len(data) // points)))
    header = set(range(0, 0x200, max(1, header_step)))
    everywhere = sorted(spread | header)
    cuts = sorted(set(everywhere) |
                  (set(range(0, 0x200)) if every_header_byte else set()))
    flips = [n for n in everywhere if n < len(data)]
    return ([(f"cut at {n}", data[:n], n in everywhere) for n in cuts] +
            [(f"byte {n} inverted",
              data[:n] + bytes([data[n] ^ 0xff]) + data[n + 1:], True)
             for n in flips])


def check_damaged(suite, name, points, header_step, every_header_byte):
    """Damaged copies of the file (damaged_cases) through every command
    (verify and prune alone for the extra header truncations): exit 0 or
    1, one error line on failure, never a crash, and a failed command
    writes nothing."""
    path = os.path.join(suite.work, name)
    with open(path, "rb") as handle:
        data = handle.read()
    damaged = os.path.join(suite.work, "damaged-" + name)
    written = os.path.join(suite.work, "damaged-out")
    folder = os.path.join(suite.work, "damaged-extracted")
    every = damaged_input_commands(damaged, written, folder)
    cases = damaged_cases(data, points, header_step, every_header_byte)
    bad = []
    for label, bytes_, all_commands in cases:
        with open(damaged, "wb") as handle:
            handle.write(bytes_)
        for command in every if all_commands else [every[2], every[5]]:
            # Bytes: a damaged entry ID is printed as stored.
            done = subprocess.run([suite.offbundle] + command,
                                  capture_output=True, timeout=300,
                                  cwd=suite.work)
            lines = done.stderr.splitlines()
            left = (os.path.exists(written) or
                    (os.path.isdir(folder) and any(os.scandir(folder))))
            if not (done.returncode == 0 or
                    (done.returncode == 1 and len(lines) == 1)) or (
                        done.returncode != 0 and left):
                bad.append((label, command[0], done.returncode,
                            done.stderr[-200:].decode(errors="replace")))
            if os.path.exists(written):
                os.remove(written)
            shutil.rmtree(folder, ignore_errors=True)
    suite.expect(not bad, f"{name}: every truncated or damaged copy fails "
                 f"cleanly or passes ({len(cases)} copies)", str(bad[:3]))


def read_range(path, uri):
    """The bytes a file:// code object URI names."""
    fragment = urllib.parse.urlparse(uri).fragment
    fields = dict(part.split("=") for part in fragment.split("&"))
    with open(path, "rb") as handle:
        handle.seek(int(fields["offset"]))
        return handle.read(int(fields["size"]))


def check_kernels(suite, name, path, expected):
    """offbundle kernels of the file: per device entry LLVM 22 unbundles,
    the kernels llvm-readelf --notes reads from its bytes."""
    wanted = {}
    for entry_id, payload in expected.items():
        if entry_id.startswith("host"):
            continue
        code_object = os.path.join(suite.work, "kernels.co")
        with open(code_object, "wb") as handle:
            handle.write(payload)
        notes = suite.run([suite.tool("llvm-readelf"), "--notes",
                           code_object]).stdout
        wanted[entry_id.split("-", 1)[1]] = [
            (k.get("name"), int(k.get("vgpr_count", "0")),
             int(k.get("sgpr_count", "0")),
             int(k.get("group_segment_fixed_size", "0")))
            for k in note_kernels(notes)]
    done = suite.run([suite.offbundle, "kernels", "--json", path], False)
    got = {}
    if done.returncode == 0:
        for target in json.loads(done.stdout)["files"][0]["targets"]:
            got[target["target"]] = [
                (k["name"], k["vgpr_count"], k["sgpr_count"],
                 k["group_segment_fixed_size"]) for k in target["kernels"]]
    suite.expect(got == wanted and all(wanted.values()),
                 f"{name}: kernels lists, per target, the kernels of LLVM "
                 "22's code objects, as llvm-readelf --notes reads them",
                 f"{got} != {wanted} {done.stderr}")


def check_file(suite, name, section):
    """The read-only checks; the entries LLVM 22 unbundles."""
    expected = suite.reference(name, section)
    suite.expect(len(expected) == 3, f"{name}: LLVM 22 unbundles 3 entries "
                 "from the dumped section", str(sorted(expected)))
    path = os.path.join(suite.work, name)

    listing = suite.run([suite.offbundle, "list", "--json", path], False)
    suite.expect(listing.returncode == 0, f"{name}: list exits 0",
                 listing.stderr)
    entries = (json.loads(listing.stdout)["files"][0]["entries"]
               if listing.returncode == 0 else [])
    suite.expect(sorted(e["id"] for e in entries) == sorted(expected),
                 f"{name}: list gives LLVM 22's entry IDs",
                 str([e["id"] for e in entries]))
    if "compressed" not in name:
        for entry in entries:
            suite.expect(read_range(path, entry["uri"]) ==
                         expected.get(entry["id"]),
                         f"{name}: {entry['id']}'s URI points at its bytes",
                         entry["uri"])

    got = extracted_entries(suite, path)
    suite.expect(got is not None, f"{name}: extract exits 0")
    # Files are named as -output-dir names them: ':' becomes '_'.
    suite.expect(got == {k.replace(":", "_"): v for k, v in expected.items()},
                 f"{name}: extract writes LLVM 22's bytes for every entry",
                 str(sorted(got)))

    done = suite.run([suite.offbundle, "sizes", "--json", path], False)
    targets = (json.loads(done.stdout)["files"][0]["targets"]
               if done.returncode == 0 else [])
    suite.expect(sum(t["entries"] for t in targets) == 3 and
                 sum(t["bytes"] for t in targets) ==
                 sum(len(b) for b in expected.values()),
                 f"{name}: sizes counts every entry and its bytes",
                 str(targets))

    done = suite.run([suite.offbundle, "verify", path], False)
    suite.expect(done.returncode == 0 and ": ok, 1 bundle" in done.stdout,
                 f"{name}: verify says ok", done.stdout + done.stderr)

    check_kernels(suite, name, path, expected)

    done = suite.run([suite.ours, "-list", "-type=o", "-input=" + path], False)
    suite.expect(sorted(done.stdout.split()) == sorted(expected),
                 f"{name}: clang-offload-bundler -list reads the section",
                 done.stdout + done.stderr)
    target = "hipv4-amdgcn-amd-amdhsa--gfx906"
    out = os.path.join(suite.work, "ours.out")
    done = suite.run([suite.ours, "-unbundle", "-type=o", "-input=" + path,
                      "-targets=" + target, "-output=" + out], False)
    ok = done.returncode == 0 and os.path.exists(out)
    if ok:
        with open(out, "rb") as handle:
            ok = handle.read() == expected[target]
    suite.expect(ok, f"{name}: clang-offload-bundler -unbundle gives LLVM "
                 "22's bytes of the dump", done.stderr)

    return expected
    for command in (["prune", "-k", "gfx906"], ["compress"], ["decompress"]):
        written = os.path.join(suite.work, "rewritten")
        done = suite.run([suite.offbundle, command[0], path] + command[1:] +
                         ["-o", written], False)
        lines = done.stderr.splitlines()
        suite.expect(done.returncode == 1 and len(lines) == 1 and
                     "cannot be rewritten yet" in lines[0] and
                     not os.path.exists(written),
                     f"{name}: {command[0]} refuses it, writing nothing",
                     done.stderr)
    return expected


def add_damage_options(parser):
    parser.add_argument("--damage-points", type=int, default=97,
                        help="places through each file damaged copies are "
                        "cut or changed at")
    parser.add_argument("--header-step", type=int, default=4,
                        help="damaged copies are also cut or changed at "
                        "every this many bytes of the first 512")


def main():
    args = tool_arguments(__doc__.splitlines()[0],
                          ("clang", "lld-link", "llvm-objcopy",
                           "llvm-readelf", "clang-offload-bundler",
                           "llvm-ar", "llvm-offload-binary", "llvm-readobj"),
                          add_damage_options)
    work = tempfile.mkdtemp(prefix="offbundle-windows-")
    suite = Suite(args, work)
    try:
        files = suite.build()
        for name, section in files.items():
            expected = check_file(suite, name, section)
            if name in ("plain.dll", "app.exe"):
                check_image_rewrites(suite, name, expected)
            if name == "plain.obj":
                check_object_rewrites(suite, expected)
        check_openmp_object(suite)
        check_object_archive(suite)
        for name in ("plain.dll", "compressed.dll", "app.exe"):
            check_wrappers(suite, name)
        check_checksum_and_growth(suite)
        check_in_place(suite)
        check_pe32(suite)
        for name in ("plain.dll", "plain.obj", "compressed.dll"):
            check_damaged(suite, name, args.damage_points, args.header_step,
                          name != "compressed.dll")

        # A DLL cut short inside its section table.
        with open(os.path.join(work, "plain.dll"), "rb") as handle:
            data = handle.read()
        cut = os.path.join(work, "cut.dll")
        with open(cut, "wb") as handle:
            handle.write(data[:700])
        done = suite.run([suite.offbundle, "verify", cut], False)
        lines = done.stderr.splitlines()
        suite.expect(done.returncode == 1 and len(lines) == 1 and
                     "malformed PE image" in lines[0],
                     "a truncated DLL: one error line, exit 1", done.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
