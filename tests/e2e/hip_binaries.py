#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""GPU code inside real HIP executables, shared libraries and archives.

clang 22 builds HIP programs from several translation units (without a GPU
runtime: the runtime's entry points are a stub written here), with and
without --offload-compress, so that .hip_fatbin holds one bundle per
translation unit, padded by the linker; and objects from the new offloading
driver, whose .llvm.offloading sections hold offload binaries.

What the bundler must report is derived without it: each object's own
.hip_fatbin section (dumped with llvm-objcopy) is one translation unit's
bundle, which LLVM 22's bundler lists and unbundles; llvm-readelf gives
section offsets; compressed bundle headers are decoded here; images of
offload binaries come from LLVM 22's llvm-offload-binary and llvm-objdump.
Our -list, -list -format=json, -unbundle (with -targets and -output-dir)
and code object URIs must agree with those, and LLVM 22's bundler's own
behaviour on the same files is recorded as docs/compatibility.md describes
it.

The offbundle tool is checked on the same files: list (URIs, IDs and sizes
against LLVM 22's payloads), sizes (per-target sums against LLVM 22's
payloads and against list --json), extract (all entries and those of
several kinds of target, against LLVM 22's payloads), prune, compress and
decompress of each translation unit's object and bundle (entries against
LLVM 22's payloads, compressed bytes against LLVM 22's -compress, round
trips, pruned objects linked by clang 22 and run against a stand-in HIP
runtime that records what each translation unit registers, refusals that
leave the output alone; and of whole programs and shared libraries, PIE,
non-PIE, linked by lld and by GNU ld, plain, compressed and mixed: each
rewritten file reads without a warning in llvm-readelf -a, shrinks by what
its .hip_fatbin lost, and run or loaded with dlopen against the stand-in
runtime registers exactly the kept entries, byte for byte), verify (good
files, copies damaged in three ways,
and HIP fat binary wrappers of PIE, non-PIE and shared-library files
pointed outside .hip_fatbin, into a bundle, or given a wrong magic), and
its command line.

Usage: hip_binaries.py --ours PATH --reference-bin DIR --offbundle PATH
                       [--keep DIR]
"""

import argparse
import json
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (finish, require_executables,  # noqa: E402
                           skip_suite)
import stand_in_runtime  # noqa: E402
from bundle_bytes import binary_bundle, ccob  # noqa: E402

# The checked-in inputs (tests/data).
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                    "data")
ARCHES = ["--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+"]
COMMON = ["-nogpulib", "-nogpuinc", "-O1"]

DECLARATIONS = """\
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **,
                               unsigned long, hipStream_t);
"""

# Three translation units with different kernels, so every code object
# differs from the others.
SOURCES = {
    "main.hip": DECLARATIONS + """
__attribute__((global)) void add_one(int *p) { p[0] += 1; }
int main() { return 0; }
""",
    "scale.hip": DECLARATIONS + """
__attribute__((global)) void scale(float *p, float f) { p[0] *= f; }
int scale_host(int x) { return 2 * x; }
""",
    "shift.hip": DECLARATIONS + """
__attribute__((global)) void shift(double *p) { p[0] -= 3.0; p[1] += 1.0; }
__attribute__((global)) void clear(long *p) { p[0] = 0; }
int shift_host(int x) { return x - 3; }
""",
}

RUNTIME_STUB = """\
void **__hipRegisterFatBinary(const void *data) { (void)data; static void *h; return &h; }
""" + stand_in_runtime.RUNTIME_ENTRY_POINTS

CCOB_HEADER = {2: ("<4sHHIIQ", 24), 3: ("<4sHHQQQ", 32)}


def fnv1a(data):
    value = 0xcbf29ce484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001b3) & 0xffffffffffffffff
    return value


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, cwd, ok=True):
    done = subprocess.run(command, cwd=cwd, capture_output=True)
    if ok and done.returncode != 0:
        raise Failure(f"{' '.join(command)} failed ({done.returncode}):\n"
                      f"{done.stderr.decode(errors='replace')}")
    return done


def read(path, offset=0, size=None):
    with open(path, "rb") as handle:
        handle.seek(offset)
        return handle.read() if size is None else handle.read(size)


def percent_encode(path):
    keep = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
               b"0123456789/_.~-")
    return "".join(chr(c) if c in keep else f"%{c:02X}"
                   for c in path.encode())


def file_uri(path, offset, size):
    """The URI ROCm's runtime gives bytes of a file: the absolute path with
    links resolved (the runtime reads it from /proc), percent-encoded."""
    return (f"file://{percent_encode(os.path.realpath(path))}"
            f"#offset={offset}&size={size}")


def file_name_for(entry_id):
    return re.sub(r"[^A-Za-z0-9._+-]", "_", entry_id)


class Tools:
    def __init__(self, ours, bin_dir, folder, offbundle):
        self.ours = ours
        self.offbundle = offbundle
        self.bin = bin_dir
        self.folder = folder
        self.reference = os.path.join(bin_dir, "clang-offload-bundler")

    def tool(self, name):
        return os.path.join(self.bin, name)

    def bundler(self, arguments, reference=False, cwd=None):
        program = self.reference if reference else self.ours
        return run([program] + arguments, cwd or self.folder, ok=False)

    def section(self, path, name):
        """(offset, size) of a section, from llvm-readelf."""
        out = run([self.tool("llvm-readelf"), "-SW", path],
                  self.folder).stdout.decode()
        for line in out.splitlines():
            fields = line.replace("[ ", "[").split()
            if len(fields) > 5 and fields[1] == name:
                return int(fields[4], 16), int(fields[5], 16)
        return None

    def dump_section(self, path, name, out):
        run([self.tool("llvm-objcopy"), f"--dump-section={name}={out}", path,
             os.devnull], self.folder)
        return read(os.path.join(self.folder, out))


class TranslationUnit:
    """One object's bundle and what LLVM 22 makes of it."""

    def __init__(self, tools, obj, label):
        self.obj = obj
        self.bundle_file = f"{label}.fatbin"
        self.bundle = tools.dump_section(obj, ".hip_fatbin", self.bundle_file)
        listed = tools.bundler(["-list", "-type=o",
                                "-input=" + self.bundle_file], reference=True)
        check(listed.returncode == 0, f"LLVM 22 cannot list {obj}'s bundle")
        # LLVM lists in its own hash order; -list of the bundle alone is what
        # our -list of the linked file must print for this bundle.
        self.listed = listed.stdout.decode().splitlines()
        self.payloads = {}
        for entry_id in self.listed:
            out = f"{label}.{file_name_for(entry_id)}"
            done = tools.bundler(["-unbundle", "-type=o",
                                  "-input=" + self.bundle_file,
                                  "-targets=" + entry_id, "-output=" + out],
                                 reference=True)
            check(done.returncode == 0, f"LLVM 22 cannot unbundle {entry_id}")
            self.payloads[entry_id] = read(os.path.join(tools.folder, out))
        self.compressed = self.bundle[:4] == b"CCOB"
        self.header = None
        if self.compressed:
            version = struct.unpack_from("<H", self.bundle, 4)[0]
            layout, _ = CCOB_HEADER[version]
            magic, version, method, total, uncompressed, hashed = \
                struct.unpack_from(layout, self.bundle)
            self.header = {"version": version,
                           "method": {0: "zlib", 1: "zstd"}[method],
                           "total_size": total,
                           "uncompressed_size": uncompressed,
                           "hash": f"0x{hashed:016x}"}
            # The section holds the compressed bundle and nothing else.
            check(total == len(self.bundle),
                  f"{obj}: compressed bundle of {total} bytes in a section "
                  f"of {len(self.bundle)}")


