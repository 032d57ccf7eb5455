#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Fails when a man page under man/ misses an option or does not render
cleanly.

For each tool, its page must have an entry (a .TP/.TQ tag or an .IP label)
naming:
  * every option the tool's own --help-hidden lists;
  * every option and environment variable in the first column of the
    tables of that tool's page under docs/: those under "## Options" in
    docs/clang-offload-bundler.md (which include the options LLVM 22 lacks
    and so --help does not show), all of docs/llvm-offload-binary.md for
    llvm-offload-binary.
llvm-extract-bundle-entry's page (with --extract-entry) must name every
option its --help lists. offbundle's page (with --offbundle) must name every option its --help and
each command's --help list, and have an entry for every command the help
lists ("offbundle list ...").
Every page must have its sections, carry the version the tools print in its
.TH line, and render with `groff -man -Tutf8 -ww -z` without a warning.
clang-offload-packager's page must quote the deprecation warning that the
program prints and point to llvm-offload-binary(1).

--self-test checks copies of the pages, each with one option's entry
replaced, a required phrase taken out, or an unknown macro added, and succeeds only when every
one of those is reported; it shows that the check catches them.

Usage: check_man_pages.py --bundler PATH --binary PATH [--packager PATH]
                          [--offbundle PATH] [--extract-entry PATH]
                          [--man-dir DIR] [--docs DIR]
                          [--self-test]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "tests"))
from suite_support import skip_suite  # noqa: E402

BUNDLER_PAGE = "clang-offload-bundler.1"
BINARY_PAGE = "llvm-offload-binary.1"
PACKAGER_PAGE = "clang-offload-packager.1"
OFFBUNDLE_PAGE = "offbundle.1"
EXTRACT_ENTRY_PAGE = "llvm-extract-bundle-entry.1"

BUNDLER_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS",
                    "ENVIRONMENT", "COMPRESSED BUNDLES", "EXIT STATUS",
                    "DIFFERENCES FROM LLVM 22", "EXAMPLES", "SEE ALSO"]
BINARY_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS",
                   "EXIT STATUS", "DIFFERENCES FROM LLVM 22", "EXAMPLES",
                   "SEE ALSO"]
PACKAGER_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"]
EXTRACT_ENTRY_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS",
                          "EXIT STATUS", "DIFFERENCES FROM LLVM 23",
                          "EXAMPLES", "SEE ALSO"]
OFFBUNDLE_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS",
                      "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]

# An option as the help and the docs spell it: one or two dashes, then a
# name (LLVM's "--###" included), not inside a longer word.
OPTION_PATTERN = re.compile(r"(?<![\w-])-{1,2}([A-Za-z#][\w#-]*)")
ENVIRONMENT_PATTERN = re.compile(r"^([A-Z][A-Z0-9_]+)=")


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=30)


def help_options(tool, flag="--help-hidden"):
    """The option names (without dashes) `tool <flag>` lists."""
    result = run([tool, flag])
    text = result.stdout.decode(errors="replace")
    names = []
    for line in text.splitlines():
        # Option lines are indented by two spaces; descriptions continued
        # on further lines are indented more and start with no dash.
        match = re.match(r"^  (-{1,2}[^\s=<]+)", line)
        if match:
            names.append(match.group(1).lstrip("-"))
    return names


def offbundle_commands_and_options(tool):
    """The offbundle tool's commands (from its --help) and the option names
    (without dashes) its --help and every command's --help list."""
    text = run([tool, "--help"]).stdout.decode(errors="replace")
    commands = re.findall(r"^  ([a-z]+)  ", text.split("Commands:", 1)[-1]
                          .split("Options:", 1)[0], re.M)
    names = []
    for help_text in [text] + [run([tool, command, "--help"]).stdout.decode(
            errors="replace") for command in commands]:
        for line in help_text.splitlines():
            # Boost's layout: "  -h [ --help ]  ...", "  --json  ...".
            match = re.match(r"^  (-{1,2}[\w-]+)(?: \[ (--[\w-]+) \])?", line)
            if match:
                names += [name.lstrip("-") for name in match.groups() if name]
    return commands, list(dict.fromkeys(names))


def tool_version(tool):
    """"offbundle X.Y.Z" from the tool's --version."""
    text = run([tool, "--version"]).stdout.decode(errors="replace")
    match = re.search(r"\(offbundle ([^)\s]+)\)", text)
    return "offbundle " + match.group(1) if match else None


