# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kpack'd binaries and kpack archives, built here from the format's
definition, read by offbundle as ROCm's kpack runtime reads them.

The device code is real: clang 22 compiles two HIP translation units for
gfx906 and gfx1030, and LLVM 22's clang-offload-bundler unbundles their code
objects. The archives (KPAK, version 1, a MessagePack table of contents;
one "none" and one "zstd-per-kernel", frames made by the zstd program) and
the kpack'd host program and shared library (two HIPK wrappers in
.hipFatBinSegment pointing at a .rocm_kpack_ref MessagePack marker whose
search path holds @GFXARCH@) are written here from ROCm's documented layout
(tests/kpack_bytes.py), compiled and linked by clang 22. Checked:

- the writer's archive bytes field by field against the documented layout;
- list, sizes, extract, verify and kernels of the program, the library
  and a
  Windows DLL (clang 22 and lld-link; .hipFatB wrappers pointing through
  base relocations at a .kpackrf marker): the code objects are those LLVM
  22 unbundles, per wrapper and per architecture;
- a .kpack archive given alone is listed, sized and verified;
- verify, list, sizes, extract and unpack-kpack fail with one line naming
  the archive (or the binary, for what only it knows) when an archive is missing, a table does not match (a key
  no archive has, an architecture the archive does not list), a frame does
  not decompress to original_size, a frame is damaged, a code object is not
  an AMDGPU ELF for its architecture, or the archive's header or table is
  damaged; the files are left as they were;
- prune, compress and decompress refuse a kpack'd binary with one line;
- unpack-kpack (plain and --compress) of the program, the library and the
  DLL: the result verifies, reads without a warning in llvm-readelf or
  llvm-readobj, and registers every translation unit's code objects under
  the stand-in HIP runtime, also after strip, objcopy, eu-strip and
  patchelf; the same for a program linked by lld and a library linked by
  GNU ld whose .hip_fatbin is SHT_NOBITS (as ROCm's tool leaves a
  .hip_fatbin of whole pages), listed, extracted and verified first, and
  unpacked into a .hip_fatbin of SHT_PROGBITS at the end of a new last
  segment, every segment of the original kept.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (BuildingSuite, finish,  # noqa: E402
                           require_executables, skip_suite)
from kpack_bytes import (kpack_archive, kpack_marker, msgpack,  # noqa: E402
                         HEADER_SIZE, BLOB_START)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stand_in_runtime  # noqa: E402

ARCHES = ["gfx906", "gfx1030"]
DECLARATIONS = """\
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **,
                               unsigned long, void *);
"""
SOURCES = {
    "first.hip": DECLARATIONS + """
__attribute__((global)) void scale(float *p, float f) { p[0] *= f; }
__attribute__((global)) void fill(float *p) { p[0] = 1.0f; }
""",
    "second.hip": DECLARATIONS + """
__attribute__((global)) void add_one(int *p) { p[0] += 1; }
""",
}
KERNEL_NAME = "demo/bin/app"
LIBRARY_KERNEL_NAME = "demo/lib/libdemo.so"
SEARCH_PATH = "../.kpack/demo_@GFXARCH@.kpack"
LIBRARY_SEARCH_PATH = "../.kpack/demolib_@GFXARCH@.kpack"
DLL_KERNEL_NAME = "demo/bin/demo.dll"
DLL_SEARCH_PATH = "../.kpack/demodll_@GFXARCH@.kpack"

HOST_SOURCE = """\
struct wrapper {{ unsigned magic, version; const void *binary;
                 unsigned long long index; }};
__attribute__((section(".rocm_kpack_ref"), used, aligned(1)))
static const unsigned char marker[] = {{ {marker} }};
__attribute__((section(".hipFatBinSegment"), used, aligned(8)))
static const struct wrapper wrappers[2] = {{
    {{0x4B504948u, 1, marker, 0}}, {{0x4B504948u, 1, marker, 1}} }};
{fatbin}
{register}
{main}
"""
# ROCm's tool keeps .hip_fatbin, its pages emptied.
FATBIN = """\
__attribute__((section(".hip_fatbin"), used, aligned(4096)))
static const unsigned char fatbin[{size}] = {{ 0 }};"""
# ...and where it empties whole pages, leaves it SHT_NOBITS, its addresses
# zero-filled by the segment holding them.
NOBITS_FATBIN = """\
__asm__(".section .hip_fatbin,\\"a\\",@nobits\\n.balign 4096\\n"
        ".zero 65536\\n.previous");"""
# What clang's generated constructors do: register each translation unit's
# wrapper with the HIP runtime.
REGISTER = """\
extern void **__hipRegisterFatBinary(const void *);
__attribute__((constructor)) static void register_units(void) {
  __hipRegisterFatBinary(&wrappers[0]);
  __hipRegisterFatBinary(&wrappers[1]);
}"""


class Suite(BuildingSuite):
    def __init__(self, args, work):
        super().__init__(args.reference_bin, work)
        self.offbundle = os.path.abspath(args.offbundle)

    def offbundle_run(self, arguments):
        return subprocess.run([self.offbundle] + arguments,
                              capture_output=True, text=True, timeout=120,
                              cwd=self.work)


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


