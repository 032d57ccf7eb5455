# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""A stand-in for the HIP runtime, for the end-to-end suites.

libamdhip64.so.5 with the hip_4.2 symbol version, as programs and libraries
linked against ROCm's runtime load it, written in C here. Its
__hipRegisterFatBinary does what the runtime does with a registration:
checks the wrapper's magic, follows its pointer to the bundle, decompresses
a compressed bundle, reads the bundle's entries, and records each
(registration number, entry ID, size, FNV-1a hash of the payload) in the
file OFFBUNDLE_REGISTRY names; anything it cannot read is recorded as an
error line. A small loader dlopens a shared library, so that its
constructors register its fat binaries.
"""

import os
import subprocess

# The runtime entry points clang's HIP code calls, other than the
# registration of a fat binary.
RUNTIME_ENTRY_POINTS = """
void __hipRegisterFunction(void **m, const void *hf, char *df, const char *dn,
                           int t, void *a, void *b, void *c, void *d, int *e) {}
void __hipRegisterVar(void **m, char *hv, char *dv, const char *dn, int ext,
                      long size, int cnst, int global) {}
void __hipRegisterManagedVar(void *h, void **p, char *n, const char *dn,
                             long s, unsigned a) {}
void __hipRegisterSurface(void) {}
void __hipRegisterTexture(void) {}
void __hipUnregisterFatBinary(void **m) {}
int hipLaunchKernel(const void *f) { return 0; }
int __hipPushCallConfiguration(long a, int b, long c, int d, unsigned long e,
                               void *s) { return 0; }
int __hipPopCallConfiguration(void *a, void *b, void *c, void *d) { return 0; }
"""

# The runtime (see the module's description).
REGISTERING_RUNTIME = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

struct wrapper { uint32_t magic, version; const unsigned char *binary; void *unused; };
static int registrations;

static uint64_t fnv(const unsigned char *p, uint64_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < n; ++i) { h ^= p[i]; h *= 0x100000001b3ull; }
  return h;
}
static uint64_t u64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

static void record(FILE *out, int number, const unsigned char *bundle, uint64_t size) {
  if (size < 32 || memcmp(bundle, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) {
    fprintf(out, "%d error: no bundle\n", number); return;
  }
  uint64_t count = u64(bundle + 24), at = 32;
  for (uint64_t i = 0; i < count; ++i) {
    if (at + 24 > size) { fprintf(out, "%d error: header\n", number); return; }
    uint64_t offset = u64(bundle + at), length = u64(bundle + at + 8),
             idLength = u64(bundle + at + 16);
    at += 24;
    if (idLength > size - at || offset > size || length > size - offset) {
      fprintf(out, "%d error: entry\n", number); return;
    }
    fprintf(out, "%d %.*s %llu %016llx\n", number, (int)idLength, bundle + at,
            (unsigned long long)length,
            (unsigned long long)fnv(bundle + offset, length));
    at += idLength;
  }
}

void **__hipRegisterFatBinary(const struct wrapper *w) {
  static void *handle;
  const char *path = getenv("OFFBUNDLE_REGISTRY");
  FILE *out = path ? fopen(path, "a") : stderr;
  int number = registrations++;
  if (w->magic != 0x48495046u) {
    fprintf(out, "%d error: wrapper magic\n", number);
  } else if (memcmp(w->binary, "CCOB", 4) == 0) {
    uint16_t version, method; memcpy(&version, w->binary + 4, 2);
    memcpy(&method, w->binary + 6, 2);
    uint64_t total = 0, plain = 0; size_t header = version == 2 ? 24 : 32;
    if (version == 2) { uint32_t t, p; memcpy(&t, w->binary + 8, 4);
      memcpy(&p, w->binary + 12, 4); total = t; plain = p; }
    else { memcpy(&total, w->binary + 8, 8); memcpy(&plain, w->binary + 16, 8); }
    unsigned char *bytes = malloc(plain ? plain : 1);
    int ok;
    if (method == 1) {
      ok = ZSTD_decompress(bytes, plain, w->binary + header, total - header) == plain;
    } else {
      uLongf length = plain;
      ok = uncompress(bytes, &length, w->binary + header, total - header) == Z_OK && length == plain;
    }
    if (ok) record(out, number, bytes, plain);
    else fprintf(out, "%d error: decompression\n", number);
    free(bytes);
  } else {
    /* A plain bundle: its size is where its furthest entry ends. */
    uint64_t count = u64(w->binary + 24), at = 32, end = 32;
    for (uint64_t i = 0; i < count && i < 4096; ++i) {
      uint64_t e = u64(w->binary + at) + u64(w->binary + at + 8);
      uint64_t header = at + 24 + u64(w->binary + at + 16);
      end = e > end ? e : end; end = header > end ? header : end;
      at = header;
    }
    record(out, number, w->binary, end);
  }
  if (out != stderr) fclose(out);
  return &handle;
}
""" + RUNTIME_ENTRY_POINTS

# Loads a shared library as a program would (lazily bound, as the HIP
# runtime's users load GPU libraries), so that its constructors register
# its fat binaries.
LOADER = r"""
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  if (!dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL)) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  return 0;
}
"""



def build(folder):
    """The folder (made inside `folder`) holding libamdhip64.so.5 and the
    loader `load`; built once."""
    runtime = os.path.join(folder, "runtime")
    if os.path.exists(os.path.join(runtime, "load")):
        return runtime
    os.makedirs(runtime, exist_ok=True)
    with open(os.path.join(runtime, "runtime.c"), "w") as handle:
        handle.write(REGISTERING_RUNTIME)
    with open(os.path.join(runtime, "hip.map"), "w") as handle:
        handle.write("hip_4.2 { global: *; };\n")
    with open(os.path.join(runtime, "load.c"), "w") as handle:
        handle.write(LOADER)
    # Optimized: hashing the payloads of a 1.25 GiB library takes seconds
    # otherwise.
    for command in (["gcc", "-O2", "-shared", "-fPIC", "-o",
                     "libamdhip64.so.5",
                     "-Wl,-soname,libamdhip64.so.5",
                     "-Wl,--version-script=hip.map", "runtime.c", "-lzstd",
                     "-lz"],
                    ["gcc", "-o", "load", "load.c", "-ldl"]):
        subprocess.run(command, cwd=runtime, check=True, capture_output=True)
    if not os.path.lexists(os.path.join(runtime, "libamdhip64.so")):
        os.symlink("libamdhip64.so.5", os.path.join(runtime, "libamdhip64.so"))
    return runtime


def registrations(command, registry, runtime, cwd):
    """(exit status, stderr, registrations) of running `command` with the
    runtime: one {entry ID: (size, FNV-1a hash)} per registration, in
    registration order; an "error:" line becomes the entry "error:"."""
    if os.path.exists(registry):
        os.remove(registry)
    done = subprocess.run(command, cwd=cwd, capture_output=True,
                          env=dict(os.environ, OFFBUNDLE_REGISTRY=registry,
                                   LD_LIBRARY_PATH=runtime))
    seen = {}
    if os.path.exists(registry):
        with open(registry) as handle:
            for line in handle.read().splitlines():
                number, entry_id, size, digest = line.split(" ", 3)
                seen.setdefault(int(number), {})[entry_id] = (
                    int(size) if size.isdigit() else size, digest)
    return done.returncode, done.stderr, [seen[n] for n in sorted(seen)]
