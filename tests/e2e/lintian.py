#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The .debs as a distribution takes them: lintian finds no error in either.

Builds offbundle and offbundle-dev with `cpack -G DEB` from the build folder
into a temporary folder, runs lintian on them, and fails on any error, on
any warning or overridden error (cmake/debian/offbundle.lintian-overrides)
docs/packaging.md does not list with its reason, and on a listed one
lintian no longer gives (so the list stays true). Also
checks what lintian does not: each package's copyright and
changelog.Debian.gz are where Debian puts them, and the libraries are in
the multiarch folder.

Skipped (exit 77) when lintian, cpack or dpkg-deb is missing.

Usage: lintian.py --source DIR --build DIR
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import Tally, finish, skip_suite  # noqa: E402

# A lintian line: "W: offbundle-dev: tag-name context...".
HINT = re.compile(r"^([EWIPXO]): (\S+?)(?: \w+)?: (\S+)(.*)$")
# A row of docs/packaging.md's table of warnings: | `tag` | package | why |
LISTED = re.compile(r"^\|\s*`([a-z0-9+.-]+)`\s*\|\s*([a-z0-9+.-]+)\s*\|")


def listed_warnings(source):
    """The (package, tag) pairs of warnings and overridden errors
    docs/packaging.md explains."""
    with open(os.path.join(source, "docs", "packaging.md"),
              encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("\n## What lintian says\n", 1)[-1]
    return {(match.group(2), match.group(1))
            for match in map(LISTED.match, section.splitlines()) if match}


def run(command):
    return subprocess.run(command, capture_output=True, text=True,
                          timeout=600)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    missing = [tool for tool in ("lintian", "cpack", "dpkg-deb")
               if shutil.which(tool) is None]
    if missing:
        skip_suite("missing: " + ", ".join(missing))
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="offbundle-lintian.") as work:
        made = run(["cpack", "-G", "DEB", "-B", work, "--config",
                    os.path.join(args.build, "CPackConfig.cmake")])
        debs = sorted(os.path.join(work, name) for name in os.listdir(work)
                      if name.endswith(".deb"))
        tally.check("cpack made two .debs",
                    made.returncode == 0 and len(debs) == 2,
                    (made.stdout + made.stderr)[-1500:])
        if len(debs) != 2:
            return finish(tally.passed, tally.failed)
        multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"])
        for deb in debs:
            package = run(["dpkg-deb", "-f", deb, "Package"]).stdout.strip()
            listing = run(["dpkg-deb", "-c", deb]).stdout
            paths = {line.split()[5].lstrip(".")
                     for line in listing.splitlines()}
            for name in ("copyright", "changelog.Debian.gz"):
                tally.check(f"{package} holds /usr/share/doc/{package}/{name}",
                            f"/usr/share/doc/{package}/{name}" in paths)
            libraries = [path for path in paths if path.endswith(".a")]
            if libraries and multiarch.returncode == 0:
                folder = f"/usr/lib/{multiarch.stdout.strip()}/"
                tally.check(f"{package}'s libraries are in {folder}",
                            all(path.startswith(folder)
                                for path in libraries), str(libraries))
        # --no-cfg: the project's verdict, not the local lintianrc's. Its
        # exit status is the verdict on errors; the listing shows the
        # overridden ones too, with which lintian exits 2 whatever it finds.
        verdict = run(["lintian", "--no-cfg", "--fail-on", "error", *debs])
        checked = run(["lintian", "--no-cfg", "--tag-display-limit", "0",
                       "--show-overrides", *debs])
        print(checked.stdout, end="")
        hints = [HINT.match(line) for line in checked.stdout.splitlines()]
        hints = [match for match in hints if match]
        errors = [match.group(0) for match in hints if match.group(1) == "E"]
        tally.check("lintian finds no error",
                    verdict.returncode == 0 and not errors,
                    "\n".join(errors) + verdict.stderr[-800:])
        expected = listed_warnings(args.source)
        given = {(match.group(2), match.group(3)) for match in hints
                 if match.group(1) in ("W", "O")}
        unlisted = sorted(given - expected)
        tally.check("every warning is explained in docs/packaging.md",
                    not unlisted, str(unlisted))
        stale = sorted(expected - given)
        tally.check("every warning docs/packaging.md explains is given",
                    not stale, str(stale))
    return finish(tally.passed, tally.failed)


if __name__ == "__main__":
    sys.exit(main())
