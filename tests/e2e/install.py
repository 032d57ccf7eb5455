#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Installing offbundle and using what was installed, as a user would.

On a fresh prefix:
  1. `cmake --install` puts the three tools, the public header, the static
     libraries, the CMake package, the pkg-config file and the man pages in
     their GNUInstallDirs places, the libraries in the multiarch folder;
  2. examples/ builds against the installed package with find_package
     (another CMake project's view), and its list_entries prints, for a
     bundle made by the installed tool from tests/data/sample and for a HIP
     fat object (-fgpu-rdc), exactly what the installed
     `clang-offload-bundler -type=o -list` and LLVM 22's print; for a missing file it fails with exit 1 and the tool's message;
     its prune_targets (the API's Rewrite) writes, for the sample bundle,
     the bytes and the line the installed `offbundle prune` writes, fails
     as it does on the fat object (which it does not rewrite), and refuses
     a target an input lacks, writing nothing; its scan_tree (the API's
     walkFiles) finds in a folder of those inputs, a text file and a symlink
     the files and bundles the installed `offbundle verify` finds;
  3. the same examples build with `pkg-config --cflags --libs offbundle`
     alone, and do the same;
  4. `cpack -G DEB` makes two packages: offbundle (the tools), which
     depends on libc6 only, and offbundle-dev (the library), which depends
     on the package of every static library its pkg-config file links; they
     install under /usr, hold no path that an installed package (LLVM 22's
     included) owns, and install with `dpkg --root` into a throwaway root
     (or, without root, unpack with dpkg-deb -x); every installed tool
     prints the --version of the built one; man pages are installed
     compressed, and clang-offload-packager as a link;
  5. `clang++ -B<prefix>/bin` compiles HIP for two GPUs through the
     installed bundler (clang's -### shows it is the one run), and the
     object lists what LLVM 22 lists.

Usage: install.py --source DIR --build DIR --reference-bin FOLDER
"""

import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (Tally, finish, require_executables,  # noqa: E402
                           skip_suite)

TOOLS = ["clang-offload-bundler", "llvm-offload-binary", "llvm-extract-bundle-entry",
         "clang-offload-packager", "offbundle"]
LIBRARIES = ["api", "rewrite", "bundler", "formats", "archive", "bitcode",
             "targets", "compression", "support"]
SAMPLE_TARGETS = ["host-x86_64-unknown-linux-gnu",
                  "hip-amdgcn-amd-amdhsa--gfx906",
                  "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
                  "hip-amdgcn-amd-amdhsa--gfx1100"]
SAMPLE_FILES = ["host.bin", "device-gfx906.bin", "device-gfx90a_xnack+.bin",
                "device-gfx1100.bin"]


def read_bytes(path):
    with open(path, "rb") as handle:
        return handle.read()


def run(command, cwd=None, env=None):
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


class Suite(Tally):
    def __init__(self, args, work):
        super().__init__()
        self.source = os.path.abspath(args.source)
        self.build = os.path.abspath(args.build)
        self.reference = os.path.join(args.reference_bin,
                                      "clang-offload-bundler")
        self.clang = os.path.join(args.reference_bin, "clang++")
        self.work = work
        self.prefix = os.path.join(work, "prefix")
        # Where the build installs the libraries: Debian's multiarch
        # folder (lib/x86_64-linux-gnu), or a folder it was configured with.
        with open(os.path.join(self.build, "CMakeCache.txt")) as cache:
            self.libdir = re.search(r"^CMAKE_INSTALL_LIBDIR:PATH=(.*)$",
                                    cache.read(), re.M).group(1)

    def must(self, what, done):
        """Skips the suite when a step it builds on failed to run."""
        if done.returncode != 0:
            self.check(what, False, (done.stdout + done.stderr)[-1500:])
            sys.exit(finish(self.passed, self.failed))

    def installed(self):
        self.must("cmake --install", run(
            ["cmake", "--install", self.build, "--prefix", self.prefix]))
        expected = [f"bin/{tool}" for tool in TOOLS]
        lib = self.libdir
        expected += ["include/offbundle/offbundle.h",
                     f"{lib}/cmake/offbundle/offbundleConfig.cmake",
                     f"{lib}/cmake/offbundle/offbundleConfigVersion.cmake",
                     f"{lib}/cmake/offbundle/offbundleTargets.cmake",
                     f"{lib}/pkgconfig/offbundle.pc"]
        expected += [f"{lib}/liboffbundle_{name}.a" for name in LIBRARIES]
        expected += [f"share/man/man1/{tool}.1.gz" for tool in TOOLS]
        for path in expected:
            self.check(f"installed {path}",
                       os.path.isfile(os.path.join(self.prefix, path)))
        # One program under two names, as LLVM's.
        packager = os.path.join(self.prefix, "bin", "clang-offload-packager")
        self.check("clang-offload-packager is a link to llvm-offload-binary",
                   os.path.islink(packager) and
                   os.readlink(packager) == "llvm-offload-binary")
        for tool in TOOLS:
            page = os.path.join(self.source, "man", f"{tool}.1")
            installed = os.path.join(self.prefix, "share", "man", "man1",
                                     f"{tool}.1.gz")
            if os.path.isfile(installed):
                self.check(f"installed {tool}.1.gz is the page",
                           gzip.decompress(read_bytes(installed)) ==
                           read_bytes(page))
        for tool in TOOLS:
            self.check(f"installed {tool} runs",
                       run([os.path.join(self.prefix, "bin", tool),
                            "--version"]).returncode == 0)

    def sample_bundle(self):
        """A bundle of tests/data/sample made by the installed tool."""
        sample = os.path.join(self.source, "tests", "data", "sample")
        bundle = os.path.join(self.work, "sample.bundle")
        self.must("bundling the sample with the installed tool", run(
            [os.path.join(self.prefix, "bin", "clang-offload-bundler"),
             "-type=o", "-targets=" + ",".join(SAMPLE_TARGETS),
             f"-output={bundle}"] +
            [f"-input={os.path.join(sample, name)}" for name in SAMPLE_FILES]))
        return bundle

    def hip_object(self):
        """A HIP object for two GPUs, compiled by clang 22 through the
        installed bundler."""
        source = os.path.join(self.work, "kernel.hip")
        with open(source, "w") as handle:
            # Without HIP's headers (-nogpuinc): what a kernel launch needs.
            handle.write("struct dim3 { unsigned x, y, z; };\n"
                         "typedef struct ihipStream_t *hipStream_t;\n"
                         "extern \"C\" int hipLaunchKernel(const void *, dim3, "
                         "dim3, void **, unsigned long, hipStream_t);\n"
                         "__attribute__((global)) void kernel(int *out) "
                         "{ *out = 42; }\n")
        hip_object = os.path.join(self.work, "kernel.o")
        # -fgpu-rdc: a fat object (bundle sections), which LLVM 22's -list
        # reads too (without it the bundle sits in .hip_fatbin, where only
        # offbundle looks).
        command = [self.clang, "-x", "hip", "--offload-arch=gfx906",
                   "--offload-arch=gfx90a", "-fgpu-rdc", "-nogpulib",
                   "-nogpuinc", "-c",
                   source, "-o", hip_object, f"-B{self.prefix}/bin"]
        shown = run(command + ["-###"])
        bundler = os.path.join(self.prefix, "bin", "clang-offload-bundler")
        self.check("clang -B<prefix>/bin runs the installed bundler",
                   f'"{bundler}"' in shown.stderr, shown.stderr[-800:])
        done = run(command)
        if done.returncode != 0:
            skip_suite(f"clang 22 could not compile HIP: {done.stderr[-300:]}")
        return hip_object

    def lists_as_llvm(self, label, program, inputs):
        installed = os.path.join(self.prefix, "bin", "clang-offload-bundler")
        for path in inputs:
            ours = run([program, path])
            for name, tool in (("the installed tool", installed),
                               ("LLVM 22", self.reference)):
                theirs = run([tool, "-type=o", "-list", f"-input={path}"])
                self.check(f"{label}: lists {os.path.basename(path)} as "
                           f"{name}",
                           ours.returncode == theirs.returncode == 0 and
                           ours.stdout == theirs.stdout and ours.stdout,
                           f"{ours.stdout!r} {ours.stderr!r} vs "
                           f"{theirs.stdout!r}")
        missing = os.path.join(self.work, "missing.o")
        ours = run([program, missing])
        theirs = run([self.reference, "-type=o", "-list",
                      f"-input={missing}"])
        message = theirs.stderr.split(": error: ", 1)[-1]
        self.check(f"{label}: a missing file fails with the tool's message",
                   ours.returncode == 1 and ours.stderr.count("\n") == 1 and
                   ours.stderr.endswith(": error: " + message),
                   f"{ours.stderr!r} vs {theirs.stderr!r}")

    def prunes_as_offbundle(self, label, program, inputs):
        """The pruning example against the installed offbundle: the same
        bytes and line, or the same error; the first input must prune."""
        installed = os.path.join(self.prefix, "bin", "offbundle")
        output = os.path.join(self.work, "pruned")
        for index, path in enumerate(inputs):
            name = os.path.basename(path)
            theirs = run([installed, "prune", "--keep", "gfx90a", "-o",
                          output, path])
            expected = read_bytes(output) if theirs.returncode == 0 else None
            if os.path.exists(output):
                os.remove(output)
            ours = run([program, path, output, "gfx90a"])
            if theirs.returncode == 0 or index == 0:
                self.check(f"{label}: prunes {name} as the installed "
                           "offbundle",
                           theirs.returncode == ours.returncode == 0 and
                           ours.stdout == theirs.stdout and
                           ", 0 removed" not in ours.stdout and
                           read_bytes(output) == expected,
                           f"{ours.stdout!r} {ours.stderr!r} vs "
                           f"{theirs.stdout!r} {theirs.stderr!r}")
            else:
                self.check(f"{label}: fails on {name} as the installed "
                           "offbundle",
                           ours.returncode == 1 and
                           ours.stderr.split(": error: ", 1)[-1] ==
                           theirs.stderr.split(": error: ", 1)[-1] and
                           not os.path.exists(output),
                           f"{ours.stderr!r} vs {theirs.stderr!r}")
            if os.path.exists(output):
                os.remove(output)
            refused = run([program, path, output, "gfx1201"])
            self.check(f"{label}: refuses to prune {name} to a target it "
                       "lacks, writing nothing",
                       refused.returncode == 1 and
                       refused.stderr.count("\n") == 1 and
                       not os.path.exists(output), refused.stderr)

    def scans_as_offbundle(self, label, program, inputs):
        """The scanning example against the installed offbundle verify, on
        a folder holding the inputs, a text file and a symlink: the same
        files with the same number of bundles, the same skipped count."""
        folder = os.path.join(self.work, "scanned")
        if not os.path.isdir(folder):
            os.makedirs(os.path.join(folder, "sub"))
            for index, path in enumerate(inputs):
                shutil.copyfile(path, os.path.join(folder, "sub" if index
                                                   else "", os.path.basename(
                                                       path)))
            with open(os.path.join(folder, "notes.txt"), "w") as notes:
                notes.write("no GPU code\n")
            os.symlink(os.path.basename(inputs[0]),
                       os.path.join(folder, "link"))
        installed = run([os.path.join(self.prefix, "bin", "offbundle"),
                         "verify", folder])
        expected = [re.sub(r": ok, (\d+ bundles?) .*", r": \1", line)
                    for line in installed.stdout.splitlines()
                    if ": ok, " in line]
        ours = run([program, folder])
        lines = ours.stdout.splitlines()
        self.check(f"{label}: scans a folder as offbundle verify walks it",
                   ours.returncode == 0 and lines[:-1] == expected and
                   len(expected) == len(inputs) and
                   lines[-1] == "skipped 1 files holding no GPU code",
                   f"{ours.stdout!r} {ours.stderr!r} vs {installed.stdout!r}")

    def example_with_cmake(self, inputs):
        build = os.path.join(self.work, "examples-cmake")
        self.must("configuring examples/ with find_package(offbundle)", run(
            ["cmake", "-S", os.path.join(self.source, "examples"), "-B",
             build, f"-DCMAKE_PREFIX_PATH={self.prefix}"]))
        self.must("building examples/", run(["cmake", "--build", build]))
        self.lists_as_llvm("example (CMake package)",
                           os.path.join(build, "list_entries"), inputs)
        self.prunes_as_offbundle("example (CMake package)",
                                 os.path.join(build, "prune_targets"), inputs)
        self.scans_as_offbundle("example (CMake package)",
                                os.path.join(build, "scan_tree"), inputs)

    def example_with_pkg_config(self, inputs):
        env = dict(os.environ,
                   PKG_CONFIG_PATH=os.path.join(self.prefix, self.libdir,
                                                "pkgconfig"))
        flags = run(["pkg-config", "--cflags", "--libs", "offbundle"],
                    env=env)
        self.must("pkg-config --cflags --libs offbundle", flags)
        program = os.path.join(self.work, "list_entries_pc")
        self.must("building the example with pkg-config's flags", run(
            ["g++", "-std=c++17",
             os.path.join(self.source, "examples", "list_entries.cpp"),
             "-o", program] + flags.stdout.split()))
        self.lists_as_llvm("example (pkg-config)", program, inputs)
        pruner = os.path.join(self.work, "prune_targets_pc")
        self.must("building the pruning example with pkg-config's flags", run(
            ["g++", "-std=c++17",
             os.path.join(self.source, "examples", "prune_targets.cpp"),
             "-o", pruner] + flags.stdout.split()))
        self.prunes_as_offbundle("example (pkg-config)", pruner, inputs)
        scanner = os.path.join(self.work, "scan_tree_pc")
        self.must("building the scanning example with pkg-config's flags", run(
            ["g++", "-std=c++17",
             os.path.join(self.source, "examples", "scan_tree.cpp"),
             "-o", scanner] + flags.stdout.split()))
        self.scans_as_offbundle("example (pkg-config)", scanner, inputs)

    def debian_package(self):
        packages = os.path.join(self.work, "packages")
        self.must("cpack -G DEB", run(
            ["cpack", "-G", "DEB", "-B", packages, "--config",
             os.path.join(self.build, "CPackConfig.cmake")]))
        debs = {run(["dpkg-deb", "-f", os.path.join(packages, name),
                     "Package"]).stdout.strip(): os.path.join(packages, name)
                for name in os.listdir(packages) if name.endswith(".deb")}
        self.check("cpack made offbundle and offbundle-dev",
                   sorted(debs) == ["offbundle", "offbundle-dev"], str(debs))
        if sorted(debs) != ["offbundle", "offbundle-dev"]:
            return
        depends = run(["dpkg-deb", "-f", debs["offbundle"],
                       "Depends"]).stdout.strip()
        self.check("offbundle (the tools) depends on libc6 only",
                   depends.startswith("libc6 (>=") and "," not in depends,
                   depends)
        # The library's CMake package and pkg-config file link these
        # static libraries: each must come from a package it depends on.
        dev_depends = run(["dpkg-deb", "-f", debs["offbundle-dev"],
                           "Depends"]).stdout
        linked = re.findall(r"(/\S+\.a)\b",
                            read_bytes(os.path.join(
                                self.prefix, self.libdir, "pkgconfig",
                                "offbundle.pc")).decode())
        for library in linked:
            owner = run(["dpkg", "-S", os.path.realpath(library)])
            package = owner.stdout.split(":")[0]
            self.check(f"offbundle-dev depends on {package}, which holds "
                       f"{library}", owner.returncode == 0 and
                       re.search(rf"(^|[ ,|]){re.escape(package)}([ ,(]|$)",
                                 dev_depends) is not None, dev_depends)
        paths = []
        for name, deb in debs.items():
            listing = run(["dpkg-deb", "-c", deb]).stdout.splitlines()
            paths += [line.split()[-1 if "->" not in line else -3].lstrip(".")
                      for line in listing if not line.startswith("d")]
        self.check("the .debs install under /usr",
                   paths and all(p.startswith("/usr/") for p in paths),
                   str(paths[:5]))
        owned = [p for p in paths if run(["dpkg", "-S", p]).returncode == 0]
        self.check("no installed package owns a path of the .debs",
                   not owned, str(owned))
        root = os.path.join(self.work, "root")
        if os.geteuid() == 0:
            database = os.path.join(root, "var", "lib", "dpkg")
            os.makedirs(os.path.join(database, "info"))
            os.makedirs(os.path.join(database, "updates"))
            open(os.path.join(database, "status"), "w").close()
            # The throwaway root has no libc6 package: only that dependency
            # is forced.
            self.must("dpkg --root -i", run(
                ["dpkg", f"--root={root}", "--force-depends",
                 "--force-script-chrootless", "--log=/dev/null", "-i",
                 *debs.values()]))
        else:
            for deb in debs.values():
                self.must("dpkg-deb -x", run(["dpkg-deb", "-x", deb, root]))
        for tool in TOOLS:
            installed = run([os.path.join(root, "usr", "bin", tool),
                             "--version"])
            built = run([os.path.join(self.build, "bin", tool), "--version"])
            self.check(f".deb's {tool} --version",
                       installed.returncode == 0 and
                       installed.stdout == built.stdout and built.stdout,
                       installed.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--reference-bin", required=True)
    args = parser.parse_args()
    require_executables(os.path.join(args.reference_bin,
                                     "clang-offload-bundler"),
                        os.path.join(args.reference_bin, "clang++"),
                        shutil.which("cpack") or "cpack",
                        shutil.which("pkg-config") or "pkg-config",
                        shutil.which("dpkg-deb") or "dpkg-deb")
    work = tempfile.mkdtemp(prefix="offbundle-install.")
    try:
        suite = Suite(args, work)
        suite.installed()
        inputs = [suite.sample_bundle(), suite.hip_object()]
        suite.example_with_cmake(inputs)
        suite.example_with_pkg_config(inputs)
        suite.debian_package()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
