#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Differential tests for clang-offload-bundler.

Runs LLVM 22's clang-offload-bundler and ours on the same inputs, in two
identical scratch folders, and compares exit codes, standard output, standard
error and every file left in the folder, byte for byte. Cases are generated
from a fixed seed (so a failure names a case that can be rerun) plus a corpus
of hand-picked quirks in corpus.txt.

A hang of ours (no exit within the time limit) is always a failure, whatever
LLVM did. Without LLVM 22's tool the suite is skipped (exit 77, a failure
when CI is "true").

Usage: bundler_diff.py --ours PATH --reference PATH [--cases N] [--seed S]
                      [--timeout SECONDS]
"""

import argparse
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (finish, report_skipped_cases,  # noqa: E402
                           require_executables)

TOOL_NAME = "clang-offload-bundler"
SPEED = re.compile(rb"(Compression|Decompression) speed: [0-9.]+ MB/s")
TEXT_TYPES = ["i", "ii", "cui", "hipi", "d", "ll", "s"]
BINARY_TYPES = ["bc", "gch", "ast", "o", "a"]
BUNDLE_TYPES = TEXT_TYPES + [t for t in BINARY_TYPES if t != "a"]

HOST_TARGETS = [
    "host-x86_64-unknown-linux-gnu",
    "host-x86_64-pc-linux-gnu",
    "host-aarch64-unknown-linux-gnu",
    "host-x86_64-unknown-linux-",
    "host-i386-unknown-linux-gnu",
    "host-powerpc64le-unknown-linux-gnu",
]
DEVICE_TARGETS = [
    "hip-amdgcn-amd-amdhsa--gfx906",
    "hip-amdgcn-amd-amdhsa-unknown-gfx908",
    "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
    "hip-amdgcn-amd-amdhsa--gfx90a:xnack-",
    "hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+",
    "hip-amdgcn-amd-amdhsa--gfx1030",
    "hip-amdgcn-amd-amdhsa--gfx1100",
    "hip-amdgcn-amd-amdhsa--gfx942:xnack-",
    "hip-amdgcn-amd-amdhsa--gfx11-generic",
    "hip-amdgcn-amd-amdhsa--gfx940",
    "hipv4-amdgcn-amd-amdhsa--gfx906",
    "hipv4-amdgcn-amd-amdhsa--gfx1201",
    "hip-spirv64-amd-amdhsa--amdgcnspirv",
    "openmp-amdgcn-amd-amdhsa--gfx906",
    "openmp-amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+",
    "openmp-nvptx64-nvidia-cuda--sm_70",
    "openmp-nvptx64-nvidia-cuda--sm_90a",
    "openmp-nvptx64-nvidia-cuda-",
    "openmp-x86_64-unknown-linux-gnu",
    "hip-nvptx64-nvidia-cuda--sm_80",
]
# Spellings a user may request that differ from what was bundled.
REQUEST_VARIANTS = [
    "hip-amdgcn-amd-amdhsa-unknown-gfx906",
    "hip-amdgcn-amd-amdhsa--gfx906:xnack+",
    "hip-amdgcn-amd-amdhsa--gfx906:sramecc-:xnack-",
    "hip-amdgcn-amd-amdhsa--gfx90a",
    "hip-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack+",
    "hip-amdgcn-amd-amdhsa--gfx90a:xnack+",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+",
    "openmp-amdgcn-amd-amdhsa--gfx906",
    "openmp-amdgcn-amd-amdhsa--gfx1030",
    "hip-amdgcn-amd-amdhsa--gfx1031",
    "openmp-nvptx64-nvidia-cuda--sm_70",
    "host-x86_64-unknown-linux-gnu",
    "host-x86_64-unknown-linux",
    "host-x86_64-pc-linux-gnu",
]


def written_id(target):
    """The entry ID LLVM writes for the target strings used here: AMDHSA
    triples lose their environment."""
    parts = target.split("-", 5)
    if len(parts) >= 5 and parts[3] == "amdhsa":
        parts[4] = ""
    return "-".join(parts)


class Case:
    def __init__(self, name, argv, files, env=None, links=None, stdin=None):
        self.name = name
        self.argv = argv
        self.files = files  # name -> bytes
        self.env = env or {}  # extra environment variables
        self.links = links or {}  # name -> where the symbolic link points
        # Standard input: ("file", name) opens that file of the folder,
        # ("pipe", name) pipes its bytes; nothing leaves it as it is.
        self.stdin = stdin

    def describe(self):
        settings = "".join(f"{k}={shlex.quote(v)} " for k, v in self.env.items())
        return f"{self.name}: {settings}{TOOL_NAME} {shlex.join(self.argv)}"


# The "exit code" of a run killed after the time limit, in seconds.
TIMEOUT = "timeout"
TIME_LIMIT = [60.0]


def run_tool(executable, argv, folder, env, stdin=None):
    source = None
    feed = {}
    if stdin and stdin[0] == "file":
        source = open(os.path.join(folder, stdin[1]), "rb")
        feed["stdin"] = source
    elif stdin:
        with open(os.path.join(folder, stdin[1]), "rb") as handle:
            feed["input"] = handle.read()
    try:
        done = subprocess.run([TOOL_NAME] + argv, executable=executable,
                              cwd=folder, env=env, capture_output=True,
                              timeout=TIME_LIMIT[0], **feed)
        return done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        return TIMEOUT, b"", b""
    finally:
        if source:
            source.close()


def snapshot(folder):
    """Every file's bytes; a symbolic link as b"-> " and where it points."""
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            if os.path.islink(path):
                files[os.path.relpath(path, folder)] = (
                    b"-> " + os.readlink(path).encode())
                continue
            with open(path, "rb") as handle:
                files[os.path.relpath(path, folder)] = handle.read()
    return files


