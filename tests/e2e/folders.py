# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""offbundle list, sizes, verify and extract over folders.

A tree is built in the test from the checked-in samples (tests/data): a
HIP shared library and a non-PIE program, a compressed bundle, a plain
bundle, a new-driver object and an archive of it, a damaged library, an
ELF file and thousands of plain files holding no GPU code, a FIFO, and
symlinks (to a file inside, chained, dangling, and to a library and a
folder outside the tree). Checked:

- a folder is walked recursively, in the order `find` gives with sorted
  names; the files holding GPU code are reported with their names, and
  those holding none are skipped and counted, as are the symlinks inside
  (never followed: nothing outside the tree is reported) and the FIFO
  (never opened: the run would block);
- a symlink named on the command line is followed;
- every file is attempted: the damaged file and an unreadable one each
  get one error line, the others are still reported, and the exit status
  is 1; a clean tree gives 0;
- the same over explicit files: a missing one is an error line, the rest
  are reported; an explicit file holding no GPU code is still reported;
- --json carries the files and what was skipped, and the totals add up;
- -j 1, 3 and 8 print the same; a progress line is drawn on a terminal
  only, and not with --quiet;
- --html writes one page that fetches nothing; headless Chromium shows its
  totals, chart, savings and files table, sorts the table on #sort=, and
  renders it; after a failure the page is not written (an earlier one
  stays), and never over a file the run reads;
- a thin archive's entries are read, and take no room in the archive;
- extract puts each file's entries in a folder named by its path, the
  bytes extracting it alone gives; a second file whose path names the same
  folder is an error, not a second writer there;
- the tree is left exactly as it was (names, sizes, inodes, mtimes).
"""

import argparse
import json
import os
import pty
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite_support import require_executables, skip_suite  # noqa: E402
from file_trees import (TreeSuite, copy_sample, read_sample,  # noqa: E402
                        scratch_folders, snapshot)

PLAIN_FILES = 3000


def build_tree(root, outside):
    """The tree, and the files in it that hold GPU code, in walk order."""
    os.makedirs(os.path.join(root, "lib", "deeper"))
    os.makedirs(os.path.join(root, "plain"))
    os.makedirs(outside)
    copy_sample("linked/unit-compressed.so", os.path.join(outside, "elsewhere.so"))
    copy_sample("linked/unit-plain.so", os.path.join(root, "lib", "libunit.so"))
    copy_sample("linked/unit-nopie", os.path.join(root, "lib", "deeper", "app"))
    copy_sample("compression/small.v3.level3.ccob",
         os.path.join(root, "bundle.ccob"))
    copy_sample("compression/small.bundle", os.path.join(root, "bundle.plain"))
    copy_sample("linked/unit-new-driver.o", os.path.join(root, "lib", "kernels.o"))
    subprocess.run(["ar", "rc", os.path.join(root, "lib", "libkernels.a"),
                    os.path.join(root, "lib", "kernels.o")], check=True)
    head = read_sample("linked/unit-plain.so")[:100]
    with open(os.path.join(root, "lib", "damaged.so"), "wb") as damaged:
        damaged.write(head)
    shutil.copyfile(shutil.which("true"), os.path.join(root, "lib", "true"))
    for i in range(PLAIN_FILES):
        with open(os.path.join(root, "plain", f"{i:05}.txt"), "w") as plain:
            plain.write(f"plain file {i}\n")
    os.mkfifo(os.path.join(root, "lib", "fifo"))
    os.symlink("libunit.so", os.path.join(root, "lib", "libunit.so.1"))
    os.symlink("libunit.so.1", os.path.join(root, "lib", "libunit.so.1.0"))
    os.symlink("missing.so", os.path.join(root, "lib", "dangling.so"))
    os.symlink(os.path.join(outside, "elsewhere.so"),
               os.path.join(root, "lib", "outside.so"))
    os.symlink(outside, os.path.join(root, "outside-folder"))
    gpu = ["bundle.ccob", "bundle.plain", "lib/deeper/app", "lib/kernels.o",
           "lib/libkernels.a", "lib/libunit.so"]
    return [os.path.join(root, name) for name in gpu]


def ranked_files(stdout):
    """The files of sizes' ranking over folders, in its order."""
    lines = stdout.splitlines()
    if "files by GPU bytes:" not in lines:
        return []
    ranking = []
    for line in lines[lines.index("files by GPU bytes:") + 2:]:
        if not line:
            break
        ranking.append(line.split(None, 3)[3])
    return ranking


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def stderr_on_terminal(offbundle, args):
    """What offbundle writes to its standard error when that is a
    terminal (a pseudo-terminal here), standard output going to a pipe."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([offbundle] + args, stdout=subprocess.PIPE,
                               stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    written = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        written += chunk
    process.communicate(timeout=120)
    os.close(leader)
    return written.decode(errors="replace")


def chromium_dom(page, work, fragment=""):
    """The page's DOM once loaded and its script run, from headless
    Chromium."""
    done = subprocess.run(
        [shutil.which("chromium"), "--headless", "--no-sandbox",
         "--disable-gpu", f"--user-data-dir={work}/chromium",
         "--dump-dom", f"file://{page}{fragment}"],
        capture_output=True, text=True, timeout=120)
    return done.stdout


def table_files(dom):
    """The files of the page's files table, in its order."""
    table = dom[dom.find('<table id="files">'):]
    table = table[:table.find("</table>")]
    return re.findall(r'<tr><td data-value="([^"]*)">', table)


