#!/usr/bin/env python3
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
import shutil
import subprocess
import sys
import tempfile

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
            raise RuntimeError(f"{' '.join(command)}: {done.stderr.decode()}")

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
            results.append((done.returncode, done.stdout,
                            done.stderr.replace(tool.encode(), b"TOOL"), files))
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
        # Not an archive, an empty archive, a missing one.
        with open(os.path.join(self.folder, "empty.a"), "wb") as handle:
            handle.write(b"!<arch>\n")
        for archive in ("empty.a", "lib0.o", "missing.a"):
            self.compare(f"input {archive}",
                         ["-unbundle", "-type=a", f"-input={archive}",
                          "-targets=hip-amdgcn-amd-amdhsa--gfx906",
                          "-output=e.a", "-allow-missing-bundles"], ["e.a"])

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="offbundle-archives-") as folder:
        suite = Suite(os.path.abspath(args.ours), args.reference, folder)
        suite.run_all()
    print(f"{suite.passed} passed, {suite.failed} failed")
    return 1 if suite.failed or suite.passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
