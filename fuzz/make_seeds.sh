#!/usr/bin/env bash
# Builds the libFuzzer seed corpora from the shared profile corpus:
#   fuzz/seeds/decode: raw (gunzipped) copies of every file google/pprof accepts,
#                      up to SEED_MAX_BYTES uncompressed, plus a few small malformed
#                      inputs (truncations, bad ids, a text profile).
#   fuzz/seeds/gzip:   gzipped originals up to the same size, plus corrupt variants.
#   fuzz/seeds/legacy: the corpus's legacy profiles (text cut at a line boundary to
#                      the size limit), one small input per legacy shape, and the
#                      goroutine dumps.
#   fuzz/seeds/goroutine_dump: goroutine dumps only (debug=2, crashes, SIGQUIT).
#   fuzz/seeds/zstd:   small profiles zstd-compressed (with the zstd command when
#                      present), hand-built raw/RLE frames, skippable frames, damage.
#   fuzz/seeds/sniff:  the decode seeds plus other profilers' and archivers' formats.
#   fuzz/seeds/otlp:   the corpus's OTLP files up to the size limit (OpenTelemetry profiles),
#                      and tests/data/otlp-older's fixtures of the older layouts.
#   fuzz/seeds/jfr:    JFR recordings: the committed fixture and tests/helpers/jfrwriter.py's.
# Usage: fuzz/make_seeds.sh [corpus_dir]   (default $PPROFCORE_CORPUS, else ../shared/corpus beside the repo)
set -euo pipefail
cd "$(dirname "$0")"
corpus=${1:-${PPROFCORE_CORPUS:-$(pwd)/../../shared/corpus}}
max=${SEED_MAX_BYTES:-65536}
out=seeds
kinds="decode gzip legacy goroutine_dump zstd sniff otlp jfr"
for k in $kinds; do rm -rf "${out:?}/$k"; mkdir -p "$out/$k"; done
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
def put_legacy(raw, limit):
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    if len(raw) > limit:
        cut = raw.rfind(b"\n", 0, limit)
        if cut < 0 or b"\0" in raw[:cut]:
            return  # binary (gperftools CPU) too large to cut
        raw = raw[: cut + 1]
    put("legacy", raw)
