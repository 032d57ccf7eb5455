#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Real HIP builds, driven by clang 22, through LLVM's bundler and through ours.

clang 22 compiles HIP for AMD GPUs without a ROCm installation (-nogpulib
-nogpuinc, lld for device links) and calls clang-offload-bundler at every
offloading step; -B<folder> makes it call the one in that folder. Each build
runs twice, in two folders: once with a folder whose clang-offload-bundler
wraps LLVM 22's, once with a folder whose clang-offload-bundler wraps ours.
The wrappers log every call, which proves which tool ran and shows what clang
asked for. Every object, archive and program must be byte-identical between
the two builds, and every step must have called the bundler.

The host programs link against a stub of the HIP runtime's registration and
launch functions (written here), so they link on any machine.

Usage: hip_builds.py --ours PATH --reference-bin DIR [--keep DIR]
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import finish, require_executables  # noqa: E402

ARCHES = ["--offload-arch=gfx906", "--offload-arch=gfx90a:xnack+"]
COMMON = ["-nogpulib", "-nogpuinc", "-O1"]

DECLARATIONS = """\
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **,
                               unsigned long, hipStream_t);
"""

SOURCES = {
    "kernel.hip": DECLARATIONS + """
__attribute__((device)) float twice(float x);
__attribute__((global)) void scale(float *p, float f) { p[0] = twice(p[0]) * f; }
""",
    "device_lib.hip": DECLARATIONS + """
__attribute__((device)) float twice(float x) { return x + x; }
__attribute__((global)) void fill(float *p) { p[0] = 1.0f; }
""",
    "main.hip": DECLARATIONS + """
__attribute__((global)) void scale(float *p, float f);
int main() { return 0; }
""",
    "standalone.hip": DECLARATIONS + """
__attribute__((global)) void add_one(int *p) { p[0] += 1; }
int main() { return 0; }
""",
}

# The HIP runtime's entry points that compiled host code refers to.
RUNTIME_STUB = """\
void **__hipRegisterFatBinary(const void *data) { (void)data; static void *h; return &h; }
void __hipRegisterFunction(void **m, const void *hf, char *df, const char *dn,
                           int t, void *a, void *b, void *c, void *d, int *e) {}
void __hipRegisterVar(void **m, char *hv, char *dv, const char *dn, int ext,
                      long size, int cnst, int global) {}
void __hipUnregisterFatBinary(void **m) {}
int hipLaunchKernel(const void *f) { return 0; }
int __hipPushCallConfiguration(long a, int b, long c, int d, unsigned long e,
                               void *s) { return 0; }
int __hipPopCallConfiguration(void *a, void *b, void *c, void *d) { return 0; }
"""

WRAPPER = """#!/bin/sh
# Logs the call, then runs the bundler this build is meant to use.
printf '%s\\n' "$*" >> {log}
exec {tool} "$@"
"""


class Build:
    """One of the two builds: its folder, its bundler wrapper and its log."""

    def __init__(self, root, label, tool, bin_dir):
        self.label = label
        self.folder = os.path.join(root, label)
        self.tools = os.path.join(root, label + "-tools")
        self.log = os.path.join(self.tools, "calls.log")
        self.clang = os.path.join(bin_dir, "clang++")
        os.makedirs(self.folder)
        os.makedirs(self.tools)
        wrapper = os.path.join(self.tools, "clang-offload-bundler")
        with open(wrapper, "w") as handle:
            handle.write(WRAPPER.format(log=shlex.quote(self.log),
                                        tool=shlex.quote(tool)))
        os.chmod(wrapper, 0o755)
        for name, text in SOURCES.items():
            with open(os.path.join(self.folder, name), "w") as handle:
                handle.write(text)
        with open(os.path.join(self.folder, "hip_stub.c"), "w") as handle:
            handle.write(RUNTIME_STUB)

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as handle:
            return handle.read().splitlines()

    def run(self, command):
        done = subprocess.run(command, cwd=self.folder, capture_output=True,
                              text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{self.label}: {shlex.join(command)} failed:\n"
                               f"{done.stderr}")

    def clang_step(self, arguments):
        # A fixed compilation-unit ID per output keeps both builds' symbols
        # equal (clang otherwise draws one at random) and distinct across
        # translation units.
        output = arguments[arguments.index("-o") + 1]
        self.run([self.clang, "-B" + self.tools, f"-cuid={output}"] + COMMON +
                 arguments)

    def read(self, name):
        with open(os.path.join(self.folder, name), "rb") as handle:
            return handle.read()


def summarize(call):
    """The kind of bundler call: mode, type and notable flags."""
    # clang spells options with one dash or two; compare names only.
    names = [w.lstrip("-").split("=")[0] for w in call.split()]
    mode = "unbundle" if "unbundle" in names else (
        "list" if "list" in names else "bundle")
    kind = next((w.lstrip("-") for w in call.split()
                 if w.lstrip("-").startswith("type=")), "type=?")
    flags = sorted({n for n in names
                    if n in ("bundle-align", "compress",
                             "allow-missing-bundles", "hip-openmp-compatible",
                             "check-input-archive")})
    return " ".join([mode, "-" + kind] + ["-" + f for f in flags])


