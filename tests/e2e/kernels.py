# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""offbundle kernels against clang 22's own account of each kernel.

Kernels written here to stress each resource (a trivial one, LDS-heavy
ones with flat work-group size bounds, a register-heavy one that spills,
one with scratch, a waves-per-EU request, one using AGPRs on MAI parts)
are compiled by clang 22 for gfx906, gfx908, gfx90a, gfx942, gfx1030
(wave32 and wave64), gfx1100 and gfx1201 with
-Rpass-analysis=kernel-resource-usage. For every kernel and processor:

- occupancy, SGPRs, AGPRs, spills, LDS, scratch and dynamic stack equal
  the compiler's remarks (VGPRs too where there are no AGPRs; with AGPRs
  the metadata's total, which the remark splits);
- every field equals the NT_AMDGPU_METADATA note llvm-readelf-22 --notes
  prints for the code object LLVM 22's bundler unbundles;
- code_bytes equals the size of the kernel's function symbol in that code
  object (llvm-readelf-22 --syms).

Also checked: -t selects targets, --sort orders, --demangle demangles, a
code object whose note is damaged is one error line, as is a compressed
bundle whose hash is damaged (also when -t asks for nothing it holds);
sizes --by-kernel sums
each kernel's symbol sizes over every object, largest first, and --top
keeps the largest.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from suite_support import (BuildingSuite, finish,  # noqa: E402
                           function_sizes, note_kernels,
                           require_executables)

PROCESSORS = [("gfx906", []), ("gfx908", []), ("gfx90a", []),
              ("gfx942", []), ("gfx1030", []),
              ("gfx1030", ["-mwavefrontsize64"]), ("gfx1100", []),
              ("gfx1201", [])]
SOURCE = """\
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **,
                               unsigned long, void *);
__attribute__((global)) void k_trivial(float *p) { p[0] = 1.0f; }

{lds_kernels}
#define N 128
__attribute__((global)) void k_heavy(const float *in, float *out, int n) {
  unsigned t = __builtin_amdgcn_workitem_id_x();
  float acc[N];
#pragma unroll
  for (int j = 0; j < N; ++j) acc[j] = in[t + j * 1024];
  for (int i = 0; i < n; ++i) {
    float x = in[i];
#pragma unroll
    for (int j = 0; j < N; ++j) acc[j] = acc[j] * x + acc[(j + 1) % N];
  }
#pragma unroll
  for (int j = 0; j < N; ++j) out[t + j * 1024] = acc[j];
}

__attribute__((global)) void k_scratch(float *out, int i) {
  volatile float local[64];
  for (int j = 0; j < 64; ++j) local[j] = (float)(j * i);
  out[__builtin_amdgcn_workitem_id_x()] = local[i & 63];
}

__attribute__((global, amdgpu_flat_work_group_size(1, 128),
               amdgpu_waves_per_eu(1, 3)))
void k_wpe(float *p) { p[0] = 2.0f; }

#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx942__)
__attribute__((global)) void k_agpr(float *p) {
  asm volatile("" ::: "v39", "a15");
  p[0] = 1.0f;
}
#endif
"""
# LDS-heavy kernels: (name, largest work-group, floats of LDS).
LDS_KERNELS = [("k_lds", 256, 4096), ("k_lds40k", 128, 10240)]
LDS_KERNEL = """
__attribute__((global, amdgpu_flat_work_group_size(1, {group})))
void {name}(float *out) {{
  __attribute__((shared)) float buf[{floats}];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  for (unsigned i = t; i < {floats}; i += {group}) buf[i] = (float)i;
  __builtin_amdgcn_s_barrier();
  out[t] = buf[(t * 13) % {floats}];
}}
"""
SOURCE = SOURCE.replace("{lds_kernels}", "".join(
    LDS_KERNEL.format(name=name, group=group, floats=floats)
    for name, group, floats in LDS_KERNELS))
REMARK = re.compile(r"remark: +(.*?): (.*) \[-Rpass-analysis")


class Suite(BuildingSuite):
    def __init__(self, args, work):
        super().__init__(args.reference_bin, work)
        self.offbundle = os.path.abspath(args.offbundle)

    def kernels(self, arguments):
        return subprocess.run([self.offbundle, "kernels"] + arguments,
                              capture_output=True, text=True, timeout=120,
                              cwd=self.work)


def remarks(text):
    """{kernel name: {remark label: value}} from clang's remarks."""
    found = {}
    current = None
    for line in text.splitlines():
        match = REMARK.search(line)
        if not match:
            continue
        label, value = match.group(1).strip(), match.group(2).strip()
        if label == "Function Name":
            current = found.setdefault(value, {})
        elif current is not None:
            current[label] = value
    return found