def readme_table_names(readme_text, heading):
    """Options ("-name" forms, without dashes) and environment variables
    named in the first column of the tables between `heading` and the next
    heading of its level or above."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = readme_text.splitlines()
    try:
        start = lines.index(heading) + 1
    except ValueError:
        return None
    options, variables = [], []
    in_code_block = False
    for line in lines[start:]:
        if line.startswith("```"):
            in_code_block = not in_code_block
        if in_code_block:
            continue
        heading_match = re.match(r"^(#+) ", line)
        if heading_match and len(heading_match.group(1)) <= level:
            break
        if not line.startswith("|") or re.match(r"^\|[\s|:-]+$", line):
            continue
        cells = re.split(r"(?<!\\)\|", line)
        first = cells[1].strip() if len(cells) > 1 else ""
        for code in re.findall(r"`([^`]+)`", first):
            code = code.replace("\\|", "|")
            variable = ENVIRONMENT_PATTERN.match(code)
            if variable:
                variables.append(variable.group(1))
                continue
            options += OPTION_PATTERN.findall(code)
            if code.startswith("@"):
                options.append(code)
    return options, variables


def plain_text(roff_line):
    """A line of roff source as the reader sees it, near enough to search:
    macro name, quotes and font changes removed, escapes resolved."""
    line = roff_line
    macro = re.match(r"^[.'](\w+)\s*(.*)$", line)
    if macro:
        name, rest = macro.groups()
        arguments = re.findall(r'"([^"]*)"|(\S+)', rest)
        arguments = [quoted or bare for quoted, bare in arguments]
        # The alternating-font macros join their arguments without spaces.
        joiner = "" if re.fullmatch(r"[BIR]{2}", name) else " "
        line = joiner.join(arguments)
    line = re.sub(r"\\f(\(..|\[[^]]*\]|.)", "", line)
    line = re.sub(r"\\\((aq)", "'", line)
    line = re.sub(r"\\\((dq)", '"', line)
    for escape, text in (("\\-", "-"), ("\\~", " "), ("\\&", ""),
                         ("\\c", ""), ("\\e", "\\")):
        line = line.replace(escape, text)
    return line


def page_structure(source):
    """The page's section names, the plain text of its entry labels, the
    contents of its .TH line, and its whole plain text."""
    sections, labels, title = [], [], ""
    lines = [line for line in source.splitlines()
             if not line.startswith(('.\\"', "'\\\""))]
    for index, line in enumerate(lines):
        if line.startswith(".SH "):
            sections.append(plain_text(line).strip())
        elif line.startswith(".TH "):
            title = plain_text(line)
        elif line.strip() in (".TP", ".TQ") and index + 1 < len(lines):
            labels.append(plain_text(lines[index + 1]))
        elif line.startswith(".IP "):
            labels.append(plain_text(line))
    text = " ".join(plain_text(line) for line in lines)
    return sections, labels, title, text


def option_documented(name, labels):
    if name.startswith("@"):
        return any(name in label for label in labels)
    pattern = re.compile(r"(?<![\w-])-{1,2}" + re.escape(name) +
                         r"(?![\w#-])")
    return any(pattern.search(label) for label in labels)


def command_documented(command, label):
    """Whether an entry label names the offbundle command `command`."""
    return re.match(r"offbundle " + re.escape(command) + r"(?!\w)",
                    label) is not None


def variable_documented(name, labels):
    pattern = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)")
    return any(pattern.search(label) for label in labels)


def groff_warnings(page_path):
    result = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z",
                             page_path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, timeout=30)
    lines = result.stderr.decode(errors="replace").splitlines()
    if result.returncode != 0 and not lines:
        lines = [f"groff exited with status {result.returncode}"]
    return lines


def check_pages(man_dir, expectations, lint=True):
    """Problems found in the pages of `man_dir`, one line each.
    `expectations` maps a page's file name to what it must hold."""
    problems = []
    for page, expected in expectations.items():
        path = os.path.join(man_dir, page)
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except OSError as error:
            problems.append(f"{page}: cannot be read: {error.strerror}")
            continue
        sections, labels, title, text = page_structure(source)
        for section in expected["sections"]:
            if section not in sections:
                problems.append(f"{page}: no section {section}")
        if expected["version"] and expected["version"] not in title:
            problems.append(f"{page}: the .TH line does not carry "
                            f"'{expected['version']}', the tools' version")
        for source_name, names in expected["options"]:
            for name in names:
                if not option_documented(name, labels):
                    problems.append(f"{page}: option '{name}' ({source_name})"
                                    " has no entry")
        for source_name, names in expected["variables"]:
            for name in names:
                if not variable_documented(name, labels):
                    problems.append(f"{page}: environment variable '{name}' "
                                    f"({source_name}) has no entry")
        for phrase in expected["phrases"]:
            if phrase not in text:
                problems.append(f"{page}: does not say '{phrase}'")
        for command in expected.get("commands", []):
            if not any(command_documented(command, label)
                       for label in labels):
                problems.append(f"{page}: command '{command}' has no entry")
    if lint:
        pages = sorted(name for name in os.listdir(man_dir)
                       if re.search(r"\.\d$", name))
        for page in pages:
            for warning in groff_warnings(os.path.join(man_dir, page)):
                problems.append(f"{page}: groff: {warning}")
    return problems