def check_page(suite, page, work, gpu, gpu_bytes):
    with open(page, encoding="utf-8") as handle:
        text = handle.read()
    suite.check(not re.search(r"https?:|<link|\bsrc=|@import|url\(", text),
                "the page fetches nothing")
    dom = chromium_dom(page, work)
    total = f"{sum(gpu_bytes.values()):,}"
    suite.check(f'<b id="gpu-bytes">{total}</b>' in dom,
                f"the page shows the total GPU bytes, {total}")
    suite.check(f"{len(gpu)} files" in dom, "the page counts the files")
    suite.check(table_files(dom) ==
                sorted(gpu, key=lambda path: -gpu_bytes[path]),
                f"the files table, largest first: {table_files(dom)}")
    suite.check('<svg id="chart"' in dom and dom.count("<rect ") >= 2,
                "the page draws the chart")
    suite.check('<table id="savings">' in dom and "bytes saved" in dom,
                "the page tells what pruning saves")
    by_name = chromium_dom(page, work, "#sort=file")
    suite.check(table_files(by_name) == sorted(gpu),
                f"#sort=file sorts by name: {table_files(by_name)}")
    by_size = chromium_dom(page, work, "#sort=bytes")
    sizes = [os.path.getsize(path) for path in table_files(by_size)]
    suite.check(len(sizes) == len(gpu) and sizes == sorted(sizes),
                f"#sort=bytes sorts by size: {sizes}")
    shot = os.path.join(work, "sizes.png")
    subprocess.run([shutil.which("chromium"), "--headless", "--no-sandbox",
                    "--disable-gpu", f"--user-data-dir={work}/chromium",
                    f"--screenshot={shot}", "--window-size=1200,900",
                    f"file://{page}"], capture_output=True, timeout=120)
    suite.check(os.path.isfile(shot) and os.path.getsize(shot) > 10000,
                "the page renders to a screenshot")


def check_extraction_clash(suite, work):
    """Two files whose paths make one extraction folder ("../p" and
    "__/p"): the first is extracted, the second is an error naming both, and
    the same file named twice is extracted once."""
    folder = os.path.join(work, "clash", "w")
    os.makedirs(os.path.join(folder, "__"))
    first = os.path.join(work, "clash", "p")
    second = os.path.join(folder, "__", "p")
    copy_sample("compression/small.v3.level3.ccob", first)
    copy_sample("compression/small.bundle", second)
    out = os.path.join(folder, "out")
    done = subprocess.run([suite.offbundle, "extract", "-o", "out", "../p",
                           "__/p", "./../p"], capture_output=True, text=True,
                          cwd=folder, timeout=120)
    written = done.stdout.splitlines()
    suite.check(done.returncode == 1 and written and
                all(line.startswith("out/__/p/") for line in written) and
                sorted(os.listdir(os.path.join(out, "__", "p"))) ==
                sorted(os.path.basename(line) for line in written) and
                done.stderr == "offbundle: error: '__/p': its entries would "
                "go to 'out/__/p', as those of '../p' do: extract it by "
                "itself, or into another folder\n",
                f"extract: a clash of folders is an error: {done.stdout!r} "
                f"{done.stderr!r}")