def code_objects(suite):
    """{(translation unit index, arch): code object} from LLVM 22's bundler
    unbundling each compiled object."""
    clang = suite.reference_tool("clang")
    bundler = suite.reference_tool("clang-offload-bundler")
    found = {}
    for index, (name, source) in enumerate(sorted(SOURCES.items())):
        with open(os.path.join(suite.work, name), "w") as handle:
            handle.write(source)
        obj = name.replace(".hip", ".o")
        suite.build_step([clang, "-x", "hip", "-nogpulib", "-nogpuinc",
                          "-O1"] + [f"--offload-arch={a}" for a in ARCHES] +
                         ["-c", name, "-o", obj])
        # The bundle clang embeds in the host object's .hip_fatbin.
        dump = obj + ".hip_fatbin"
        suite.build_step([suite.reference_tool("llvm-objcopy"),
                          f"--dump-section=.hip_fatbin={dump}", obj])
        for arch in ARCHES:
            out = os.path.join(suite.work, f"{obj}.{arch}.co")
            suite.build_step([bundler, "-unbundle", "-type=o", "-input=" + dump,
                              f"-targets=hipv4-amdgcn-amd-amdhsa--{arch}",
                              "-output=" + out])
            found[(index, arch)] = read(out)
    return found


def zstd_frame(suite, data):
    """One zstd frame with the content size, as ROCm's writer makes them."""
    source = os.path.join(suite.work, "frame.in")
    write(source, data)
    done = suite.build_step(["zstd", "-3", "--no-check", "-q", "-c", source])
    return done.stdout


def archives_for(suite, objects, kernel_name):
    """The prefix's archives: gfx906 stored plainly, gfx1030 compressed."""
    archives = {}
    for arch, scheme in (("gfx906", "none"), ("gfx1030", "zstd-per-kernel")):
        kernels = [(f"{kernel_name}#{index}", arch, objects[(index, arch)])
                   for index in range(len(SOURCES))]
        archives[arch] = kpack_archive(
            kernels, [arch], scheme,
            compress=lambda data: zstd_frame(suite, data))
    return archives


PROGRAM = ("program", KERNEL_NAME, SEARCH_PATH, "bin/app", ["-fPIE", "-pie"],
           "int main(void) { return 0; }")
LIBRARY = ("library", LIBRARY_KERNEL_NAME, LIBRARY_SEARCH_PATH,
           "lib/libdemo.so", ["-fPIC", "-shared"],
           "int demo(void) { return 1; }")


def build_kpacked(suite, root, binary, fatbin, suffix="", linker=()):
    """A kpack'd program or library (PROGRAM, LIBRARY) linked against the
    stand-in HIP runtime, named with `suffix`; its path."""
    kind, kernel_name, search_path, target, extra, main = binary
    marker = kpack_marker(kernel_name, [search_path])
    source = os.path.join(suite.work, f"{kind}{suffix}.c")
    with open(source, "w") as handle:
        handle.write(HOST_SOURCE.format(
            marker=", ".join(str(b) for b in marker), main=main,
            register=REGISTER, fatbin=fatbin))
    stem, extension = os.path.splitext(target)
    output = os.path.join(root, stem + suffix + extension)
    os.makedirs(os.path.dirname(output), exist_ok=True)
    runtime = stand_in_runtime.build(suite.work)
    suite.build_step([suite.reference_tool("clang"), "-O1"] + extra +
                     list(linker) + [source, "-o", output, "-L" + runtime,
                                     "-lamdhip64"])
    return output


def build_prefix(suite, objects, root):
    """An installation: bin/app and lib/libdemo.so kpack'd, their archives
    in .kpack/, both linked against the stand-in HIP runtime. Returns
    (program, library)."""
    paths = {}
    for binary in (PROGRAM, LIBRARY):
        kind, kernel_name, search_path = binary[:3]
        paths[kind] = build_kpacked(suite, root, binary,
                                    FATBIN.format(size=64))
        archive_prefix = os.path.basename(search_path).split("@")[0]
        for arch, data in archives_for(suite, objects, kernel_name).items():
            write(os.path.join(root, ".kpack", f"{archive_prefix}{arch}.kpack"),
                  data)
    return paths["program"], paths["library"]


def elf_layout(path):
    """(sections {name: (type, address, offset, size)}, PT_LOAD segments
    [(offset, vaddr, filesz, memsz)]) of a 64-bit little-endian ELF file."""
    data = read(path)
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phnum, _, shnum, shstrndx = struct.unpack_from("<HHHH", data, 0x38)
    loads = []
    for i in range(phnum):
        kind, _, offset, vaddr, _, filesz, memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + 56 * i)
        if kind == 1:
            loads.append((offset, vaddr, filesz, memsz))
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + 64 * i)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    sections = {}
    for name, kind, _, address, offset, size in headers:
        end = data.index(b"\0", names + name)
        sections[data[names + name:end].decode()] = (kind, address, offset,
                                                    size)
    return sections, loads


