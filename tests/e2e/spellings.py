# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Targets spelled as LLVM after version 22 spells them, read as LLVM 22's.

LLVM main names the AMDGPU architecture "amdgpu", with sub-architectures
that name a processor ("amdgpu9.0a" is gfx90a), and writes triples
normalized ("amdgcn-amd-amdhsa-unknown"). Bundles are built here from the
format's definition (tests/bundle_bytes.py) twice: once with entry IDs in
those spellings, once with the same payloads in LLVM 22's spelling (the
control). Checked:

- offbundle sizes --json reports the same targets, entries and bytes for
  both, plain and compressed;
- extract -t and prune --keep take every spelling of a target (its
  processor, its amdgpu sub-architecture, its entry ID in either spelling)
  and select the same payloads in both bundles;
- list still prints the IDs as stored;
- clang-offload-bundler keeps LLVM 22's behaviour: -list and -unbundle of
  the newly spelled bundle give the stdout, stderr, exit status and output
  bytes LLVM 22's tool gives (an amdgpu-spelled entry does not match an
  amdgcn target there). That bundle leaves out the entry whose triple has
  three fields, which LLVM 22 refuses and this bundler reads on purpose
  (the README's differences table).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import Tally, finish, tool_arguments  # noqa: E402
from bundle_bytes import binary_bundle, ccob  # noqa: E402

HOST = b"host-x86_64-unknown-linux-gnu-"
# (newer spelling, LLVM 22's spelling, payload)
ENTRIES = [
    (HOST, HOST, b"host code " * 7),
    (b"hip-amdgpu9.0a-amd-amdhsa-unknown-gfx90a:xnack+",
     b"hip-amdgcn-amd-amdhsa--gfx90a:xnack+", b"A" * 3000),
    (b"hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack-",
     b"hip-amdgcn-amd-amdhsa--gfx90a:xnack-", b"B" * 2000),
    (b"hipv4-amdgpu9.06-amd-amdhsa-unknown",
     b"hipv4-amdgcn-amd-amdhsa--gfx906", b"C" * 1500),
    (b"hip-amdgpu11.00-amd-amdhsa", b"hip-amdgcn-amd-amdhsa--gfx1100",
     b"D" * 700),
    (b"openmp-amdgpu-amd-amdhsa--gfx1201",
     b"openmp-amdgcn-amd-amdhsa--gfx1201", b"E" * 900),
]

# Each target written in every spelling a user may give; all of one line
# select the same entries.
# (An entry ID follows the bundler's rules, under which a target without
# xnack does not take code built for xnack+: "gfx90a" and
# "hip-amdgcn-amd-amdhsa--gfx90a" select different entries.)
SELECTIONS = [
    ["gfx90a", "amdgpu9.0a"],
    ["gfx90a:xnack+", "amdgpu9.0a:xnack+"],
    ["hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
     "hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack+",
     "hip-amdgpu9.0a-amd-amdhsa-unknown-gfx90a:xnack+",
     "hip-amdgpu9.0a-amd-amdhsa--gfx90a:xnack+"],
    ["gfx906", "amdgpu9.06", "hipv4-amdgpu9.06-amd-amdhsa-unknown",
     "hip-amdgcn-amd-amdhsa--gfx906"],
    ["gfx1100", "amdgpu11.00", "hip-amdgpu11.00-amd-amdhsa"],
    ["gfx1201", "amdgpu12.01", "openmp-amdgpu-amd-amdhsa-unknown-gfx1201"],
]


class Suite(Tally):
    def __init__(self, offbundle, ours, reference):
        super().__init__()
        self.offbundle = offbundle
        self.ours = ours
        self.reference = reference

    def expect(self, ok, label, detail=""):
        """Counts one check: `label` says what must hold."""
        self.check(label, bool(ok), detail)

    def run(self, tool, arguments):
        return subprocess.run([tool] + arguments, capture_output=True,
                              text=True, timeout=60)


def extracted(folder):
    """The payloads extract wrote, by their bytes (names keep the stored
    IDs, which differ between the two bundles)."""
    payloads = []
    for directory, _, names in os.walk(folder):
        for name in names:
            with open(os.path.join(directory, name), "rb") as handle:
                payloads.append(handle.read())
    return sorted(payloads)


def kept_payloads(suite, bundle):
    """The device payloads a bundle holds, through offbundle list and
    extract."""
    listing = suite.run(suite.offbundle, ["list", "--json", bundle])
    entries = json.loads(listing.stdout)["files"][0]["entries"]
    return sorted(e["size"] for e in entries if not e["id"].startswith("host"))


def check_sizes(suite, newer, control, what):
    reports = []
    for bundle in (newer, control):
        done = suite.run(suite.offbundle, ["sizes", "--json", bundle])
        suite.expect(done.returncode == 0, f"{what}: sizes exits 0",
                    done.stderr)
        targets = json.loads(done.stdout)["files"][0]["targets"]
        # The longer IDs make the file, and so the shares, differ.
        reports.append([(t["target"], t["entries"], t["bytes"])
                        for t in targets])
    suite.expect(reports[0] == reports[1],
                f"{what}: sizes reports the same targets for both spellings",
                f"{reports[0]} != {reports[1]}")
    names = [target for target, _, _ in reports[0]]
    suite.expect(len(names) == len(set(names)) == 6,
                f"{what}: one row per target", str(names))


def check_selection(suite, work, newer, control):
    for spellings in SELECTIONS:
        wanted = None
        for spelling in spellings:
            for bundle in (newer, control):
                out = os.path.join(work, "x")
                shutil.rmtree(out, ignore_errors=True)
                done = suite.run(suite.offbundle,
                                 ["extract", bundle, "-t", spelling, "-o",
                                  out])
                got = extracted(out) if done.returncode == 0 else None
                if wanted is None:
                    wanted = got
                    suite.expect(bool(got), f"extract -t {spelling}: "
                                "something selected", done.stderr)
                suite.expect(got == wanted,
                            f"extract -t {spelling} of "
                            f"{os.path.basename(bundle)}: the same payloads "
                            f"as -t {spellings[0]}")
                pruned = os.path.join(work, "pruned")
                done = suite.run(suite.offbundle,
                                 ["prune", bundle, "--keep", spelling, "-o",
                                  pruned])
                suite.expect(done.returncode == 0,
                            f"prune --keep {spelling}: exit 0", done.stderr)
                if done.returncode == 0:
                    suite.expect(kept_payloads(suite, pruned) ==
                                sorted(len(p) for p in wanted),
                                f"prune --keep {spelling} of "
                                f"{os.path.basename(bundle)}: keeps what "
                                "extract selects")


def check_bundler(suite, work):
    """clang-offload-bundler as LLVM 22: the newer spellings are other
    targets there."""
    kept = [(n, p) for n, _, p in ENTRIES if n.count(b"-") >= 4]
    newer = os.path.join(work, "five-part.bundle")
    with open(newer, "wb") as handle:
        handle.write(binary_bundle([n for n, _ in kept],
                                   [p for _, p in kept], 16))
    runs = [
        ["-list", "-type=o", "-input=" + newer],
        ["-unbundle", "-type=o", "-input=" + newer,
         "-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack-", "-output=OUT"],
        ["-unbundle", "-type=o", "-input=" + newer,
         "-targets=hip-amdgcn-amd-amdhsa--gfx90a:xnack+", "-output=OUT"],
        ["-unbundle", "-type=o", "-input=" + newer,
         "-targets=hip-amdgpu9.0a-amd-amdhsa-unknown-gfx90a:xnack+",
         "-output=OUT"],
    ]
    for arguments in runs:
        results = []
        for tool, name in ((suite.reference, "llvm"), (suite.ours, "ours")):
            output = os.path.join(work, "unbundled." + name)
            if os.path.exists(output):
                os.remove(output)
            done = suite.run(tool, [a.replace("OUT", output)
                                    for a in arguments])
            data = None
            if os.path.exists(output):
                with open(output, "rb") as handle:
                    data = handle.read()
            results.append((done.returncode, done.stdout,
                            done.stderr.replace(tool, "TOOL"), data))
        suite.expect(results[0] == results[1],
                    f"clang-offload-bundler {arguments[0]} "
                    f"{arguments[-2] if len(arguments) > 3 else ''}: as LLVM "
                    "22", f"{results[0][:3]} != {results[1][:3]}")


def main():
    args = tool_arguments(__doc__.splitlines()[0], ("clang-offload-bundler",))
    reference = os.path.join(args.reference_bin, "clang-offload-bundler")
    suite = Suite(args.offbundle, args.ours, reference)
    work = tempfile.mkdtemp(prefix="offbundle-spellings-")
    try:
        payloads = [p for _, _, p in ENTRIES]
        newer_bytes = binary_bundle([n for n, _, _ in ENTRIES], payloads, 16)
        control_bytes = binary_bundle([c for _, c, _ in ENTRIES], payloads,
                                      16)
        newer = os.path.join(work, "newer.bundle")
        control = os.path.join(work, "control.bundle")
        for path, data in ((newer, newer_bytes), (control, control_bytes)):
            with open(path, "wb") as handle:
                handle.write(data)
        check_sizes(suite, newer, control, "plain")
        compressed = []
        for path, data in ((newer, newer_bytes), (control, control_bytes)):
            compressed.append(path + ".ccob")
            with open(compressed[-1], "wb") as handle:
                handle.write(ccob(data, 3))
        check_sizes(suite, compressed[0], compressed[1], "compressed")

        done = suite.run(args.offbundle, ["list", newer])
        stored = [line.split("\t")[1] for line in done.stdout.splitlines()]
        suite.expect(stored == [n.decode() for n, _, _ in ENTRIES],
                    "list prints the IDs as stored", str(stored))

        check_selection(suite, work, newer, control)
        check_bundler(suite, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return finish(suite.passed, suite.failed)


if __name__ == "__main__":
    sys.exit(main())