def readelf_notes(suite, code_object):
    """{kernel name: {key: value}} from llvm-readelf --notes' YAML."""
    done = suite.build_step([suite.reference_tool("llvm-readelf"), "--notes",
                             code_object])
    return {kernel.get("name"): kernel
            for kernel in note_kernels(done.stdout.decode())}


def symbol_sizes(suite, code_object):
    done = suite.build_step([suite.reference_tool("llvm-readelf"), "--syms",
                             "-W", code_object])
    return function_sizes(done.stdout.decode())


def check_processor(suite, processor, flags):
    label = processor + ("-wave64" if flags else "")
    folder = os.path.join(suite.work, label)
    os.mkdir(folder)
    source = os.path.join(folder, "k.hip")
    with open(source, "w") as handle:
        handle.write(SOURCE)
    compiled = suite.build_step(
        [suite.reference_tool("clang"), "-x", "hip", "-nogpulib", "-nogpuinc",
         "-O2", f"--offload-arch={processor}",
         "-Rpass-analysis=kernel-resource-usage", "-c", "k.hip", "-o",
         "k.o"] + flags, folder)
    told = remarks(compiled.stderr.decode())
    dump = os.path.join(folder, "fatbin")
    suite.build_step([suite.reference_tool("llvm-objcopy"),
                      f"--dump-section=.hip_fatbin={dump}", "k.o"], folder)
    code_object = os.path.join(folder, "k.co")
    suite.build_step([suite.reference_tool("clang-offload-bundler"),
                      "-unbundle", "-type=o", "-input=" + dump,
                      f"-targets=hipv4-amdgcn-amd-amdhsa--{processor}",
                      "-output=" + code_object])
    notes = readelf_notes(suite, code_object)
    sizes = symbol_sizes(suite, code_object)

    done = suite.kernels(["--json", os.path.join(folder, "k.o")])
    suite.expect(done.returncode == 0, f"{label}: kernels succeeds",
                 done.stderr)
    if done.returncode != 0:
        return
    targets = json.loads(done.stdout)["files"][0]["targets"]
    suite.expect([t["target"] for t in targets] ==
                 [f"amdgcn-amd-amdhsa--{processor}"],
                 f"{label}: one target", [t["target"] for t in targets])
    listed = {k["name"]: k for t in targets for k in t["kernels"]}
    suite.expect(sorted(listed) == sorted(told) == sorted(notes),
                 f"{label}: the kernels the compiler reported",
                 f"{sorted(listed)} / {sorted(told)} / {sorted(notes)}")
    for name, kernel in listed.items():
        remark = told.get(name, {})
        note = notes.get(name, {})
        what = f"{label} {name}"
        pairs = [("occupancy", "Occupancy [waves/SIMD]"),
                 ("sgpr_count", "TotalSGPRs"),
                 ("vgpr_spill_count", "VGPRs Spill"),
                 ("sgpr_spill_count", "SGPRs Spill"),
                 ("group_segment_fixed_size", "LDS Size [bytes/block]"),
                 ("private_segment_fixed_size", "ScratchSize [bytes/lane]")]
        if "AGPRs" in remark:
            pairs.append(("agpr_count", "AGPRs"))
        if remark.get("AGPRs", "0") == "0":
            pairs.append(("vgpr_count", "VGPRs"))
        for field, remark_label in pairs:
            suite.expect(str(kernel[field]) == remark.get(remark_label),
                         f"{what}: {field} is the compiler's "
                         f"{remark_label}",
                         f"{kernel[field]} != {remark.get(remark_label)}")
        suite.expect(kernel["uses_dynamic_stack"] ==
                     (remark.get("Dynamic Stack") == "True"),
                     f"{what}: uses_dynamic_stack is the compiler's")
        for field in ("vgpr_count", "agpr_count", "sgpr_count",
                      "vgpr_spill_count", "sgpr_spill_count",
                      "group_segment_fixed_size",
                      "private_segment_fixed_size", "wavefront_size",
                      "max_flat_workgroup_size", "kernarg_segment_size"):
            expected = note.get(field, "0")
            suite.expect(str(kernel[field]) == expected,
                         f"{what}: {field} is the note's",
                         f"{kernel[field]} != {expected}")
        suite.expect(kernel["code_bytes"] == sizes.get(name),
                     f"{what}: code_bytes is its symbol's size",
                     f"{kernel['code_bytes']} != {sizes.get(name)}")
    return os.path.join(folder, "k.o"), sizes