def build_zero_paged(suite, objects, root):
    """kpack'd binaries whose .hip_fatbin has no file bytes (SHT_NOBITS),
    as ROCm's tool leaves a .hip_fatbin of whole pages: a program linked by
    lld, where the section's addresses end a read-only segment whose memory
    outlasts its file bytes and more segments follow, and a library linked
    by GNU ld, where they end the writable one. [(path, kernel name)], each
    layout checked first."""
    built = []
    for binary, linker in ((PROGRAM, "lld"), (LIBRARY, "bfd")):
        path = build_kpacked(suite, root, binary, NOBITS_FATBIN,
                             suffix=f"-nobits-{linker}",
                             linker=[f"-fuse-ld={linker}"])
        sections, loads = elf_layout(path)
        kind, address, _, size = sections[".hip_fatbin"]
        holding = [load for load in loads
                   if load[1] + load[2] <= address and
                   address + size <= load[1] + load[3]]
        later = [load for load in loads if load[1] >= address + size]
        suite.expect(kind == 8 and size == 65536 and len(holding) == 1 and
                     (later or linker == "bfd"),
                     f"{os.path.basename(path)}: .hip_fatbin is SHT_NOBITS, "
                     "zero-filled by the segment holding its addresses"
                     + (", other segments after it" if linker == "lld"
                        else ""), f"{sections['.hip_fatbin']} {loads}")
        built.append((path, binary[1]))
    return built


def check_zero_paged_unpacked(suite, original):
    """unpack-kpack of a zero-paged binary: .hip_fatbin is SHT_PROGBITS
    at the end of a new segment after every other (which starts with the
    sections moved out of the program header table's way), and every
    segment of the original is still there, as it was."""
    out = os.path.join(suite.work, "zero-paged-unpacked")
    done = suite.offbundle_run(["unpack-kpack", original, "-o", out])
    if done.returncode != 0:
        suite.expect(False, f"{os.path.basename(original)}: unpack-kpack",
                     done.stderr)
        return
    before_sections, before = elf_layout(original)
    sections, loads = elf_layout(out)
    kind, address, offset, size = sections[".hip_fatbin"]
    added = [load for load in loads if load not in before]
    suite.expect(kind == 1 and all(load in loads for load in before) and
                 len(added) == 1 and added[0][1] <= address and
                 offset - added[0][0] == address - added[0][1] and
                 added[0][1] + added[0][2] == address + size and
                 address >= max(v + m for _, v, _, m in before) and
                 offset + size == os.path.getsize(out),
                 f"{os.path.basename(original)} unpacked: .hip_fatbin is "
                 "SHT_PROGBITS in a new last segment, the others kept",
                 f"{sections['.hip_fatbin']} {loads} / {before}")
    os.remove(out)


def build_dll(suite, objects, root, name="demo.dll", fatbin_size=65536):
    """A kpack'd Windows DLL (clang 22 and lld-link): .hipFatB wrappers
    pointing, through base relocations, at a .kpackrf marker; .hip_fat
    keeps `fatbin_size` bytes, as ROCm's tool keeps the section's size in
    memory."""
    marker = kpack_marker(DLL_KERNEL_NAME, [DLL_SEARCH_PATH])
    source = os.path.join(suite.work, name + ".c")
    with open(source, "w") as handle:
        handle.write(HOST_SOURCE.replace(".rocm_kpack_ref", ".kpackrf").format(
            marker=", ".join(str(b) for b in marker),
            main="int demo(void) { return 1; }", register="",
            fatbin=FATBIN.format(size=fatbin_size)))
    obj = os.path.join(suite.work, name + ".obj")
    suite.build_step([suite.reference_tool("clang"),
                      "--target=x86_64-pc-windows-msvc", "-O2", "-c", source,
                      "-o", obj])
    output = os.path.join(root, "bin", name)
    suite.build_step([suite.reference_tool("lld-link"), "/dll", "/noentry",
                      "/force:unresolved", obj, "/out:" + output])
    for arch, data in archives_for(suite, objects, DLL_KERNEL_NAME).items():
        write(os.path.join(root, ".kpack", f"demodll_{arch}.kpack"), data)
    return output