def packager_warning(packager):
    """The warning line the packager prints under its old name."""
    stderr = run([packager]).stderr.decode(errors="replace")
    for line in stderr.splitlines():
        if line.startswith("warning:"):
            return line
    return None


def build_expectations(args, docs):
    """What each page must hold, from the tools and their pages under
    docs/ ({file name: text}); or an error message."""
    bundler_help = help_options(args.bundler)
    binary_help = help_options(args.binary)
    if not bundler_help or not binary_help:
        return "no options found in a tool's --help-hidden output"
    bundler_readme = readme_table_names(
        docs.get("clang-offload-bundler.md", ""), "## Options")
    binary_readme = readme_table_names(
        docs.get("llvm-offload-binary.md", ""), "# llvm-offload-binary")
    if not bundler_readme or not bundler_readme[0] or not binary_readme \
            or not binary_readme[0]:
        return "the option tables of docs/ were not found"
    version = tool_version(args.bundler)
    if not version or version != tool_version(args.binary):
        return "the tools print no offbundle version, or different ones"
    packager_phrases = ["llvm-offload-binary(1)"]
    if args.packager:
        warning = packager_warning(args.packager)
        if not warning:
            return f"{args.packager} printed no deprecation warning"
        packager_phrases.append(warning)
    expectations = {
        BUNDLER_PAGE: tool_page(BUNDLER_SECTIONS, version, bundler_help,
                                bundler_readme),
        BINARY_PAGE: tool_page(BINARY_SECTIONS, version, binary_help,
                               binary_readme),
        PACKAGER_PAGE: {
            "sections": PACKAGER_SECTIONS, "version": version,
            "options": [], "variables": [], "phrases": packager_phrases,
        },
    }
    if args.offbundle:
        commands, names = offbundle_commands_and_options(args.offbundle)
        if not commands or not names:
            return f"{args.offbundle} --help lists no commands or options"
        expectations[OFFBUNDLE_PAGE] = {
            "sections": OFFBUNDLE_SECTIONS, "version": version,
            "options": [("--help", names)], "variables": [], "phrases": [],
            # Every command has an entry of its own, named as it is typed.
            "commands": commands,
        }
    if args.extract_entry:
        names = help_options(args.extract_entry, "--help")
        if not names:
            return f"{args.extract_entry} --help lists no options"
        expectations[EXTRACT_ENTRY_PAGE] = {
            "sections": EXTRACT_ENTRY_SECTIONS,
            "version": tool_version(args.extract_entry),
            "options": [("--help", names)], "variables": [], "phrases": [],
        }
    return expectations


def tool_page(sections, version, help_names, readme_names):
    """What the page of a tool with options must hold."""
    readme_options, readme_variables = readme_names
    return {
        "sections": sections, "version": version,
        "options": [("--help-hidden", help_names),
                    ("docs/", readme_options)],
        "variables": [("docs/", readme_variables)],
        "phrases": [],
    }


def remove_entry(source, name, is_variable):
    """The page source with the entry label naming `name` replaced by one
    naming nothing the check looks for."""
    lines = source.splitlines(keepends=True)
    for index in range(1, len(lines)):
        if lines[index - 1].strip() not in (".TP", ".TQ"):
            continue
        label = plain_text(lines[index])
        found = (variable_documented(name, [label]) if is_variable
                 else option_documented(name, [label]))
        if found:
            lines[index] = ".B removed\\-entry\n"
    return "".join(lines)


def check_mutated(man_dir, scratch, expectations, page, source, lint):
    """The problems found in a copy of `man_dir` whose `page` holds
    `source`."""
    copy = os.path.join(scratch, "man")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(man_dir, copy)
    with open(os.path.join(copy, page), "w", encoding="utf-8") as f:
        f.write(source)
    return check_pages(copy, expectations, lint=lint)


