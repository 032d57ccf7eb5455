#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A real ROCm 5 library: Debian's librocsparse0 (rocSPARSE 5.3).

Its shared library keeps, in .hip_fatbin, a hundred or so binary bundles
written by ROCm 5's bundler, whose host entries carry a three-field triple
("host-x86_64-unknown-linux"). LLVM 22 refuses to unbundle them ("invalid
bundle id read from the bundle"); offbundle reads such IDs as their
normalised four-field form (docs/compatibility.md, differences table).

What the bundler must report is derived without it: the ELF section headers
and every bundle header are parsed here, each bundle is cut out of the
section (its extent: from its magic to the end of its last entry), and
LLVM 22 lists the cut bundles. Checked:

- -list of every cut bundle: stdout, stderr and exit code as LLVM 22's;
- -unbundle -targets of every entry of every cut bundle (the host entry
  named in its normalised form): the payload bytes the header records;
- -unbundle of the whole library with the command a user would type: the
  first gfx90a:xnack- payload of the first bundle holding one;
- -list -format=json of a cut bundle: `id` as stored, `triple` normalised;
- -unbundle -type=a -check-input-archive of an archive of two cut bundles:
  each device archive holds the payloads, named after the stored IDs;
- the offbundle tool on the whole library: list --json (every entry's ID,
  size and URI as the headers give them, in file order), sizes --json (per
  target, the sums of list's entries; the totals the headers give), verify
  (every bundle, and every one of the library's HIP fat binary wrappers
  followed to its bundle), and extract -t gfx90a:xnack- (one file per
  bundle, each the payload the header records); prune to gfx90a:xnack-:
  the pruned library, loaded with dlopen against the stand-in HIP runtime
  (stand_in_runtime.py), registers 111 times exactly the host and
  gfx90a:xnack- entries the original registers, reads without a warning in
  llvm-readelf -a, and is smaller by at least 90% of what .hip_fatbin
  lost; compress: the compressed library registers what the original
  does; kernels: every kernel of every device code object, per target in
  file order, each field as llvm-readelf --notes and --syms read it from
  the code object cut out by its header.

The package is fetched with `apt-get download` (never installed) and kept in
the cache folder, so later runs in the same build tree reuse it; the suite
is skipped only when the package cannot be downloaded.

Usage: rocm_library.py --ours PATH --reference PATH --offbundle PATH
                       --cache DIR
"""

import argparse
import glob
import json
import mmap
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (Tally, finish,  # noqa: E402
                           function_sizes, note_kernels,
                           require_executables, skip_suite)
import stand_in_runtime  # noqa: E402

PACKAGE = "librocsparse0"
LIBRARY_GLOB = "usr/lib/*/librocsparse.so.*.*"
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
# The target of the whole-library check, as a user would type it.
WHOLE_LIBRARY_TARGET = "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
TOOL_TIMEOUT = 300


def fetch_package(cache):
    """The cached .deb, downloaded first when the cache has none."""
    os.makedirs(cache, exist_ok=True)
    cached = sorted(glob.glob(os.path.join(cache, PACKAGE + "_*.deb")))
    if cached:
        return cached[-1]
    if shutil.which("apt-get") is None:
        skip_suite(f"cannot download {PACKAGE}: no apt-get on this machine")
    # Downloaded into a fresh folder and moved into the cache only when
    # complete, so that an interrupted download is never taken as cached.
    with tempfile.TemporaryDirectory(dir=cache) as download:
        result = subprocess.run(["apt-get", "download", PACKAGE],
                                cwd=download, capture_output=True,
                                timeout=600)
        debs = glob.glob(os.path.join(download, PACKAGE + "_*.deb"))
        if result.returncode != 0 or len(debs) != 1:
            message = result.stderr.decode(errors="replace").strip()
            skip_suite(f"cannot download {PACKAGE} with apt-get download "
                       f"(exit {result.returncode}): {message}")
        target = os.path.join(cache, os.path.basename(debs[0]))
        os.replace(debs[0], target)
    return target


def work_folder_beside(deb, prefix):
    """A fresh folder beside the cached package, on the build tree's disk
    rather than in a /tmp that may be memory (the unpacked library takes
    1.3 GB), named `prefix` and random letters. Folders of that prefix a run
    killed by its timeout left are removed first."""
    parent = os.path.dirname(deb)
    for stale in glob.glob(os.path.join(parent, prefix + "*")):
        shutil.rmtree(stale, ignore_errors=True)
    return tempfile.mkdtemp(dir=parent, prefix=prefix)


def section_range(path, wanted):
    """(offset, size) of the ELF64 little-endian section named `wanted`."""
    with open(path, "rb") as elf:
        header = elf.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2 or header[5] != 1:
            raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", header, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", header, 0x3a)
        elf.seek(shoff)
        table = elf.read(shentsize * shnum)
        sections = [struct.unpack_from("<IIQQQQIIQQ", table, i * shentsize)
                    for i in range(shnum)]
        names = sections[shstrndx]
        elf.seek(names[4])
        strings = elf.read(names[5])
    for name, _type, _flags, _addr, offset, size, *_ in sections:
        end = strings.index(b"\0", name)
        if strings[name:end].decode() == wanted:
            return offset, size
    raise ValueError(f"{path}: no {wanted} section")


class Section:
    """A section of a mapped file, sliced (into bytes) and searched like
    bytes, without reading the whole section (over a gigabyte) into memory."""

    def __init__(self, mapped, offset, size):
        self.mapped = mapped
        self.offset = offset
        self.size = size

    def __getitem__(self, where):
        start, stop, _ = where.indices(self.size)
        return self.mapped[self.offset + start:self.offset + stop]

    def find(self, wanted, start):
        found = self.mapped.find(wanted, self.offset + start,
                                 self.offset + self.size)
        return found - self.offset if found >= 0 else -1


def parse_bundle_header(data, start):
    """The entries [(id, offset, size)] of the binary bundle at `start`
    (offsets relative to it) and the bundle's extent: up to the end of its
    last entry."""
    if data[start:start + len(BUNDLE_MAGIC)] != BUNDLE_MAGIC:
        raise ValueError(f"no bundle magic at section offset {start}")
    count, = struct.unpack("<Q", data[start + 24:start + 32])
    at = start + 32
    entries = []
    extent = at - start
    for _ in range(count):
        offset, size, id_length = struct.unpack("<QQQ", data[at:at + 24])
        at += 24
        entry_id = data[at:at + id_length].decode()
        at += id_length
        entries.append((entry_id, offset, size))
        extent = max(extent, at - start, offset + size)
    return entries, extent


def cut_bundles(section):
    """Every bundle of the section: [(section offset, extent, entries)].
    Only zero padding may lie between them."""
    bundles = []
    at = 0
    while True:
        found = section.find(BUNDLE_MAGIC, at)
        if found < 0:
            if section[at:].strip(b"\0"):
                raise ValueError(f"bytes other than padding at {at}")
            return bundles
        if section[at:found].strip(b"\0"):
            raise ValueError(f"bytes other than padding at {at}..{found}")
        entries, extent = parse_bundle_header(section, found)
        bundles.append((found, extent, entries))
        at = found + extent


def user_target(entry_id):
    """What a user passes to -targets for a stored ID: a three-field triple
    ("host-x86_64-unknown-linux", four dash-separated parts) in the
    four-field form LLVM 22's command line accepts, with the "unknown"
    environment normalising fills in; other IDs as they are."""
    if len(entry_id.split("-")) == 4:
        return entry_id + "-unknown"
    return entry_id


def expected_triple(entry_id):
    """The `triple` object the JSON listing must give: as stored for
    four-field triples, and for three-field ones normalised, the
    environment "unknown" (empty for AMDHSA, as the bundler writes it)."""
    parts = entry_id.split("-", 5)
    arch, vendor, os_name = parts[1:4]
    if len(parts) == 4:
        environment = "" if os_name == "amdhsa" else "unknown"
    else:
        environment = parts[4]
    return {"text": f"{arch}-{vendor}-{os_name}-{environment}", "arch": arch,
            "vendor": vendor, "os": os_name, "environment": environment}


def serves_whole_library_target(entry_id):
    """Whether the whole-library target may take this entry: gfx90a with no
    feature other than xnack-, under a HIP kind and the AMDHSA triple."""
    parts = entry_id.split("-", 5)
    if len(parts) != 6 or parts[0] not in ("hip", "hipv4") or \
            parts[1:4] != ["amdgcn", "amd", "amdhsa"]:
        return False
    processor, *features = parts[5].split(":")
    return processor == "gfx90a" and set(features) <= {"xnack-"}


def successful_output(result, output):
    """The output's bytes after a successful run, else None."""
    if result.returncode != 0 or not os.path.exists(output):
        return None
    with open(output, "rb") as produced:
        return produced.read()


class Suite(Tally):
    def __init__(self, ours, reference, work):
        super().__init__()
        self.ours = ours
        self.reference = reference
        self.work = work


    def run(self, tool, *arguments):
        return subprocess.run([tool, *arguments], capture_output=True,
                              timeout=TOOL_TIMEOUT)

    def compare_listing(self, name, cut, files_type):
        arguments = ["-list", f"-type={files_type}", f"-input={cut}"]
        ours = self.run(self.ours, *arguments)
        theirs = self.run(self.reference, *arguments)
        # LLVM's messages start with its program's path.
        ours_err = ours.stderr.replace(self.ours.encode(), b"<tool>")
        theirs_err = theirs.stderr.replace(self.reference.encode(), b"<tool>")
        self.check(f"{name} -list -type={files_type}",
                   (ours.returncode, ours.stdout, ours_err) ==
                   (theirs.returncode, theirs.stdout, theirs_err),
                   f"ours exit {ours.returncode} {ours.stdout[:200]!r} "
                   f"{ours_err[:200]!r}, LLVM 22 exit {theirs.returncode} "
                   f"{theirs.stdout[:200]!r} {theirs_err[:200]!r}")
        return theirs

    def unbundle_entries(self, name, cut, bundle, entries):
        output = os.path.join(self.work, "entry.out")
        for entry_id, offset, size in entries:
            if os.path.exists(output):
                os.remove(output)
            target = user_target(entry_id)
            result = self.run(self.ours, "-unbundle", "-type=o",
                              f"-targets={target}", f"-input={cut}",
                              f"-output={output}")
            expected = bundle[offset:offset + size]
            produced = successful_output(result, output)
            self.check(f"{name} -unbundle -targets={target}",
                       produced == expected,
                       f"exit {result.returncode}, "
                       f"{result.stderr.decode(errors='replace').strip()}, "
                       f"{'no output' if produced is None else len(produced)}"
                       f" bytes for {size} expected")

    def check_json(self, name, cut, entries):
        result = self.run(self.ours, "-list", "-type=o", "-format=json",
                          f"-input={cut}")
        try:
            listing = json.loads(result.stdout) if result.returncode == 0 \
                else None
        except json.JSONDecodeError as error:
            listing = None
            print(f"{name}: JSON listing does not parse: {error}")
        if listing is None or len(listing.get("bundles", [])) != 1:
            self.check(f"{name} -list -format=json", False,
                       f"exit {result.returncode}, "
                       f"{result.stderr.decode(errors='replace').strip()}")
            return
        # The JSON lists entries in file order; the header's order is that.
        listed = listing["bundles"][0]["entries"]
        self.check(f"{name} -format=json entry count",
                   len(listed) == len(entries), f"{len(listed)} listed")
        for entry, (entry_id, offset, size) in zip(listed, entries):
            self.check(f"{name} -format=json {entry_id}",
                       (entry["id"], entry["offset"], entry["size"],
                        entry["kind"], entry["triple"]) ==
                       (entry_id, offset, size, entry_id.split("-")[0],
                        expected_triple(entry_id)),
                       json.dumps(entry))


def check_device_archives(suite, section, bundles):
    """-unbundle -type=a -check-input-archive of an archive of the first two
    cut bundles, for every device ID of the first: each device archive holds
    the payloads of that ID's entries, one member per input member, named
    after the stored ID. LLVM 22 refuses the archive."""
    if shutil.which("ar") is None:
        suite.check("ar to build the archive with", False, "no ar")
        return
    work = os.path.join(suite.work, "archive")
    os.makedirs(work)
    members = []
    for index, (start, extent, entries) in enumerate(bundles[:2]):
        member = f"part{index}.o"
        with open(os.path.join(work, member), "wb") as member_file:
            member_file.write(section[start:start + extent])
        members.append((member, section[start:start + extent], entries))
    subprocess.run(["ar", "rc", "lib.a", *(name for name, *_ in members)],
                   cwd=work, check=True)
    device_ids = [entry_id for entry_id, *_ in members[0][2]
                  if not entry_id.startswith("host-")]
    outputs = [f"device{index}.a" for index in range(len(device_ids))]
    arguments = ["-unbundle", "-type=a", "-check-input-archive",
                 "-input=lib.a", "-targets=" + ",".join(device_ids),
                 *(f"-output={output}" for output in outputs)]
    refused = subprocess.run([suite.reference, *arguments], cwd=work,
                             capture_output=True, timeout=TOOL_TIMEOUT)
    suite.check("device archives: LLVM 22 refuses the host entries",
                refused.returncode == 1 and
                b"Invalid bundle id read from code object" in refused.stderr,
                refused.stderr.decode(errors="replace"))
    result = subprocess.run([suite.ours, *arguments], cwd=work,
                            capture_output=True, timeout=TOOL_TIMEOUT)
    suite.check("device archives: -unbundle -type=a -check-input-archive",
                result.returncode == 0,
                result.stderr.decode(errors="replace"))
    if result.returncode != 0:
        return
    for device_id, output in zip(device_ids, outputs):
        expected = []
        for member, bundle, entries in members:
            for entry_id, offset, size in entries:
                if entry_id == device_id:
                    stem = member[:-len(".o")]
                    name = f"{stem}-{device_id}{stem}.bc".replace(":", "_")
                    expected.append((name, bundle[offset:offset + size]))
        listed = subprocess.run(["ar", "t", output], cwd=work, check=True,
                                capture_output=True).stdout.decode().split()
        found = [(name, subprocess.run(["ar", "p", output, name], cwd=work,
                                       check=True,
                                       capture_output=True).stdout)
                 for name in listed]
        suite.check(f"device archive for {device_id}", found == expected,
                    f"members {listed}, expected "
                    f"{[name for name, _ in expected]}")


def check_offbundle(suite, offbundle, library, section, bundles, work):
    """The offbundle tool on the whole library, against the headers."""
    def run(*arguments):
        return subprocess.run([offbundle] + list(arguments),
                              capture_output=True, timeout=TOOL_TIMEOUT)

    expected = [(index, entry_id, size, section.offset + start + offset)
                for index, (start, _, entries) in enumerate(bundles)
                for entry_id, offset, size in entries]
    listed = run("list", "--json", library)
    suite.check("offbundle list --json", listed.returncode == 0,
                listed.stderr.decode(errors="replace"))
    if listed.returncode != 0:
        return
    entries = json.loads(listed.stdout)["files"][0]["entries"]
    real = os.path.realpath(library)
    suite.check("offbundle list: every entry, in file order",
                [(e["bundle"], e["id"], e["size"],
                  int(e["uri"].split("#offset=")[1].split("&")[0]))
                 for e in entries] == expected and
                all(e["uri"].startswith("file://" + real + "#")
                    for e in entries),
                f"{len(entries)} entries listed, {len(expected)} expected")

    sizes = run("sizes", "--json", library)
    suite.check("offbundle sizes --json", sizes.returncode == 0,
                sizes.stderr.decode(errors="replace"))
    if sizes.returncode == 0:
        report = json.loads(sizes.stdout)
        sums = {}
        for entry in entries:
            count, total = sums.get(entry["target"], (0, 0))
            sums[entry["target"]] = (count + 1, total + entry["size"])
        suite.check("offbundle sizes: per target, the sums of list's entries",
                    {t["target"]: (t["entries"], t["bytes"])
                     for t in report["targets"]} == sums, str(sums))
        suite.check("offbundle sizes: the totals the headers give",
                    report["plain"]["bundles"] == len(bundles) and
                    report["plain"]["bytes"] ==
                    sum(size for _, _, size, _ in expected) and
                    report["compressed"]["bundles"] == 0 and
                    report["file_size"] == os.path.getsize(library),
                    str(report["plain"]))

    verified = run("verify", library)
    suite.check("offbundle verify: every bundle and wrapper",
                verified.returncode == 0 and
                f"ok, {len(bundles)} bundles".encode() in verified.stdout,
                verified.stderr.decode(errors="replace"))

    folder = os.path.join(work, "extracted")
    extracted = run("extract", library, "-t", "gfx90a:xnack-", "-o", folder)
    wanted = [(entry_id, offset, size)
              for index, entry_id, size, offset in expected
              if entry_id.endswith("gfx90a:xnack-")]
    written = extracted.stdout.decode().splitlines()
    suite.check("offbundle extract -t gfx90a:xnack-: a file per bundle",
                extracted.returncode == 0 and len(written) == len(bundles) ==
                len(wanted), extracted.stderr.decode(errors="replace"))
    if extracted.returncode == 0:
        with open(library, "rb") as whole:
            same = True
            for path, (_, offset, size) in zip(written, wanted):
                whole.seek(offset)
                with open(path, "rb") as out:
                    same = same and out.read() == whole.read(size)
        suite.check("offbundle extract: the payloads the headers record", same)
        shutil.rmtree(folder, ignore_errors=True)


# The kernel fields offbundle kernels reads from the metadata note, all of
# them integers in llvm-readelf's YAML (absent means 0).
NOTE_FIELDS = ("vgpr_count", "agpr_count", "sgpr_count", "vgpr_spill_count",
               "sgpr_spill_count", "group_segment_fixed_size",
               "private_segment_fixed_size", "wavefront_size",
               "max_flat_workgroup_size", "kernarg_segment_size")
# Code objects given to one llvm-readelf run.
READELF_BATCH = 64


def readelf_kernels(text, paths):
    """{path: [kernel]} from llvm-readelf --notes --syms -W over `paths`
    (a "File: " line starts each when there are several): each kernel of
    each file's NT_AMDGPU_METADATA note, in note order, as {"name",
    fields..., "uses_dynamic_stack", "code_bytes"}, the last the size of
    the kernel's function symbol in .symtab."""
    chunks = {paths[0]: []} if len(paths) == 1 else {}
    path = paths[0] if len(paths) == 1 else None
    for line in text.splitlines():
        if line.startswith("File: "):
            path = line[len("File: "):]
            chunks[path] = []
        elif path is not None:
            chunks[path].append(line)
    result = {}
    for path, lines in chunks.items():
        chunk = "\n".join(lines)
        sizes = function_sizes(chunk, ".symtab")
        result[path] = [
            dict({"name": kernel.get("name")},
                 **{field: int(kernel.get(field, "0"))
                    for field in NOTE_FIELDS},
                 uses_dynamic_stack=kernel.get("uses_dynamic_stack",
                                               "false") == "true",
                 code_bytes=sizes.get(kernel.get("name")))
            for kernel in note_kernels(chunk)]
    return result


def check_kernels(suite, offbundle, readelf, library, section, bundles,
                  work):
    """offbundle kernels of the whole library against llvm-readelf --notes
    and --syms of every device code object, cut out of the library here by
    the bundle headers: per target, every kernel in file order, every
    field."""
    done = subprocess.run([offbundle, "kernels", "--json", library],
                          capture_output=True, timeout=TOOL_TIMEOUT)
    suite.check("offbundle kernels --json of the library",
                done.returncode == 0, done.stderr.decode(errors="replace"))
    if done.returncode != 0:
        return
    ours = {target["target"]: target["kernels"] for target in
            json.loads(done.stdout)["files"][0]["targets"]}
    for kernels in ours.values():
        for kernel in kernels:
            del kernel["occupancy"]  # no reference reads it from the file

    folder = os.path.join(work, "code-objects")
    os.mkdir(folder)
    cut = []  # (target, path) of every device code object, in file order
    for start, _, entries in bundles:
        for entry_id, offset, size in entries:
            kind, _, target = entry_id.partition("-")
            if kind == "host":
                continue
            path = os.path.join(folder, f"{len(cut)}.co")
            cut.append((target, path, start + offset, size))
    expected = {}
    for first in range(0, len(cut), READELF_BATCH):
        batch = cut[first:first + READELF_BATCH]
        for _, path, offset, size in batch:
            with open(path, "wb") as out:
                out.write(section[offset:offset + size])
        paths = [path for _, path, _, _ in batch]
        listed = subprocess.run([readelf, "--notes", "--syms", "-W"] + paths,
                                capture_output=True, timeout=TOOL_TIMEOUT)
        if listed.returncode != 0:
            suite.check("llvm-readelf reads the code objects", False,
                        listed.stderr[:300].decode(errors="replace"))
            return
        found = readelf_kernels(listed.stdout.decode(), paths)
        for target, path, _, _ in batch:
            expected.setdefault(target, []).extend(found.get(path, []))
            os.remove(path)
    os.rmdir(folder)
    count = sum(len(kernels) for kernels in expected.values())
    first_difference = next(
        ((target, a, b) for target in expected
         for a, b in zip(expected[target], ours.get(target, []))
         if a != b), None)
    suite.check(f"offbundle kernels: {count} kernels of {len(cut)} code "
                f"objects in {len(expected)} targets, every field as "
                "llvm-readelf --notes and --syms give it",
                count > 0 and ours == expected and
                all(k["code_bytes"] for ks in ours.values() for k in ks),
                f"targets {sorted(ours)} / {sorted(expected)}; first "
                f"difference {first_difference}")


def check_prune(suite, offbundle, readelf, library, work):
    """offbundle prune of the whole library to one target: the copy loads
    with dlopen against the stand-in HIP runtime, every one of its
    registrations holds exactly the host and gfx90a:xnack- entries the
    original registers, byte for byte; llvm-readelf -a reads it without a
    warning; and the file shrinks by at least 90% of what .hip_fatbin
    lost."""
    pruned = os.path.join(work, "pruned.so")
    done = subprocess.run([offbundle, "prune", library, "-k", "gfx90a:xnack-",
                           "-o", pruned], capture_output=True,
                          timeout=TOOL_TIMEOUT)
    suite.check("offbundle prune -k gfx90a:xnack-", done.returncode == 0,
                done.stderr.decode(errors="replace"))
    if done.returncode != 0:
        return
    listed = subprocess.run([readelf, "-a", pruned], capture_output=True,
                            timeout=TOOL_TIMEOUT)
    suite.check("pruned library: llvm-readelf -a without a warning",
                listed.returncode == 0 and not listed.stderr,
                listed.stderr[:300].decode(errors="replace"))
    removed = section_range(library, ".hip_fatbin")[1] - \
        section_range(pruned, ".hip_fatbin")[1]
    shrunk = os.path.getsize(library) - os.path.getsize(pruned)
    suite.check("pruned library: shrunk by at least 90% of what "
                ".hip_fatbin lost", removed > 0 and shrunk >= 0.9 * removed,
                f".hip_fatbin lost {removed} bytes, the file {shrunk}")

    runtime = stand_in_runtime.build(work)
    loader = os.path.join(runtime, "load")
    registered = {}
    for label, path in (("original", library), ("pruned", pruned)):
        status, errors, seen = stand_in_runtime.registrations(
            [loader, path], os.path.join(work, f"{label}.registry"), runtime,
            work)
        suite.check(f"{label} library loads with the stand-in runtime",
                    status == 0, errors[-300:].decode(errors="replace"))
        registered[label] = seen
    original = registered["original"]
    wanted = [{i: v for i, v in r.items()
               if i.startswith("host") or i.endswith("gfx90a:xnack-")}
              for r in original]
    suite.check("pruned library: every registration holds exactly host and "
                "gfx90a:xnack-, as the original's",
                len(original) == 111 and
                all(len(r) == 8 for r in original) and
                registered["pruned"] == wanted and
                all(len(r) == 2 for r in wanted),
                f"{len(registered['pruned'])} registrations, first "
                f"{registered['pruned'][:1]}, wanted {wanted[:1]}")
    os.remove(pruned)

    # compress: 111 compressed bundles on both cores, the same registrations.
    compressed = os.path.join(work, "compressed.so")
    done = subprocess.run([offbundle, "compress", library, "-o", compressed],
                          capture_output=True, timeout=TOOL_TIMEOUT)
    suite.check("offbundle compress", done.returncode == 0,
                done.stderr.decode(errors="replace"))
    if done.returncode != 0:
        return
    status, errors, seen = stand_in_runtime.registrations(
        [loader, compressed], os.path.join(work, "compressed.registry"),
        runtime, work)
    suite.check("compressed library: loads and registers what the original "
                "registers, byte for byte", status == 0 and seen == original,
                errors[-300:].decode(errors="replace"))
    suite.check("compressed library: smaller than a fifth of the original",
                os.path.getsize(compressed) * 5 < os.path.getsize(library),
                str(os.path.getsize(compressed)))
    os.remove(compressed)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--cache", required=True,
                        help="folder keeping the downloaded package")
    args = parser.parse_args()
    require_executables(args.ours, args.reference, args.offbundle,
                        shutil.which("gcc") or "gcc")
    if shutil.which("dpkg-deb") is None:
        skip_suite("no dpkg-deb to unpack the package with")

    deb = fetch_package(os.path.abspath(args.cache))
    print(f"package: {os.path.basename(deb)}", flush=True)
    # The unpacked library (1.3 GB) goes beside the cache, on the build
    # tree's disk, rather than into a /tmp that may be memory.
    # A run killed by its timeout leaves its folder behind: removed here.
    for stale in glob.glob(os.path.join(os.path.dirname(deb), "unpacked-*")):
        shutil.rmtree(stale, ignore_errors=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(deb),
                                     prefix="unpacked-") as work:
        unpacked = os.path.join(work, "root")
        subprocess.run(["dpkg-deb", "-x", deb, unpacked], check=True)
        libraries = [path for path in
                     glob.glob(os.path.join(unpacked, LIBRARY_GLOB))
                     if not os.path.islink(path)]
        if len(libraries) != 1:
            print(f"error: expected one library in the package, found "
                  f"{libraries}")
            return 1
        library = libraries[0]
        offset, size = section_range(library, ".hip_fatbin")
        with open(library, "rb") as elf:
            mapped = mmap.mmap(elf.fileno(), 0, access=mmap.ACCESS_READ)
        section = Section(mapped, offset, size)
        bundles = cut_bundles(section)
        print(f"{os.path.basename(library)}: {len(bundles)} bundles, "
              f"{sum(len(entries) for *_, entries in bundles)} entries",
              flush=True)
        # Absolute, since some runs happen in another folder.
        suite = Suite(os.path.abspath(args.ours),
                      os.path.abspath(args.reference), work)
        suite.check("bundles found", len(bundles) > 0)
        three_field = sum(1 for *_, entries in bundles for entry_id, *_ in
                          entries if len(entry_id.split("-")) == 4)
        # The point of the suite: without such IDs it tests nothing new.
        suite.check("three-field entry IDs present", three_field > 0)

        cut = os.path.join(work, "bundle")
        for index, (start, extent, entries) in enumerate(bundles):
            bundle = section[start:start + extent]
            with open(cut, "wb") as cut_file:
                cut_file.write(bundle)
            name = f"bundle {index} (section offset {start})"
            suite.compare_listing(name, cut, "o")
            suite.unbundle_entries(name, cut, bundle, entries)
            if index == 0:
                suite.compare_listing(name, cut, "bc")
                suite.check_json(name, cut, entries)
                # What docs/compatibility.md's differences table says LLVM
                # 22 does.
                host = [entry_id for entry_id, *_ in entries
                        if entry_id.startswith("host-")]
                refused = suite.run(
                    args.reference, "-unbundle", "-type=o",
                    f"-targets={WHOLE_LIBRARY_TARGET}", f"-input={cut}",
                    f"-output={os.path.join(work, 'reference.out')}")
                suite.check(
                    f"{name}: LLVM 22 refuses the host entry {host}",
                    refused.returncode == 1 and
                    b"invalid bundle id read from the bundle" in
                    refused.stderr, refused.stderr.decode(errors="replace"))
        os.remove(cut)

        check_device_archives(suite, section, bundles)
        check_prune(suite, os.path.abspath(args.offbundle),
                    os.path.join(os.path.dirname(args.reference),
                                 "llvm-readelf"), library, work)
        check_offbundle(suite, os.path.abspath(args.offbundle), library,
                        section, bundles, work)
        check_kernels(suite, os.path.abspath(args.offbundle),
                      os.path.join(os.path.dirname(args.reference),
                                   "llvm-readelf"), library, section,
                      bundles, work)

        expected = None
        for start, _, entries in bundles:
            served = [(offset, size) for entry_id, offset, size in entries
                      if serves_whole_library_target(entry_id)]
            if served:
                entry_offset, entry_size = served[0]
                expected = section[start + entry_offset:
                                   start + entry_offset + entry_size]
                break
        mapped.close()
        output = os.path.join(work, "whole.out")
        result = suite.run(suite.ours, "-unbundle", "-type=o",
                           f"-input={library}",
                           f"-targets={WHOLE_LIBRARY_TARGET}",
                           f"-output={output}")
        produced = successful_output(result, output)
        suite.check("whole library -unbundle "
                    f"-targets={WHOLE_LIBRARY_TARGET}",
                    expected is not None and produced == expected,
                    f"exit {result.returncode}, "
                    f"{result.stderr.decode(errors='replace').strip()}")
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