def check_writer_layout(suite):
    """The archive writer's bytes, field by field, against the documented
    layout: header, padding, blobs where the table says, table at the
    offset the header gives, running to the end."""
    kernels = [("lib/libtest.so#0", "gfx900", b"K1" * 50),
               ("lib/libtest.so#0", "gfx906", b"K2" * 100),
               ("bin/testapp#0", "gfx900", b"K3" * 75)]
    data = kpack_archive(kernels, ["gfx900", "gfx906"], "none")
    suite.expect(data[:4] == b"KPAK", "writer: magic KPAK")
    suite.expect(int.from_bytes(data[4:8], "little") == 1,
                 "writer: version 1, little-endian")
    toc = int.from_bytes(data[8:16], "little")
    suite.expect(toc == BLOB_START + 100 + 200 + 150,
                 "writer: the table follows the blobs", toc)
    suite.expect(data[HEADER_SIZE:BLOB_START] == bytes(BLOB_START -
                                                        HEADER_SIZE),
                 "writer: zeros up to offset 64")
    suite.expect(data[64:164] == b"K1" * 50 and data[164:364] == b"K2" * 100
                 and data[364:514] == b"K3" * 75,
                 "writer: blobs in ordinal order from offset 64")
    expected_table = msgpack({
        "format_version": 1, "group_name": "test",
        "gfx_arch_family": "gfx900", "gfx_arches": ["gfx900", "gfx906"],
        "toc": {"lib/libtest.so#0": {
            "gfx900": {"type": "hsaco", "ordinal": 0, "original_size": 100},
            "gfx906": {"type": "hsaco", "ordinal": 1, "original_size": 200}},
            "bin/testapp#0": {
            "gfx900": {"type": "hsaco", "ordinal": 2,
                       "original_size": 150}}},
        "compression_scheme": "none",
        "blobs": [{"offset": 64, "size": 100}, {"offset": 164, "size": 200},
                  {"offset": 364, "size": 150}]})
    suite.expect(data[toc:] == expected_table,
                 "writer: the table of contents, to the end of the file")
    # Known MessagePack encodings, from the specification's examples.
    suite.expect(msgpack({"a": [1, "b"]}) == b"\x81\xa1a\x92\x01\xa1b",
                 "writer: MessagePack fixmap, fixarray, fixstr, fixint")
    suite.expect(msgpack(300) == b"\xcd\x01\x2c" and
                 msgpack("x" * 40)[:2] == b"\xd9\x28",
                 "writer: MessagePack uint16 and str8")


def listing(suite, path):
    done = suite.offbundle_run(["list", "--json", path])
    if done.returncode != 0:
        return None, done.stderr
    return json.loads(done.stdout)["files"][0]["entries"], ""


def check_binary(suite, path, kernel_name, objects):
    name = os.path.basename(path)
    entries, error = listing(suite, path)
    suite.expect(entries is not None, f"{name}: list succeeds", error)
    if entries is None:
        return
    expected = [(f"{kernel_name}#{i}", f"hipv4-amdgcn-amd-amdhsa--{arch}",
                 len(objects[(i, arch)]))
                for i in range(len(SOURCES)) for arch in ARCHES]
    got = sorted((e["section"], e["id"], e["size"]) for e in entries)
    suite.expect(got == sorted(expected),
                 f"{name}: one bundle per wrapper, a code object per "
                 "architecture, at the sizes LLVM 22 unbundles", got)
    suite.expect(all(e["uri"] is None for e in entries),
                 f"{name}: no URI for code objects outside the file")

    out = os.path.join(suite.work, name + ".extracted")
    done = suite.offbundle_run(["extract", path, "-o", out])
    suite.expect(done.returncode == 0, f"{name}: extract succeeds",
                 done.stderr)
    extracted = []
    for folder, _, files in os.walk(out):
        extracted += [read(os.path.join(folder, f)) for f in files]
    suite.expect(sorted(extracted) == sorted(objects.values()),
                 f"{name}: extract writes the code objects LLVM 22 "
                 "unbundles", len(extracted))

    done = suite.offbundle_run(["sizes", "--json", path])
    suite.expect(done.returncode == 0, f"{name}: sizes succeeds", done.stderr)
    if done.returncode == 0:
        report = json.loads(done.stdout)["files"][0]
        targets = {t["target"]: t["bytes"] for t in report["targets"]}
        suite.expect(all(t["file_bytes"] == 0 for t in report["targets"]),
                     f"{name}: sizes counts no file bytes for code objects "
                     "in archives", report["targets"])
        suite.expect(report.get("kpack", {}).get("bundles") == 2 and
                     report["kpack"]["file_bytes"] == 0 and
                     report["plain"]["bundles"] == 0,
                     f"{name}: sizes counts two kpack bundles",
                     report.get("kpack"))
        want = {f"amdgcn-amd-amdhsa--{arch}":
                sum(len(objects[(i, arch)]) for i in range(len(SOURCES)))
                for arch in ARCHES}
        suite.expect(targets == want, f"{name}: sizes per architecture",
                     targets)

    done = suite.offbundle_run(["verify", path])
    suite.expect(done.returncode == 0 and "ok, 2 bundles" in done.stdout,
                 f"{name}: verify passes", done.stdout + done.stderr)

    # The kernels of the code objects it loads, found through the archives.
    done = suite.offbundle_run(["kernels", "--json", path])
    suite.expect(done.returncode == 0, f"{name}: kernels succeeds",
                 done.stderr)
    if done.returncode == 0:
        targets = json.loads(done.stdout)["files"][0]["targets"]
        suite.expect(sorted((t["target"], sorted(k["name"] for k in
                                                 t["kernels"]))
                            for t in targets) ==
                     sorted((f"amdgcn-amd-amdhsa--{arch}",
                             ["_Z4fillPf", "_Z5scalePff", "_Z7add_onePi"])
                            for arch in ARCHES),
                     f"{name}: kernels lists every kernel of every "
                     "translation unit, per architecture", targets)