def check_by_kernel(suite, built):
    """sizes --by-kernel over every object: each kernel's code bytes summed
    over the objects (llvm-readelf's symbol sizes), largest first."""
    objects = [obj for obj, _ in built]
    totals = {}
    targets = {}
    for (obj, sizes), (processor, _) in zip(built, PROCESSORS):
        # The kernels: what the note lists, whose symbols are sized.
        for name in readelf_notes(suite, os.path.join(
                os.path.dirname(obj), "k.co")):
            count, total, largest = totals.get(name, (0, 0, 0))
            totals[name] = (count + 1, total + sizes[name],
                            max(largest, sizes[name]))
            targets.setdefault(name, [])
            if f"amdgcn-amd-amdhsa--{processor}" not in targets[name]:
                targets[name].append(f"amdgcn-amd-amdhsa--{processor}")
    expected = sorted(totals.items(), key=lambda item: (-item[1][1], item[0]))
    done = subprocess.run([suite.offbundle, "sizes", "--by-kernel", "--json"]
                          + objects, capture_output=True, text=True,
                          timeout=120)
    suite.expect(done.returncode == 0, "sizes --by-kernel --json succeeds",
                 done.stderr)
    if done.returncode != 0:
        return
    report = json.loads(done.stdout)
    got = [(k["name"], (k["instances"], k["code_bytes"],
                        k["largest_code_bytes"])) for k in report["largest"]]
    suite.expect(got == expected,
                 "sizes --by-kernel: each kernel's symbol sizes summed over "
                 "the objects, largest first", f"{got} != {expected}")
    suite.expect(all(k["targets"] == targets[k["name"]]
                     for k in report["largest"]) and
                 report["files"] == len(objects) and
                 report["names"] == len(totals) and
                 report["kernels"] == sum(c for c, _, _ in totals.values())
                 and report["code_bytes"] ==
                 sum(t for _, t, _ in totals.values()),
                 "sizes --by-kernel: targets, files and totals",
                 str({k: v for k, v in report.items() if k != "largest"}))
    done = subprocess.run([suite.offbundle, "sizes", "--by-kernel", "--top",
                           "2", "--demangle"] + objects, capture_output=True,
                          text=True, timeout=120)
    rows = done.stdout.splitlines()[2:]
    suite.expect(done.returncode == 0 and len(rows) == 2 and
                 rows[0].split()[0] == str(expected[0][1][1]) and
                 "(" in rows[0] and "_Z" not in done.stdout,
                 "sizes --by-kernel --top 2 --demangle: the two largest, "
                 "demangled", done.stdout[:400])
    for arguments, message in (
            (["--top", "2"], "--top needs --by-kernel"),
            (["--by-kernel", "--top", "0"], "--top needs at least 1"),
            # Boost would read a negative count as a huge one.
            (["--by-kernel", "--top", "-1"],
             "--top takes a whole number, not '-1'"),
            (["-j", "-2"], "--jobs takes a whole number, not '-2'"),
            (["--jobs=0"], "--jobs needs at least 1"),
            (["--by-kernel", "--html", "x.html"],
             "--by-kernel and --html do not go together")):
        done = subprocess.run([suite.offbundle, "sizes"] + arguments +
                              objects[:1], capture_output=True, text=True,
                              timeout=120, cwd=suite.work)
        suite.expect(done.returncode == 1 and done.stderr ==
                     f"offbundle: error: {message} (see 'offbundle sizes "
                     "--help')\n" and not done.stdout,
                     f"sizes {' '.join(arguments)} is refused", done.stderr)


def check_options(suite, objects):
    done = suite.kernels(["--json", "-t", "gfx90a"] + objects)
    files = json.loads(done.stdout)["files"] if done.returncode == 0 else []
    suite.expect([t["target"] for f in files for t in f["targets"]] ==
                 ["amdgcn-amd-amdhsa--gfx90a"],
                 "-t gfx90a keeps that target alone", done.stdout[:200])
    done = suite.kernels(["--json", "--sort", "occupancy", objects[0]])
    kernels = json.loads(done.stdout)["files"][0]["targets"][0]["kernels"]
    occupancies = [k["occupancy"] for k in kernels]
    suite.expect(occupancies == sorted(occupancies) and
                 len(set(occupancies)) > 1,
                 "--sort occupancy puts the limiting kernel first",
                 occupancies)
    done = suite.kernels(["--json", "--sort", "vgpr_count", objects[0]])
    vgprs = [k["vgpr_count"] for k in
             json.loads(done.stdout)["files"][0]["targets"][0]["kernels"]]
    suite.expect(vgprs == sorted(vgprs, reverse=True),
                 "--sort vgpr_count puts the largest first", vgprs)
    done = suite.kernels(["--demangle", objects[0]])
    suite.expect(done.returncode == 0 and "k_trivial(float*)" in done.stdout
                 and "_Z9k_trivialPf" not in done.stdout,
                 "--demangle prints C++ names", done.stdout[:300])
    done = suite.kernels(["--sort", "colour", objects[0]])
    suite.expect(done.returncode == 1 and
                 "unknown field 'colour'" in done.stderr,
                 "an unknown --sort field is refused", done.stderr)