def run_case(case, ours, reference, env, scratch):
    results = []
    for label, executable in (("reference", reference), ("ours", ours)):
        folder = os.path.join(scratch, label)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for name, data in case.files.items():
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
        for name, target in case.links.items():
            os.symlink(target, os.path.join(folder, name))
        code, out, err = run_tool(executable, case.argv, folder,
                                  dict(env, **case.env), case.stdin)
        # Messages naming a response file give its absolute path, which
        # holds the scratch folder's name.
        err = err.replace(os.fsencode(folder), b"FOLDER")
        results.append((code, out, err, snapshot(folder)))
    # -verbose reports speeds, which no two runs share.
    results = [(code, out, SPEED.sub(rb"\1 speed: N MB/s", err), files)
               for code, out, err, files in results]
    ref, got = results
    problems = []
    # Two hangs are no agreement: ours must always end.
    if got[0] == TIMEOUT:
        problems.append("  ours hung: no exit within the time limit")
    for index, what in enumerate(("exit code", "stdout", "stderr")):
        if ref[index] != got[index]:
            problems.append(f"  {what}: reference {ref[index]!r}\n"
                            f"  {' ' * len(what)}  ours      {got[index]!r}")
    # LLVM leaves behind the outputs it wrote before failing; we leave the
    # folder as it was. So after a failed run the folder must be untouched,
    # and after a successful one identical to LLVM's.
    expected_files = ref[3] if ref[0] == 0 else dict(
        case.files, **{name: b"-> " + target.encode()
                       for name, target in case.links.items()})
    if expected_files != got[3]:
        names = sorted(set(expected_files) | set(got[3]))
        for name in names:
            if expected_files.get(name) != got[3].get(name):
                problems.append(f"  file {name}: expected "
                                f"{_short(expected_files.get(name))} ours "
                                f"{_short(got[3].get(name))}")
    return problems, ref, got


def _short(data):
    if data is None:
        return "(absent)"
    if len(data) > 80:
        return f"{len(data)} bytes {data[:60]!r}..."
    return repr(data)


def random_payload(rng, text):
    kind = rng.random()
    if kind < 0.1:
        return b""
    length = rng.choice([1, 5, 17, 100, 1000, 5000])
    if text:
        lines = []
        while sum(len(l) for l in lines) < length:
            lines.append("".join(rng.choice("abc xyz;#/\\{}()=0123")
                                 for _ in range(rng.randint(0, 40))))
        data = "\n".join(lines).encode()
        if rng.random() < 0.5:
            data += b"\n"
        return data
    return bytes(rng.getrandbits(8) for _ in range(length))


