#!/usr/bin/env bash
# Builds the libFuzzer seed corpora from the shared profile corpus:
#   fuzz/seeds/decode: raw (gunzipped) copies of every file google/pprof accepts,
#                      up to SEED_MAX_BYTES uncompressed, plus a few small malformed
#                      inputs (truncations, bad ids, a text profile).
#   fuzz/seeds/gzip:   gzipped originals up to the same size, plus corrupt variants.
# Usage: fuzz/make_seeds.sh [corpus_dir]   (default $PPROFCORE_CORPUS, else ../shared/corpus beside the repo)
set -euo pipefail
cd "$(dirname "$0")"
corpus=${1:-${PPROFCORE_CORPUS:-$(pwd)/../../shared/corpus}}
max=${SEED_MAX_BYTES:-65536}
out=seeds
rm -rf "$out/decode" "$out/gzip"
mkdir -p "$out/decode" "$out/gzip"
if [ ! -f "$corpus/MANIFEST.tsv" ]; then
  echo "make_seeds: no corpus at $corpus; seeds are only the synthetic ones" >&2
fi
python3 - "$corpus" "$max" "$out" <<'PY'
import csv, gzip, hashlib, os, sys, zlib
corpus, limit, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def put(kind, data, name=None):
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data)
n = 0
manifest = os.path.join(corpus, "MANIFEST.tsv")
if os.path.exists(manifest):
    with open(manifest, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["parses_with_google_pprof"] != "yes" or row["format"] != "profile.proto":
                continue
            raw = open(os.path.join(corpus, row["file"]), "rb").read()
            if raw[:2] == b"\x1f\x8b":
                gz, raw = raw, gzip.decompress(raw)
            else:
                gz = gzip.compress(raw, mtime=0)
            if len(raw) > limit:
                continue
            put("decode", raw)
            put("gzip", gz)
            n += 1
    # The odd/ files exercise the repair paths and the non-pprof diagnostics.
    odd = os.path.join(corpus, "odd")
    for name in sorted(os.listdir(odd)) if os.path.isdir(odd) else []:
        if not os.path.isfile(os.path.join(odd, name)):
            continue
        raw = open(os.path.join(odd, name), "rb").read()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        if len(raw) <= limit:
            put("decode", raw, "odd-" + name[:40])
# Small malformed inputs: one per error class the decoder reports.
small = [
    b"",                                   # empty
    b"\x0a",                               # truncated tag payload
    b"\x0a\xff\xff\xff\xff\x0f",           # length past the end
    b"\x08" + b"\xff" * 11,                # overlong varint
    b"\x32\x00\x32\x01a\x12\x04\x08\x01\x10\x01",  # sample with dangling location id 1
    b"\x32\x01x",                          # string_table[0] not empty
    b"\x0a\x04\x08\x01\x10\x02\x32\x00\x32\x01a\x32\x01b\x12\x02\x10\x05",  # value ok
    b"\x22\x02\x08\x00\x32\x00",           # location with id 0
    b"\x2a\x02\x08\x01\x2a\x02\x08\x01\x32\x00",  # duplicate function ids
    b"\x22\x04\x22\x02\x08\x07\x32\x00",   # line with dangling function 7
    b"\x48\x01\x48\x02\x32\x00",           # concatenated (two time_nanos)
    b"heap profile: 1: 2 [3: 4] @ heapprofile\n",  # legacy text
    b"--- contention:\ncycles/second=1\n",
    # Legacy formats the decoder reads (one of each parser's shapes).
    b"heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x401001 0x402002\n#\t0x401000\tmain.f+0x1\tm.go:1\n",
    b"--- mutex:\ncycles/second=2000000000\nsampling period=1\n200 3 @ 0x401001 0x402002\n",
    b"goroutine profile: total 2\n2 @ 0x401001 0x402002\n",
    b"--- threadz 1 ---\n--- Thread 7f (name: m/1) stack: ---\n  PC: 0x401001 0x402002\n--- Memory map: ---\n"
    b"00400000-00500000: /bin/x\n",
    b"--- heapz 1 ---\nformat = java\nresolution = bytes\n 100 1 @ 0x3 0x4\n0x3 a.B.c (B.java:3)\n",
    b"".join(w.to_bytes(8, "little") for w in [0, 3, 0, 10000, 0, 1, 2, 0x401001, 0x402002, 0, 1, 0])
    + b"00400000-00500000 r-xp 00000000 00:00 0 /bin/x\n",
    b"".join(w.to_bytes(4, "big") for w in [0, 3, 1, 10000, 0, 1, 2, 3, 4, 0, 1, 0]) + b"0x3 a.B.c (B.java:3)\n",
    # Go goroutine dumps (goroutine_dump): debug=2 and a crash with newer Go's forms.
    b"goroutine 1 [running]:\nmain.inner(...)\n\t/a/m.go:3\nmain.main()\n\t/a/m.go:9 +0x1d\n\n"
    b"goroutine 5 [chan receive, 7 minutes, locked to thread]:\nmain.f(0x1?, {0x2, 0x3})\n\t/a/m.go:5 +0x20\n"
    b"...additional frames elided...\ncreated by main.main\n\t/a/m.go:20 +0x33\n",
    b"panic: boom [recovered]\n\tpanic: again\n\nruntime stack:\nruntime.throw()\n\t/r.go:1 +0x1\n\n"
    b"goroutine 7 gp=0xc000007340 m=nil [select]:\nmain.(*T[...]).m(...)\n\tC:/a/m.go:12\n...3 frames elided...\n"
    b"non-Go function at pc=0x401000\ncreated by main.main in goroutine 1\n\t/a/m.go:41 +0x66\n"
    b"[originating from goroutine 3]:\nmain.g(...)\n\t/a/m.go:7 +0x10\n\nrax    0x0\nexit status 2\n",
    # Other profilers' formats that are refused by name.
    b"FLR\0\x00\x02\x00\x01" + bytes(60), b"PERFILE2" + bytes(96), b'{"resourceProfiles": []}',
    b'{"$schema": "https://www.speedscope.app/file-format-schema.json"}', b"main;foo;bar 3\nmain;baz 1\n",
]
for i, s in enumerate(small):
    put("decode", s, "synthetic-%02d" % i)
good = gzip.compress(b"\x32\x00", mtime=0)
put("gzip", good, "synthetic-good")
put("gzip", good[:-4] + b"\0\0\0\0", "synthetic-bad-isize")
put("gzip", good[:-8] + b"\0\0\0\0" + good[-4:], "synthetic-bad-crc")
put("gzip", good[: len(good) // 2], "synthetic-truncated")
put("gzip", good + good, "synthetic-two-members")
put("gzip", good + b"junk", "synthetic-trailing")
put("gzip", gzip.compress(b"\0" * (1 << 20), mtime=0), "synthetic-bomb-1mib")
# Many members, each small, together large: the limit is on their total.
put("gzip", gzip.compress(b"\0" * (64 << 10), mtime=0) * 24, "synthetic-24-members")
put("gzip", b"".join(gzip.compress(bytes([i]) * 100, mtime=0) for i in range(16)), "synthetic-16-small-members")
# A truncated member whose last four bytes claim a huge ISIZE.
put("gzip", gzip.compress(bytes(range(256)) * 64, mtime=0)[:-40] + b"\xff\xff\xff\x7f", "synthetic-cut-big-isize")
print(f"make_seeds: {n} corpus files (<= {limit} bytes raw) + synthetic inputs")
PY
ls "$out/decode" | wc -l
