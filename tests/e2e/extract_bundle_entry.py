# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""llvm-extract-bundle-entry: URIs in, code objects out, as LLVM 23's tool.

LLVM 22 has no such tool, so its output is checked against what LLVM 22
itself says the entries are. clang 22 builds a HIP object and a program
(two GPU targets, plain bundles); for every URI llvm-readobj --offloading
prints, the tool run in the same folder must write
<file>-offset<N>-size<M>.co holding exactly the payload LLVM 22's
clang-offload-bundler unbundles for that entry (from the object, and from
the program's .hip_fatbin section that llvm-objcopy dumps). The URIs
offbundle list --json prints (absolute, percent-encoded: the files are in a
folder whose name has a space) and those of a Windows COFF object give the
same payloads. Checked besides:

- -o, and its refusal with several URIs; several URIs extracted in order,
  stopping at the first failure, those before it kept;
- LLVM 23's messages, one "error:" line and exit status 1, and no output
  file, for each malformed URI, each range outside the file, a missing
  file, a folder, files that are not objects, unknown options;
- an existing output is replaced on success and left as it was on failure;
- help (-h, --help, -help on standard output; no argument: on standard
  error, exit 1), --version, @FILE response files, and the readings that
  differ from LLVM 23 on purpose ('?', 0x numbers, unreadable numbers).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (BuildingSuite, finish,  # noqa: E402
                           require_executables)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The HIP runtime's entry points, for linking a program without ROCm.
from hip_builds import RUNTIME_STUB  # noqa: E402

ARCHES = ["--offload-arch=gfx906", "--offload-arch=gfx1030"]
HIP = ["-x", "hip", "-nogpulib", "-nogpuinc", "-O1"] + ARCHES
SOURCE = """\
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **,
                               unsigned long, void *);
__attribute__((global)) void add_one(int *p) { p[0] += 1; }
int main() { return 0; }
"""


class Suite(BuildingSuite):
    def __init__(self, args, work):
        super().__init__(args.reference_bin, work)
        self.tool_path = os.path.abspath(args.tool)
        self.offbundle = os.path.abspath(args.offbundle)

    def tool(self, arguments, cwd=None):
        return subprocess.run([self.tool_path] + arguments,
                              capture_output=True, text=True, timeout=60,
                              cwd=cwd or self.work)

    def error_line(self, message):
        return f"{self.tool_path}: error: {message}\n"


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def build(suite):
    """The object, the program and a Windows object; the folder holding
    them has a space in its name, so that offbundle's URIs are
    percent-encoded."""
    folder = os.path.join(suite.work, "with space")
    os.mkdir(folder)
    with open(os.path.join(folder, "k.hip"), "w") as handle:
        handle.write(SOURCE)
    with open(os.path.join(folder, "stub.c"), "w") as handle:
        handle.write(RUNTIME_STUB)
    clang = suite.reference_tool("clang")
    suite.build_step([clang] + HIP + ["-c", "k.hip", "-o", "k.o"], folder)
    suite.build_step([clang, "-c", "stub.c", "-o", "stub.o"], folder)
    suite.build_step([clang, "k.o", "stub.o", "-o", "app"], folder)
    suite.build_step([clang, "--target=x86_64-pc-windows-msvc", "-O2"] + HIP +
                     ["-c", "k.hip", "-o", "k.obj"], folder)
    return folder


def reference_payloads(suite, folder, name, section):
    """LLVM 22's view of a file's bundle: {entry ID: payload}, unbundled by
    its clang-offload-bundler from the section llvm-objcopy dumps."""
    dump = os.path.join(suite.work, name + ".section")
    suite.build_step([suite.reference_tool("llvm-objcopy"),
                      f"--dump-section={section}={dump}",
                      os.path.join(folder, name)])
    bundler = suite.reference_tool("clang-offload-bundler")
    listed = suite.build_step([bundler, "-list", "-type=o", "-input=" + dump])
    payloads = {}
    for entry_id in listed.stdout.decode().split():
        out = os.path.join(suite.work, "reference.out")
        suite.build_step([bundler, "-unbundle", "-type=o", "-input=" + dump,
                          "-targets=" + entry_id, "-output=" + out])
        payloads[entry_id] = read(out)
    return payloads


def check_readobj_uris(suite, folder, name, payloads):
    """Every URI llvm-readobj --offloading prints, given in the folder it
    was printed in, gives LLVM 22's payload under LLVM's output name."""
    printed = suite.build_step([suite.reference_tool("llvm-readobj"),
                                "--offloading", name], folder)
    lines = [line.split("\t") for line in
             printed.stdout.decode().splitlines()
             if "\tfile://" in line]
    suite.expect(len(lines) == len(payloads) == 3,
                 f"{name}: llvm-readobj prints a URI per entry",
                 printed.stdout)
    for entry_id, uri in lines:
        offset, size = (int(part.split("=")[1])
                        for part in uri.split("#")[1].split("&"))
        output = os.path.join(folder, f"{name}-offset{offset}-size{size}.co")
        done = suite.tool([uri], folder)
        suite.expect(done.returncode == 0 and done.stdout == "" and
                     done.stderr == "",
                     f"{name} {entry_id}: extracting {uri} succeeds quietly",
                     done.stderr)
        suite.expect(os.path.isfile(output) and
                     read(output) == payloads.get(entry_id),
                     f"{name} {entry_id}: the output is LLVM 22's payload")


def check_offbundle_uris(suite, folder, name, payloads):
    """offbundle's URIs (absolute, percent-encoded) name the same bytes; the
    output lands beside the input, under its real name."""
    listing = subprocess.run([suite.offbundle, "list", "--json",
                              os.path.join(folder, name)],
                             capture_output=True, text=True, timeout=60)
    entries = json.loads(listing.stdout)["files"][0]["entries"]
    suite.expect(len(entries) == 3, f"{name}: offbundle lists 3 entries",
                 listing.stdout)
    for entry in entries:
        uri = entry["uri"]
        suite.expect("%20" in uri, f"{name}: offbundle's URI is encoded", uri)
        # Given from another folder: the path is absolute.
        done = suite.tool([uri], suite.work)
        offset, size = (int(part.split("=")[1])
                        for part in uri.split("#")[1].split("&"))
        output = os.path.join(folder, f"{name}-offset{offset}-size{size}.co")
        suite.expect(done.returncode == 0 and os.path.isfile(output) and
                     read(output) == payloads.get(entry["id"]),
                     f"{name} {entry['id']}: offbundle's URI gives LLVM 22's "
                     "payload", done.stderr)


def device_uri(folder, name, payloads, data):
    """A URI for one device payload of the file, found by its bytes, the
    path relative to the folder, as llvm-readobj prints it."""
    entry_id = sorted(i for i in payloads if not i.startswith("host"))[0]
    payload = payloads[entry_id]
    offset = data.index(payload)
    return f"file://{name}#offset={offset}&size={len(payload)}", payload


def check_options(suite, folder, payloads):
    data = read(os.path.join(folder, "k.o"))
    uri, payload = device_uri(folder, "k.o", payloads, data)
    offset = data.index(payload)

    named = os.path.join(suite.work, "named.co")
    done = suite.tool(["-o", named, uri], folder)
    suite.expect(done.returncode == 0 and read(named) == payload,
                 "-o FILE writes the payload there", done.stderr)
    joined = os.path.join(suite.work, "joined.co")
    done = suite.tool(["-o" + joined, uri], folder)
    suite.expect(done.returncode == 0 and read(joined) == payload,
                 "-oFILE (joined) works as -o FILE", done.stderr)

    second = "file://k.o#offset=0&size=64"
    done = suite.tool(["-o", os.path.join(suite.work, "two.co"), uri, second],
                      folder)
    suite.expect(done.returncode == 1 and done.stderr.count("\n") == 1 and
                 ": error: " in done.stderr and
                 not os.path.exists(os.path.join(suite.work, "two.co")),
                 "-o with two URIs is one error, writing nothing", done.stderr)

    # Several URIs: each extracted in turn; a failure stops the run and
    # keeps what came before it.
    for leftover in os.listdir(folder):
        if leftover.endswith(".co"):
            os.remove(os.path.join(folder, leftover))
    bad = "file://k.o#offset=0&size=999999999"
    done = suite.tool([second, bad, uri], folder)
    suite.expect(done.returncode == 1, "a failing URI among several: exit 1")
    suite.expect(os.path.isfile(os.path.join(folder, "k.o-offset0-size64.co")),
                 "the URI before the failure was extracted")
    suite.expect(read(os.path.join(folder, "k.o-offset0-size64.co")) ==
                 data[:64], "its bytes are the range it names")
    after = os.path.join(folder, f"k.o-offset{offset}-size{len(payload)}.co")
    suite.expect(not os.path.exists(after),
                 "the URI after the failure was not extracted")
    done = suite.tool([second, uri], folder)
    suite.expect(done.returncode == 0 and read(after) == payload,
                 "two URIs in one run are both extracted", done.stderr)

    # An existing output: replaced on success, left alone on failure.
    with open(after, "wb") as handle:
        handle.write(b"old contents")
    done = suite.tool([uri], folder)
    suite.expect(done.returncode == 0 and read(after) == payload,
                 "an existing output is replaced", done.stderr)
    with open(named, "wb") as handle:
        handle.write(b"keep me")
    done = suite.tool(["-o", named, bad], folder)
    suite.expect(done.returncode == 1 and read(named) == b"keep me",
                 "a failed run leaves an existing -o file as it was")

    # Response files.
    with open(os.path.join(suite.work, "arguments"), "w") as handle:
        handle.write(f"-o '{os.path.join(suite.work, 'from-file.co')}' "
                     f"'{uri}'\n")
    done = suite.tool(["@" + os.path.join(suite.work, "arguments")], folder)
    suite.expect(done.returncode == 0 and
                 read(os.path.join(suite.work, "from-file.co")) == payload,
                 "@FILE supplies the arguments", done.stderr)

    # Readings that differ from LLVM 23 on purpose.
    for spelling, expected_name in (
            (f"file://k.o?offset={offset}&size={len(payload)}",
             f"k.o-offset{offset}-size{len(payload)}.co"),
            (f"file://k.o#offset={hex(offset)}&size={hex(len(payload))}",
             f"k.o-offset{offset}-size{len(payload)}.co"),
            (f"file://k.o#offset=0{offset}&size=0{len(payload)}",
             f"k.o-offset{offset}-size{len(payload)}.co")):
        os.remove(os.path.join(folder, expected_name))
        done = suite.tool([spelling], folder)
        suite.expect(done.returncode == 0 and
                     read(os.path.join(folder, expected_name)) == payload,
                     f"{spelling} names the payload", done.stderr)


def check_errors(suite, folder):
    size = os.path.getsize(os.path.join(folder, "k.o"))
    with open(os.path.join(folder, "notes.txt"), "w") as handle:
        handle.write("not an object\n")
    with open(os.path.join(folder, "lib.a"), "wb") as handle:
        handle.write(b"!<arch>\n")
    cases = [
        (["memory://1234#offset=0&size=8"], "Reading type of URI"),
        (["FILE://k.o#offset=0&size=8"], "Reading type of URI"),
        (["k.o"], "Reading type of URI"),
        (["-"], "Reading type of URI"),
        (["file://k.o#size=8&offset=0"], "Reading 'offset' in URI"),
        (["file://k.o"], "Reading 'offset' in URI"),
        (["file://k.o#offset=0"], "Reading 'size' in URI"),
        (["file://k.o#offset=abc&size=8"],
         "Reading 'offset' in URI: 'abc' is not a decimal or 0x hexadecimal "
         "number"),
        (["file://k.o#offset=0&size=-1"],
         "Reading 'size' in URI: '-1' is not a decimal or 0x hexadecimal "
         "number"),
        ([f"file://k.o#offset=0&size={size + 1}"],
         f"'k.o': size in URI ({size + 1}) is larger than source ({size})"),
        ([f"file://k.o#offset={size + 5}&size=0"],
         f"'k.o': offset in URI ({size + 5}) is beyond the end of the source "
         f"({size})"),
        ([f"file://k.o#offset={size - 4}&size=8"],
         f"'k.o': offset + size ({size + 4}) in URI is beyond the end of the "
         f"source ({size})"),
        (["file://missing.o#offset=0&size=8"], "No such file or directory"),
        ([f"file://{suite.work}#offset=0&size=8"], "Is a directory"),
        (["file://notes.txt#offset=0&size=8"],
         "The file was not recognized as a valid object file"),
        (["file://lib.a#offset=0&size=8"],
         "The file was not recognized as a valid object file"),
        (["-abc", "file://k.o#offset=0&size=8"], "unknown argument '-a'"),
        (["--abcabc"], "unknown argument '--abcabc'"),
        (["--", "file://k.o#offset=0&size=8"], "unknown argument '--'"),
        (["file://k.o#offset=0&size=8", "-o"],
         "argument to '-o' is missing (expected 1 value)"),
    ]
    before = sorted(os.listdir(folder))
    for arguments, message in cases:
        done = suite.tool(arguments, folder)
        suite.expect(done.returncode == 1 and done.stdout == "" and
                     done.stderr == suite.error_line(message),
                     f"{arguments}: exit 1 and '{message}'",
                     f"{done.returncode} {done.stderr!r}")
    suite.expect(sorted(os.listdir(folder)) == before,
                 "no failed run wrote a file")


def check_help(suite):
    for spelling in ("-h", "--help", "-help"):
        done = suite.tool([spelling])
        suite.expect(done.returncode == 0 and done.stderr == "" and
                     done.stdout.startswith(
                         "OVERVIEW: llvm-extract-bundle-entry tool\n\n"
                         "USAGE: llvm-extract-bundle-entry URI\n\nOPTIONS:\n")
                     and done.stdout.endswith(
                         "\nPass @FILE as argument to read options from "
                         "FILE.\n"),
                     f"{spelling} prints LLVM's help layout", done.stdout)
        suite.expect("-o <file>" in done.stdout and "-V " in done.stdout,
                     f"{spelling}: the help lists -o and -V")
    bare = suite.tool([])
    help_text = suite.tool(["--help"]).stdout
    suite.expect(bare.returncode == 1 and bare.stdout == "" and
                 bare.stderr == help_text,
                 "no argument: the help on standard error, exit 1")
    for spelling in ("--version", "-V"):
        done = suite.tool([spelling, "file://missing#offset=0&size=1"])
        suite.expect(done.returncode == 0 and
                     done.stdout.startswith("llvm-extract-bundle-entry\n"),
                     f"{spelling} prints the version, extracting nothing",
                     done.stdout + done.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--reference-bin", required=True)
    args = parser.parse_args()
    require_executables(args.tool, args.offbundle,
                        *(os.path.join(args.reference_bin, name)
                          for name in ("clang", "clang-offload-bundler",
                                       "llvm-objcopy", "llvm-readobj")))
    work = tempfile.mkdtemp(prefix="extract-bundle-entry-")
    try:
        suite = Suite(args, work)
        folder = build(suite)
        object_payloads = reference_payloads(suite, folder, "k.o",
                                             ".hip_fatbin")
        program_payloads = reference_payloads(suite, folder, "app",
                                              ".hip_fatbin")
        windows_payloads = reference_payloads(suite, folder, "k.obj",
                                              ".hip_fatbin")
        check_readobj_uris(suite, folder, "k.o", object_payloads)
        check_readobj_uris(suite, folder, "app", program_payloads)
        check_offbundle_uris(suite, folder, "app", program_payloads)
        check_offbundle_uris(suite, folder, "k.obj", windows_payloads)
        check_options(suite, folder, object_payloads)
        check_errors(suite, folder)
        check_help(suite)
        return finish(suite.passed, suite.failed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