def steps(compress):
    extra = ["--offload-compress"] if compress else []
    link = ["--hip-link", "-fuse-ld=lld", "-L."] + ARCHES
    return [
        # (name, clang arguments, products to compare, expected bundler calls)
        ("stub runtime", None, [], []),
        ("compile, device code embedded (.hipfb)",
         ["-x", "hip", "-c", "standalone.hip", "-o", "standalone.o"] + ARCHES +
         extra, ["standalone.o"], ["bundle -type=o"]),
        ("link a non-relocatable program",
         ["standalone.o", "-o", "standalone", "-fuse-ld=lld", "-L.",
          "-lamdhip64"], ["standalone"], []),
        ("compile relocatable device code (fat objects)",
         ["-x", "hip", "-fgpu-rdc", "-c", "kernel.hip", "-o", "kernel.o"] +
         ARCHES + extra, ["kernel.o"], ["bundle -type=o"]),
        ("compile more relocatable objects",
         ["-x", "hip", "-fgpu-rdc", "-c", "main.hip", "-o", "main.o"] + ARCHES +
         extra, ["main.o"], ["bundle -type=o"]),
        ("compile the library object",
         ["-x", "hip", "-fgpu-rdc", "-c", "device_lib.hip", "-o",
          "device_lib.o"] + ARCHES + extra, ["device_lib.o"], ["bundle -type=o"]),
        ("link several relocatable objects (unbundles objects)",
         ["-fgpu-rdc", "main.o", "kernel.o", "device_lib.o", "-o", "app"] + link,
         ["app"], ["unbundle -type=o", "bundle -type=o"]),
        ("archive of fat objects", "archive", ["libdevice_lib.a"], []),
        ("link against the static library (unbundles the archive)",
         ["-fgpu-rdc", "main.o", "kernel.o", "-ldevice_lib", "-o",
          "app_with_library"] + link,
         ["app_with_library"], ["unbundle -type=a"]),
        ("compile with -save-temps",
         ["-x", "hip", "-fgpu-rdc", "-save-temps", "-c", "kernel.hip", "-o",
          "kernel_saved.o"] + ARCHES + extra, ["kernel_saved.o"],
         ["bundle -type=o"]),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference-bin", required=True)
    parser.add_argument("--keep", help="keep the build folders here")
    args = parser.parse_args()
    bin_dir = args.reference_bin
    llvm_ar = os.path.join(bin_dir, "llvm-ar")
    # clang 22 links with the ld.lld beside it; gcc and ar build the stub
    # runtime.
    require_executables(*(os.path.join(bin_dir, name) for name in
                          ("clang++", "clang-offload-bundler", "llvm-ar",
                           "ld.lld")),
                        *(shutil.which(name) or name for name in ("gcc", "ar")))
    root = tempfile.mkdtemp(prefix="offbundle-hip-")
    passed = failed = 0
    try:
        for compress in (False, True):
            label = "compressed" if compress else "plain"
            builds = [Build(root, f"{label}-llvm", os.path.join(
                          bin_dir, "clang-offload-bundler"), bin_dir),
                      Build(root, f"{label}-ours", os.path.abspath(args.ours),
                            bin_dir)]
            for name, arguments, products, expected in steps(compress):
                before = [len(b.calls()) for b in builds]
                try:
                    for build in builds:
                        if arguments is None:
                            build.run(["gcc", "-c", "hip_stub.c", "-o", "hip_stub.o"])
                            build.run(["ar", "rcD", "libamdhip64.a", "hip_stub.o"])
                        elif arguments == "archive":
                            build.run([llvm_ar, "rcD", "libdevice_lib.a",
                                       "device_lib.o"])
                        else:
                            build.clang_step(arguments)
                except RuntimeError as error:
                    failed += 1
                    print(f"FAIL [{label}] {name}: {error}")
                    continue
                made = [[summarize(c) for c in b.calls()[n:]]
                        for b, n in zip(builds, before)]
                problems = []
                for product in products:
                    if builds[0].read(product) != builds[1].read(product):
                        problems.append(f"{product} differs")
                if made[0] != made[1]:
                    problems.append(f"bundler calls differ: {made[0]} vs {made[1]}")
                for kind in expected:
                    if not any(call.startswith(kind) for call in made[1]):
                        problems.append(f"clang made no '{kind}' call to our bundler")
                calls = ", ".join(made[1]) if made[1] else "no bundler call"
                if problems:
                    failed += 1
                    print(f"FAIL [{label}] {name}: {'; '.join(problems)}")
                else:
                    passed += 1
                    print(f"ok   [{label}] {name}: {calls}")
    finally:
        if args.keep:
            shutil.copytree(root, args.keep, dirs_exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)
    return finish(passed, failed)


if __name__ == "__main__":
    sys.exit(main())