def check_thin_archive(suite, root, work):
    """A thin archive names its members' files and holds none of their
    bytes: sizes gives their entries, and no room in the archive for them;
    an ordinary archive of the same files holds their bundles."""
    members = [os.path.join(root, name) for name in ("bundle.plain",
                                                     "bundle.ccob")]
    reports = {}
    for kind, flags in (("thin", "rcT"), ("ordinary", "rc")):
        archive = os.path.join(work, f"{kind}.a")
        subprocess.run(["ar", flags, archive] + members, check=True)
        done = suite.run(["sizes", "--json", archive])
        reports[kind] = json.loads(done.stdout) if done.returncode == 0 else {}
    thin, ordinary = reports["thin"], reports["ordinary"]
    entries = {kind: sorted((target["target"], target["entries"],
                             target["bytes"])
                            for target in report.get("targets", []))
               for kind, report in reports.items()}
    suite.check(entries["thin"] and entries["thin"] == entries["ordinary"],
                f"a thin archive's entries are read: {entries}")
    suite.check(all(target["file_bytes"] == 0 and target["share"] == 0
                    for target in thin.get("targets", [])) and
                thin.get("plain", {}).get("file_bytes") == 0 and
                thin.get("compressed", {}).get("file_bytes") == 0,
                f"a thin archive holds no bytes of its members: {thin}")
    suite.check(ordinary.get("plain", {}).get("file_bytes", 0) > 0 and
                ordinary.get("compressed", {}).get("file_bytes", 0) > 0,
                f"an ordinary archive holds its members' bundles: {ordinary}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offbundle", required=True)
    args = parser.parse_args()
    require_executables(args.offbundle)
    for tool, package in (("ar", "binutils"), ("chromium", "chromium")):
        if not shutil.which(tool):
            skip_suite(f"{tool} ({package}) is missing")
    suite = TreeSuite(os.path.abspath(args.offbundle))
    work, root, outside = scratch_folders("offbundle-folders-")
    try:
        gpu = build_tree(root, outside)
        damaged = os.path.join(root, "lib", "damaged.so")
        untouched = snapshot(root)
        skipped_line = (f"skipped {PLAIN_FILES + 1} files holding no GPU "
                        "code, 5 symlinks (not followed), 1 special file")

        done = suite.run(["sizes", root])
        suite.check(done.returncode == 1, f"sizes: exit {done.returncode}")
        errors = done.stderr.splitlines()
        suite.check(errors == [f"offbundle: error: '{damaged}': invalid ELF "
                               "object: the program header table at offset "
                               "0x40 extends past the end of the file"],
                    f"sizes: one error line for the damaged file: {errors}")
        ranking = ranked_files(done.stdout)
        suite.check(sorted(ranking) == sorted(gpu),
                    f"sizes: every GPU file ranked: {ranking}")
        suite.check(done.stdout.startswith(f"total of {len(gpu)} files: "),
                    f"sizes: the totals first: {done.stdout[:100]}")
        suite.check(done.stdout.endswith(skipped_line + "\n"),
                    f"sizes: the skipped line: {done.stdout[-200:]}")
        suite.check(outside not in done.stdout and outside not in done.stderr,
                    "sizes: nothing outside the tree is reported")

        done = suite.run(["list", root])
        headers = [line[:-1] for line in done.stdout.splitlines()
                   if line.startswith(root) and line.endswith(":")]
        suite.check(done.returncode == 1 and headers == gpu,
                    f"list: each GPU file named, in order: {headers}")

        done = suite.run(["verify", root])
        ok = [line.split(": ok")[0] for line in done.stdout.splitlines()
              if ": ok, " in line]
        suite.check(done.returncode == 1 and ok == gpu,
                    f"verify: every GPU file checked: {ok} {done.stderr}")
        suite.check((done.stdout.splitlines() or [""])[-1] == skipped_line,
                    f"verify: the skipped line: {done.stdout[-200:]}")
        suite.check(len(done.stderr.splitlines()) == 1
                    and damaged in done.stderr,
                    f"verify: one error line: {done.stderr}")

        done = suite.run(["sizes", "--json", root])
        report = json.loads(done.stdout) if done.stdout else {}
        files = [entry["file"] for entry in report.get("files", [])]
        suite.check(files == gpu, f"sizes --json: the files: {files}")
        suite.check(report.get("skipped") == {
            "no_gpu_code": PLAIN_FILES + 1, "symlinks": 5,
            "special_files": 1}, f"sizes --json: skipped: {report.get('skipped')}")
        suite.check(report.get("file_size") ==
                    sum(os.path.getsize(path) for path in gpu),
                    "sizes --json: the total file size adds up")
        gpu_bytes = {entry["file"]: entry["compressed"]["file_bytes"] +
                     entry["plain"]["file_bytes"]
                     for entry in report.get("files", [])}
        by_size = sorted(gpu, key=lambda path: -gpu_bytes.get(path, 0))
        suite.check(ranking == by_size,
                    f"sizes: files by GPU bytes, largest first: {ranking} "
                    f"{gpu_bytes}")
        for name in ("compressed", "plain"):
            suite.check(report.get(name, {}).get("file_bytes") ==
                        sum(entry[name]["file_bytes"]
                            for entry in report.get("files", [])),
                        f"sizes --json: the {name} totals add up")

        # --html: one self-contained page, read in headless Chromium. It
        # stands for the whole run: the damaged file keeps it from being
        # written, and a page from before stays as it was.
        page = os.path.join(work, "sizes.html")
        with open(page, "w", encoding="utf-8") as handle:
            handle.write("an earlier page\n")
        done = suite.run(["sizes", "--html", page, root])
        suite.check(done.returncode == 1 and read(page) == b"an earlier page\n"
                    and done.stderr.splitlines()[-1] ==
                    f"offbundle: error: '{page}': not written, as a file "
                    "could not be read",
                    f"sizes --html after a failure: {done.stderr}")
        # Without the damaged file (moved aside, then back, its folder's
        # times put back too) the page is written.
        aside = os.path.join(work, "damaged.so")
        folder_times = os.stat(os.path.dirname(damaged))
        os.rename(damaged, aside)
        try:
            done = suite.run(["sizes", "--html", page, root])
        finally:
            os.rename(aside, damaged)
            os.utime(os.path.dirname(damaged), ns=(folder_times.st_atime_ns,
                                                   folder_times.st_mtime_ns))
        suite.check(done.returncode == 0 and not done.stderr and
                    read(page) != b"an earlier page\n",
                    f"sizes --html writes the page: {done.stderr}")
        check_page(suite, page, work, gpu, gpu_bytes)
        # Never over a file the run reads: named twice by a slip.
        victim = gpu[0]
        held = read(victim)
        done = suite.run(["sizes", "--html", victim, victim])
        suite.check(done.returncode == 1 and read(victim) == held and
                    done.stderr == f"offbundle: error: '{victim}': is a file "
                    "this run reads; the page is not written over it\n",
                    f"sizes --html over its input: {done.stderr}")

        # -j: the same report whatever the number of files at once.
        reports = [suite.run(["sizes", "--json", f"-j{jobs}", root])
                   for jobs in (1, 3, 8)]
        suite.check(all(done.stdout == reports[0].stdout and
                        done.stderr == reports[0].stderr
                        for done in reports) and reports[0].stdout,
                    "-j 1, 3 and 8 give the same report")
        verified = [suite.run(["verify", f"-j{jobs}", root])
                    for jobs in (1, 8)]
        suite.check(verified[0].stdout == verified[1].stdout,
                    "verify -j 1 and -j 8 print the same")

        # The progress line: on a terminal only, and not with --quiet.
        suite.check(not any(done.stderr.count("offbundle: ") > 1 or
                            "files, " in done.stderr for done in reports),
                    "no progress line when standard error is a pipe")
        shown = stderr_on_terminal(suite.offbundle, ["sizes", root])
        suite.check(re.search(r"\r\x1b\[Koffbundle: \d+/\d+ files, ", shown)
                    and shown.endswith("\r\x1b[K" + "offbundle: error: '"
                                       f"{damaged}': invalid ELF object: the "
                                       "program header table at offset 0x40 "
                                       "extends past the end of the file\r\n"),
                    f"the progress line on a terminal: {shown!r}")
        quiet = stderr_on_terminal(suite.offbundle, ["sizes", "-q", root])
        suite.check("files, " not in quiet and "error:" in quiet,
                    f"--quiet: no progress line: {quiet!r}")

        # extract over a folder: each file's entries in a folder of its
        # own, named by its path, the same bytes as extracting it alone.
        out = os.path.join(work, "extracted")
        done = suite.run(["extract", "-o", out, root])
        written = done.stdout.splitlines()[:-1]
        suite.check(done.returncode == 1 and damaged in done.stderr and
                    all(os.path.isfile(path) for path in written),
                    f"extract over a folder: {done.stderr}")
        for path in gpu:
            alone = os.path.join(work, "alone")
            shutil.rmtree(alone, ignore_errors=True)
            single = suite.run(["extract", "-o", alone, path])
            folder = os.path.join(out, path.lstrip("/"))
            mine = sorted(line for line in written
                          if os.path.dirname(line) == folder)
            names = sorted(os.path.basename(line) for line in mine)
            suite.check(single.returncode == 0 and names == sorted(
                os.listdir(alone)) and all(
                read(os.path.join(folder, name)) ==
                read(os.path.join(alone, name)) for name in names),
                f"extract over a folder: {path} as alone: {names}")

        check_thin_archive(suite, root, work)
        check_extraction_clash(suite, work)

        # A symlink named on the command line is followed; files named
        # explicitly are each attempted, and one holding no GPU code is
        # still reported.
        link = os.path.join(root, "lib", "outside.so")
        missing = os.path.join(root, "missing.so")
        plain = os.path.join(root, "plain", "00000.txt")
        done = suite.run(["sizes", link, missing, plain])
        suite.check(done.returncode == 1
                    and done.stderr == f"offbundle: error: '{missing}': No "
                    "such file or directory\n",
                    f"explicit files: the missing one: {done.stderr}")
        suite.check(done.stdout.startswith(f"{link}: ")
                    and f"{plain}: {os.path.getsize(plain)} bytes; 0 bundles"
                    in done.stdout
                    and "skipped" not in done.stdout,
                    f"explicit files: reported: {done.stdout[:300]}")

        suite.check(snapshot(root) == untouched,
                    "the tree is left as it was, damaged file included")

        # Unreadable: a file no one may read, the run made as nobody when
        # the suite runs as root (who may read anything).
        os.remove(damaged)
        done = suite.run(["verify", root])
        suite.check(done.returncode == 0 and not done.stderr,
                    f"a clean tree verifies: {done.returncode} {done.stderr}")
        before = snapshot(root)
        locked = os.path.join(root, "lib", "libunit.so")
        os.chmod(locked, 0)
        as_nobody = os.geteuid() == 0
        if as_nobody:
            for folder, names, _ in os.walk(work):
                os.chmod(folder, 0o755)
        done = suite.run(["sizes", root], as_nobody=as_nobody)
        listed = sorted(ranked_files(done.stdout))
        suite.check(done.returncode == 1
                    and done.stderr == f"offbundle: error: '{locked}': "
                    "Permission denied\n",
                    f"unreadable: one error line: {done.stderr}")
        suite.check(listed == sorted(path for path in gpu if path != locked),
                    f"unreadable: the others reported: {listed}")
        os.chmod(locked, 0o644)
        after = snapshot(root)
        suite.check(after == before, "the tree is left as it was")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(suite.exit_status())


if __name__ == "__main__":
    main()
