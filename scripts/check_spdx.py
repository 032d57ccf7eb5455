#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Fails when a source file of the project lacks its SPDX licence line.

offbundle is under the Apache License 2.0 with LLVM's exceptions (LICENSE),
and every source file says so on its first line, in its own comment syntax:

    // SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception   C, C++, HIP
    # SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception    CMake, Python,
                                                  shell, YAML, pkg-config
    .\\" SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception  man pages

A line that must come first stays first, and the line goes right after it:
a shebang (#!), Python's coding declaration, a man page's preprocessor
line ('\\" t). The comment that documents the file follows the licence
line, so the line is added in front of it, never between it and the code.

The files looked at are those git lists, tracked or not yet added but not
ignored: build folders (ignored) are left out, and so are files whose
bytes are the test's subject rather than code (the fuzzers' seed corpora,
expected outputs, binary files, dictionaries) and the documents (LICENSE
covers them; a Markdown comment would be noise at the top of each page).

--fix adds the line where it is missing and changes nothing else, so it can
be run again at any time, after a merge for instance. A file that carries
another SPDX identifier is reported, never rewritten: which licence it is
under is for a person to decide.

--self-test runs the check and the fix on a tree made here and succeeds only
when exactly the files lacking the line are reported, the fix puts it in
the right place, and a second fix changes nothing.

Usage: check_spdx.py [--root DIR] [--fix] [--self-test]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

IDENTIFIER = "SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception"
COMMENTS = {"c": "// ", "hash": "# ", "roff": '.\\" '}
C_EXTENSIONS = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hip"}
HASH_EXTENSIONS = {".py", ".sh", ".cmake", ".pc", ".yaml", ".yml"}
# Files whose bytes are what a test feeds the tools, whatever their names.
DATA_FOLDERS = ("tests/fuzz/corpus/",)
CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=]")


def listed_files(root):
    """Files git lists under root: tracked, and new ones not ignored."""
    listed = subprocess.run(
        ["git", "-C", root, "ls-files", "-z", "--cached", "--others",
         "--exclude-standard"], check=True, stdout=subprocess.PIPE).stdout
    return sorted({name for name in listed.decode().split("\0") if name})


def kind(path, data):
    """The comment syntax the file's licence line takes, or None for a file
    that carries none (data, documents, binary files)."""
    if path.startswith(DATA_FOLDERS) or b"\0" in data[:8192]:
        return None
    name = os.path.basename(path)
    # Templates (offbundleConfig.cmake.in, offbundle.pc.in) take the syntax
    # of the file they become.
    if name.endswith(".in"):
        name = name[:-len(".in")]
    extension = os.path.splitext(name)[1]
    if extension in C_EXTENSIONS:
        return "c"
    if extension in HASH_EXTENSIONS or name == "CMakeLists.txt":
        return "hash"
    if re.fullmatch(r"\.[1-9]", extension) and path.startswith("man/"):
        return "roff"
    if data.startswith(b"#!"):
        return "hash"
    return None


def insertion_line(lines, syntax):
    """The index of the line the licence line goes before."""
    index = 0
    if syntax == "hash":
        if lines and lines[0].startswith(b"#!"):
            index = 1
        # Python reads its coding declaration on the first two lines only.
        if len(lines) > index and CODING.match(lines[index]):
            index += 1
    elif syntax == "roff" and lines and lines[0].startswith(b"'\\\""):
        index = 1
    return index


