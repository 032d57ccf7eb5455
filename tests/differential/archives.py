#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Heterogeneous device archives (-unbundle -type=a) against LLVM 22.

Builds static libraries of fat objects in the test: host objects from C
sources, device code both as AMDGPU ELF code objects and as LLVM bitcode (the
device archive's symbol table must list the bitcode's symbols, read from its
irsymtab), wrapped as fat objects, binary bundles and compressed bundles, next
to members that are no bundles at all; archives made by GNU ar and llvm-ar,
thin ones included. Then runs LLVM 22's bundler and ours with the same
arguments and compares exit codes, stdout, stderr and every output archive
byte for byte (LLVM leaves partial outputs after a failure; ours leaves none,
so after a failure only the messages are compared).

Usage: archives.py --ours PATH --reference PATH
"""

import argparse
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import finish, require_executables, skip_suite  # noqa: E402

HOST = "host-x86_64-unknown-linux-gnu"
GPUS = ["gfx906", "gfx90a:xnack+", "gfx90a:xnack-", "gfx1030"]


class Suite:
    def __init__(self, ours, reference, folder):
        self.ours = ours
        self.reference = reference
        self.bin = os.path.dirname(reference)
        self.folder = folder
        self.passed = 0
        self.failed = 0

    def sh(self, *command, env=None):
        done = subprocess.run(list(command), cwd=self.folder,
                              capture_output=True, env=env)
        if done.returncode != 0:
            # Only inputs are made this way: without them nothing can be
            # compared.
            skip_suite(f"could not build an input: {' '.join(command)}: "
                       f"{done.stderr.decode(errors='replace')[:300]}")

    def tool(self, name):
        return os.path.join(self.bin, name)

    def write(self, name, text):
        with open(os.path.join(self.folder, name), "w") as handle:
            handle.write(text)

    def make_members(self):
        """Fat objects and bundles of several kinds, by LLVM's own bundler."""
        members = []
        for index, gpus in enumerate([GPUS[:2], GPUS[1:3], [GPUS[0], GPUS[3]],
                                      GPUS[3:]]):
            stem = f"lib{index}"
            self.write(f"{stem}.c", f"int host_{index}(int x) {{ return x + {index}; }}\n")
            self.sh(self.tool("clang"), "-c", f"{stem}.c", "-o", f"{stem}.host.o")
            self.write(f"{stem}.dev.c",
                       f"int device_{index}(int x) {{ return x * {index}; }}\n"
                       f"int shared_{index};\n"
                       f"static int hidden_{index}(void) {{ return 0; }}\n"
                       f"__attribute__((weak)) int weak_{index}(void) {{ return hidden_{index}(); }}\n")
            inputs, targets = [f"-input={stem}.host.o"], [HOST]
            for gpu in gpus:
                device = f"{stem}.{gpu.replace(':', '_')}"
                # Bitcode for even members, ELF code objects for odd ones.
                kind = ["-emit-llvm"] if index % 2 == 0 else []
                self.sh(self.tool("clang"), "--target=amdgcn-amd-amdhsa",
                        f"-mcpu={gpu}", "-nogpulib", "-O1", "-c", *kind,
                        f"{stem}.dev.c", "-o", device)
                inputs.append(f"-input={device}")
                targets.append(f"hip-amdgcn-amd-amdhsa--{gpu}")
            self.sh(self.reference, "-type=o", "-targets=" + ",".join(targets),
                    *inputs, f"-output={stem}.o")
            members.append(f"{stem}.o")
        # A binary bundle of bitcode, a compressed one, and a plain member.
        self.sh(self.reference, "-type=bc",
                f"-targets={HOST},openmp-amdgcn-amd-amdhsa--{GPUS[0]},"
                f"hip-amdgcn-amd-amdhsa--{GPUS[3]}",
                "-input=lib0.c", "-input=lib0.gfx906", "-input=lib3.gfx1030",
                "-output=bundle.bc")
        self.sh(self.reference, "-type=bc", "-compress",
                f"-targets=hip-amdgcn-amd-amdhsa--{GPUS[1]}",
                "-input=lib1.gfx90a_xnack+", "-output=packed.bc")
        members += ["bundle.bc", "packed.bc", "lib0.host.o"]
        return members

    def make_archives(self, members):
        archives = {}
        self.sh("ar", "rc", "gnu.a", *members)
        archives["gnu.a"] = members
        self.sh(self.tool("llvm-ar"), "rcD", "llvm.a", *members)
        archives["llvm.a"] = members
        self.sh(self.tool("llvm-ar"), "rcT", "thin.a", *members[:3])
        archives["thin.a"] = members[:3]
        self.sh("ar", "rc", "fat-only.a", *members[:4])
        archives["fat-only.a"] = members[:4]
        # A long member name, which goes through the "//" table.
        long_name = "a_member_with_a_rather_long_file_name.o"
        shutil.copy(os.path.join(self.folder, members[0]),
                    os.path.join(self.folder, long_name))
        self.sh(self.tool("llvm-ar"), "rcD", "long.a", long_name, members[1])
        archives["long.a"] = [long_name, members[1]]
        return archives

    def compare(self, label, arguments, outputs):
        results = []
        for tool in (self.reference, self.ours):
            for name in outputs:
                path = os.path.join(self.folder, name)
                if os.path.exists(path):
                    os.remove(path)
            done = subprocess.run([tool] + arguments, cwd=self.folder,
                                  capture_output=True)
            files = {}
            for name in outputs:
                path = os.path.join(self.folder, name)
                if os.path.exists(path):
                    with open(path, "rb") as handle:
                        files[name] = handle.read()
            # -verbose reports speeds, which no two runs share.
            stderr = re.sub(rb"(Compression|Decompression) speed: [0-9.]+ "
                            rb"MB/s", rb"\1 speed: N MB/s",
                            done.stderr.replace(tool.encode(), b"TOOL"))
            results.append((done.returncode, done.stdout, stderr, files))
        ref, got = results
        same = ref[:3] == got[:3] and (ref[0] != 0 and not got[3] or
                                       ref[3] == got[3])
        if same:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {label}: {' '.join(arguments)}")
            for what, a, b in zip(("exit", "stdout", "stderr"), ref, got):
                if a != b:
                    print(f"  {what}: reference {a!r}\n  {' ' * len(what)}  ours      {b!r}")
            for name in sorted(set(ref[3]) | set(got[3])):
                if ref[3].get(name) != got[3].get(name):
                    print(f"  {name}: reference {len(ref[3].get(name) or b'')} "
                          f"bytes, ours {len(got[3].get(name) or b'')} bytes")

    def run_all(self):
        members = self.make_members()
        archives = self.make_archives(members)
        wanted_pool = ([f"hip-amdgcn-amd-amdhsa--{g}" for g in GPUS] +
                       ["hip-amdgcn-amd-amdhsa--gfx90a",
                        "hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+",
                        "openmp-amdgcn-amd-amdhsa--gfx906",
                        "hipv4-amdgcn-amd-amdhsa--gfx1030",
                        "hip-amdgcn-amd-amdhsa--gfx1100", HOST])
        rng = random.Random(7)
        for archive in archives:
            for round_index in range(8):
                wanted = rng.sample(wanted_pool, rng.randint(1, 4))
                if sum(t.startswith("host") for t in wanted) > 1:
                    continue
                outputs = [f"out{i}.a" for i in range(len(wanted))]
                arguments = ["-unbundle", "-type=a", f"-input={archive}",
                             "-targets=" + ",".join(wanted)]
                arguments += [f"-output={o}" for o in outputs]
                flags = ["-allow-missing-bundles", "-hip-openmp-compatible",
                         "-check-input-archive"]
                for count in range(len(flags) + 1):
                    for chosen in itertools.combinations(flags, count):
                        if rng.random() < 0.5:
                            continue
                        self.compare(f"{archive} round {round_index}",
                                     arguments + list(chosen), outputs)
        # -verbose: each member's report, the compressed one's decompression
        # among them, as LLVM gives them.
        for archive in archives:
            targets = [f"hip-amdgcn-amd-amdhsa--{GPUS[1]}",
                       f"openmp-amdgcn-amd-amdhsa--{GPUS[0]}"]
            self.compare(f"{archive} -verbose",
                         ["-unbundle", "-type=a", f"-input={archive}",
                          "-targets=" + ",".join(targets), "-output=v0.a",
                          "-output=v1.a", "-allow-missing-bundles",
                          "-verbose"], ["v0.a", "v1.a"])
        # An output that cannot be created: LLVM's archive writer names no
        # file in its message.
        for output in ("missing/x.a", "."):
            self.compare(f"output {output}",
                         ["-unbundle", "-type=a", "-input=gnu.a",
                          f"-targets=hip-amdgcn-amd-amdhsa--{GPUS[1]}",
                          f"-output={output}", "-allow-missing-bundles"], [])
        # Conflicting target IDs in one member, caught by -check-input-archive.
        # LLVM refuses to bundle these, so the bundle is written here.
        ids = [b"hip-amdgcn-amd-amdhsa--gfx906",
               b"hip-amdgcn-amd-amdhsa--gfx906:xnack+"]
        with open(os.path.join(self.folder, "lib0.gfx906"), "rb") as handle:
            payload = handle.read()
        header_size = 32 + sum(24 + len(i) for i in ids)
        header = b"__CLANG_OFFLOAD_BUNDLE__" + len(ids).to_bytes(8, "little")
        for number, entry_id in enumerate(ids):
            offset = header_size + number * len(payload)
            header += (offset.to_bytes(8, "little") +
                       len(payload).to_bytes(8, "little") +
                       len(entry_id).to_bytes(8, "little") + entry_id)
        with open(os.path.join(self.folder, "conflict.bc"), "wb") as handle:
            handle.write(header + payload * len(ids))
        self.sh("ar", "rc", "conflict.a", "conflict.bc")
        for extra in ([], ["-check-input-archive"]):
            self.compare("conflicting member",
                         ["-unbundle", "-type=a", "-input=conflict.a",
                          "-targets=hip-amdgcn-amd-amdhsa--gfx906:xnack+",
                          "-output=c.a", "-allow-missing-bundles"] + extra,
                         ["c.a"])
        self.compare_unreadable_bitcode()
        self.compare_rebuilt_bitcode_symbols()
        # Not an archive, an empty archive, a missing one.
        with open(os.path.join(self.folder, "empty.a"), "wb") as handle:
            handle.write(b"!<arch>\n")
        for archive in ("empty.a", "lib0.o", "missing.a"):
            self.compare(f"input {archive}",
                         ["-unbundle", "-type=a", f"-input={archive}",
                          "-targets=hip-amdgcn-amd-amdhsa--gfx906",
                          "-output=e.a", "-allow-missing-bundles"], ["e.a"])
        self.compare_archive_endings(members)
        self.compare_output_over_a_link()

    def compare_output_over_a_link(self):
        """LLVM's archive writer renames a temporary over the output: a
        symbolic link there (to the input archive itself) is replaced, the
        input is left alone, and a replaced file gets a new file's mode."""
        results = []
        for tool in (self.reference, self.ours):
            with tempfile.TemporaryDirectory(dir=self.folder) as work:
                shutil.copy(os.path.join(self.folder, "gnu.a"),
                            os.path.join(work, "in.a"))
                os.symlink("in.a", os.path.join(work, "link.a"))
                os.mkdir(os.path.join(work, "folder"))
                os.symlink("folder", os.path.join(work, "to-folder.a"))
                os.symlink("/dev/null", os.path.join(work, "to-null.a"))
                with open(os.path.join(work, "old.a"), "wb") as handle:
                    handle.write(b"old")
                os.chmod(os.path.join(work, "old.a"), 0o755)
                done = subprocess.run(
                    [tool, "-unbundle", "-type=a", "-input=in.a",
                     "-targets=hip-amdgcn-amd-amdhsa--gfx906,"
                     "hip-amdgcn-amd-amdhsa--gfx1030,"
                     "hip-amdgcn-amd-amdhsa--gfx90a:xnack+,"
                     "hip-amdgcn-amd-amdhsa--gfx90a:xnack-",
                     "-output=link.a", "-output=old.a", "-output=to-folder.a",
                     "-output=to-null.a", "-allow-missing-bundles"],
                    cwd=work, capture_output=True)
                state = {}
                for name in sorted(os.listdir(work)):
                    path = os.path.join(work, name)
                    if os.path.isdir(path) and not os.path.islink(path):
                        state[name] = sorted(os.listdir(path))
                        continue
                    with open(path, "rb") as handle:
                        state[name] = (os.path.islink(path),
                                       oct(os.lstat(path).st_mode),
                                       handle.read())
                results.append((done.returncode, state))
        if results[0] == results[1]:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL output over a link: "
                  f"reference {results[0][0]} {sorted(results[0][1].items())!r:.300}"
                  f"\n  ours {results[1][0]} {sorted(results[1][1].items())!r:.300}")

    def compare_archive_endings(self, members):
        """Endings LLVM's archive reader refuses but its bundler reads to
        the end of, every member whole: a last member without its padding
        byte, and bytes too few for another member header."""
        odd = os.path.join(self.folder, "odd.o")
        shutil.copy(os.path.join(self.folder, members[0]), odd)
        with open(odd, "ab") as handle:
            handle.write(b"Z" * (1 - os.path.getsize(odd) % 2))
        self.sh("ar", "rc", "odd.a", members[1], "odd.o")
        with open(os.path.join(self.folder, "odd.a"), "rb") as handle:
            padded = handle.read()
        with open(os.path.join(self.folder, "gnu.a"), "rb") as handle:
            whole = handle.read()
        endings = {"unpadded.a": padded[:-1], "one-more-byte.a": whole + b"\n",
                   "short-garbage.a": whole + b"x" * 58}
        for name, data in endings.items():
            with open(os.path.join(self.folder, name), "wb") as handle:
                handle.write(data)
            self.compare(f"ending {name}",
                         ["-unbundle", "-type=a", f"-input={name}",
                          "-targets=hip-amdgcn-amd-amdhsa--gfx906,"
                          "hip-amdgcn-amd-amdhsa--gfx1030",
                          "-output=end0.a", "-output=end1.a",
                          "-allow-missing-bundles"], ["end0.a", "end1.a"])

    def compare_unreadable_bitcode(self):
        """Device bitcode LLVM's reader refuses: LLVM's archive writer warns,
        keeps the member unindexed and goes on."""
        with open(os.path.join(self.folder, "lib0.gfx906"), "rb") as handle:
            bitcode = handle.read()
        damaged = {
            "signature": b"BC\xc0\xde\x35\x14\x00\x00garbage!",
            "not-four": bitcode + b"\n",
            "truncated": bitcode[:len(bitcode) // 2 & ~3],
            "bad-magic": b"BC\xc0\xdf" + bitcode[4:],
        }
        # Data layouts LLVM's parser refuses, each with its own message:
        # the module cannot be opened at all.
        for name, (old, new) in {
                "layout-address-space": ("-A5-", "-Ax-"),
                "layout-stack": ("-S32-", "-S33-"),
                "layout-mangling": ("m:e-", "m:q-"),
                "layout-non-integral": ("ni:7", "ni:0")}.items():
            damaged[name] = replaced_in_bitstream(bitcode, old, new)
        good = "lib2.o"  # bitcode for gfx906 as well: indexed symbols
        for name, payload in damaged.items():
            device = os.path.join(self.folder, f"bad-{name}.dev")
            with open(device, "wb") as handle:
                handle.write(payload)
            self.sh(self.reference, "-type=o",
                    f"-targets={HOST},hip-amdgcn-amd-amdhsa--{GPUS[0]}",
                    "-input=lib0.host.o", f"-input=bad-{name}.dev",
                    f"-output=bad-{name}.o")
            for members in ([f"bad-{name}.o"], [f"bad-{name}.o", good]):
                archive = f"bad-{name}-{len(members)}.a"
                self.sh("ar", "rc", archive, *members)
                self.compare(f"unreadable bitcode {archive}",
                             ["-unbundle", "-type=a", f"-input={archive}",
                              f"-targets=hip-amdgcn-amd-amdhsa--{GPUS[0]},"
                              f"hip-amdgcn-amd-amdhsa--{GPUS[1]}",
                              "-output=u0.a", "-output=u1.a",
                              "-allow-missing-bundles"], ["u0.a", "u1.a"])


    def compare_rebuilt_bitcode_symbols(self):
        """LLVM's archive writer lists a bitcode member's symbols from its
        IR, not from the table clang stores in it: bitcode without a stored
        table (llvm-as, llvm-cat -b), from LLVM 14, with unnamed globals
        (numbered among the indexed symbols only, unlike the stored table),
        with Mach-O's "_" prefix, and with every linkage."""
        bin14 = "/usr/lib/llvm-14/bin"
        sources = {
            "modern": (self.tool("llvm-as"), MODERN_IR),
            "typed": (os.path.join(bin14, "llvm-as"), TYPED_POINTER_IR),
        }
        made = []
        for label, (assembler, text) in sources.items():
            for triple, layout in REBUILD_TRIPLES:
                stem = f"ir-{label}-{triple.split('-')[0]}-{len(made)}"
                header = f'target triple = "{triple}"\n'
                if layout:
                    header += f'target datalayout = "{layout}"\n'
                self.write(f"{stem}.ll", header + text)
                self.sh(assembler, f"{stem}.ll", "-o", f"{stem}.bc")
                made.append((stem, triple))
        # The same IR with a stored table (opt writes one), and two modules
        # in one file without one.
        first = made[0][0]
        self.sh(self.tool("opt"), f"{first}.bc", "-o", f"{first}-stored.bc")
        made.append((f"{first}-stored", made[0][1]))
        self.sh(self.tool("llvm-cat"), "-b", "-o", f"{first}-two.bc",
                f"{first}.bc", f"{made[1][0]}.bc")
        made.append((f"{first}-two", made[0][1]))
        for stem, triple in made:
            # Offload targets spell out all four parts of the triple.
            target = (f"hip-{triple}--gfx906" if triple.startswith("amdgcn")
                      else f"openmp-{triple}-")
            self.sh(self.reference, "-type=o", f"-targets={HOST},{target}",
                    "-input=lib0.host.o", f"-input={stem}.bc",
                    f"-output={stem}.o")
            self.sh("ar", "rc", f"{stem}.a", f"{stem}.o")
            self.compare(f"rebuilt bitcode symbols {stem}",
                         ["-unbundle", "-type=a", f"-input={stem}.a",
                          f"-targets={target}", "-output=r.a"], ["r.a"])


# Triples and data layouts for the IR below: AMDGPU with and without a
# layout, and Mach-O, whose mangling adds "_".
REBUILD_TRIPLES = [
    ("amdgcn-amd-amdhsa", ""),
    ("amdgcn-amd-amdhsa", "e-m:e-p:64:64-i64:64-n32:64-S32-A5-G1"),
    ("x86_64-apple-macosx10.15", "e-m:o-i64:64-f80:128-n8:16:32:64-S128"),
    ("x86_64-apple-macosx10.15", ""),
]

# Every kind of global value and linkage; the numbered ones are unnamed (and
# must be numbered in order of appearance). The parts without pointers are
# shared by both assemblers; LLVM 14's knows only typed pointers.
IR_HEAD = r"""
@0 = internal global i32 1
@1 = global i32 2
@counter = global i32 0
@hidden_counter = hidden global i32 1
@common_value = common global i32 0
@weak_value = weak global i32 2
@internal_value = internal global i32 3
@private_value = private global i32 3
@external_value = external global i32
@linkonce_odr_value = linkonce_odr global i32 4
@available_value = available_externally global i32 5
@"\01raw_name" = global i32 6
@meta = global i32 7, section "llvm.metadata"
@2 = global i32 9
"""

IR_TAIL = r"""
define weak i32 @weak_function() { ret i32 1 }
define internal i32 @internal_function() { ret i32 2 }
define linkonce_odr i32 @inline_function() { ret i32 3 }
define available_externally i32 @available_function() { ret i32 4 }
define void @3() { ret void }
declare i32 @undefined_function()
"""

MODERN_IR = IR_HEAD + r"""
@weak_odr_value = weak_odr global i32 2
@extern_weak_value = extern_weak global i32
@linkonce_value = linkonce global i32 4
@"quoted name" = global i32 5
@in_section = global i32 8, section ".data.custom"
@constant_value = constant i32 9
@tls_value = thread_local global i32 10
@llvm.used = appending global [1 x ptr] [ptr @internal_value], section "llvm.metadata"
@alias_value = alias i32, ptr @counter
@weak_alias = weak alias i32, ptr @counter
@internal_alias = internal alias i32, ptr @counter
@ifunc_value = ifunc i32 (), ptr @resolver

define i32 @device_function(i32 %x) {
  %v = load i32, ptr @external_value
  %r = add i32 %x, %v
  ret i32 %r
}
define private i32 @private_function() { ret i32 2 }
define protected i32 @protected_function() { ret i32 5 }
define ptr @resolver() { ret ptr @weak_function }
define i32 @"\01raw_function"() { ret i32 6 }
declare i32 @llvm.smax.i32(i32, i32)
""" + IR_TAIL

TYPED_POINTER_IR = IR_HEAD + r"""
@llvm.used = appending global [1 x i8*] [i8* bitcast (i32* @internal_value to i8*)], section "llvm.metadata"
@alias_value = alias i32, i32* @counter
@internal_alias = internal alias i32, i32* @counter

define i32 @device_function(i32 %x) {
  %v = load i32, i32* @external_value
  %r = add i32 %x, %v
  ret i32 %r
}
""" + IR_TAIL

def vbr6_bits(text):
    """The bits, first first, of the characters of `text` as the operands
    of an unabbreviated bitcode record: each a VBR6 number."""
    bits = ""
    for value in text.encode():
        while True:
            chunk, value = value & 31, value >> 5
            chunk |= 32 if value else 0
            bits += "".join("1" if chunk >> i & 1 else "0" for i in range(6))
            if not value:
                break
    return bits


def replaced_in_bitstream(data, old, new):
    """`data` with the one unabbreviated string record piece `old`
    replaced by `new`, written in as many bits (clang writes a module's
    data layout so)."""
    bits = "".join(f"{byte:08b}"[::-1] for byte in data)
    before, after = vbr6_bits(old), vbr6_bits(new)
    assert len(before) == len(after), (old, new)
    at = bits.find(before)
    assert at >= 0 and bits.find(before, at + 1) < 0, f"{old!r} not once"
    bits = bits[:at] + after + bits[at + len(before):]
    return bytes(int(bits[i:i + 8][::-1], 2) for i in range(0, len(bits), 8))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    args = parser.parse_args()
    bin_folder = os.path.dirname(args.reference)
    require_executables(args.reference, *(
        os.path.join(bin_folder, name) for name in
        ("clang", "llvm-ar", "llvm-as", "llvm-cat", "opt")))
    with tempfile.TemporaryDirectory(prefix="offbundle-archives-") as folder:
        suite = Suite(os.path.abspath(args.ours), args.reference, folder)
        suite.run_all()
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
