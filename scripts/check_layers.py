#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Fails when a source file includes a header from a layer above its own.

The library is built in layers, one folder each, lowest first
(docs/architecture.md describes them):

    support targets compression bitcode formats archive bundler packager
    rewrite api toolkit cli tools

A file may include headers of its own folder and of folders listed before
it, never of one listed after it: `archive/` may use `formats/` (archive
symbol tables read ELF members through formats' reader) and `support/`,
but `formats/` may not use `archive/`. Only project headers
("folder/name.h") count; system headers (<...>) do not. The public headers
under include/offbundle/ are installed alone, so they may include only
system headers and each other ("offbundle/..."); tests may use everything.

--self-test runs the check on a tree made here with one upward include and
one allowed include, and succeeds only when exactly the upward one is
reported, which shows the check catches them.

Usage: check_layers.py [--root DIR] [--self-test]
"""

import argparse
import os
import re
import sys
import tempfile

LAYERS = ["support", "targets", "compression", "bitcode", "formats",
          "archive", "bundler", "packager", "rewrite", "api", "toolkit",
          "cli", "tools"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"', re.M)


def violations(root):
    """(file, line number, included header) for every upward include."""
    found = []
    rank = {name: index for index, name in enumerate(LAYERS)}
    for layer in LAYERS:
        folder = os.path.join(root, layer)
        if not os.path.isdir(folder):
            continue
        for directory, _, names in os.walk(folder):
            for name in sorted(names):
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                for match in INCLUDE.finditer(text):
                    target = match.group(1)
                    if target in rank and rank[target] > rank[layer]:
                        line = text.count("\n", 0, match.start()) + 1
                        found.append((os.path.relpath(path, root), line,
                                      match.group(0).strip()))
    public = os.path.join(root, "include", "offbundle")
    if os.path.isdir(public):
        for name in sorted(os.listdir(public)):
            path = os.path.join(public, name)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            for match in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text,
                                     re.M):
                if not match.group(1).startswith("offbundle/"):
                    line = text.count("\n", 0, match.start()) + 1
                    found.append((os.path.relpath(path, root), line,
                                  match.group(0).strip()))
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        files = {
            "archive/reader.cpp": '#include "formats/elf_file.h"\n',
            "formats/elf_object.cpp": '#include "archive/ar_archive.h"\n'
                                      '#include <string>\n',
            "support/error.h": '#include "support/file_io.h"\n',
            "include/offbundle/api.h": '#include "offbundle/types.h"\n'
                                       '#include "bundler/config.h"\n',
        }
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)),
                        exist_ok=True)
            with open(os.path.join(root, name), "w") as handle:
                handle.write(text)
        found = violations(root)
        expected = [
            ("formats/elf_object.cpp", 1, '#include "archive/ar_archive.h"'),
            ("include/offbundle/api.h", 2, '#include "bundler/config.h"')]
        if found != expected:
            print(f"self-test failed: found {found}, expected {expected}")
            return 1
        print("layer check self-test: the upward include and the public "
              "header's internal include were caught")
        return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), os.pardir))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    found = violations(os.path.abspath(args.root))
    for path, line, include in found:
        if path.startswith("include"):
            print(f"{path}:{line}: {include}: a public header may include "
                  "only system headers and offbundle/ ones")
        else:
            print(f"{path}:{line}: {include} reaches a layer above "
                  f"{path.split(os.sep)[0]}/")
    print(f"layer check: {len(found)} upward includes")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