def pick_targets(rng):
    count = rng.randint(1, 5)
    devices = rng.sample(DEVICE_TARGETS, count - 1 if count > 1 else 0)
    if rng.random() < 0.15:
        # HIP device-only bundles need no host entry.
        hip = [t for t in DEVICE_TARGETS if t.startswith("hip")]
        return rng.sample(hip, rng.randint(1, 4))
    targets = [rng.choice(HOST_TARGETS)] + devices
    rng.shuffle(targets)
    return targets


def generated_cases(rng, count, reference, env, scratch, skipped):
    """Bundling cases, then listing and unbundling of what LLVM wrote.
    Cases left out by design go to `skipped` as (name, reason)."""
    cases = []
    for number in range(count):
        file_type = rng.choice(BUNDLE_TYPES)
        is_text = file_type in TEXT_TYPES
        targets = pick_targets(rng)
        files = {}
        argv = [f"-type={file_type}", "-targets=" + ",".join(targets),
                "-output=bundle"]
        for index, _ in enumerate(targets):
            name = f"in{index}"
            files[name] = random_payload(rng, is_text)
            argv.append(f"-input={name}")
        if not is_text and rng.random() < 0.5:
            argv.append(f"-bundle-align={rng.choice([1, 2, 3, 8, 64, 4096])}")
        settings = {}
        if rng.random() < 0.35:
            argv.append("-compress")
            if rng.random() < 0.2:
                argv.append("-verbose")
            if rng.random() < 0.5:
                argv.append(f"-compression-level={rng.choice([-5, 0, 1, 3, 9, 19])}")
            if rng.random() < 0.3:
                settings["COMPRESSED_BUNDLE_FORMAT_VERSION"] = rng.choice(["2", "3"])
        rng.shuffle(argv)
        bundle_case = Case(f"bundle-{number}", argv, files, settings)
        cases.append(bundle_case)

        # Make the bundle with the reference, so the next cases read what
        # LLVM itself wrote.
        folder = os.path.join(scratch, "make")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for name, data in files.items():
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(data)
        code, _, _ = run_tool(reference, argv, folder, dict(env, **settings))
        if code != 0 or not os.path.exists(os.path.join(folder, "bundle")):
            # The bundling case itself still compares the refusal.
            skipped.append((f"list-{number}, unbundle-{number}-*",
                            "LLVM 22 made no bundle to read back"))
            continue
        with open(os.path.join(folder, "bundle"), "rb") as handle:
            bundle = handle.read()

        list_argv = [f"-type={file_type}", "-list", "-input=bundle"]
        if rng.random() < 0.25:
            list_argv.append("-verbose")
        cases.append(Case(f"list-{number}", list_argv, {"bundle": bundle}))

        request_pool = targets + REQUEST_VARIANTS
        for variant in range(2):
            wanted = rng.sample(request_pool, rng.randint(1, 4))
            # Two spellings of one target: LLVM drops one of the outputs,
            # we refuse (a documented difference, tested in the corpus).
            if len({written_id(t) for t in wanted}) != len(wanted):
                skipped.append((f"unbundle-{number}-{variant}",
                                "two spellings of one target requested"))
                continue
            if sum(1 for t in wanted if t.startswith("host-")) > 1:
                skipped.append((f"unbundle-{number}-{variant}",
                                "several host targets requested"))
                continue
            argv = [f"-type={file_type}", "-unbundle", "-input=bundle",
                    "-targets=" + ",".join(wanted)]
            argv += [f"-output=out{i}" for i in range(len(wanted))]
            if rng.random() < 0.5:
                argv.append("-allow-missing-bundles")
            if rng.random() < 0.3:
                argv.append("-hip-openmp-compatible")
            if rng.random() < 0.15:
                argv.append("-verbose")
            rng.shuffle(argv)
            cases.append(Case(f"unbundle-{number}-{variant}", argv,
                              {"bundle": bundle}))
        # A file that is not a bundle passes through to the host output.
        plain = random_payload(rng, is_text)
        host = rng.choice(HOST_TARGETS[:3])
        device = rng.choice(DEVICE_TARGETS[:5])
        cases.append(Case(f"passthrough-{number}",
                          [f"-type={file_type}", "-unbundle", "-input=plain",
                           f"-targets={host},{device}", "-output=h",
                           "-output=d", "-allow-missing-bundles"],
                          {"plain": plain}))
    return cases


