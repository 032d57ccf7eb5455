# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""OpenMP offloading files of clang's new driver: prune, compress, decompress.

clang 22 builds OpenMP target regions for gfx906 and gfx90a (-fopenmp
--offload-arch, no ROCm needed with -nogpulib) into objects whose
.llvm.offloading section holds one offload binary per image; an archive
holds such objects; a program linked from them (against stand-ins for
libomp and libomptarget, which the test writes) keeps the binaries in an
allocated .llvm.offloading that the runtime's image table points into.
LLVM 22's llvm-offload-binary is the reference for what each holds.
Checked:

- the object: prune -k gfx906 keeps that binary, which LLVM 22 extracts as
  from the original, and drops the other; compress and decompress leave it
  byte for byte, saying why (offload binaries, not bundles);
- the archive: prune keeps the gfx906 binary of its member; compress and
  decompress leave it byte for byte, with the same reason (not "already
  compressed", not "already uncompressed");
- the linked program: list gives its gfx906 binary; compress and
  decompress leave it byte for byte, with that reason; prune is one error
  line saying why it is not pruned, exit 1, nothing written; compress
  --in-place over a folder holding it counts it unchanged and exits 0,
  prune --in-place counts it failed, and the file keeps its bytes.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (BuildingSuite, finish,  # noqa: E402
                           require_executables)

SOURCE = """\
int scale(float *a, int n) {
#pragma omp target map(tofrom : a[0 : n])
  { a[0] = n; }
  return 0;
}
"""
PROGRAM = """\
int scale(float *a, int n);
int main(void) {
  float a[4] = {0};
  return scale(a, 4);
}
"""
ARCHES = ["--offload-arch=gfx906", "--offload-arch=gfx90a"]
REASON = ("unchanged: it holds offload binaries (.llvm.offloading), not "
          "bundles, and LLVM 22 reads no compressed offload binary")


class Suite(BuildingSuite):
    def __init__(self, offbundle, reference_bin, work):
        super().__init__(reference_bin, work)
        self.offbundle = offbundle

    def run(self, *args):
        return subprocess.run([self.offbundle] + list(args),
                              capture_output=True, text=True, timeout=300,
                              cwd=self.work)

    def read(self, name):
        with open(os.path.join(self.work, name), "rb") as handle:
            return handle.read()

    def build(self):
        for name, text in (("scale.c", SOURCE), ("main.c", PROGRAM),
                           ("stub.c", "void stand_in(void) {}\n")):
            with open(os.path.join(self.work, name), "w") as handle:
                handle.write(text)
        clang = self.reference_tool("clang")
        self.build_step([clang, "-fopenmp", "-nogpulib", "-O2", "-c",
                         "scale.c", "-o", "scale.o"] + ARCHES)
        self.build_step([self.reference_tool("llvm-ar"), "rc", "libscale.a",
                         "scale.o"])
        # The program links against stand-ins for the OpenMP runtimes; it
        # is read here, never run.
        for library in ("libomp.so", "libomptarget.so"):
            self.build_step([clang, "-shared", "stub.c", "-o", library])
        self.build_step([clang, "-fopenmp", "-nogpulib", "-O2", "main.c",
                         "scale.c", "-L.", "-o", "program",
                         "-Wl,--unresolved-symbols=ignore-all",
                         "-Xoffload-linker", "--unresolved-symbols=ignore-all",
                         "--offload-arch=gfx906"])

    def image(self, path, arch):
        """The image LLVM 22's llvm-offload-binary extracts for `arch`."""
        out = os.path.join(self.work, f"{arch}.img")
        subprocess.run([self.reference_tool("llvm-offload-binary"), path,
                        f"--image=arch={arch},file={out}"],
                       capture_output=True, cwd=self.work, timeout=300)
        if not os.path.exists(out):
            return None
        data = self.read(out)
        os.unlink(out)
        return data

    def listed(self, name):
        done = self.run("list", name)
        return [line.split("\t")[1] for line in done.stdout.splitlines()]

    def check_pruned(self, name, pruned):
        done = self.run("prune", "-k", "gfx906", name, "-o", pruned)
        self.expect(done.returncode == 0 and "1 entry kept, 1 removed" in
                    done.stdout, f"{name}: prune keeps one binary of two",
                    done.stdout + done.stderr)
        self.expect(self.listed(pruned) == ["openmp-amdgcn-amd-amdhsa--gfx906"],
                    f"{name} pruned: only the gfx906 binary is left",
                    str(self.listed(pruned)))
        original = self.image(name, "gfx906")
        self.expect(original and self.image(pruned, "gfx906") == original,
                    f"{name} pruned: LLVM 22 extracts the gfx906 image it "
                    "extracts from the original")

    def check_unchanged(self, name):
        for command in ("compress", "decompress"):
            out = f"{command}-{name}"
            done = self.run(command, name, "-o", out)
            self.expect(done.returncode == 0 and
                        done.stdout.rstrip("\n").endswith(REASON) and
                        self.read(out) == self.read(name),
                        f"{name}: {command} leaves it byte for byte and "
                        "says why", done.stdout + done.stderr)

    def check_program(self):
        self.expect(self.listed("program") ==
                    ["openmp-amdgcn-amd-amdhsa--gfx906"],
                    "program: list gives its gfx906 binary")
        self.check_unchanged("program")
        done = self.run("prune", "-k", "gfx906", "program", "-o", "pruned")
        self.expect(done.returncode == 1 and not done.stdout and
                    done.stderr == "offbundle: error: 'program': its offload "
                    "binaries (.llvm.offloading) are not pruned: the "
                    "offloading runtime's image table points into them in "
                    "a linked file\n" and
                    not os.path.exists(os.path.join(self.work, "pruned")),
                    "program: prune is one error line saying why",
                    done.stderr)
        folder = os.path.join(self.work, "installed")
        os.makedirs(folder)
        shutil.copy2(os.path.join(self.work, "program"), folder)
        installed = os.path.join(folder, "program")
        before = os.stat(installed)
        done = self.run("compress", "--in-place", folder)
        self.expect(done.returncode == 0 and done.stdout.splitlines()[-1]
                    .startswith("0 files rewritten, 1 unchanged, 0 failed"),
                    "program: compress --in-place counts it unchanged",
                    done.stdout + done.stderr)
        done = self.run("prune", "-k", "gfx906", "--in-place", folder)
        self.expect(done.returncode == 1 and done.stdout.splitlines()[-1]
                    .startswith("0 files rewritten, 0 unchanged, 1 failed"),
                    "program: prune --in-place counts it failed",
                    done.stdout + done.stderr)
        after = os.stat(installed)
        self.expect((after.st_ino, after.st_mtime_ns) ==
                    (before.st_ino, before.st_mtime_ns) and
                    self.read("installed/program") == self.read("program"),
                    "program: in place, the file keeps its bytes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--reference-bin", required=True)
    args = parser.parse_args()
    require_executables(args.offbundle, *(
        os.path.join(args.reference_bin, name)
        for name in ("clang", "llvm-ar", "llvm-offload-binary")))
    work = tempfile.mkdtemp(prefix="offbundle-openmp-")
    suite = Suite(os.path.abspath(args.offbundle), args.reference_bin, work)
    try:
        suite.build()
        suite.check_pruned("scale.o", "pruned.o")
        suite.check_unchanged("scale.o")
        suite.check_pruned("libscale.a", "pruned.a")
        suite.check_unchanged("libscale.a")
        suite.check_program()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