def check_bundler_listing(suite, bundler, program, objects):
    """clang-offload-bundler's own modes: -list finds nothing, as LLVM 22's
    tool; -list -format=json describes the kpack bundles."""
    done = subprocess.run([bundler, "-list", "-type=o", "-input=" + program],
                          capture_output=True, text=True)
    suite.expect(done.returncode == 0 and done.stdout == "",
                 "clang-offload-bundler -list: nothing, as LLVM 22",
                 done.stdout + done.stderr)
    done = subprocess.run([bundler, "-list", "-format=json", "-type=o",
                           "-input=" + program], capture_output=True,
                          text=True)
    bundles = json.loads(done.stdout)["bundles"] if done.returncode == 0 \
        else []
    suite.expect([(b["format"], b["section"], b["size"],
                   sorted((e["id"], e["size"]) for e in b["entries"]))
                  for b in bundles] ==
                 [("kpack", f"{KERNEL_NAME}#{i}", 0,
                   sorted((f"hipv4-amdgcn-amd-amdhsa--{arch}",
                           len(objects[(i, arch)])) for arch in ARCHES))
                  for i in range(len(SOURCES))],
                 "clang-offload-bundler -list -format=json: the kpack "
                 "bundles", done.stdout[:300] + done.stderr)


def check_archive_alone(suite, root, objects):
    path = os.path.join(root, ".kpack", "demo_gfx1030.kpack")
    entries, error = listing(suite, path)
    suite.expect(entries is not None and sorted(
        (e["section"], e["id"], e["size"]) for e in entries) == sorted(
        (f"{KERNEL_NAME}#{i}", "hipv4-amdgcn-amd-amdhsa--gfx1030",
         len(objects[(i, "gfx1030")])) for i in range(len(SOURCES))),
        "an archive alone lists its binaries' code objects", error)
    done = suite.offbundle_run(["sizes", "--json", path])
    suite.expect(done.returncode == 0, "an archive alone is sized",
                 done.stderr)
    if done.returncode == 0:
        report = json.loads(done.stdout)["files"][0]
        data = read(path)
        # The zstd frames' sizes, from the region the table points at.
        count = int.from_bytes(data[BLOB_START:BLOB_START + 4], "little")
        frames, at = 0, BLOB_START + 4
        for _ in range(count):
            size = int.from_bytes(data[at:at + 4], "little")
            frames += size
            at += 4 + size
        suite.expect([(t["target"], t["bytes"], t["file_bytes"])
                      for t in report["targets"]] ==
                     [("amdgcn-amd-amdhsa--gfx1030",
                       sum(len(objects[(i, "gfx1030")])
                           for i in range(len(SOURCES))), frames)],
                     "an archive alone: code object bytes, and the bytes "
                     "of their frames in the file", report["targets"])
    done = suite.offbundle_run(["verify", path])
    suite.expect(done.returncode == 0 and ": ok, 2 bundles" in done.stdout,
                 "an archive alone verifies", done.stdout + done.stderr)
    # Over a folder, the totals add up the kpack bundles too, as each
    # file's report does: their count, and their bytes as GPU bytes.
    folder = os.path.dirname(path)
    done = suite.offbundle_run(["sizes", "--json", folder])
    report = json.loads(done.stdout) if done.returncode == 0 else {}
    files = report.get("files", [])
    kpack = {key: sum(f.get("kpack", {}).get(key, 0) for f in files)
             for key in ("bundles", "file_bytes", "bytes")}
    suite.expect(len(files) > 1 and kpack["bundles"] == 2 * len(files) and
                 report.get("kpack") == kpack,
                 "a folder of archives: the kpack totals add up",
                 str(report.get("kpack")) + " " + str(kpack))
    done = suite.offbundle_run(["sizes", folder])
    total = done.stdout.splitlines()[0] if done.stdout else ""
    ranked = [line.split() for line in done.stdout.splitlines()
              if line.endswith(".kpack") and line.split()[0].isdigit()]
    suite.expect(total.endswith(f"; {kpack['bundles']} bundles") and
                 len(ranked) == len(files) and
                 sum(int(row[0]) for row in ranked) == kpack["file_bytes"],
                 "a folder of archives: the total counts their bundles and "
                 "the ranking their bytes", done.stdout)


def expect_failure(suite, path, label, *needles, verify_only=False):
    """Every command that reads the file fails with one error line: verify,
    list, sizes and extract holding every needle, unpack-kpack (of a
    binary) with some reason; nothing is written, and the file is left as
    it was. With `verify_only`, a fault only verify looks for."""
    before = read(path)
    out = os.path.join(suite.work, "failed-output")
    commands = [["verify", path]]
    if not verify_only:
        commands += [["list", path], ["sizes", path],
                     ["extract", path, "-o", out]]
        if not path.endswith(".kpack"):
            commands.append(["unpack-kpack", path, "-o", out])
    for command in commands:
        done = suite.offbundle_run(command)
        lines = done.stderr.splitlines()
        exact = command[0] != "unpack-kpack"
        suite.expect(done.returncode == 1 and len(lines) == 1 and
                     "error: " in lines[0] and
                     (not exact or
                      all(needle in done.stderr for needle in needles)) and
                     not os.path.exists(out),
                     f"{command[0]}: {label}",
                     f"{done.returncode} {done.stderr!r}")
    suite.expect(read(path) == before, f"{label}: the file is unchanged")