def examine(root, path):
    """(syntax, lines, index, state): state is "ok", "missing" or "other"
    (another SPDX identifier near the top), or None for files without a
    licence line."""
    try:
        with open(os.path.join(root, path), "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    syntax = kind(path, data)
    if syntax is None:
        return None
    lines = data.splitlines(keepends=True)
    index = insertion_line(lines, syntax)
    expected = (COMMENTS[syntax] + IDENTIFIER).encode()
    if index < len(lines) and lines[index].rstrip(b"\r\n") == expected:
        return syntax, lines, index, "ok"
    if any(b"SPDX-License-Identifier" in line for line in lines[:index + 3]):
        return syntax, lines, index, "other"
    return syntax, lines, index, "missing"


def check(root, fix):
    """Prints each file lacking the line (adding it with fix) and returns
    how many are still wrong."""
    checked = wrong = added = 0
    for path in listed_files(root):
        full = os.path.join(root, path)
        if os.path.islink(full) or not os.path.isfile(full):
            continue
        found = examine(root, path)
        if found is None:
            continue
        syntax, lines, index, state = found
        checked += 1
        if state == "ok":
            continue
        if state == "other":
            print(f"{path}: carries another SPDX identifier; expected "
                  f"{IDENTIFIER}")
            wrong += 1
            continue
        if not fix:
            print(f"{path}: no licence line ({COMMENTS[syntax]}{IDENTIFIER})")
            wrong += 1
            continue
        ending = b"\r\n" if lines and lines[0].endswith(b"\r\n") else b"\n"
        if index > 0 and not lines[index - 1].endswith(b"\n"):
            lines[index - 1] += ending
        lines.insert(index, (COMMENTS[syntax] + IDENTIFIER).encode() + ending)
        with open(full, "wb") as handle:
            handle.write(b"".join(lines))
        print(f"{path}: licence line added")
        added += 1
    print(f"licence check: {checked} source files, "
          f"{wrong} without the line" + (f", {added} fixed" if fix else ""))
    return wrong


def self_test():
    spdx = IDENTIFIER
    files = {
        # Lacking the line: each must be reported, and fixed as below.
        "formats/bundle.h": "// Bundles: what they hold.\n#pragma once\n",
        "tools/main.cpp": "int main() {}\n",
        "scripts/run.py": "#!/usr/bin/env python3\n\"\"\"Runs.\"\"\"\n",
        "tests/coded.py": "# -*- coding: utf-8 -*-\nx = 1\n",
        "CMakeLists.txt": "# The build.\nproject(x)\n",
        "cmake/x.pc.in": "Name: x\n",
        "man/tool.1": "'\\\" t\n.TH TOOL 1\n",
        ".ci/run": "#!/bin/sh\nexec true\n",
        # Carrying the line already, or another identifier: left as they are.
        "support/ok.cpp": f"// {spdx}\n// Why.\n",
        "scripts/ok.sh": f"#!/bin/sh\n# {spdx}\n",
        "support/mit.c": "// SPDX-License-Identifier: MIT\n",
        # Not source: never reported.
        "build/gen.cpp": "int generated;\n",
        "tests/fuzz/corpus/fuzz_x/0123abcd": "#!not a script\n",
        "tests/data/binary.c": "\0\1\2",
        "tests/data/expected.txt": "output\n",
        "docs/page.md": "# A page\n",
    }
    fixed = {
        "formats/bundle.h": f"// {spdx}\n// Bundles: what they hold.\n"
                            "#pragma once\n",
        "tools/main.cpp": f"// {spdx}\nint main() {{}}\n",
        "scripts/run.py": f"#!/usr/bin/env python3\n# {spdx}\n"
                          "\"\"\"Runs.\"\"\"\n",
        "tests/coded.py": f"# -*- coding: utf-8 -*-\n# {spdx}\nx = 1\n",
        "CMakeLists.txt": f"# {spdx}\n# The build.\nproject(x)\n",
        "cmake/x.pc.in": f"# {spdx}\nName: x\n",
        "man/tool.1": f"'\\\" t\n.\\\" {spdx}\n.TH TOOL 1\n",
        ".ci/run": f"#!/bin/sh\n# {spdx}\nexec true\n",
    }
    with tempfile.TemporaryDirectory() as root:
        subprocess.run(["git", "init", "-q", root], check=True)
        files[".gitignore"] = "/build*/\n"
        for name, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)),
                        exist_ok=True)
            with open(os.path.join(root, name), "w") as handle:
                handle.write(text)

        def reported():
            found = []
            for path in listed_files(root):
                result = examine(root, path)
                if result is not None and result[3] != "ok":
                    found.append(path)
            return sorted(found)

        expected = sorted(list(fixed) + ["support/mit.c"])
        if reported() != expected:
            print(f"self-test failed: reported {reported()}, "
                  f"expected {expected}")
            return 1
        check(root, fix=True)
        for name, text in list(fixed.items()) + [
                ("support/mit.c", files["support/mit.c"])]:
            with open(os.path.join(root, name)) as handle:
                if handle.read() != text:
                    print(f"self-test failed: {name} fixed wrongly")
                    return 1
        if reported() != ["support/mit.c"]:
            print(f"self-test failed: after --fix, {reported()} reported")
            return 1
        def contents():
            result = {}
            for name in files:
                with open(os.path.join(root, name), "rb") as handle:
                    result[name] = handle.read()
            return result

        before = contents()
        check(root, fix=True)
        if contents() != before:
            print("self-test failed: a second --fix changed a file")
            return 1
    print("licence check self-test: every file lacking the line was caught "
          "and fixed in place, once")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), os.pardir))
    parser.add_argument("--fix", action="store_true",
                        help="add the line to the files lacking it")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    return 1 if check(os.path.abspath(args.root), args.fix) else 0


if __name__ == "__main__":
    sys.exit(main())