n = 0
manifest = os.path.join(corpus, "MANIFEST.tsv")
if os.path.exists(manifest):
    with open(manifest, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["format"] == "legacy":
                put_legacy(open(os.path.join(corpus, row["file"]), "rb").read(), limit)
                continue
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
            put("sniff", raw, "odd-" + name[:40])
    # OpenTelemetry profiles (the manifest's notes say OTLP) seed the otlp target.
    manifest = os.path.join(corpus, "MANIFEST.tsv")
    for row in csv.DictReader(open(manifest), delimiter="\t") if os.path.exists(manifest) else []:
        path = os.path.join(corpus, row["file"])
        if "OTLP" in row["notes"] and os.path.getsize(path) <= 4 * limit:
            put("otlp", open(path, "rb").read())
    # The older OTLP layouts (v1.7.0-v1.10.0 fixtures the tests made with each release's classes).
    older = os.path.join("..", "tests", "data", "otlp-older")
    for name in sorted(os.listdir(older)) if os.path.isdir(older) else []:
        if name.endswith(".pb"):
            put("otlp", open(os.path.join(older, name), "rb").read())
    generated = os.path.join(odd, "generated")
    for name in sorted(os.listdir(generated)) if os.path.isdir(generated) else []:
        put_legacy(open(os.path.join(generated, name), "rb").read(), limit)
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
    b"heap_v2/524288\n  t*: 1: 48 [2: 96]\n  t0: 1: 48 [2: 96] main\n@ 0x401001 0x402002\n  t*: 1: 48 [2: 96]\n"
    b"  t0: 1: 48 [2: 96]\n\nMAPPED_LIBRARIES:\n00400000-00500000 r-xp 00000000 00:00 0 /bin/x\n",  # jemalloc
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
    put("sniff", s, "synthetic-%02d" % i)
    if i >= 11 and i < len(small) - 5:  # the legacy shapes and the goroutine dumps
        put("legacy", s, "synthetic-%02d" % i)
# Goroutine dumps: one per shape the reader knows (debug=2, runtime.Stack, a
# panic, a fatal error, SIGQUIT with registers, test-runner text before it).
dumps = [small[-7], small[-6]] + [
    b"goroutine 1 [running]:\nmain.main()\n\t/a/m.go:9 +0x1d\n",
    b"goroutine 18 [IO wait, 3 minutes]:\ninternal/poll.runtime_pollWait(0x7f, 0x72)\n\t/go/src/runtime/netpoll.go:343 +0x85\n"
    b"net.(*conn).Read(0xc0000a6000, {0xc0000b8000, 0x1000, 0x1000})\n\t/go/src/net/net.go:179 +0x45\n"
    b"created by net/http.(*Server).Serve in goroutine 1\n\t/go/src/net/http/server.go:3086 +0x5cb\n\n"
    b"goroutine 19 [semacquire, locked to thread]:\nsync.runtime_Semacquire(0xc000012345?)\n\t/go/src/runtime/sema.go:62 +0x25\n"
    b"main.worker[...](0x0, {{0x1, 0x2}})\n\t/a/w.go:12 +0x3f fp=0xc000 sp=0xc000 pc=0x401000\n",
    b"fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n\t/a/m.go:7 +0x2d\n"
    b"exit status 2\n",
    b"=== RUN   TestX\n--- FAIL: TestX (0.00s)\npanic: runtime error: index out of range [3] with length 2 [recovered]\n"
    b"\tpanic: runtime error: index out of range [3] with length 2\n\ngoroutine 6 [running]:\ntesting.tRunner.func1.2({0x5, 0x6})\n"
    b"\t/go/src/testing/testing.go:1545 +0x238\npanic({0x5?, 0x6?})\n\t/go/src/runtime/panic.go:914 +0x21f\n"
    b"x.TestX(0x0?)\n\t/a/x_test.go:8 +0x1d\ncreated by testing.(*T).Run in goroutine 1\n\t/go/src/testing/testing.go:1648 +0x3ad\n",
    b"SIGQUIT: quit\nPC=0x46b8e1 m=0 sigcode=0\n\ngoroutine 0 [idle]:\nruntime.futex()\n\t/go/src/runtime/sys_linux_amd64.s:557 +0x21\n\n"
    b"goroutine 1 gp=0xc0000061c0 m=nil [sleep, 2 minutes]:\ntime.Sleep(0x3b9aca00)\n\t/go/src/runtime/time.go:195 +0x125\n"
    b"main.main()\n\t/a/m.go:5 +0x1a\n\nrax    0xca\nrbx    0x0\nrip    0x46b8e1\n",
    b"goroutine 3 [select (no cases)]:\nmain.f(...)\n\t/a/m.go:3\n...2 frames elided...\nmain.g()\n\t/a/m.go:9 +0x10\n"
    b"\ngoroutine 4 [sync.Mutex.Lock]:\nmain.h()\n\t/a/m.go:11 +0x20\n",
]
for i, d in enumerate(dumps):
    put("goroutine_dump", d, "dump-%02d" % i)
    put("legacy", d, "dump-%02d" % i)
# zstd: hand-built frames (magic, frame header with a one-byte content size, raw
# or RLE blocks), so the seeds need no zstd library; real compressed frames too
# when the zstd command is there.
def zframe(blocks, size=None, checksum=False):
    fhd = (0x20 if size is not None else 0x00) | (0x04 if checksum else 0)
    head = b"\x28\xb5\x2f\xfd" + bytes([fhd]) + (bytes([size]) if size is not None else b"\x58")  # window 0x58: 8 MiB
    body = b""
    for k, (kind, payload, n) in enumerate(blocks):
        last = 1 if k == len(blocks) - 1 else 0
        h = last | (kind << 1) | (n << 3)
        body += h.to_bytes(3, "little") + payload
    return head + body + (b"\0\0\0\0" if checksum else b"")
def zraw(data):
    return zframe([(0, data, len(data))], len(data) if len(data) < 256 else None)
proto = b"\x32\x00\x32\x01a\x0a\x04\x08\x01\x10\x01"
zs = {
    "raw": zraw(proto),
    "rle": zframe([(1, b"\0", 200)], 200),
    "two-blocks": zframe([(0, proto[:4], 4), (0, proto[4:], len(proto) - 4)], len(proto)),
    "two-frames": zraw(proto) + zraw(b"\x48\x01"),
    "skippable": b"\x50\x2a\x4d\x18" + (4).to_bytes(4, "little") + b"abcd" + zraw(proto),
    "checksum-bad": zframe([(0, proto, len(proto))], len(proto), checksum=True),
    "truncated": zraw(proto)[:-3],
    "size-lies": zframe([(0, proto, len(proto))], 200),
    "reserved-block": zframe([(3, b"", 0)]),
    "magic-only": b"\x28\xb5\x2f\xfd",
    "legacy-text": zraw(small[14]),
}
for name, z in zs.items():
    put("zstd", z, "synthetic-" + name)
import shutil, subprocess
if shutil.which("zstd"):
    decode_dir = os.path.join(out, "decode")
    for name in sorted(os.listdir(decode_dir))[:200]:
        raw = open(os.path.join(decode_dir, name), "rb").read()
        if 0 < len(raw) <= 16384:
            z = subprocess.run(["zstd", "-q", "-c", "-3"], input=raw, capture_output=True, check=True).stdout
            put("zstd", z)
# sniff: every decode seed, plus the formats sniff names by magic or shape.
for name in sorted(os.listdir(os.path.join(out, "decode"))):
    put("sniff", open(os.path.join(out, "decode", name), "rb").read(), name)
foreign = [
    b"PK\x03\x04" + bytes(26), b"\xfd7zXZ\0" + bytes(8), b"BZh91AY&SY" + bytes(8), b"\x28\xb5\x2f\xfd" + bytes(8),
    b"\x04\x22\x4d\x18" + bytes(8), b"\x7fELF\x02\x01\x01" + bytes(9), b"%PDF-1.4\n", b"\x89PNG\r\n\x1a\n",
    "heap profile\n".encode("utf-16"), b"h\0e\0a\0p\0 \0p\0r\0o\0f\0i\0l\0e\0:\0",
    b'{"nodes": [], "startTime": 0, "endTime": 1, "samples": [], "timeDeltas": []}',
    b'[{"name": "x", "ph": "X"}]', b"\x0a\x05\x0a\x03\x0a\x01\x0a",  # OTLP-like nesting in field 1
    b"\x0a\x02\x08\x01\x12\x00\x1d\x00\x00\x00\x00", b"jeprof\n", b"MAPPED_LIBRARIES:\n",
    b"\xef\xbb\xbfmain;f 1\n", b"a;b;c 1\na;b 2\n\xff\xfe\n",
]
for i, f in enumerate(foreign):
    put("sniff", f, "foreign-%02d" % i)
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
# jfr: a JDK recording and hand-written ones, integers as varints and big-endian.
put("jfr", open(os.path.join("..", "tests", "data", "producers", "small.jfr"), "rb").read(), "small")
sys.path.insert(0, os.path.join("..", "tests", "helpers"))
import jfrwriter
for compressed in (True, False):
    put("jfr", jfrwriter.recording(compressed), "written-" + ("varint" if compressed else "fixed"))
print(f"make_seeds: {n} corpus files (<= {limit} bytes raw) + synthetic inputs")
PY
for k in $kinds; do echo "$k $(ls "$out/$k" | wc -l)"; done