def self_test(man_dir, expectations):
    """Checks mutated copies of the pages; returns the number of mutations
    the check missed."""
    baseline = set(check_pages(man_dir, expectations, lint=False))
    missed = 0
    mutations = 0
    with tempfile.TemporaryDirectory() as scratch:
        for page, expected in expectations.items():
            with open(os.path.join(man_dir, page), encoding="utf-8") as f:
                source = f.read()
            named = [(name, False) for _, names in expected["options"]
                     for name in names]
            named += [(name, True) for _, names in expected["variables"]
                      for name in names]
            # Each option's or variable's entry, replaced.
            for name, is_variable in dict.fromkeys(named):
                kind = "environment variable" if is_variable else "option"
                problems = check_mutated(
                    man_dir, scratch, expectations, page,
                    remove_entry(source, name, is_variable), lint=False)
                mutations += 1
                if not any(problem not in baseline and
                           problem.startswith(f"{page}: {kind} '{name}' ")
                           for problem in problems):
                    print(f"self-test: removing the entry of {kind} "
                          f"'{name}' from {page} went unnoticed")
                    missed += 1
            # Each phrase the page must say, taken out of it.
            for phrase in expected["phrases"]:
                kept = [line for line in source.splitlines(keepends=True)
                        if phrase not in plain_text(line)]
                problems = check_mutated(man_dir, scratch, expectations,
                                         page, "".join(kept), lint=False)
                mutations += 1
                if f"{page}: does not say '{phrase}'" not in problems:
                    print(f"self-test: removing '{phrase}' from {page} went "
                          "unnoticed")
                    missed += 1
            # Each command's entry, renamed.
            for command in expected.get("commands", []):
                lines = source.splitlines(keepends=True)
                for index in range(1, len(lines)):
                    if lines[index - 1].strip() in (".TP", ".TQ") and \
                            command_documented(command,
                                               plain_text(lines[index])):
                        lines[index] = ".B removed\\-entry\n"
                problems = check_mutated(man_dir, scratch, expectations,
                                         page, "".join(lines), lint=False)
                mutations += 1
                if f"{page}: command '{command}' has no entry" \
                        not in problems:
                    print(f"self-test: removing the entry of command "
                          f"'{command}' from {page} went unnoticed")
                    missed += 1
            # A roff error: an undefined macro, which groff -ww reports.
            problems = check_mutated(man_dir, scratch, expectations, page,
                                     source + ".XQ not a macro\n", lint=True)
            mutations += 1
            if not any(problem.startswith(f"{page}: groff: ")
                       for problem in problems):
                print(f"self-test: an undefined macro in {page} went "
                      "unnoticed")
                missed += 1
    print(f"self-test: {mutations} mutated pages, {missed} unnoticed")
    return missed


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        os.pardir)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bundler", required=True,
                        help="the clang-offload-bundler to read options from")
    parser.add_argument("--binary", required=True,
                        help="the llvm-offload-binary to read options from")
    parser.add_argument("--packager",
                        help="clang-offload-packager, whose warning the page "
                             "must quote")
    parser.add_argument("--offbundle",
                        help="the offbundle tool, whose page is checked too")
    parser.add_argument("--extract-entry",
                        help="llvm-extract-bundle-entry, whose page is "
                             "checked too")
    parser.add_argument("--man-dir", default=os.path.join(root, "man"))
    parser.add_argument("--docs", default=os.path.join(root, "docs"))
    parser.add_argument("--self-test", action="store_true",
                        help="check mutated copies of the pages and succeed "
                             "only if every mutation is reported")
    args = parser.parse_args()

    if shutil.which("groff") is None:
        skip_suite("groff is not installed (Debian: groff-base)")
    docs = {}
    for name in ("clang-offload-bundler.md", "llvm-offload-binary.md"):
        path = os.path.join(args.docs, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                docs[name] = f.read()
    expectations = build_expectations(args, docs)
    if isinstance(expectations, str):
        print(f"error: {expectations}")
        return 1

    if args.self_test:
        return 1 if self_test(args.man_dir, expectations) else 0

    problems = check_pages(args.man_dir, expectations)
    for problem in problems:
        print(problem)
    counted = sum(len(names) for expected in expectations.values()
                  for key in ("options", "variables")
                  for _, names in expected[key])
    print(f"man page check: {len(expectations)} pages, {counted} options "
          f"and variables looked up, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