def crafted_list_cases(rng, count):
    """Binary bundles with arbitrary IDs: -list prints them in LLVM's
    StringMap order, which these cases pin down."""
    cases = []
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_:+."
    for number in range(count):
        ids = []
        for _ in range(rng.randint(1, 40)):
            length = rng.choice([1, 3, 8, 16, 30, 64, 200, 300])
            ids.append("".join(rng.choice(alphabet) for _ in range(length)))
        if rng.random() < 0.3:
            ids.append(rng.choice(ids))  # a repeated ID keeps its first place
        header = b"__CLANG_OFFLOAD_BUNDLE__" + len(ids).to_bytes(8, "little")
        size = len(header) + sum(24 + len(i) for i in ids) + 1
        for entry_id in ids:
            # Every entry's payload is the one byte (a null) ending the file.
            header += (size - 1).to_bytes(8, "little")
            header += (1).to_bytes(8, "little")
            header += len(entry_id).to_bytes(8, "little") + entry_id.encode()
        data = header + b"\x00"
        cases.append(Case(f"crafted-list-{number}",
                          ["-type=bc", "-list", "-input=crafted"],
                          {"crafted": data}))
    return cases


def corpus_cases(path):
    """Hand-picked quirks: one case per line,
    'name | argv | file=text ... | env:NAME=value ... | link:NAME=TARGET'
    (a symbolic link) | stdin:FILE (standard input is that file) |
    pipe:FILE (that file's bytes are piped to standard input)."""
    cases = []
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            name, argv = parts[0], shlex.split(parts[1])
            files = {}
            settings = {}
            links = {}
            stdin = None
            for spec in parts[2:]:
                if spec.startswith(("stdin:", "pipe:")):
                    kind, _, file_name = spec.partition(":")
                    stdin = ("file" if kind == "stdin" else "pipe", file_name)
                    continue
                if spec.startswith("env:"):
                    variable, _, value = spec[4:].partition("=")
                    settings[variable] = value
                    continue
                if spec.startswith("link:"):
                    link_name, _, target = spec[5:].partition("=")
                    links[link_name] = target
                    continue
                file_name, _, text = spec.partition("=")
                files[file_name] = text.encode().decode("unicode_escape").encode("latin-1")
            cases.append(Case(f"corpus:{line_number}:{name}", argv, files,
                              settings, links, stdin))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--cases", type=int, default=120)
    parser.add_argument("--crafted", type=int, default=60)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--corpus", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus.txt"))
    parser.add_argument("--only", help="run only cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=TIME_LIMIT[0],
                        help="seconds before a run counts as a hang")
    args = parser.parse_args()
    TIME_LIMIT[0] = args.timeout

    require_executables(args.reference)
    env = {"PATH": os.path.dirname(args.reference) + ":/usr/bin:/bin",
           "LC_ALL": "C"}
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="offbundle-diff-") as scratch:
        skipped = []
        cases = corpus_cases(args.corpus)
        cases += generated_cases(rng, args.cases, args.reference, env, scratch,
                                 skipped)
        cases += crafted_list_cases(rng, args.crafted)
        if args.only:
            cases = [c for c in cases if args.only in c.name]
        failures = 0
        reference_crashed = []
        for case in cases:
            problems, ref, got = run_case(case, args.ours, args.reference,
                                          env, scratch)
            if isinstance(ref[0], int) and ref[0] < 0:
                # LLVM 22 died of a signal (docs/compatibility.md): there is
                # nothing to match, but ours must end on its own, cleanly.
                reference_crashed.append(case.name)
                problems = [p for p in problems
                            if p.startswith("  ours hung")]
                if got[0] not in (0, 1):
                    problems.append(f"  ours ended with {got[0]} where LLVM "
                                    "22 crashed")
            if problems:
                failures += 1
                print(f"DIFFERENT {case.describe()}")
                print("\n".join(problems))
        if reference_crashed:
            print(f"LLVM 22 crashed on {len(reference_crashed)} cases, where "
                  f"ours ended cleanly: {', '.join(reference_crashed)}")
        report_skipped_cases(skipped)
        return finish(len(cases) - failures, failures, len(skipped))


if __name__ == "__main__":
    sys.exit(main())
