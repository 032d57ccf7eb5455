#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Fails when the tree holds a file that no build, test or document uses.

A tracked file counts as used when another tracked file names it:
  * by its file name (CMakeLists.txt naming a source, a test naming its data
    file, the README naming a script);
  * by a name it is derived from: the file name without one or more trailing
    extensions, or without a leading "word-" prefix, as stored reference
    outputs are named after their inputs (read-gnu.a.members.txt after
    read-gnu.a, symbols-x.o.txt after x.o, write-objects.a after the case
    "objects"); a bare word like "objects" counts only when a file in the
    same folder names it;
  * by a path of two parts or more (thin/sub/member, .ci/run);
  * as one of a folder's files picked by a variable ("$root/tests/fuzz/dict/
    $dict.dict"), under a name given elsewhere;
  * by a pattern: a script in its folder, or the one above, names every
    file of its extension ("$src"/*.yaml);
  * by the name of the file it was made from: NAME.fat.o and NAME.host.o
    made from src/NAME.yaml, in the same folder or the one above;
  * or as a member of a folder that is read whole, one of several named by a
    variable: the folder's name is named elsewhere, and so is the path of the
    folder above it followed by a variable (a fuzz target's seed corpus,
    tests/fuzz/corpus/<target>/, is read by scripts/fuzz.sh as
    "$root/tests/fuzz/corpus/$target").

Anything else (a log left behind, a scratch file) is reported and the check
fails. --pretend-tracked NAME adds an empty file of that name to the listing.
--self-test adds files of random names in several folders (names that no
file can mention) and succeeds only when exactly those are reported, which
shows that the check catches them.

Usage: check_tree.py [--root DIR] [--pretend-tracked NAME]... [--self-test]
"""

import argparse
import os
import secrets
import subprocess
import sys


def tracked_files(root):
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                            check=True, stdout=subprocess.PIPE).stdout
    return [name for name in listed.decode().split("\0") if name]


def read_text(root, name):
    """The file's text, or None for binary files (which name nothing)."""
    try:
        with open(os.path.join(root, name), "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def derived_names(file_name):
    """The file name and the names it may be derived from."""
    names = {file_name}
    stem = file_name
    while "." in stem.strip("."):
        stem = stem[:stem.rindex(".")]
        names.add(stem)
    for name in list(names):
        if "-" in name:
            names.add(name.split("-", 1)[1])
    # Names of one or two characters would match anything.
    return {name for name in names if len(name) > 2}


def stem(file_name):
    """The name up to its first dot: x86_64-edge-cases of
    x86_64-edge-cases.fat.o."""
    return file_name.lstrip(".").split(".", 1)[0]


def unused_files(files, texts):
    """Files that no other file names (see the module's description)."""

    def named_outside(name, excluded_prefix):
        return any(name in text for path, text in texts.items()
                   if not path.startswith(excluded_prefix))

    def named_in_folder(name, folder, excluded):
        return any(name in text for other, text in texts.items()
                   if other != excluded and os.path.dirname(other) == folder)

    def globbed(path):
        """Whether a script in the file's folder, or the one above, reads
        every file of its extension ("$src"/*.yaml)."""
        extension = os.path.splitext(path)[1]
        if not extension:
            return False
        folder = os.path.dirname(path)
        places = {folder, os.path.dirname(folder)}
        return any("*" + extension in text for other, text in texts.items()
                   if os.path.dirname(other) in places)

    used = set()
    for path in files:
        file_name = os.path.basename(path)
        folder = os.path.dirname(path)
        # A bare word (no extension left) is common prose; it counts only
        # when named beside the file, as a case list names its outputs.
        if any(named_outside(name, path) if "." in name
               else named_in_folder(name, folder, path)
               for name in derived_names(file_name)):
            used.add(path)
            continue
        if globbed(path):
            used.add(path)
            continue
        # Named by a path of two parts or more (thin/sub/member, .ci/run).
        parts = path.split("/")
        if any(named_outside("/".join(parts[i:]), path)
               for i in range(len(parts) - 1)):
            used.add(path)
            continue
        # One of a folder's files picked by a variable ("dict/$dict.dict")
        # under a name given elsewhere.
        if (folder and named_outside(folder + "/$", path)
                and named_outside(stem(file_name), folder + "/")):
            used.add(path)
            continue
        parent = os.path.dirname(folder)
        if (folder and parent
                and named_outside(os.path.basename(folder), folder + "/")
                and any(named_outside(parent + "/" + variable, folder + "/")
                        for variable in ("$", "{", "%"))):
            used.add(path)

    # Files made from a used file (NAME.fat.o from src/NAME.yaml) share its
    # stem, in its folder or the one above.
    changed = True
    while changed:
        changed = False
        families = {(os.path.dirname(path), stem(os.path.basename(path)))
                    for path in used}
        for path in files:
            if path in used:
                continue
            folder = os.path.dirname(path)
            key = stem(os.path.basename(path))
            if (folder, key) in families or (folder + "/src", key) in families:
                used.add(path)
                changed = True
    return [path for path in files if path not in used]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--pretend-tracked", action="append", default=[],
                        metavar="NAME")
    parser.add_argument("--self-test", action="store_true",
                        help="pretend that files of random names are tracked "
                             "in several folders, and succeed only if "
                             "exactly those are reported")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    pretended = list(args.pretend_tracked)
    if args.self_test:
        token = secrets.token_hex(6)
        pretended += [f"stray-{token}.log", f"tests/data/elf/{token}.bin",
                      f"tests/unit/{token}_test.cpp", f"scripts/{token}.sh"]
    files = tracked_files(root) + pretended
    texts = {}
    for path in files:
        text = read_text(root, path) if path not in pretended else ""
        if text is not None:
            texts[path] = text
    unused = unused_files(files, texts)
    for path in unused:
        print(f"stray file: {path} (no build, test or document names it)")
    print(f"tree check: {len(files)} files, {len(unused)} stray")
    if args.self_test:
        return 0 if sorted(unused) == sorted(pretended) else 1
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main())