def check_failures(suite, objects, program_source_root):
    """Damaged installations, each a copy of the good one."""
    def fresh(name):
        root = os.path.join(suite.work, "broken", name)
        shutil.copytree(program_source_root, root, symlinks=True)
        return root, os.path.join(root, "bin", "app")

    root, app = fresh("missing")
    shutil.rmtree(os.path.join(root, ".kpack"))
    expect_failure(suite, app, "no archive found", "no kpack archive found",
                   os.path.join(root, ".kpack", "demo_@GFXARCH@.kpack"))

    kernels = {arch: [(f"{KERNEL_NAME}#0", arch, objects[(0, arch)])]
               for arch in ARCHES}
    root, app = fresh("missing_key")
    for arch in ARCHES:
        write(os.path.join(root, ".kpack", f"demo_{arch}.kpack"),
              kpack_archive(kernels[arch], [arch], "none"))
    expect_failure(suite, app, "a wrapper no archive has an entry for",
                   f"'{KERNEL_NAME}#1'")

    root, app = fresh("unlisted_arch")
    bad = os.path.join(root, ".kpack", "demo_gfx906.kpack")
    write(bad, kpack_archive(
        [(f"{KERNEL_NAME}#{i}", "gfx906", objects[(i, "gfx906")])
         for i in range(2)], ["gfx908"], "none"))
    expect_failure(suite, app, "a table entry the archive does not list",
                   bad, "gfx_arches")

    frame = lambda data: zstd_frame(suite, data)  # noqa: E731
    root, app = fresh("original_size")
    bad = os.path.join(root, ".kpack", "demo_gfx1030.kpack")
    write(bad, kpack_archive(
        [(f"{KERNEL_NAME}#{i}", "gfx1030", objects[(i, "gfx1030")])
         for i in range(2)], ["gfx1030"], "zstd-per-kernel", compress=frame,
        size_offset=1))
    expect_failure(suite, app, "a frame that does not decompress to "
                   "original_size", bad, "original_size")

    root, app = fresh("damaged_frame")
    bad = os.path.join(root, ".kpack", "demo_gfx1030.kpack")
    data = bytearray(read(bad))
    # The first frame's compressed block, past the count, the size and
    # the frame header.
    data[BLOB_START + 4 + 4 + 12] ^= 0xff
    write(bad, bytes(data))
    expect_failure(suite, app, "a damaged zstd frame", bad)

    root, app = fresh("wrong_arch")
    bad = os.path.join(root, ".kpack", "demo_gfx1030.kpack")
    write(bad, kpack_archive(
        [(f"{KERNEL_NAME}#{i}", "gfx1030", objects[(i, "gfx906")])
         for i in range(2)], ["gfx1030"], "zstd-per-kernel", compress=frame))
    expect_failure(suite, app, "a code object for another processor", bad,
                   "built for gfx906, not gfx1030")

    root, app = fresh("not_elf")
    bad = os.path.join(root, ".kpack", "demo_gfx906.kpack")
    write(bad, kpack_archive(
        [(f"{KERNEL_NAME}#{i}", "gfx906", b"not a code object")
         for i in range(2)], ["gfx906"], "none"))
    expect_failure(suite, app, "a code object that is not ELF", bad,
                   "not an ELF file")

    good = read(os.path.join(program_source_root, ".kpack",
                             "demo_gfx906.kpack"))
    for label, damaged, needle in (
            ("bad magic", b"KPAX" + good[4:], "not a kpack archive"),
            ("version 2", good[:4] + (2).to_bytes(4, "little") + good[8:],
             "version 2"),
            ("table offset past the end", good[:8] +
             (len(good) + 10).to_bytes(8, "little") + good[16:],
             "outside the archive"),
            ("truncated table", good[:-5], "malformed kpack table")):
        root, app = fresh("header_" + label.replace(" ", "_"))
        bad = os.path.join(root, ".kpack", "demo_gfx906.kpack")
        write(bad, damaged)
        expect_failure(suite, app, label, bad, needle)
        if damaged.startswith(b"KPAK"):
            expect_failure(suite, bad, label + " (archive alone)", needle)


def check_wrapper_pointers(suite, dll):
    """A HIPK wrapper must point at the marker: one moved by 8 bytes fails
    verify."""
    data = bytearray(read(dll))
    wrapper = data.find(b"HIPK\x01\x00\x00\x00")
    suite.expect(wrapper >= 0, "the DLL holds a HIPK wrapper")
    pointer = int.from_bytes(data[wrapper + 8:wrapper + 16], "little")
    data[wrapper + 8:wrapper + 16] = (pointer + 8).to_bytes(8, "little")
    moved = os.path.join(os.path.dirname(dll), "moved.dll")
    write(moved, bytes(data))
    expect_failure(suite, moved, "a HIPK wrapper pointing past the marker",
                   "not to the kpack marker (.kpackrf at " + hex(pointer),
                   verify_only=True)
    os.remove(moved)


