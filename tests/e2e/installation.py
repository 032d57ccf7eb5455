#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""offbundle over an installation: sizes, then prune and compress in place.

The tree is built in the test, as a package would install it:
  bin/      clang 22 HIP programs (a PIE with a file capability and an ACL,
            a -no-pie one, one from --offload-compress objects), run against
            the stand-in HIP runtime (tests/e2e/stand_in_runtime.py);
  lib/      Debian's librocsparse0 as dpkg-deb unpacks it (the 1.25 GiB
            library, made read-only, and its symlink chain; fetched with apt-get download
            into --cache, never installed), a clang 22 HIP shared library
            with a second hard link and an extended attribute, an archive
            of fat objects, a damaged library, symlinks (relative, chained,
            dangling, one to a library outside the tree);
  share/    a read-only plain bundle, a compressed bundle, 3,000 plain files.
Checked:
  - sizes --json: the totals are the sums of the files';
  - prune --in-place --dry-run prints what the real run prints and writes
    nothing;
  - prune --in-place -k gfx90a: every program still runs and every library
    still loads, registering exactly the host and gfx90a entries it
    registered before, byte for byte; modes, owners, ACLs, capabilities,
    extended attributes and hard links are kept; the damaged library gets
    one error line and the library outside the tree is untouched;
  - a second identical run changes nothing;
  - compress --in-place killed at a random point, then run again: every
    file verifies, no temporary is left, and the programs and libraries
    still register the same entries.

