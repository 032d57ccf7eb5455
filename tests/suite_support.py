# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Shared by the Python test suites under tests/: how a suite says it could
not run.

A suite that cannot run what it promises (LLVM 22's tool is missing, an input
it needs could not be built, a compiler is missing) must not report a pass.
It calls skip_suite(reason), which exits with status 77; ctest, told so by
SKIP_RETURN_CODE 77 in tests/CMakeLists.txt, then shows the test as Skipped.
Where the environment variable CI is "true" the machine is expected to have
everything, so a skip is a failure instead (exit 1, saying what was missing).

Tally counts a suite's checks and prints each failure as it happens; a
suite's own class derives from it.

finish() ends a suite from its counts: any failure fails it, a suite whose
every case was skipped is skipped, and one in which no case ran at all
fails; none of them passes.

A suite imports this module by putting tests/ on its path first:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    os.pardir))
    from suite_support import skip_suite
"""

import argparse
import os
import subprocess
import sys

# The exit status ctest reads as "skipped" (SKIP_RETURN_CODE).
SKIP_STATUS = 77


def skip_suite(reason):
    """Ends the suite as skipped because of `reason` (what is missing), or
    as failed when CI is "true"."""
    if os.environ.get("CI") == "true":
        print(f"error: the suite cannot run: {reason} (CI is true, where "
              "every suite must run)", flush=True)
        sys.exit(1)
    print(f"skipped: {reason}", flush=True)
    sys.exit(SKIP_STATUS)


def tool_arguments(description, reference_tools=(), add_options=None):
    """The command line of a suite that runs offbundle, this project's
    clang-offload-bundler (--ours) and LLVM 22's tools (--reference-bin),
    and what `add_options(parser)` adds: the parsed arguments, once every
    tool named is there (the suite is skipped otherwise)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference-bin", required=True)
    if add_options:
        add_options(parser)
    args = parser.parse_args()
    require_executables(args.offbundle, args.ours,
                        *(os.path.join(args.reference_bin, name)
                          for name in reference_tools))
    return args


def require_executables(*paths):
    """Skips the suite unless every path names an executable file."""
    missing = [path for path in paths
               if not (os.path.isfile(path) and os.access(path, os.X_OK))]
    if missing:
        skip_suite("missing: " + ", ".join(missing))


def report_skipped_cases(skipped):
    """Prints cases left out for a documented reason, counted per reason.
    `skipped` is a list of (case name, reason)."""
    reasons = {}
    for name, reason in skipped:
        reasons.setdefault(reason, []).append(name)
    for reason, names in reasons.items():
        print(f"skipped {len(names)} cases: {reason}: {names[0]}"
              f"{', ...' if len(names) > 1 else ''}")


class Tally:
    """Passed and failed checks of a suite."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, label, ok, detail=""):
        """Counts one check; prints `label` and `detail` when `ok` is
        false."""
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {label}" + (f": {detail}" if detail else ""),
                  flush=True)


class BuildingSuite(Tally):
    """A suite that builds its inputs with LLVM 22's tools (in
    `reference_bin`) in the folder `work`, and skips itself when a step
    fails."""

    def __init__(self, reference_bin, work):
        super().__init__()
        self.bin = reference_bin
        self.work = work

    def reference_tool(self, name):
        return os.path.join(self.bin, name)

    def expect(self, ok, label, detail=""):
        """Counts one check: `label` says what must hold."""
        self.check(label, bool(ok), detail)

    def build_step(self, command, cwd=None):
        """Runs a build command (in `work` unless `cwd`); its output is
        bytes."""
        done = subprocess.run(command, capture_output=True, timeout=300,
                              cwd=cwd or self.work)
        if done.returncode != 0:
            skip_suite(f"{' '.join(command)} failed: "
                       f"{done.stderr.decode(errors='replace').strip()}")
        return done


def finish(passed, failed, skipped=0):
    """Prints the summary line and returns the suite's exit status: 1 on a
    failure or when no case ran, 0 when some passed; skips the suite when
    every case was skipped. `skipped` counts cases left out for a
    documented reason."""
    summary = f"{passed} passed, {failed} failed"
    if skipped:
        summary += f", {skipped} skipped"
    print(summary, flush=True)
    if failed:
        return 1
    if passed == 0 and skipped:
        skip_suite("every case was skipped")
    if passed == 0:
        print("error: no case ran", flush=True)
        return 1
    return 0


def note_kernels(text):
    """Each kernel of the NT_AMDGPU_METADATA notes that llvm-readelf
    --notes prints as YAML in `text`, in note order, as {key: value}: keys
    without their leading dot, values as printed. A kernel starts at
    "  - .key: value"; its other keys are "    .key: value" (its arguments
    are indented further)."""
    kernels = []
    for line in text.splitlines():
        if line.startswith("  - ."):
            kernels.append({})
        if kernels and (line.startswith("  - .") or line.startswith("    .")):
            key, _, value = line.strip().lstrip("- ").partition(":")
            kernels[-1][key[1:]] = value.strip()
    return kernels


def function_sizes(text, table=None):
    """{name: size} of the FUNC symbols llvm-readelf --syms -W prints in
    `text`; only those of the symbol table named `table` (".symtab") when
    it is given."""
    sizes = {}
    current = None
    for line in text.splitlines():
        if line.startswith("Symbol table '"):
            current = line.split("'")[1]
            continue
        parts = line.split()
        if (len(parts) >= 8 and parts[3] == "FUNC" and
                (table is None or current == table)):
            sizes[parts[7]] = int(parts[2], 0)
    return sizes