def fnv(data):
    """FNV-1a, as the stand-in runtime hashes payloads."""
    value = 0xcbf29ce484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def registered(suite, binary):
    """What the stand-in runtime records when the program runs, or the
    library is loaded."""
    runtime = stand_in_runtime.build(suite.work)
    command = ([os.path.join(runtime, "load"), binary]
               if binary.endswith(".so") else [binary])
    status, error, seen = stand_in_runtime.registrations(
        command, os.path.join(suite.work, "registry"), runtime, suite.work)
    return status, error, seen


def expected_registrations(objects):
    return [{f"hipv4-amdgcn-amd-amdhsa--{arch}":
             (len(objects[(i, arch)]), fnv(objects[(i, arch)]))
             for arch in ARCHES} for i in range(len(SOURCES))]


# What distributions run on installed binaries; each must leave an
# unpacked file that verifies and loads as before.
def distribution_commands(path, out):
    return [("strip", ["strip", "--strip-all", path, "-o", out]),
            ("objcopy", ["objcopy", path, out]),
            ("eu-strip", ["eu-strip", path, "-o", out]),
            ("patchelf", ["sh", "-c", f"cp '{path}' '{out}' && "
                          f"patchelf --set-rpath /opt/demo/lib '{out}'"])]


def unpack(suite, binary, compress):
    """(label, output) of unpack-kpack, the output keeping the binary's
    suffix; output None when it failed."""
    name = os.path.basename(binary)
    label = f"{name} unpacked" + (" and compressed" if compress else "")
    suffix = os.path.splitext(name)[1]
    out = os.path.join(suite.work, label.replace(" ", "_") +
                       (suffix if suffix in (".so", ".dll") else ""))
    done = suite.offbundle_run(["unpack-kpack", binary, "-o", out] +
                               (["--compress"] if compress else []))
    suite.expect(done.returncode == 0 and
                 "2 bundles (4 code objects)" in done.stdout,
                 f"{label}: unpack-kpack succeeds", done.stderr)
    return label, out if done.returncode == 0 else None


def check_unpack(suite, binary, objects):
    name = os.path.basename(binary)
    status, error, seen = registered(suite, binary)
    suite.expect(status == 0 and seen == [{"error:": ("wrapper", "magic")}] * 2,
                 f"{name}: the kpack'd original does not load without kpack "
                 "support (the control)", f"{status} {error} {seen}")
    for compress in (False, True):
        label, out = unpack(suite, binary, compress)
        if out is None:
            continue
        suite.expect(os.stat(out).st_mode & 0o777 ==
                     os.stat(binary).st_mode & 0o777,
                     f"{label}: the output has the input's permissions")
        # Its wrappers are ordinary ones now, whatever its marker says: it
        # is no kpack'd file to unpack again.
        again = out + ".again"
        done = suite.offbundle_run(["unpack-kpack", out, "-o", again])
        suite.expect(done.returncode == 1 and not os.path.exists(again) and
                     done.stderr == f"offbundle: error: '{out}': not a "
                     "kpack'd program or library: its HIP wrappers are "
                     "ordinary ones (HIPF), whatever its kpack marker says\n",
                     f"{label}: unpacking it again is refused as not kpack'd",
                     done.stderr)
        done = suite.offbundle_run(["verify", out])
        suite.expect(done.returncode == 0 and
                     ("2 compressed, hashes match" if compress else
                      "0 compressed") in done.stdout,
                     f"{label}: verify passes", done.stdout + done.stderr)
        done = subprocess.run([suite.reference_tool("llvm-readelf"), "-a",
                               out], capture_output=True, text=True)
        suite.expect(done.returncode == 0 and "warning" not in done.stderr,
                     f"{label}: llvm-readelf -a reads it without a warning",
                     done.stderr[:300])
        status, error, seen = registered(suite, out)
        suite.expect(status == 0 and seen == expected_registrations(objects),
                     f"{label}: the stand-in runtime registers every "
                     "translation unit's code objects, byte for byte",
                     f"{status} {error} {seen}")
        tooled = os.path.join(os.path.dirname(out),
                              "tooled-" + os.path.basename(out))
        for tool, command in distribution_commands(out, tooled):
            done = subprocess.run(command, capture_output=True, text=True)
            suite.expect(done.returncode == 0, f"{label}: {tool} runs",
                         done.stderr)
            checked = suite.offbundle_run(["verify", tooled])
            status, error, seen = registered(suite, tooled)
            suite.expect(checked.returncode == 0 and status == 0 and
                         seen == expected_registrations(objects),
                         f"{label}: after {tool} it verifies and loads the "
                         "same", f"{checked.stderr} {status} {error}")
            os.remove(tooled)