class Suite:
    def __init__(self, tools):
        self.tools = tools
        self.passed = 0
        self.failed = 0

    def case(self, name, function, *arguments):
        start = time.monotonic()
        try:
            function(*arguments)
        except Failure as failure:
            self.failed += 1
            print(f"FAIL {name}: {failure}")
        else:
            self.passed += 1
            # The time shows where a slow run goes.
            print(f"ok   {name} ({time.monotonic() - start:.1f} s)")

    # --- checks on one linked file ------------------------------------------

    def check_list(self, path, units):
        done = self.tools.bundler(["-list", "-type=o", "-input=" + path])
        check(done.returncode == 0 and not done.stderr,
              f"-list failed: {done.stderr.decode()}")
        expected = [line for unit in units for line in unit.listed]
        check(done.stdout.decode().splitlines() == expected,
              f"-list printed {done.stdout.decode()!r}, expected {expected}")

    def json_listing(self, path):
        done = self.tools.bundler(["-list", "-type=o", "-format=json",
                                   "-input=" + path])
        check(done.returncode == 0, f"-format=json failed: {done.stderr}")
        return json.loads(done.stdout)

    def check_json(self, path, units):
        listing = self.json_listing(path)
        check(listing["input"] == path, "input name")
        bundles = listing["bundles"]
        check(len(bundles) == len(units),
              f"{len(bundles)} bundles listed for {len(units)} units")
        section = self.tools.section(path, ".hip_fatbin")
        check(section is not None, "no .hip_fatbin section")
        section_offset, section_size = section
        previous_end = section_offset
        for index, (bundle, unit) in enumerate(zip(bundles, units)):
            check(bundle["index"] == index, "index")
            check(bundle["member"] is None and
                  bundle["section"] == ".hip_fatbin", "placement")
            check(bundle["format"] == "binary", "format")
            offset, size = bundle["offset"], bundle["size"]
            # In the section, in order, at its alignment, without overlap.
            check(previous_end <= offset and
                  offset + size <= section_offset + section_size,
                  f"bundle {index} at {offset}+{size} outside the section")
            check((offset - section_offset) % 4096 == 0,
                  f"bundle {index} not 4096-aligned in the section")
            previous_end = offset + size
            check(read(path, offset, size) == unit.bundle,
                  f"bundle {index}'s bytes are not {unit.obj}'s bundle")
            check(bundle["uri"] == file_uri(path, offset, size),
                  f"bundle URI {bundle['uri']}")
            check(bundle["compression"] == unit.header,
                  f"compression {bundle['compression']} != {unit.header}")
            ids = [entry["id"] for entry in bundle["entries"]]
            check(sorted(ids) == sorted(unit.listed),
                  f"entries {ids} != {unit.listed}")
            for entry in bundle["entries"]:
                payload = unit.payloads[entry["id"]]
                check(entry["size"] == len(payload), "entry size")
                if unit.compressed:
                    check(entry["file_offset"] is None and
                          entry["uri"] is None, "compressed entry in file")
                else:
                    check(entry["file_offset"] == offset + entry["offset"],
                          "file_offset")
                    check(read(path, entry["file_offset"], entry["size"]) ==
                          payload, f"bytes of {entry['id']} in the file")
                    check(entry["uri"] == file_uri(path, entry["file_offset"],
                                                   entry["size"]),
                          f"entry URI {entry['uri']}")
                kind, rest = entry["id"].split("-", 1)
                check(entry["kind"] == kind, "kind")
                check(entry["image"] is None, "image")
                if kind == "host":
                    check(entry["target_id"] is None, "host target ID")
                    check(entry["triple"]["arch"] == "x86_64", "host arch")
                else:
                    check(entry["triple"] == {
                        "text": "amdgcn-amd-amdhsa-", "arch": "amdgcn",
                        "vendor": "amd", "os": "amdhsa", "environment": ""},
                        f"triple {entry['triple']}")
                    target = rest.split("--", 1)[1]
                    processor, *features = target.split(":")
                    check(entry["target_id"] == {
                        "text": target, "processor": processor,
                        "features": {f[:-1]: f[-1] == "+" for f in features}},
                        f"target ID {entry['target_id']}")
        return listing

    def check_output_dir(self, path, units, member_of=None):
        folder = os.path.join(self.tools.folder, "extracted-" +
                              os.path.basename(path).replace(".", "_"))
        shutil.rmtree(folder, ignore_errors=True)
        target = os.path.join(folder, "nested")
        done = self.tools.bundler(["-unbundle", "-type=o", "-input=" + path,
                                   "-output-dir=" + target])
        check(done.returncode == 0, f"-output-dir failed: {done.stderr}")
        # Expected names, from the documented rule and LLVM's own listing:
        # header order within each bundle, an index where a name repeats.
        listing = self.json_listing(path)
        names = []
        contents = []
        for bundle, unit in zip(listing["bundles"], units):
            prefix = ""
            if member_of is not None:
                prefix = file_name_for(bundle["member"]) + "-"
            for entry in bundle["entries"]:
                names.append(prefix + file_name_for(entry["id"]))
                contents.append(unit.payloads[entry["id"]])
        counts = {name: names.count(name) for name in names}
        seen = {}
        expected = []
        for name in names:
            if counts[name] > 1:
                seen[name] = seen.get(name, -1) + 1
                name += f".{seen[name]}"
            expected.append(name)
        printed = done.stdout.decode().splitlines()
        check(printed == [os.path.join(target, n) for n in expected],
              f"printed {printed}, expected {expected}")
        check(sorted(os.listdir(target)) == sorted(expected),
              f"folder holds {sorted(os.listdir(target))}")
        for name, payload in zip(expected, contents):
            check(read(os.path.join(target, name)) == payload,
                  f"{name} differs from LLVM 22's unbundled entry")

    def check_targets(self, path, units):
        # The first bundle holding a compatible entry, as for concatenated
        # compressed bundles.
        target = "hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+"
        out = os.path.join(self.tools.folder, "picked.co")
        done = self.tools.bundler(["-unbundle", "-type=o", "-input=" + path,
                                   "-targets=" + target, "-output=" + out])
        check(done.returncode == 0, f"-unbundle failed: {done.stderr}")
        check(read(out) == units[0].payloads[
            "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+"],
            "not the first unit's gfx90a:xnack+ code object")
        # LLVM 22 finds no bundle in the file: the documented difference.
        reference = self.tools.bundler(["-unbundle", "-type=o",
                                        "-input=" + path, "-targets=" + target,
                                        "-output=" + out + ".llvm"],
                                       reference=True)
        check(reference.returncode == 1 and
              b"Can't find bundles for" in reference.stderr,
              "LLVM 22 no longer fails here: update docs/compatibility.md")
        listed = self.tools.bundler(["-list", "-type=o", "-input=" + path],
                                    reference=True)
        check(listed.returncode == 0 and listed.stdout == b"",
              "LLVM 22 now lists the file: update docs/compatibility.md")

    def check_uris(self, path, units):
        listing = self.json_listing(path)
        # A copy under a name that needs percent-encoding.
        odd = os.path.join(self.tools.folder, "odd name #1%", "copy")
        os.makedirs(os.path.dirname(odd), exist_ok=True)
        shutil.copyfile(path, odd)
        for bundle, unit in zip(listing["bundles"], units):
            uri = (f"file://{percent_encode(odd)}#offset={hex(bundle['offset'])}"
                   f"&size={bundle['size']}")
            done = self.tools.bundler(["-list", "-type=o", "-input=" + uri])
            check(done.returncode == 0 and
                  done.stdout.decode().splitlines() == unit.listed,
                  f"-list of {uri}: {done.stdout} {done.stderr}")
            out = os.path.join(self.tools.folder, "from-uri.co")
            entry_id = "hipv4-amdgcn-amd-amdhsa--gfx906"
            done = self.tools.bundler(["-unbundle", "-type=o",
                                       "-input=" + uri, "-targets=" + entry_id,
                                       "-output=" + out])
            check(done.returncode == 0 and
                  read(out) == unit.payloads[entry_id],
                  f"-unbundle of {uri}: {done.stderr}")
            # The code object itself, named as ROCm names it.
            entry = next(e for e in bundle["entries"] if e["id"] == entry_id)
            if entry["uri"] is not None:
                code = os.path.join(self.tools.folder, "code-object-from-uri")
                done = self.tools.bundler(
                    ["-type=o", "-input=host.bin", "-input=" + entry["uri"],
                     "-targets=host-x86_64-unknown-linux-gnu,"
                     "hip-amdgcn-amd-amdhsa--gfx906", "-output=" + code])
                check(done.returncode == 0, f"bundling {entry['uri']}: "
                      f"{done.stderr}")
                back = self.tools.bundler(
                    ["-unbundle", "-type=o", "-input=" + code,
                     "-targets=hip-amdgcn-amd-amdhsa--gfx906",
                     "-output=" + code + ".back"], reference=True)
                check(back.returncode == 0 and
                      read(code + ".back") == unit.payloads[entry_id],
                      "a bundle made from an entry URI is not that entry")
        bad = f"file://{percent_encode(odd)}#offset={os.path.getsize(odd)}&size=1"
        done = self.tools.bundler(["-list", "-type=o", "-input=" + bad])
        check(done.returncode == 1 and done.stdout == b"" and
              len(done.stderr.splitlines()) == 1 and b"error:" in done.stderr,
              f"out-of-range URI: {done.stderr}")

    def check_uris_from_elsewhere(self, path, units):
        """The URIs of a listing made in one folder name the same bytes from
        any other: absolute, links resolved, escaped as ROCm escapes."""
        # A copy in a folder whose name needs every kind of escape, named
        # through a link, relative to a folder of its own.
        odd = os.path.join(self.tools.folder, "odd dir #2 %41 ?x=1&y \u00e9")
        os.makedirs(odd, exist_ok=True)
        copy = os.path.join(odd, "app copy")
        shutil.copyfile(path, copy)
        link = os.path.join(self.tools.folder, "link to odd dir")
        if not os.path.islink(link):
            os.symlink(odd, link)
        here = os.path.join(self.tools.folder, "elsewhere", "deeper")
        os.makedirs(here, exist_ok=True)
        typed = os.path.relpath(os.path.join(link, "app copy"), here)
        real = os.path.realpath(copy)
        check(os.path.realpath(os.path.join(here, typed)) == real and
              os.path.abspath(os.path.join(here, typed)) != real,
              "the typed name does not go through the link")
        done = self.tools.bundler(["-list", "-type=o", "-format=json",
                                   "-input=" + typed], cwd=here)
        check(done.returncode == 0, f"-format=json failed: {done.stderr}")
        listing = json.loads(done.stdout)
        check(listing["input"] == typed, f"input {listing['input']}")
        check(len(listing["bundles"]) == len(units), "bundle count")

        def check_uri(uri, offset, size, what):
            check(uri is not None, f"{what}: no URI")
            check(uri.startswith("file:///"),
                  f"{what}: {uri} is not an absolute file:// URI")
            encoded, _, range_text = uri[len("file://"):].partition("#")
            # Decoded independently of the tool's escaping.
            check(urllib.parse.unquote_to_bytes(encoded) == os.fsencode(real),
                  f"{what}: {uri} does not decode to {real!r}")
            check(encoded == percent_encode(real),
                  f"{what}: {uri} is not escaped as ROCm escapes")
            check(range_text == f"offset={offset}&size={size}",
                  f"{what}: range {range_text}")

        root = "/"
        for index, (bundle, unit) in enumerate(zip(listing["bundles"], units)):
            uri = bundle["uri"]
            check_uri(uri, bundle["offset"], bundle["size"], f"bundle {index}")
            check(read(real, bundle["offset"], bundle["size"]) == unit.bundle,
                  f"bundle {index}: the URI's bytes are not the bundle")
            # Read back from another folder: the same entries, and listed
            # again there, the same URIs.
            done = self.tools.bundler(["-list", "-type=o", "-input=" + uri],
                                      cwd=root)
            check(done.returncode == 0 and
                  done.stdout.decode().splitlines() == unit.listed,
                  f"-list of {uri} from /: {done.stdout} {done.stderr}")
            done = self.tools.bundler(["-list", "-type=o", "-format=json",
                                       "-input=" + uri], cwd=root)
            check(done.returncode == 0, f"-format=json of {uri} from /: "
                  f"{done.stderr}")
            again = json.loads(done.stdout)["bundles"]
            check(len(again) == 1 and again[0]["uri"] == uri and
                  [e["uri"] for e in again[0]["entries"]] ==
                  [e["uri"] for e in bundle["entries"]],
                  f"{uri} listed from / gives other URIs")
            for entry in bundle["entries"]:
                entry_id = entry["id"]
                out = os.path.join(self.tools.folder, "from-elsewhere.co")
                done = self.tools.bundler(
                    ["-unbundle", "-type=o", "-input=" + uri,
                      "-targets=" + entry_id,
                     "-output=" + out], cwd=root)
                check(done.returncode == 0 and
                      read(out) == unit.payloads[entry_id],
                      f"-unbundle {entry_id} of {uri} from /: {done.stderr}")
                if unit.compressed:
                    check(entry["uri"] is None, "compressed entry with a URI")
                    continue
                check_uri(entry["uri"], entry["file_offset"], entry["size"],
                          entry_id)
                if not entry_id.startswith("hipv4-"):
                    continue
                # The code object itself, bundled from /, is the entry.
                target = "hip-" + entry_id[len("hipv4-"):]
                code = os.path.join(self.tools.folder, "entry-from-elsewhere")
                done = self.tools.bundler(
                    ["-type=o",
                     "-input=" + os.path.join(self.tools.folder, "host.bin"),
                     "-input=" + entry["uri"],
                     "-targets=host-x86_64-unknown-linux-gnu," + target,
                     "-output=" + code], cwd=root)
                check(done.returncode == 0,
                      f"bundling {entry['uri']} from /: {done.stderr}")
                back = self.tools.bundler(
                    ["-unbundle", "-type=o", "-input=" + code,
                     "-targets=" + target, "-output=" + code + ".back"],
                    reference=True)
                check(back.returncode == 0 and
                      read(code + ".back") == unit.payloads[entry_id],
                      f"{entry['uri']} read from / is not {entry_id}")

    def check_failures(self, path):
        """Damaged data in .hip_fatbin: one error line, nothing written."""
        section_offset, _ = self.tools.section(path, ".hip_fatbin")
        listing = self.json_listing(path)
        second = listing["bundles"][1]["offset"]
        data = bytearray(read(path))
        data[second:second + 4] = b"JUNK"
        damaged = os.path.join(self.tools.folder, "damaged")
        with open(damaged, "wb") as handle:
            handle.write(data)
        folder = os.path.join(self.tools.folder, "never-created")
        for arguments in (["-list", "-type=o"],
                          ["-list", "-type=o", "-format=json"],
                          ["-unbundle", "-type=o", "-output-dir=" + folder]):
            done = self.tools.bundler(arguments + ["-input=" + damaged])
            check(done.returncode == 1 and done.stdout == b"" and
                  len(done.stderr.splitlines()) == 1 and
                  b"error:" in done.stderr and b".hip_fatbin" in done.stderr,
                  f"{arguments}: {done.returncode} {done.stderr}")
        check(not os.path.exists(folder), "a failed -output-dir left a folder")
        check(section_offset <= second, "bundle before its section")

    # --- the offbundle tool --------------------------------------------------

    def offbundle(self, arguments):
        return run([self.tools.offbundle] + arguments, self.tools.folder,
                   ok=False)

    def check_toolkit_list(self, path, units):
        """offbundle list: a line per entry, URI, ID and size, bundle by
        bundle in file order; a URI reads back the payload LLVM 22
        unbundled, and entries of compressed bundles have none. list
        --json says the same."""
        done = self.offbundle(["list", path])
        check(done.returncode == 0 and not done.stderr,
              f"list failed: {done.stderr.decode()}")
        lines = [line.split("\t") for line in done.stdout.decode().splitlines()]
        listed = json.loads(self.offbundle(["list", "--json", path]).stdout)
        entries = listed["files"][0]["entries"]
        check(listed["files"][0]["file"] == path, "file name")
        check(len(lines) == len(entries) ==
              sum(len(unit.listed) for unit in units),
              f"{len(lines)} lines, {len(entries)} JSON entries")
        position = 0
        for index, unit in enumerate(units):
            mine = lines[position:position + len(unit.listed)]
            as_json = entries[position:position + len(unit.listed)]
            position += len(unit.listed)
            check(sorted(uri_id[1] for uri_id in mine) == sorted(unit.listed),
                  f"bundle {index}: IDs {mine} != {unit.listed}")
            for (uri, entry_id, size), entry in zip(mine, as_json):
                payload = unit.payloads[entry_id]
                check(int(size) == len(payload), f"size of {entry_id}")
                check(entry["id"] == entry_id and entry["size"] == len(payload)
                      and entry["bundle"] == index and
                      entry["compressed"] == unit.compressed,
                      f"JSON entry {entry}")
                check((entry["uri"] or "-") == uri, "JSON URI")
                if unit.compressed:
                    check(uri == "-", f"compressed entry with URI {uri}")
                    continue
                match = re.fullmatch(r"file://(.*)#offset=(\d+)&size=(\d+)",
                                     uri)
                check(match is not None and
                      urllib.parse.unquote(match.group(1)) ==
                      os.path.realpath(path), f"URI {uri}")
                check(read(path, int(match.group(2)), int(match.group(3))) ==
                      payload, f"URI {uri} does not read {entry_id}")

    def check_toolkit_sizes(self, path, units):
        """offbundle sizes: per target, the entries and payload bytes LLVM
        22 unbundled, equal to the sums of list --json's entry sizes; the
        bundle totals; shares of the file size."""
        done = self.offbundle(["sizes", "--json", path])
        check(done.returncode == 0 and not done.stderr,
              f"sizes failed: {done.stderr.decode()}")
        report = json.loads(done.stdout)
        entries = json.loads(self.offbundle(
            ["list", "--json", path]).stdout)["files"][0]["entries"]
        expected = {}
        for unit in units:
            for entry_id in unit.listed:
                rest = entry_id.split("-", 1)[1]
                target = rest[:-1] if rest.endswith("-") else rest
                count, size = expected.get(target, (0, 0))
                expected[target] = (count + 1,
                                    size + len(unit.payloads[entry_id]))
        from_list = {}
        for entry in entries:
            count, size = from_list.get(entry["target"], (0, 0))
            from_list[entry["target"]] = (count + 1, size + entry["size"])
        file_size = os.path.getsize(path)
        for summary in (report, report["files"][0]):
            targets = {t["target"]: (t["entries"], t["bytes"])
                       for t in summary["targets"]}
            check(targets == expected == from_list,
                  f"targets {targets}, LLVM 22 {expected}, list {from_list}")
            check(summary["file_size"] == file_size, "file size")
            for target in summary["targets"]:
                check(abs(target["share"] - target["file_bytes"] / file_size)
                      <= 0.00005, f"share of {target}")
            for kind, compressed in (("compressed", True), ("plain", False)):
                mine = [u for u in units if u.compressed == compressed]
                check(summary[kind] == {
                    "bundles": len(mine),
                    "file_bytes": sum(len(u.bundle) for u in mine),
                    "bytes": sum(len(p) for u in mine
                                 for p in u.payloads.values())},
                    f"{kind} totals {summary[kind]}")
            plain_bytes = sum(t["file_bytes"] for t in summary["targets"])
            check(plain_bytes <= sum(len(u.bundle) for u in units),
                  "targets take more room than the bundles")
        text = self.offbundle(["sizes", path]).stdout.decode()
        for target, (count, size) in expected.items():
            check(re.search(rf"^{re.escape(target)} +{count} +{size} ", text,
                            re.M) is not None, f"text has no row for {target}")

    def check_toolkit_verify(self, good, plain_bundle, compressed_path):
        """offbundle verify: an ok line per good file; a line per damaged
        one (a byte flipped in a compressed stream, a bundle cut short, a
        hash byte flipped) on standard error, and exit status 1."""
        done = self.offbundle(["verify"] + good)
        check(done.returncode == 0 and not done.stderr and
              [line.split(":")[0] for line in
               done.stdout.decode().splitlines()] == good,
              f"verify of good files: {done.returncode} {done.stderr}")
        listing = self.json_listing(compressed_path)
        bundle = listing["bundles"][1]
        data = bytearray(read(compressed_path))
        data[bundle["offset"] + 32 + (bundle["size"] - 32) // 2] ^= 0x10
        damaged = {"flipped-stream": bytes(data)}
        bundle_bytes = read(plain_bundle)
        damaged["cut-bundle"] = bundle_bytes[:len(bundle_bytes) - 100]
        data = bytearray(read(compressed_path))
        data[bundle["offset"] + 24] ^= 0x01
        damaged["flipped-hash"] = bytes(data)
        for name, content in damaged.items():
            with open(os.path.join(self.tools.folder, name), "wb") as handle:
                handle.write(content)
        mixed = [good[0], "flipped-stream", "cut-bundle", good[-1],
                 "flipped-hash"]
        done = self.offbundle(["verify"] + mixed)
        errors = done.stderr.decode().splitlines()
        check(done.returncode == 1 and len(errors) == 3 and
              all(line.startswith(f"offbundle: error: '{name}'")
                  for line, name in zip(errors, list(damaged))),
              f"verify of damaged files: {done.returncode} {errors}")
        check([line.split(":")[0] for line in
               done.stdout.decode().splitlines()] == [good[0], good[-1]],
              f"ok lines {done.stdout}")
        # list and sizes read compressed bundles' headers only, which the
        # damaged hash leaves as they were: they describe the file as they
        # describe the sound one, and only verify finds the damage.
        for command in (["list"], ["sizes"]):
            sound = self.offbundle(command + [compressed_path])
            flipped = self.offbundle(command + ["flipped-hash"])
            check(sound.returncode == 0 and flipped.returncode == 0 and
                  not flipped.stderr and
                  flipped.stdout.decode().replace("flipped-hash",
                                                  compressed_path) ==
                  sound.stdout.decode(),
                  f"{command[0]} of a damaged hash: {flipped.returncode} "
                  f"{flipped.stderr[:300]}")

    def check_toolkit_extract(self, path, units, member_of=False):
        """offbundle extract: every entry, or those of the targets asked
        for (a bare processor takes every feature variant), each file
        holding the payload LLVM 22 unbundled, named as -output-dir names
        it; a target the file lacks is an error that creates nothing."""
        def expected_files(selected):
            names = []
            for unit in units:
                prefix = (os.path.basename(unit.obj) + "-") if member_of \
                    else ""
                for entry_id in unit.listed:
                    if selected(entry_id):
                        names.append((prefix + file_name_for(entry_id),
                                      unit.payloads[entry_id]))
            counts = {}
            for name, _ in names:
                counts[name] = counts.get(name, 0) + 1
            numbered, seen = [], {}
            for name, payload in names:
                if counts[name] > 1:
                    seen[name] = seen.get(name, -1) + 1
                    name = f"{name}.{seen[name]}"
                numbered.append((name, payload))
            return dict(numbered)

        cases = [([], lambda entry_id: True),
                 (["-t", "gfx90a"], lambda entry_id: "gfx90a" in entry_id),
                 (["--target=host"], lambda entry_id:
                  entry_id.startswith("host-")),
                 (["-t", "gfx906,gfx90a:xnack+"],
                  lambda entry_id: not entry_id.startswith("host-")),
                 (["-t", "hipv4-amdgcn-amd-amdhsa--gfx906"],
                  lambda entry_id: entry_id.endswith("gfx906"))]
        for index, (arguments, selected) in enumerate(cases):
            folder = os.path.join(
                self.tools.folder,
                f"toolkit-extract-{file_name_for(path)}-{index}", "nested")
            done = self.offbundle(["extract", path, "-o", folder] + arguments)
            check(done.returncode == 0 and not done.stderr,
                  f"extract {arguments}: {done.stderr.decode()}")
            expected = expected_files(selected)
            found = {name: read(os.path.join(folder, name))
                     for name in os.listdir(folder)}
            check(sorted(found) == sorted(expected),
                  f"extract {arguments} wrote {sorted(found)}, expected "
                  f"{sorted(expected)}")
            check(found == expected, f"extract {arguments}: contents differ")
            check(sorted(done.stdout.decode().splitlines()) ==
                  sorted(os.path.join(folder, name) for name in expected),
                  "printed paths")
        for arguments in (["-t", "gfx90a:xnack-"], ["-t", "gfx1100"],
                          ["-t", "gfx90a:"], ["-t", "hip-bad"]):
            folder = os.path.join(self.tools.folder, "toolkit-never")
            done = self.offbundle(["extract", path, "-o", folder] + arguments)
            check(done.returncode == 1 and not done.stdout and
                  len(done.stderr.splitlines()) == 1 and
                  done.stderr.startswith(b"offbundle: error: ") and
                  not os.path.exists(folder),
                  f"extract {arguments}: {done.returncode} {done.stderr}")

    def bundle_of(self, path, name):
        """The .hip_fatbin of an object, or the whole file of a bundle."""
        if read(path, 0, 4) == b"\x7fELF":
            return self.tools.dump_section(path, ".hip_fatbin", name)
        return read(os.path.join(self.tools.folder, path))

    def llvm_entries(self, bundle_bytes, name):
        """{entry ID: payload} of a bundle, as LLVM 22's bundler lists and
        unbundles it."""
        path = os.path.join(self.tools.folder, name)
        with open(path, "wb") as handle:
            handle.write(bundle_bytes)
        listed = self.tools.bundler(["-list", "-type=o", "-input=" + path],
                                    reference=True)
        check(listed.returncode == 0, f"LLVM 22 cannot list {name}: "
              f"{listed.stderr.decode()}")
        entries = {}
        for entry_id in listed.stdout.decode().splitlines():
            out = f"{path}.{file_name_for(entry_id)}"
            done = self.tools.bundler(["-unbundle", "-type=o", "-input=" + path,
                                       "-targets=" + entry_id,
                                       "-output=" + out], reference=True)
            check(done.returncode == 0, f"LLVM 22 cannot unbundle {entry_id}")
            entries[entry_id] = read(out)
        return entries

    def llvm_compressed(self, unit):
        """What LLVM 22's -compress writes for the unit's plain bundle: its
        entries bundled again in file order with clang's -bundle-align=4096
        (checked to give the same plain bundle first)."""
        ids = [entry["id"] for entry in json.loads(self.offbundle(
            ["list", "--json", unit.bundle_file]).stdout)["files"][0]["entries"]]
        inputs = []
        for index, entry_id in enumerate(ids):
            name = os.path.join(self.tools.folder, f"rebundle-{index}")
            with open(name, "wb") as handle:
                handle.write(unit.payloads[entry_id])
            inputs.append("-input=" + name)
        common = ["-type=o", "-bundle-align=4096", "-targets=" + ",".join(ids)]
        plain = os.path.join(self.tools.folder, "rebundle.hipfb")
        packed = os.path.join(self.tools.folder, "rebundle.ccob")
        for extra, out in (([], plain), (["-compress"], packed)):
            done = self.tools.bundler(common + inputs + extra +
                                      ["-output=" + out], reference=True)
            check(done.returncode == 0, f"LLVM 22 rebundling: {done.stderr}")
        check(read(plain) == unit.bundle,
              "LLVM 22 does not rebuild the bundle from its entries")
        return read(packed)

    def check_as_objcopy(self, original, rewritten, bundle):
        """A rewritten object is what llvm-objcopy --update-section writes
        for its new .hip_fatbin."""
        name = os.path.join(self.tools.folder, f"{rewritten}.section")
        with open(name, "wb") as handle:
            handle.write(bundle)
        reference = f"{rewritten}.objcopy"
        run([self.tools.tool("llvm-objcopy"),
             f"--update-section=.hip_fatbin={name}", original, reference],
            self.tools.folder)
        check(read(os.path.join(self.tools.folder, rewritten)) ==
              read(os.path.join(self.tools.folder, reference)),
              f"{rewritten} differs from llvm-objcopy --update-section")

    def check_toolkit_rewrite(self, unit):
        """prune, compress and decompress of one translation unit's object
        and of its bundle alone: the entries kept are LLVM 22's payloads,
        compressed bundles are LLVM 22's -compress bytes, round trips give
        the bundle back, rewritten objects are llvm-objcopy
        --update-section's bytes, and the section keeps its alignment."""
        kept = [i for i in unit.listed if "gfx906" in i or i.startswith("host")]
        mask = os.umask(0)
        os.umask(mask)
        for source in (unit.obj, unit.bundle_file):
            out = f"pruned-{source}"
            # Written over a file of another mode, the output keeps the
            # input's.
            with open(os.path.join(self.tools.folder, out), "w") as handle:
                handle.write("an older file")
            os.chmod(os.path.join(self.tools.folder, out), 0o600)
            done = self.offbundle(["prune", source, "--keep", "gfx906", "-o",
                                   out])
            check(done.returncode == 0, f"prune {source}: {done.stderr}")
            modes = [os.stat(os.path.join(self.tools.folder, name)).st_mode &
                     0o777 for name in (source, out)]
            check(modes[1] == modes[0] & ~mask,
                  f"prune -o over a file: mode {modes[1]:o}, input's "
                  f"{modes[0]:o}")
            bundle = self.bundle_of(out, f"pruned-{source}.bundle")
            check((bundle[:4] == b"CCOB") == unit.compressed,
                  "compression changed")
            if unit.compressed:
                check(bundle[4:8] == unit.bundle[4:8],
                      "format version or method changed")
            if source == unit.obj:
                self.check_as_objcopy(source, out, bundle)
            entries = self.llvm_entries(bundle, f"pruned-{source}.check")
            check(sorted(entries) == sorted(kept), f"kept {sorted(entries)}")
            check(all(entries[i] == unit.payloads[i] for i in kept),
                  "kept payloads differ")
            if not unit.compressed:
                removed = sum(len(unit.payloads[i]) for i in unit.listed
                              if i not in kept)
                shrunk = os.path.getsize(source) - os.path.getsize(out)
                check(shrunk >= 0.9 * removed,
                      f"shrank by {shrunk} for {removed} bytes removed")
        forward = "compress" if not unit.compressed else "decompress"
        backward = "decompress" if not unit.compressed else "compress"
        for source in (unit.obj, unit.bundle_file):
            there, back = f"{forward}-{source}", f"{backward}-{source}"
            for command, src, dst in ((forward, source, there),
                                      (backward, there, back)):
                done = self.offbundle([command, src, "-o", dst])
                check(done.returncode == 0, f"{command} {src}: {done.stderr}")
            turned = self.bundle_of(there, f"{there}.bundle")
            check((turned[:4] == b"CCOB") != unit.compressed,
                  f"{forward} of {source}")
            entries = self.llvm_entries(turned, f"{there}.check")
            check(entries == unit.payloads, f"{forward}: entries differ")
            if not unit.compressed:
                check(turned == self.llvm_compressed(unit),
                      "not LLVM 22's -compress bytes")
                check(self.bundle_of(back, f"{back}.bundle") == unit.bundle,
                      "compress then decompress is not the bundle")
            if read(there, 0, 4) == b"\x7fELF":
                self.check_as_objcopy(source, there, turned)
                layout = run([self.tools.tool("llvm-readelf"), "-SW", there],
                             self.tools.folder)
                check(not layout.stderr and re.search(
                    rb"\.hip_fatbin +PROGBITS +0+ [0-9a-f]*000 .* A +0 +0 +4096",
                    layout.stdout), "section alignment or warnings")

    def check_toolkit_rewritten_link(self, objects, label):
        """Objects pruned to gfx906 link with clang 22 into a program whose
        bundles hold only host and gfx906 entries; compressed ones link too."""
        clang = self.tools.tool("clang++")
        pruned = []
        for obj in objects:
            out = f"link-pruned-{obj}"
            done = self.offbundle(["prune", obj, "-k", "gfx906", "-o", out])
            check(done.returncode == 0, f"prune {obj}: {done.stderr}")
            pruned.append(out)
        program = f"app-pruned-{label}"
        run([clang] + pruned + ["-o", program, "-fuse-ld=lld", "-L.",
                                "-lamdhip64"], self.tools.folder)
        listed = json.loads(self.offbundle(["list", "--json", program]).stdout)
        entries = listed["files"][0]["entries"]
        check(len({e["bundle"] for e in entries}) == len(objects),
              "bundles in the program")
        check(all("gfx906" in e["id"] or e["id"].startswith("host")
                  for e in entries) and len(entries) == 2 * len(objects),
              f"entries {[e['id'] for e in entries]}")

    def check_toolkit_archive_rewrite(self, archive, objects, command,
                                      extra):
        """An archive rewritten is what llvm-ar rcD writes for its members
        rewritten one by one (each checked against llvm-objcopy above)."""
        folder = os.path.join(self.tools.folder, f"members-{command}-{archive}")
        os.makedirs(folder, exist_ok=True)
        for obj in objects:
            done = self.offbundle([command, obj, "-o",
                                   os.path.join(folder, obj)] + extra)
            check(done.returncode == 0, f"{command} {obj}: {done.stderr}")
        out = f"{command}-{archive}"
        done = self.offbundle([command, archive, "-o", out] + extra)
        check(done.returncode == 0, f"{command} {archive}: {done.stderr}")
        reference = os.path.join(folder, "reference.a")
        run([self.tools.tool("llvm-ar"), "rcD", reference] + objects, folder)
        check(read(os.path.join(self.tools.folder, out)) == read(reference),
              f"{command} of {archive} is not llvm-ar's archive of its "
              "members rewritten")

    def registering_runtime(self):
        """The folder holding the stand-in libamdhip64.so.5 and loader."""
        return stand_in_runtime.build(self.tools.folder)

    def launcher(self, program):
        """The command that runs a program, or loads a shared library with
        the stand-in runtime's loader."""
        where = os.path.join(self.tools.folder, program)
        if program.endswith(".so"):
            return [os.path.join(self.registering_runtime(), "load"), where]
        return [where]

    def registrations(self, command, label):
        """What the stand-in runtime records while `command` runs (see
        stand_in_runtime.registrations); the command must succeed and every
        registration be readable."""
        status, errors, seen = stand_in_runtime.registrations(
            command, os.path.join(self.tools.folder, f"{label}.registry"),
            self.registering_runtime(), self.tools.folder)
        check(status == 0, f"{command} exited {status}: {errors[-300:]}")
        for number, registered in enumerate(seen):
            check("error:" not in registered,
                  f"registration {number}: {registered}")
        return seen

    def check_toolkit_registration(self, objects, units, label):
        """Programs linked from objects pruned to gfx906 run with the
        stand-in runtime, which sees one registration per translation unit,
        each with exactly the host and gfx906 entries, byte for byte the
        payloads LLVM 22 unbundles from the original objects."""
        folder = self.tools.folder
        runtime = self.registering_runtime()
        clang = self.tools.tool("clang++")
        for variant, rewrite in (("original", None),
                                 ("pruned", ["prune", "-k", "gfx906"])):
            objs = []
            for obj in objects:
                if rewrite:
                    out = f"registered-{variant}-{obj}"
                    done = self.offbundle([rewrite[0], obj] + rewrite[1:] +
                                          ["-o", out])
                    check(done.returncode == 0, f"{rewrite} {obj}")
                    objs.append(out)
                else:
                    objs.append(obj)
            program = f"registered-{variant}-{label}"
            run([clang] + objs + ["-o", program, "-fuse-ld=lld",
                                  "-L" + runtime, "-lamdhip64",
                                  "-Wl,-rpath," + runtime], folder)
            seen = self.registrations([os.path.join(folder, program)],
                                      program)
            check(len(seen) == len(objects), f"{len(seen)} registrations "
                  f"for {len(objects)} units: {seen}")
            # Registration order follows the constructors' order, which the
            # linker decides: match each registration to its unit.
            wanted = []
            for unit in units:
                ids = [i for i in unit.listed
                       if variant == "original" or "gfx906" in i or
                       i.startswith("host")]
                wanted.append({i: (len(unit.payloads[i]),
                                   f"{fnv1a(unit.payloads[i]):016x}")
                               for i in ids})
            for registered in seen:
                check(registered in wanted, f"registration {registered} is "
                      "no unit's entries")
                wanted.remove(registered)

    def check_toolkit_linked_rewrite(self, path, command, targets):
        """A program or library rewritten by prune (to each target alone),
        compress or decompress: its .hip_fatbin compacted and the file
        shrunk by what the bundles lost (give or take page padding and the
        moved program header table), llvm-readelf -a reads it without a
        warning, verify passes, and run (or loaded with dlopen) against the
        stand-in runtime every registration holds exactly the entries it
        held before that the command keeps, byte for byte."""
        folder = self.tools.folder
        launch = self.launcher
        before = self.registrations(launch(path), f"{path}-before")
        check(before, f"{path}: no registrations")
        for target in targets or [None]:
            out = f"{command}-{target or 'all'}-{path}".replace(":", "_")
            arguments = [command, path, "-o", out]
            if target:
                arguments += ["-k", target]
            done = self.offbundle(arguments)
            check(done.returncode == 0 and not done.stderr,
                  f"{arguments}: {done.stderr}")
            check(os.access(os.path.join(folder, out), os.X_OK),
                  f"{out} is not executable")
            listed = run([self.tools.tool("llvm-readelf"), "-a", out],
                         folder, ok=False)
            check(listed.returncode == 0 and not listed.stderr,
                  f"llvm-readelf -a {out}: {listed.stderr[:300]}")
            verified = self.offbundle(["verify", out])
            check(verified.returncode == 0, f"verify {out}: "
                  f"{verified.stderr}")
            old_data, new_data = read(path), read(out)
            old_size = self.elf_sections(old_data)[".hip_fatbin"][2]
            new_size = self.elf_sections(new_data)[".hip_fatbin"][2]
            removed = old_size - new_size
            shrunk = len(old_data) - len(new_data)
            if removed >= 0:
                # Whole pages move; the rest of what was removed stays as
                # padding, beside the program header table when it moved.
                check(shrunk % 4096 == 0 and removed - 3 * 4096 < shrunk <=
                      removed, f"{out}: .hip_fatbin lost {removed} bytes, "
                      f"the file {shrunk}")
            else:
                # The section moved to the end of the file; its old place
                # is given back in whole pages (none when under two).
                excess = (-shrunk) - (-removed)
                check(0 <= excess < 3 * 4096 + min(old_size, 2 * 4096),
                      f"{out}: .hip_fatbin grew by {-removed} bytes, the "
                      f"file by {-shrunk}")
            after = self.registrations(launch(out), out)
            if command == "prune":
                wanted = [{i: v for i, v in r.items() if i.startswith("host")
                           or i.endswith(target) or f"{target}:" in i}
                          for r in before]
            else:
                wanted = before
            check(after == wanted, f"{out}: registrations {after}, "
                  f"wanted {wanted}")

    def check_toolkit_new_driver_objects(self, objects, link):
        """Objects of the new offloading driver pruned to one target keep
        only that target's offload binaries in .llvm.offloading, byte for
        byte; compress and decompress leave them as they are; and
        clang-linker-wrapper links the pruned objects into a program that
        registers the host entry and that target's, byte for byte the
        original program's."""
        folder = self.tools.folder
        clang = self.tools.tool("clang++")
        for target in ("gfx906", "gfx90a:xnack+"):
            pruned = []
            for obj in objects:
                out = f"pruned-{target.replace(':', '_')}-{obj}"
                done = self.offbundle(["prune", obj, "-k", target, "-o", out])
                check(done.returncode == 0, f"prune {obj}: {done.stderr}")
                before = json.loads(self.offbundle(["list", "--json", obj])
                                    .stdout)["files"][0]["entries"]
                after = json.loads(self.offbundle(["list", "--json", out])
                                   .stdout)["files"][0]["entries"]
                wanted = [e for e in before if e["id"].endswith(target)]
                check([(e["id"], e["size"]) for e in after] ==
                      [(e["id"], e["size"]) for e in wanted] and wanted,
                      f"{out}: {after}")
                for old, new in zip(wanted, after):
                    check(read(obj, int(old["uri"].split("offset=")[1]
                                        .split("&")[0]), old["size"]) ==
                          read(out, int(new["uri"].split("offset=")[1]
                                        .split("&")[0]), new["size"]),
                          f"{out}: {new['id']} differs")
                pruned.append(out)
            program = f"hip-new-driver-{target.replace(':', '_')}"
            run([clang] + pruned + ["-o", program] + link, folder)
            seen = self.registrations([os.path.join(folder, program)],
                                      program)
            original = self.registrations(
                [os.path.join(folder, "hip-new-driver")], "hip-new-driver")
            wanted = [{i: v for i, v in r.items()
                       if i.startswith("host") or i.endswith(target)}
                      for r in original]
            check(seen == wanted and all(len(r) == 2 for r in seen),
                  f"{program}: registrations {seen}, wanted {wanted}")
        # No bundle to compress or decompress: the output is the input,
        # and the summary says why.
        for command in ("compress", "decompress"):
            same = self.offbundle([command, objects[0], "-o", "nd-same.o"])
            check(same.returncode == 0 and
                  read("nd-same.o") == read(objects[0]) and
                  b"unchanged: it holds offload binaries" in same.stdout,
                  f"{command}: {same.stdout} {same.stderr}")

    def check_toolkit_linked_round_trip(self, path):
        """compress, decompress and compress again: each step loads and
        registers what the original registers, and the second compress
        gives bundles identical to the first's."""
        folder = self.tools.folder
        launch = self.launcher
        before = self.registrations(launch(path), f"{path}-trip")
        current = path
        sections = []
        for step, command in enumerate(("compress", "decompress",
                                        "compress")):
            out = f"trip{step}-{path}"
            done = self.offbundle([command, current, "-o", out])
            check(done.returncode == 0, f"{command} {current}: "
                  f"{done.stderr}")
            listed = run([self.tools.tool("llvm-readelf"), "-a", out],
                         folder, ok=False)
            check(listed.returncode == 0 and not listed.stderr,
                  f"llvm-readelf -a {out}: {listed.stderr[:300]}")
            check(self.registrations(launch(out), out) == before,
                  f"{out}: registrations differ from {path}'s")
            address, offset, size = self.elf_sections(read(out))[
                ".hip_fatbin"]
            sections.append(read(out, offset, size))
            current = out
        check(sections[0] == sections[2], "compressing twice gave different "
              "bundles")

    def write_file(self, name, data):
        path = os.path.join(self.tools.folder, name)
        with open(path, "wb") as handle:
            handle.write(data)
        return path

    def check_toolkit_rewrite_failures(self, exe, obj):
        """A refused rewrite leaves the output as it was: a target the
        program or object lacks, no target, a file that is no bundle, a
        damaged bundle to compress or decompress, a compressed bundle holding
        no bundle."""
        out = os.path.join(self.tools.folder, "untouched.o")
        host = b"host-x86_64-unknown-linux-gnu"
        device = b"hipv4-amdgcn-amd-amdhsa--gfx90a"
        good_bytes = binary_bundle([host, device], [b"A", b"BBBBBB"])
        # Cut short, the last entry runs past the end of the bundle.
        damaged_bytes = good_bytes[:-5]
        damaged = self.write_file("damaged.bundle", damaged_bytes)
        sealed = self.write_file("sealed-garbage.ccob",
                                 ccob(b"not a bundle at all", 2))
        sealed_damage = self.write_file("sealed-damaged.ccob",
                                        ccob(damaged_bytes, 2))
        for arguments, message in (
                (["prune", exe, "-k", "gfx1100"], "holds no entry"),
                (["prune", obj, "-k", "gfx1100"], "holds no entry"),
                (["prune", obj], "--keep"),
                # An archive of code objects: no bundle, so no target.
                (["prune", os.path.join(DATA, "archive", "bundler-gfx906.a"),
                  "-k", "gfx90a"],
                 "holds no entry for gfx90a; it holds no entry at all"),
                (["decompress", "hip_stub.c"], "hip_stub.c"),
                (["compress", obj, obj], "one file"),
                (["compress", obj, "--level", "23"],
                 "the zstd level 23 is outside zstd's levels, -131072 to 22"),
                (["prune", obj, "-k", "gfx906", "--level=-131073"],
                 "the zstd level -131073 is outside zstd's levels"),
                (["compress", damaged], "lies outside the file"),
                # Nothing to decompress, but damaged all the same.
                (["decompress", damaged], "lies outside the file"),
                (["decompress", sealed],
                 "the compressed bundle holds no valid bundle"),
                # Refused as verify refuses it: the header it holds is
                # read before anything is decompressed.
                (["decompress", sealed_damage], "lies outside the file")):
            with open(out, "wb") as handle:
                handle.write(b"left alone")
            done = self.offbundle(arguments + ["-o", out])
            check(done.returncode == 1 and not done.stdout and
                  len(done.stderr.splitlines()) == 1 and
                  done.stderr.startswith(b"offbundle: error: ") and
                  message.encode() in done.stderr and
                  read(out) == b"left alone",
                  f"{arguments}: {done.returncode} {done.stderr}")

        # Both intact forms are rewritten: the refusals above come from the
        # damage alone.
        good = self.write_file("good.bundle", good_bytes)
        good_sealed = self.write_file("good.ccob", ccob(good_bytes, 2))
        for arguments in (["compress", good], ["decompress", good_sealed]):
            done = self.offbundle(arguments + ["-o", out])
            check(done.returncode == 0, f"{arguments}: {done.stderr}")
        check(read(out) == good_bytes,
              "the sealed bundle decompressed to other bytes")

        # A missing target names the file's targets, at most 16 of them;
        # processors the bundler does not know (gfx901) are targets too.
        many = [host] + [b"hipv4-amdgcn-amd-amdhsa--gfx%d" % n
                         for n in range(900, 920)]
        wide = self.write_file("wide.bundle",
                               binary_bundle(many, [b"x"] * len(many)))
        for command in (["prune", wide, "-k", "gfx1100", "-o", out],
                        ["extract", wide, "-t", "gfx1100", "-o",
                         os.path.join(self.tools.folder, "never")]):
            done = self.offbundle(command)
            named = done.stderr.split(b"its targets: ", 1)[-1]
            check(done.returncode == 1 and
                  named.startswith(b"x86_64-unknown-linux-gnu, "
                                   b"amdgcn-amd-amdhsa--gfx900, ") and
                  b"amdgcn-amd-amdhsa--gfx901, " in named and
                  named.rstrip().endswith(
                      b"gfx913, amdgcn-amd-amdhsa--gfx914 and 5 more "
                      b"(see 'offbundle sizes')"),
                  f"{command[0]}: {done.stderr}")

    def elf_sections(self, data):
        """{name: (address, offset, size)} of a 64-bit little-endian ELF
        file's sections."""
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
        headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
                   for i in range(shnum)]
        names_offset = headers[shstrndx][4]
        sections = {}
        for name, _, _, address, offset, size in headers:
            start = names_offset + name
            label = bytes(data[start:data.index(b"\0", start)]).decode()
            sections[label] = (address, offset, size)
        return sections

    def with_wrapper_pointer(self, path, index, value):
        """A copy of a linked file whose wrapper `index` points to `value`:
        its RELATIVE relocation's addend changed, or the pointer itself in a
        file without one."""
        data = bytearray(read(path))
        sections = self.elf_sections(data)
        wrapper_address, wrapper_offset, _ = sections[".hipFatBinSegment"]
        field = wrapper_address + 24 * index + 8
        _, rela_offset, rela_size = sections.get(".rela.dyn", (0, 0, 0))
        for at in range(rela_offset, rela_offset + rela_size, 24):
            where, info = struct.unpack_from("<QQ", data, at)
            if where == field and info & 0xffffffff == 8:
                struct.pack_into("<Q", data, at + 16, value)
                return bytes(data)
        struct.pack_into("<Q", data, wrapper_offset + 24 * index + 8, value)
        return bytes(data)

    def check_toolkit_verify_wrappers(self, path):
        """offbundle verify follows every HIP fat binary wrapper as the
        runtime would: a pointer outside .hip_fatbin, one inside it but not
        at a bundle, or a wrong magic is a fault; the good file passes."""
        done = self.offbundle(["verify", path])
        check(done.returncode == 0, f"verify {path}: {done.stderr}")
        data = read(path)
        fatbin_address, _, fatbin_size = self.elf_sections(data)[".hip_fatbin"]
        wrapper_offset = self.elf_sections(data)[".hipFatBinSegment"][1]
        magic = bytearray(data)
        magic[wrapper_offset + 24] ^= 0x01
        cases = {"outside": self.with_wrapper_pointer(path, 1, 0x10),
                 "past the end": self.with_wrapper_pointer(
                     path, 1, fatbin_address + fatbin_size),
                 "inside a bundle": self.with_wrapper_pointer(
                     path, 1, fatbin_address + 8),
                 "magic": bytes(magic)}
        for label, content in cases.items():
            name = f"wrapper-{label.replace(' ', '-')}-{path}"
            with open(os.path.join(self.tools.folder, name), "wb") as handle:
                handle.write(content)
            done = self.offbundle(["verify", name])
            lines = done.stderr.decode().splitlines()
            check(done.returncode == 1 and len(lines) == 1 and
                  lines[0].startswith(f"offbundle: error: '{name}': HIP fat "
                                      "binary wrapper 1 "),
                  f"{label}: {done.returncode} {lines}")

    def check_toolkit_usage(self, path):
        """offbundle's command line: help, version, and one error line with
        exit status 1 for each mistake."""
        for arguments in (["--help"], ["list", "--help"], ["sizes", "-h"],
                          ["extract", "--help"], ["prune", "--help"],
                          ["compress", "--help"], ["decompress", "--help"],
                          ["verify", "--help"], ["--version"]):
            done = self.offbundle(arguments)
            check(done.returncode == 0 and done.stdout and not done.stderr,
                  f"{arguments}: {done.returncode} {done.stderr}")
        for arguments in ([], ["frobnicate", path], ["list"], ["extract"],
                          ["list", "--bogus", path], ["verify", "--json", path],
                          ["sizes", "no-such-file"]):
            done = self.offbundle(arguments)
            check(done.returncode == 1 and not done.stdout and
                  len(done.stderr.splitlines()) == 1 and
                  done.stderr.startswith(b"offbundle: error: "),
                  f"{arguments}: {done.returncode} {done.stderr}")

    def check_random_damage(self, paths, count):
        """Random damage to offload data: every command (the bundler's and
        offbundle's) either succeeds or fails with one error line, and a
        failed run leaves no output."""
        generator = random.Random(9)
        ranges = {}
        for path in paths:
            ranges[path] = [r for r in (self.tools.section(path, name) for name
                                        in (".hip_fatbin", ".llvm.offloading"))
                            if r is not None]
            check(ranges[path], f"{path} has no offload data")
        folder = os.path.join(self.tools.folder, "damaged-out")
        commands = (["-list", "-type=o"],
                    ["-list", "-type=o", "-format=json"],
                    ["-unbundle", "-type=o", "-output-dir=" + folder],
                    ["-unbundle", "-type=o", "-output=damaged.co",
                     "-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+"])
        toolkit_commands = (["list", "damaged"],
                            ["sizes", "--json", "damaged"],
                            ["verify", "damaged"],
                            ["extract", "damaged", "-o", folder],
                            ["prune", "damaged", "-k", "gfx906", "-o",
                             "damaged.out"],
                            ["compress", "damaged", "-o", "damaged.out"],
                            ["decompress", "damaged", "-o", "damaged.out"])
        for number in range(count):
            path = generator.choice(paths)
            data = bytearray(read(path))
            for _ in range(generator.randint(1, 6)):
                offset, size = generator.choice(ranges[path])
                if generator.random() < 0.5:
                    size = min(size, 128)  # headers, mostly
                at = offset + generator.randrange(size)
                if generator.random() < 0.4:
                    value = generator.choice([0, 1, 2**63, 2**64 - 1,
                                              len(data), size])
                    data[at:at + 8] = value.to_bytes(8, "little")
                else:
                    data[at] = generator.randrange(256)
            with open("damaged", "wb") as handle:
                handle.write(data)
            for arguments in commands:
                done = self.tools.bundler(arguments + ["-input=damaged"])
                lines = done.stderr.splitlines()
                failed_cleanly = (done.returncode == 1 and len(lines) == 1 and
                                  b"error:" in lines[0])
                check(done.returncode == 0 or failed_cleanly,
                      f"mutation {number} of {path}, {arguments}: exit "
                      f"{done.returncode}, {done.stderr[:500]}")
                if done.returncode != 0 and "-list" not in arguments:
                    check(done.stdout == b"", "output printed on failure")
                if done.returncode != 0:
                    check(not os.path.exists(folder),
                          f"mutation {number}: a failed -output-dir left "
                          "its folder")
                if done.returncode == 0 and "-format=json" in arguments:
                    json.loads(done.stdout)
                shutil.rmtree(folder, ignore_errors=True)
            for arguments in toolkit_commands:
                if os.path.exists("damaged.out"):
                    os.remove("damaged.out")
                done = self.offbundle(arguments)
                lines = done.stderr.splitlines()
                # The line names the damaged file (the tool prints the
                # message its layers made, adding no name of its own).
                check(done.returncode == 0 or
                      (done.returncode == 1 and len(lines) == 1 and
                       lines[0].startswith(b"offbundle: error: 'damaged")),
                      f"mutation {number} of {path}, offbundle {arguments}: "
                      f"exit {done.returncode}, {done.stderr[:500]}")
                if done.returncode != 0:
                    check(not os.path.exists("damaged.out") and
                          not os.path.exists(folder),
                          f"mutation {number}: offbundle {arguments} failed "
                          "and left an output")
                if done.returncode == 0 and "--json" in arguments:
                    json.loads(done.stdout)
                shutil.rmtree(folder, ignore_errors=True)

    def check_many_members(self, unit, count):
        """An archive of many objects, extracted with few files allowed
        open: outputs must not all stay open until the end."""
        os.makedirs("many", exist_ok=True)
        members = []
        for number in range(count):
            member = os.path.join("many", f"unit{number}.o")
            shutil.copyfile(unit.obj, member)
            members.append(member)
        run([self.tools.tool("llvm-ar"), "rcD", "libmany.a"] + members,
            self.tools.folder)
        folder = os.path.join(self.tools.folder, "many-out")

        def few_files():
            resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

        done = subprocess.run([self.tools.ours, "-unbundle", "-type=o",
                               "-input=libmany.a", "-output-dir=" + folder],
                              capture_output=True, preexec_fn=few_files)
        check(done.returncode == 0, f"-output-dir failed: {done.stderr}")
        printed = done.stdout.decode().splitlines()
        check(len(printed) == count * len(unit.listed),
              f"{len(printed)} files for {count} members")
        for number in (0, count - 1):
            for entry_id in unit.listed:
                name = f"unit{number}.o-{file_name_for(entry_id)}"
                check(read(os.path.join(folder, name)) ==
                      unit.payloads[entry_id], f"{name} differs")

    def check_usage_errors(self, path):
        for arguments in (["-unbundle", "-format=json", "-targets=x",
                           "-output=o"],
                          ["-list", "-format=yaml"],
                          ["-list", "-output-dir=d"],
                          ["-list", "-unbundle", "-output-dir=d"],
                          ["-unbundle", "-output-dir=d", "-output=o"],
                          ["-unbundle", "-output-dir=d",
                           "-targets=hip-amdgcn-amd-amdhsa--gfx906"]):
            done = self.tools.bundler(arguments + ["-type=o", "-input=" + path])
            check(done.returncode == 1 and
                  len(done.stderr.splitlines()) == 1 and
                  b"error:" in done.stderr,
                  f"{arguments}: {done.returncode} {done.stderr}")
            check(not os.path.exists(os.path.join(self.tools.folder, "d")),
                  "a refused command created a folder")

    # --- offload binaries ---------------------------------------------------

    def check_offloading(self, obj):
        listing = self.json_listing(obj)
        bundles = listing["bundles"]
        section_offset, section_size = self.tools.section(obj,
                                                          ".llvm.offloading")
        objdump = run([self.tools.tool("llvm-objdump"), "--offloading", obj],
                      self.tools.folder).stdout.decode()
        images = [dict(re.findall(r"^(\w+)\s+(.+)$", block, re.M))
                  for block in objdump.split("OFFLOADING IMAGE")[1:]]
        check(len(bundles) == len(images) == 2,
              f"{len(bundles)} binaries listed, llvm-objdump shows "
              f"{len(images)}")
        raw = self.tools.dump_section(obj, ".llvm.offloading", "offloading.bin")
        listed = []
        for bundle, image in zip(bundles, images):
            check(bundle["format"] == "offload-binary" and
                  bundle["section"] == ".llvm.offloading", "placement")
            check(section_offset <= bundle["offset"] and
                  bundle["offset"] + bundle["size"] <=
                  section_offset + section_size, "binary outside its section")
            (entry,) = bundle["entries"]
            expected_id = f"hip-amdgcn-amd-amdhsa--{image['arch']}"
            check(entry["id"] == expected_id, f"{entry['id']} != {expected_id}")
            check(entry["image"]["kind"] == "bitcode" and
                  image["kind"] == "llvm ir", "image kind")
            check(entry["image"]["offload_kind"] == image["producer"] == "hip",
                  "producer")
            check(entry["image"]["strings"]["triple"] == image["triple"],
                  "triple string")
            out = f"image-{file_name_for(image['arch'])}"
            run([self.tools.tool("llvm-offload-binary"), "offloading.bin",
                 f"--image=file={out},triple={image['triple']},"
                 f"arch={image['arch']}"], self.tools.folder)
            payload = read(os.path.join(self.tools.folder, out))
            check(read(obj, entry["file_offset"], entry["size"]) == payload,
                  "image bytes differ from llvm-offload-binary's")
            check(raw[bundle["offset"] - section_offset:][:4] ==
                  b"\x10\xff\x10\xad", "no magic at the binary's offset")
            listed.append(expected_id)
        done = self.tools.bundler(["-list", "-type=o", "-input=" + obj])
        check(done.stdout.decode().splitlines() == listed, "plain -list")
        out = os.path.join(self.tools.folder, "selected.bc")
        done = self.tools.bundler(["-unbundle", "-type=o", "-input=" + obj,
                                   "-targets=hip-amdgcn-amd-amdhsa--gfx90a:"
                                   "xnack+", "-output=" + out])
        check(done.returncode == 0 and read(out)[:4] == b"BC\xc0\xde",
              f"-unbundle of an image: {done.stderr}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference-bin", required=True)
    parser.add_argument("--offbundle", required=True,
                        help="the offbundle tool")
    parser.add_argument("--keep", help="keep the build folder here")
    args = parser.parse_args()
    require_executables(*(os.path.join(args.reference_bin, name) for name in
                          ("clang++", "clang-offload-bundler", "llvm-ar",
                           "llvm-objcopy", "llvm-objdump", "llvm-offload-binary",
                           "llvm-readelf", "ld.lld")),
                        *(shutil.which(name) or name for name in ("gcc", "ar")))
    folder = tempfile.mkdtemp(prefix="offbundle-hip-binaries-")
    tools = Tools(os.path.abspath(args.ours),
                  os.path.abspath(args.reference_bin), folder,
                  os.path.abspath(args.offbundle))
    suite = Suite(tools)
    # Every path below is relative to the build folder.
    home = os.getcwd()
    os.chdir(folder)
    clang = tools.tool("clang++")
    try:
        for name, text in SOURCES.items():
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(text)
        with open(os.path.join(folder, "hip_stub.c"), "w") as handle:
            handle.write(RUNTIME_STUB)
        with open(os.path.join(folder, "host.bin"), "wb") as handle:
            handle.write(b"host code\n")
        run(["gcc", "-c", "-fPIC", "hip_stub.c", "-o", "hip_stub.o"], folder)
        run(["ar", "rcD", "libamdhip64.a", "hip_stub.o"], folder)

        def compile_unit(source, output, extra):
            run([clang, "-x", "hip", "-c", "-fPIC", source, "-o", output,
                 f"-cuid={output}"] + COMMON + ARCHES + extra, folder)

        units = {}
        for compress in (False, True):
            label = "compressed" if compress else "plain"
            extra = ["--offload-compress"] if compress else []
            for source in SOURCES:
                obj = f"{source[:-4]}-{label}.o"
                compile_unit(source, obj, extra)
                units[obj] = TranslationUnit(tools, obj, obj[:-2])
        objects = {label: [f"{s[:-4]}-{label}.o" for s in SOURCES]
                   for label in ("plain", "compressed")}
        link = ["-fuse-ld=lld", "-L.", "-lamdhip64"]
        for label, objs in objects.items():
            run([clang] + objs + ["-o", f"app-{label}"] + link, folder)
            run([clang, "-shared"] + objs[1:] +
                ["-o", f"libkernels-{label}.so", "-fuse-ld=lld"], folder)
            run([os.path.join(args.reference_bin, "llvm-ar"), "rcD",
                 f"libunits-{label}.a"] + objs, folder)
        # Compressed and plain bundles in one section.
        mixed = [objects["plain"][0], objects["compressed"][1],
                 objects["plain"][2]]
        run([clang] + mixed + ["-o", "app-mixed"] + link, folder)
        run([clang, "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-c",
             "scale.hip", "-o", "scale-new-driver.o"] + COMMON + ARCHES,
            folder)

        for label in ("plain", "compressed"):
            objs = [units[o] for o in objects[label]]
            exe, lib = f"app-{label}", f"libkernels-{label}.so"
            for kind, path, members in (("executable", exe, objs),
                                        ("shared library", lib, objs[1:])):
                tag = f"[{label} {kind}]"
                suite.case(f"{tag} -list", suite.check_list, path, members)
                suite.case(f"{tag} -list -format=json", suite.check_json,
                           path, members)
                suite.case(f"{tag} -unbundle -output-dir",
                           suite.check_output_dir, path, members)
                suite.case(f"{tag} -unbundle -targets (LLVM 22 fails)",
                           suite.check_targets, path, members)
                suite.case(f"{tag} code object URIs", suite.check_uris, path,
                           members)
                suite.case(f"{tag} code object URIs from another folder",
                           suite.check_uris_from_elsewhere, path, members)
            archive = f"libunits-{label}.a"
            suite.case(f"[{label} archive] -list", suite.check_list, archive,
                       objs)
            suite.case(f"[{label} archive] -unbundle -output-dir",
                       suite.check_output_dir, archive, objs, True)
        mixed_units = [units[o] for o in mixed]
        suite.case("[mixed executable] -list", suite.check_list, "app-mixed",
                   mixed_units)
        suite.case("[mixed executable] -list -format=json", suite.check_json,
                   "app-mixed", mixed_units)
        suite.case("[mixed executable] -unbundle -output-dir",
                   suite.check_output_dir, "app-mixed", mixed_units)
        suite.case("[new driver object] .llvm.offloading",
                   suite.check_offloading, "scale-new-driver.o")
        suite.case("[plain executable] damaged .hip_fatbin",
                   suite.check_failures, "app-plain")
        suite.case("[compressed executable] damaged .hip_fatbin",
                   suite.check_failures, "app-compressed")
        suite.case("usage errors", suite.check_usage_errors, "app-plain")
        for label in ("plain", "compressed"):
            objs = [units[o] for o in objects[label]]
            for path, members in ((f"app-{label}", objs),
                                  (f"libkernels-{label}.so", objs[1:]),
                                  (f"libunits-{label}.a", objs)):
                suite.case(f"[{path}] offbundle list", suite.check_toolkit_list,
                           path, members)
                suite.case(f"[{path}] offbundle sizes",
                           suite.check_toolkit_sizes, path, members)
        for path, members, member_of in (
                ("app-compressed", [units[o] for o in objects["compressed"]],
                 False),
                ("app-mixed", mixed_units, False),
                ("libunits-plain.a", [units[o] for o in objects["plain"]],
                 True)):
            suite.case(f"[{path}] offbundle extract",
                       suite.check_toolkit_extract, path, members, member_of)
        for obj in objects["plain"] + objects["compressed"]:
            suite.case(f"[{obj}] offbundle prune, compress, decompress",
                       suite.check_toolkit_rewrite, units[obj])
        for label in ("plain", "compressed"):
            suite.case(f"[{label} objects] pruned objects link",
                       suite.check_toolkit_rewritten_link, objects[label],
                       label)
        for label in ("plain", "compressed"):
            suite.case(f"[{label} objects] pruned, registered by the runtime",
                       suite.check_toolkit_registration, objects[label],
                       [units[o] for o in objects[label]], label)
        for label in ("plain", "compressed"):
            for command, extra in (("prune", ["-k", "gfx906"]),
                                   ("compress", []), ("decompress", [])):
                suite.case(f"[libunits-{label}.a] offbundle {command}",
                           suite.check_toolkit_archive_rewrite,
                           f"libunits-{label}.a", objects[label], command,
                           extra)
        runtime = suite.registering_runtime()
        hip = ["-fuse-ld=lld", "-L" + runtime, "-lamdhip64",
               "-Wl,-rpath," + runtime]
        linked = []
        for label, objs in list(objects.items()) + [("mixed", mixed)]:
            run([clang] + objs + ["-o", f"hip-pie-{label}"] + hip, folder)
            linked.append(f"hip-pie-{label}")
            if label == "mixed":
                continue
            run([clang] + objs + ["-o", f"hip-nopie-{label}", "-no-pie"] +
                hip, folder)
            # GNU ld puts .hip_fatbin in a later segment than lld does.
            run([clang] + objs + ["-o", f"hip-bfd-{label}", "-L" + runtime,
                                  "-lamdhip64"], folder)
            run([clang, "-shared"] + objs[1:] +
                ["-o", f"libhip-{label}.so"] + hip, folder)
            linked += [f"hip-nopie-{label}", f"hip-bfd-{label}",
                       f"libhip-{label}.so"]
        # clang-linker-wrapper's programs, from objects of the new driver.
        new_driver = []
        for source in ("main.hip", "shift.hip"):
            obj = f"{source[:-4]}-new-driver.o"
            run([clang, "-x", "hip", "--offload-new-driver", "-fgpu-rdc", "-c",
                 "-fPIC", source, "-o", obj] + COMMON + ARCHES, folder)
            new_driver.append(obj)
        new_driver_link = ["--offload-new-driver", "-fgpu-rdc", "--hip-link",
                           "-nogpulib"] + ARCHES + hip
        run([clang] + new_driver + ["-o", "hip-new-driver"] +
            new_driver_link, folder)
        linked.append("hip-new-driver")
        suite.case("[new driver objects] offbundle prune, linked, loaded",
                   suite.check_toolkit_new_driver_objects, new_driver,
                   new_driver_link)
        for path in linked:
            suite.case(f"[{path}] offbundle prune, loaded",
                       suite.check_toolkit_linked_rewrite, path, "prune",
                       ["gfx906", "gfx90a:xnack+"])
            suite.case(f"[{path}] offbundle compress, loaded",
                       suite.check_toolkit_linked_rewrite, path, "compress",
                       [])
            suite.case(f"[{path}] offbundle decompress, loaded",
                       suite.check_toolkit_linked_rewrite, path,
                       "decompress", [])
            suite.case(f"[{path}] offbundle compress, decompress, compress",
                       suite.check_toolkit_linked_round_trip, path)
        suite.case("offbundle rewrites refused", suite.check_toolkit_rewrite_failures,
                   "app-plain", objects["plain"][0])
        suite.case("[mixed executable] offbundle list",
                   suite.check_toolkit_list, "app-mixed", mixed_units)
        suite.case("[mixed executable] offbundle sizes",
                   suite.check_toolkit_sizes, "app-mixed", mixed_units)
        run([clang] + objects["plain"] + ["-o", "app-no-pie", "-no-pie"] +
            link, folder)
        for path in ("app-plain", "app-compressed", "libkernels-plain.so",
                     "app-no-pie"):
            suite.case(f"[{path}] offbundle verify follows the wrappers",
                       suite.check_toolkit_verify_wrappers, path)
        suite.case("offbundle verify", suite.check_toolkit_verify,
                   ["app-plain", "app-compressed", "app-mixed",
                    "libkernels-compressed.so", "libunits-compressed.a",
                    units[objects["compressed"][0]].bundle_file],
                   units[objects["plain"][0]].bundle_file, "app-compressed")
        suite.case("offbundle usage", suite.check_toolkit_usage, "app-plain")
        suite.case("archive of 300 objects, 64 open files allowed",
                   suite.check_many_members, units[objects["plain"][1]], 300)
        suite.case("randomly damaged offload data (150 files)",
                   suite.check_random_damage,
                   ["app-plain", "app-compressed", "app-mixed",
                    "libkernels-compressed.so", "scale-new-driver.o",
                    objects["plain"][0], objects["compressed"][0]], 150)
    except Failure as failure:
        # Each case catches its own failures: this one comes from making the
        # inputs with LLVM 22's tools, without which nothing can be checked.
        skip_suite(f"LLVM 22 could not build the test programs: {failure}")
    finally:
        os.chdir(home)
        if args.keep:
            shutil.copytree(folder, args.keep, dirs_exist_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