Usage: installation.py --offbundle PATH --reference-bin DIR --cache DIR
"""

import argparse
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_support import require_executables, skip_suite  # noqa: E402
import distribution_tools  # noqa: E402
import rocm_library  # noqa: E402
import stand_in_runtime  # noqa: E402
from file_trees import TreeSuite, copy_sample, snapshot  # noqa: E402

PLAIN_FILES = 3000


def kept_by_prune(entry_id):
    """Whether prune -k gfx90a keeps an entry: host code, and every gfx90a
    variant."""
    if entry_id.startswith("host-"):
        return True
    return entry_id.rsplit("--", 1)[-1].split(":")[0] == "gfx90a"


class Installation:
    """The tree and what its programs and libraries register."""

    def __init__(self, suite, work, runtime):
        self.suite = suite
        self.work = work
        self.runtime = runtime
        self.root = os.path.join(work, "tree")
        self.outside = os.path.join(work, "outside")
        self.programs = []   # run
        self.libraries = []  # loaded with dlopen

    def registered(self, path):
        """(exit status, registrations) of running or loading `path`."""
        command = ([path] if path in self.programs else
                   [os.path.join(self.runtime, "load"), path])
        status, _, seen = stand_in_runtime.registrations(
            command, os.path.join(self.work, "registry"), self.runtime,
            self.work)
        return status, seen

    def all_registered(self):
        return {path: self.registered(path)
                for path in self.programs + self.libraries}


def build_tree(tree, built, deb):
    """Lays out the tree from the clang builds in `built` and the package."""
    root = tree.root
    for folder in ("bin", "lib", "share/doc"):
        os.makedirs(os.path.join(root, folder))
    os.makedirs(tree.outside)
    for name in ("hip-pie", "hip-nopie", "hip-pie-compressed"):
        path = os.path.join(root, "bin", name)
        shutil.copy2(os.path.join(built, name), path)
        tree.programs.append(path)
    pie = os.path.join(root, "bin", "hip-pie")
    subprocess.run(["setcap", "cap_net_raw+ep", pie], check=True)
    subprocess.run(["setfacl", "-m", "u:nobody:rx", pie], check=True)
    library = os.path.join(root, "lib", "libhip.so")
    shutil.copy2(os.path.join(built, "libhip.so"), library)
    os.setxattr(library, "user.origin", b"clang 22")
    os.link(library, os.path.join(root, "lib", "libhip-copy.so"))
    os.symlink("libhip.so", os.path.join(root, "lib", "libhip.so.1"))
    os.symlink("libhip.so.1", os.path.join(root, "lib", "libhip.so.1.0"))
    os.symlink("missing.so", os.path.join(root, "lib", "dangling.so"))
    shutil.copy2(library, os.path.join(tree.outside, "elsewhere.so"))
    os.symlink(os.path.join(tree.outside, "elsewhere.so"),
               os.path.join(root, "lib", "elsewhere.so"))
    tree.libraries.append(library)
    subprocess.run(["ar", "rc", os.path.join(root, "lib", "libfat.a")] +
                   sorted(glob.glob(os.path.join(built, "*-plain.o"))),
                   check=True)
    with open(library, "rb") as source:
        head = source.read(200)
    with open(os.path.join(root, "lib", "damaged.so"), "wb") as damaged:
        damaged.write(head)
    package = os.path.join(tree.work, "package")
    subprocess.run(["dpkg-deb", "-x", deb, package], check=True)
    for found in glob.glob(os.path.join(package, "usr/lib/*/librocsparse*")):
        os.replace(found, os.path.join(root, "lib", os.path.basename(found)))
    shutil.rmtree(package)
    rocsparse = [path for path in glob.glob(
        os.path.join(root, "lib", "librocsparse.so.*.*"))
        if not os.path.islink(path)]
    for path in rocsparse:  # a read-only library
        os.chmod(path, 0o444)
    tree.libraries += rocsparse
    readonly = os.path.join(root, "share", "kernels.hipfb")
    copy_sample("compression/small.bundle", readonly)
    os.chmod(readonly, 0o444)
    copy_sample("compression/small.v3.level3.ccob",
                os.path.join(root, "share", "kernels.ccob"))
    for i in range(PLAIN_FILES):
        with open(os.path.join(root, "share", "doc", f"{i:04}.txt"),
                  "w") as doc:
            doc.write("documentation\n")


def metadata(path):
    info = os.lstat(path)
    return (info.st_mode, info.st_uid, info.st_gid, info.st_nlink,
            {name: os.getxattr(path, name, follow_symlinks=False)
             for name in os.listxattr(path, follow_symlinks=False)})


def check_sizes(suite, root):
    done = suite.run(["sizes", "--json", root])
    report = json.loads(done.stdout) if done.stdout.strip() else {}
    files = report.get("files", [])
    suite.check(len(files) >= 7, f"sizes: the files: {len(files)}")
    for field in ("compressed", "plain"):
        for key in ("bundles", "file_bytes", "bytes"):
            suite.check(report.get(field, {}).get(key) ==
                        sum(entry[field][key] for entry in files),
                        f"sizes: the {field} {key} add up")
    suite.check(report.get("file_size") ==
                sum(entry["file_size"] for entry in files),
                "sizes: the file sizes add up")
    per_target = {}
    for entry in files:
        for target in entry["targets"]:
            per_target[target["target"]] = per_target.get(
                target["target"], 0) + target["file_bytes"]
    suite.check({target["target"]: target["file_bytes"]
                 for target in report.get("targets", [])} == per_target,
                "sizes: the targets add up")


def kill_and_finish(suite, tree, expected, seed):
    """compress --in-place killed at a random point, then run again."""
    rng = random.Random(seed)
    delay = rng.uniform(0.05, 2.0)
    process = subprocess.Popen([suite.offbundle, "compress", "--in-place",
                                tree.root], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()
    print(f"compress killed after {delay:.2f} s (seed {seed})")
    again = suite.run(["compress", "--in-place", tree.root])
    suite.check(again.returncode == 1 and
                len(again.stderr.splitlines()) == 1,
                f"the run after the kill: {again.stderr}")
    left = [name for folder, _, names in os.walk(tree.root)
            for name in names if ".offbundle-" in name]
    suite.check(not left, f"no temporary left: {left}")
    verified = suite.run(["verify", "-q", tree.root])
    suite.check(verified.stdout.count(": ok, ") >= 7 and
                verified.stderr.count("error:") == 1,
                f"every file verifies: {verified.stdout} {verified.stderr}")
    suite.check(tree.all_registered() == expected,
                "after the kill and the rerun, the same registrations")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--reference-bin", required=True)
    parser.add_argument("--cache", required=True)
    args = parser.parse_args()
    llvm_bin = os.path.abspath(args.reference_bin)
    require_executables(os.path.abspath(args.offbundle),
                        os.path.join(llvm_bin, "clang++"),
                        *(shutil.which(name) or name for name in
                          ("gcc", "ar", "setcap", "setfacl", "dpkg-deb")))
    if os.geteuid() != 0:
        skip_suite("file capabilities need root")
    deb = rocm_library.fetch_package(os.path.abspath(args.cache))
    work = rocm_library.work_folder_beside(deb, "installation-")
    suite = TreeSuite(os.path.abspath(args.offbundle))
    try:
        runtime = stand_in_runtime.build(work)
        built = os.path.join(work, "built")
        os.makedirs(built)
        distribution_tools.build_programs(llvm_bin, built, runtime)
        tree = Installation(suite, work, runtime)
        build_tree(tree, built, deb)
        before = tree.all_registered()
        for path, (status, seen) in before.items():
            suite.check(status == 0 and seen, f"{path} registers its code")
        expected = {path: (status, [{entry: value for entry, value in
                                     registration.items()
                                     if kept_by_prune(entry)}
                                    for registration in seen])
                    for path, (status, seen) in before.items()}
        check_sizes(suite, tree.root)

        untouched = snapshot(tree.root)
        outside = snapshot(tree.outside)
        kept = {path: metadata(path) for path in tree.programs +
                tree.libraries}
        prune = ["prune", "-k", "gfx90a", "--in-place", tree.root]
        dry = suite.run(prune + ["--dry-run"])
        suite.check(snapshot(tree.root) == untouched,
                    "--dry-run writes nothing")
        real = suite.run(prune)
        suite.check(dry.stdout.replace(" would be rewritten", " rewritten")
                    .replace(" (dry run: nothing written)", "") ==
                    real.stdout, f"--dry-run prints what the run does: "
                    f"{dry.stdout} {real.stdout}")
        damaged = os.path.join(tree.root, "lib", "damaged.so")
        suite.check(real.returncode == 1 and real.stderr.count("\n") == 1
                    and damaged in real.stderr,
                    f"prune: one error line, the damaged library: "
                    f"{real.stderr}")
        suite.check(tree.all_registered() == expected,
                    "pruned: each program and library registers the host "
                    "and gfx90a entries it registered before")
        for path, was in kept.items():
            suite.check(metadata(path) == was,
                        f"{path} keeps its metadata: {metadata(path)} {was}")
        suite.check(os.path.samefile(
            os.path.join(tree.root, "lib", "libhip.so"),
            os.path.join(tree.root, "lib", "libhip-copy.so")),
            "hard links stay one file")
        suite.check(snapshot(tree.outside) == outside,
                    "nothing outside the tree changed")

        settled = snapshot(tree.root)
        again = suite.run(prune)
        suite.check(" 0 files rewritten" in "\n" + again.stdout.replace(
            "\n0 files", "\n 0 files") and snapshot(tree.root) == settled,
            f"a second run changes nothing: {again.stdout[-300:]}")

        kill_and_finish(suite, tree, expected,
                        int(os.environ.get("OFFBUNDLE_TEST_SEED",
                                           random.randrange(1 << 30))))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(suite.exit_status())


if __name__ == "__main__":
    main()