def check_unpack_dll(suite, dll, objects):
    """A kpack'd DLL unpacked: .hip_fat's raw data holds the bundles (its
    place in memory unchanged), the wrappers point at them through their
    base relocations, and the code objects are LLVM 22's."""
    for compress in (False, True):
        label, out = unpack(suite, dll, compress)
        if out is None:
            continue
        done = suite.offbundle_run(["verify", out])
        suite.expect(done.returncode == 0, f"{label}: verify passes "
                     "(HIPF wrappers at bundle starts, base relocations)",
                     done.stdout + done.stderr)
        done = subprocess.run([suite.reference_tool("llvm-readobj"),
                               "--file-headers", "--sections",
                               "--coff-basereloc", out],
                              capture_output=True, text=True)
        suite.expect(done.returncode == 0 and "warning" not in done.stderr,
                     f"{label}: llvm-readobj reads it without a warning",
                     done.stderr[:300])
        extracted_folder = os.path.join(suite.work, label.replace(" ", "_"))
        done = suite.offbundle_run(["extract", out, "-o", extracted_folder])
        extracted = []
        for folder, _, files in os.walk(extracted_folder):
            extracted += [read(os.path.join(folder, f)) for f in files]
        suite.expect(done.returncode == 0 and
                     sorted(extracted) == sorted(objects.values()),
                     f"{label}: its code objects are those LLVM 22 "
                     "unbundles", done.stderr)
    small = build_dll(suite, objects, os.path.dirname(os.path.dirname(dll)),
                      name="small.dll", fatbin_size=64)
    out = os.path.join(suite.work, "small-unpacked.dll")
    done = suite.offbundle_run(["unpack-kpack", small, "-o", out])
    suite.expect(done.returncode == 1 and
                 "bytes .hip_fat has in memory" in done.stderr and
                 not os.path.exists(out),
                 "a DLL whose .hip_fat is too small in memory is refused",
                 done.stderr)


def check_unpack_refusals(suite, root, objects):
    out = os.path.join(suite.work, "refused")
    ordinary = os.path.join(suite.work, "first.o")
    for label, binary, needle in (
            ("an object that is not kpack'd", ordinary,
             "not a kpack'd program or library"),
            ("a kpack archive", os.path.join(root, ".kpack",
                                             "demo_gfx906.kpack"),
             "not a kpack'd program or library")):
        done = suite.offbundle_run(["unpack-kpack", binary, "-o", out])
        suite.expect(done.returncode == 1 and needle in done.stderr and
                     len(done.stderr.splitlines()) == 1 and
                     not os.path.exists(out),
                     f"unpack-kpack of {label} is refused", done.stderr)
    broken = os.path.join(suite.work, "broken", "missing", "bin", "app")
    done = suite.offbundle_run(["unpack-kpack", broken, "-o", out])
    suite.expect(done.returncode == 1 and "no kpack archive found" in
                 done.stderr and not os.path.exists(out),
                 "unpack-kpack without the archives is refused, writing "
                 "nothing", done.stderr)
    with open(out, "wb") as handle:
        handle.write(b"keep")
    done = suite.offbundle_run(["unpack-kpack", broken, "-o", out])
    suite.expect(done.returncode == 1 and read(out) == b"keep",
                 "a failed unpack-kpack leaves an existing output as it was")
    os.remove(out)


def check_rewrites_refused(suite, *binaries):
    for binary in binaries:
        for command in (["prune", "-k", "gfx906"], ["compress"],
                        ["decompress"]):
            out = os.path.join(suite.work, "rewritten")
            done = suite.offbundle_run(command + [binary, "-o", out])
            suite.expect(done.returncode == 1 and
                         len(done.stderr.splitlines()) == 1 and
                         "a kpack'd binary" in done.stderr and
                         not os.path.exists(out),
                         f"{command[0]} of {os.path.basename(binary)} is "
                         "refused", done.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--reference-bin", required=True)
    parser.add_argument("--bundler", required=True,
                        help="this project's clang-offload-bundler")
    args = parser.parse_args()
    require_executables(args.offbundle, args.bundler,
                        *(os.path.join(args.reference_bin, name)
                          for name in ("clang", "clang-offload-bundler",
                                       "llvm-objcopy", "lld-link")))
    if shutil.which("zstd") is None:
        skip_suite("the zstd program is missing (Debian: zstd)")
    work = tempfile.mkdtemp(prefix="kpack-")
    try:
        suite = Suite(args, work)
        check_writer_layout(suite)
        objects = code_objects(suite)
        root = os.path.join(work, "prefix")
        program, library = build_prefix(suite, objects, root)
        check_binary(suite, program, KERNEL_NAME, objects)
        check_bundler_listing(suite, args.bundler, program, objects)
        check_binary(suite, library, LIBRARY_KERNEL_NAME, objects)
        dll = build_dll(suite, objects, root)
        check_binary(suite, dll, DLL_KERNEL_NAME, objects)
        check_wrapper_pointers(suite, dll)
        check_archive_alone(suite, root, objects)
        check_failures(suite, objects, root)
        check_unpack(suite, program, objects)
        check_unpack(suite, library, objects)
        for zero_paged, kernel_name in build_zero_paged(suite, objects,
                                                        root):
            check_binary(suite, zero_paged, kernel_name, objects)
            check_unpack(suite, zero_paged, objects)
            check_zero_paged_unpacked(suite, zero_paged)
        check_unpack_dll(suite, dll, objects)
        check_unpack_refusals(suite, root, objects)
        check_rewrites_refused(suite, program, library, dll)
        return finish(suite.passed, suite.failed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