def fat_binary(suite, code_object, name, option):
    """A HIP fat binary of a gfx906 code object, beside it, as clang makes
    one (an empty host entry first), LLVM 22's bundler given `option`."""
    bundle = os.path.join(os.path.dirname(code_object), name)
    suite.build_step([suite.reference_tool("clang-offload-bundler"),
                      "-type=o", option,
                      "-targets=host-x86_64-unknown-linux-gnu,"
                      "hipv4-amdgcn-amd-amdhsa--gfx906",
                      "-input=/dev/null", "-input=" + code_object,
                      "-output=" + bundle])
    return bundle


def check_damaged_note(suite, obj):
    """The metadata note's MessagePack cut short: one error line."""
    folder = os.path.dirname(obj)
    code_object = os.path.join(folder, "k.co")
    data = bytearray(open(code_object, "rb").read())
    at = data.find(b"amdhsa.kernels")
    data[at - 1] = 0xdd  # an array32 header claiming far too much
    damaged = os.path.join(folder, "damaged.co")
    with open(damaged, "wb") as handle:
        handle.write(bytes(data))
    bundle = fat_binary(suite, damaged, "damaged.hipfb", "-bundle-align=4096")
    done = suite.kernels([bundle])
    suite.expect(done.returncode == 1 and len(done.stderr.splitlines()) == 1
                 and "malformed AMDGPU metadata" in done.stderr,
                 "a damaged metadata note is one error line", done.stderr)
    done = subprocess.run([suite.offbundle, "sizes", "--by-kernel", bundle,
                           obj], capture_output=True, text=True, timeout=120)
    suite.expect(done.returncode == 1 and len(done.stderr.splitlines()) == 1
                 and "malformed AMDGPU metadata" in done.stderr and
                 "1 file," in done.stdout,
                 "sizes --by-kernel: the damaged file is one error line, the "
                 "other file is reported", done.stderr + done.stdout[:200])


def check_compressed(suite, obj):
    """A compressed bundle is decompressed only when its code objects are
    read (its hash checked then); when nothing is to be read, its hash is
    checked before the empty answer, so a damaged bundle is never taken
    for one without the targets asked for."""
    folder = os.path.dirname(obj)
    code_object = os.path.join(folder, "k.co")
    bundle = fat_binary(suite, code_object, "compressed.hipfb", "-compress")
    data = bytearray(open(bundle, "rb").read())
    data[24] ^= 0x01  # the hash of a version 3 header
    damaged = os.path.join(folder, "damaged-hash.hipfb")
    with open(damaged, "wb") as handle:
        handle.write(bytes(data))
    sound = suite.kernels([bundle])
    suite.expect(sound.returncode == 0 and "k_trivial" in sound.stdout,
                 "kernels of a compressed bundle", sound.stderr)
    for arguments in ([], ["-t", "gfx1100"]):
        done = suite.kernels(arguments + [damaged])
        suite.expect(done.returncode == 1 and
                     len(done.stderr.splitlines()) == 1 and
                     "hash" in done.stderr and not done.stdout,
                     f"kernels {arguments}: a damaged hash is one error line",
                     done.stderr + done.stdout[:200])
    done = suite.kernels(["-t", "gfx1100", bundle])
    suite.expect(done.returncode == 0 and not done.stderr,
                 "kernels -t of a target the sound bundle lacks finds none",
                 done.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--offbundle", required=True)
    parser.add_argument("--reference-bin", required=True)
    args = parser.parse_args()
    require_executables(args.offbundle,
                        *(os.path.join(args.reference_bin, name)
                          for name in ("clang", "clang-offload-bundler",
                                       "llvm-objcopy", "llvm-readelf")))
    work = tempfile.mkdtemp(prefix="kernels-")
    try:
        suite = Suite(args, work)
        built = [check_processor(suite, processor, flags)
                 for processor, flags in PROCESSORS]
        objects = [made[0] for made in built if made]
        check_options(suite, objects)
        if len(objects) == len(PROCESSORS):
            check_by_kernel(suite, built)
        check_damaged_note(suite, objects[0])
        check_compressed(suite, objects[0])
        return finish(suite.passed, suite.failed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
