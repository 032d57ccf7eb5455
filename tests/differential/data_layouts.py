#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Data layout strings: what LLVM 22 refuses, and why, against ours.

LLVM's bitcode reader parses a module's data layout before anything else
in the module can be used; a layout it refuses makes the module unreadable,
which in a device archive (-type=a) means a warning with the parser's
message and no symbols for the member. bitcode/data_layout.cpp says which
layouts those are. This suite writes each layout into an assembly file,
`target datalayout = "..."`, and has LLVM 22's llvm-as parse it; our
checker (data_layout_check) reads the same layouts. Both must accept the
same layouts and give the same message for each refused one.

The layouts: hand-picked ones for every specification and error, and
generated ones (fixed seed) mixing valid specifications with damaged ones,
so that a fault after several good specifications is reached too.
Without llvm-as the suite is skipped (exit 77, a failure when CI is
"true").

Usage: data_layouts.py --ours PATH --reference-bin FOLDER [--cases N]
"""

import argparse
import concurrent.futures
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import require_executables  # noqa: E402

VALID = ["e", "E", "m:e", "m:o", "m:w", "p:64:64", "p1:64:64",
         "p7:160:256:256:32", "p8:128:128:128:48", "pe9:192:256:256:32",
         "pu3(x):32:32", "p(y):64:64:64", "i64:64", "i1:8:8", "i8:8",
         "n32:64", "n8:16:32:64", "S32", "S128", "A5", "G1", "P0",
         "ni:7:8:9", "v16:16", "v2048:2048", "f80:128", "a:0:64", "a0:8",
         "Fi8", "Fn32", "s0:64"]
NUMBERS = ["", "0", "1", "8", "16", "24", "32", "48", "64", "128", "256",
           "65535", "65536", "65528", "16777215", "16777216", "4294967295",
           "4294967296", "99999999999999999999", "x", "0x1", "-1", "+8",
           "007", "3", "12"]
# Each specification and each of the parser's messages at least once.
HAND_PICKED = [
    "", "e", "E-m:e", "e-x", "ee", "Ex", "-e", "e-", "e--E", "s", "sfoo",
    "m", "m:", "m:q", "m:ee", "me", "m:l", "m:a", "m:x",
    "S", "S0", "S12", "S64", "S65536", "Sx",
    "F", "Fx8", "Fi", "Fi0", "Fn24", "Fi65536",
    "P", "Px", "P16777216", "A0x1", "G16777216", "A1(x)",
    "n", "n:", "n0", "n8:", "n16777216", "n8:16:32",
    "ni", "ni8", "ni:", "ni:0", "ni:00", "ni:7:0", "ni:x", "ni:e1",
    "i", "i8", "i8:16", "i8:8:16", "i16:8:4", "i0:8", "i16:0", "i32:32:16",
    "i32:32:32:32", "f", "f32:24", "v64:64:64:64", "v:64",
    "a", "a:", "a1:8", "ax:8", "a:0", "a0:0:8", "a:8:0", "a:16:8",
    "p", "p:64", "p:64:64:64:64:64:64", "p:0:64", "p:64:0", "p:64:64:32",
    "p:64:64:64:128", "p:32:32:32:0", "p1x:64:64", "p_1:64:64",
    "pz1:64:64", "pX1:64:64", "pe:64:64", "pu0:64:64", "pee2:64:64",
    "pe16777216:64:64", "p1(a):64:64", "p1():64:64", "p1(foo:64:64",
    "p1(a)x:64:64", "p(a)1:64:64", "p1(P):64:64", "p1(GG):64:64",
    "p1(a):64:64-p2(a):64:64", "p1(a):64:64-p1(b):64:64",
    "p1(a):64:64-p1(a):64:64", "p1(a-b):64:64", "p1((a)):64:64",
    "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128",
    "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32"
    "-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64"
    "-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512"
    "-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9",
]


def damaged_specification(rng):
    letter = rng.choice(list("iefvapsEnSFPAGmxzIN") + ["ni"])
    if letter in "EeS" and rng.random() < 0.5:
        return letter + rng.choice(["", "x", "0", "8", "16", "3"])
    if letter == "m":
        return "m" + rng.choice(["", ":", ":e", ":l", ":o", ":m", ":w", ":x",
                                 ":a", ":q", ":ee", "e", "::e"])
    if letter == "F":
        return "F" + rng.choice(["", "i", "n", "x"]) + rng.choice(NUMBERS)
    if letter in "PAG":
        return letter + rng.choice(NUMBERS)
    if letter == "ni":
        return "ni" + rng.choice(["", ":", "8"]) + ":".join(
            rng.choice(NUMBERS) for _ in range(rng.randint(0, 3)))
    if letter == "s":
        return "s" + rng.choice(["", "x:y", "0"])
    if letter == "p" and rng.random() < 0.6:
        space = (rng.choice(["", "e", "u", "eu", "ee", "z", "X", "_"]) +
                 rng.choice(["", "0", "1", "7", "16777216", "00"]) +
                 rng.choice(["", "(a)", "(b)", "()", "(P)", "(PP)", "(a",
                             "a)", "(a)x", "((a))", "(a)(b)", "(1)"]))
        return "p" + space + ":" + ":".join(
            rng.choice(NUMBERS) for _ in range(rng.randint(1, 5)))
    count = rng.randint(0, 6)
    return letter + ":".join(rng.choice(NUMBERS) for _ in range(count))


def generated_layouts(rng, count):
    layouts = []
    for _ in range(count):
        parts = [rng.choice(VALID) if rng.random() < 0.75
                 else damaged_specification(rng)
                 for _ in range(rng.randint(1, 7))]
        layout = "-".join(parts)
        if rng.random() < 0.05:
            layout += "-"
        layouts.append(layout)
    return layouts


def reference_answer(llvm_as, folder, index, layout):
    path = os.path.join(folder, f"layout{index}.ll")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f'target datalayout = "{layout}"\n')
    done = subprocess.run([llvm_as, path, "-o", os.devnull],
                          capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        return "OK"
    first = done.stderr.splitlines()[0] if done.stderr else ""
    return first.split("error: ", 1)[1] if "error: " in first else first


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference-bin", required=True)
    parser.add_argument("--cases", type=int, default=1500)
    args = parser.parse_args()
    llvm_as = os.path.join(args.reference_bin, "llvm-as")
    require_executables(args.ours, llvm_as)
    layouts = list(dict.fromkeys(
        HAND_PICKED + generated_layouts(random.Random(22), args.cases)))
    with tempfile.TemporaryDirectory(prefix="offbundle-layouts-") as folder:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            expected = list(pool.map(
                lambda item: reference_answer(llvm_as, folder, *item),
                enumerate(layouts)))
    ours = subprocess.run([args.ours], input="\n".join(layouts) + "\n",
                          capture_output=True, text=True,
                          timeout=60).stdout.splitlines()
    failures = [(layout, want, got) for layout, want, got
                in zip(layouts, expected, ours + [None] * len(layouts))
                if want != got]
    for layout, want, got in failures[:20]:
        print(f"FAIL: {layout!r}\n  LLVM 22: {want}\n  ours:    {got}")
    accepted = expected.count("OK")
    print(f"{len(layouts)} layouts ({accepted} accepted, "
          f"{len(layouts) - accepted} refused): {len(failures)} differ")
    sys.exit(1 if failures or len(layouts) < 100 else 0)


if __name__ == "__main__":
    main()
