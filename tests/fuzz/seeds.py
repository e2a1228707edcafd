#!/usr/bin/env python3
# tests/fuzz/seeds.py - write the seed inputs of the text and wire harnesses into
# tests/fuzz/corpus/NAME/seed-* (run from the top of the tree; the ELF seeds and
# the ring seed are made as tests/fuzz/README.md says).  Inputs that once
# crashed a harness are kept beside them as regress-*.
import os
import re
import struct

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(name, i, data):
    d = os.path.join(TOP, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-%03d" % i), "wb") as f:
        f.write(data)


def texts(name, items):
    for i, data in enumerate(items):
        put(name, i, data if isinstance(data, bytes) else data.encode())


# fuzz_files: byte 0 the file (FUZZ_LIST_FILES=1 build-fuzz/fuzz/fuzz_files -runs=0),
# byte 1 bit 0 O_TRUNC, bit 1 one write per line
FILES = {
    0: ["function\n", "function_graph\n", "nop\n", "nosuch\n"],
    1: ["0\n", "1\n", "42\n", "x\n"],
    2: ["\n"],
    3: ["noprint-parent\n", "sym-offset\n", "nooverwrite\n", "funcgraph-proc\n", "nosuch\n"],
    4: ["0\n", "1\n", "2\n"],
    22: ["0\n", "1\n"],
    51: ["1\n", "3\n", "0\n", "ffffffff,ffffffff\n", "g\n"],
    52: ["100\n", "1408\n", "0\n", "x\n", "4294967296\n"],
    53: ["1\n"],
    54: ["global\n", "x86-tsc\n", "local\n", "nosuch\n"],
    55: ["hello world\n", "no newline", "x" * 300],
    56: [b"\x01\x00\x00\x00payload", b"\x01\x00"],
    57: ["100\n", "0\n", "99999999\n"],
    58: ["\n"],
    59: ["100\n", "0\n", "-1\n"],
    60: ["3\n", "0\n"],
    61: ["0\n", "1\n"],
    62: ["alpha\n", "!alpha\n", "*a*\nmain\n", "main:traceon:5\n", "foo_*:mod:libfoo.so.1\n", "nosuch\n", "2\n"],
    63: ["beta\n", ":mod:prog\n"],
    64: ["main\n", "gamma_?\n"],
    65: ["alpha\n"],
    66: ["1 2 3\n", "0x10 010\n", "x\n", ""],
    67: ["5\n"],
    68: ["1073741824\n", "7\n"],
    69: ["8 9\n"],
    70: ["50\n"],
    71: ["\n"],
}
i = 0
for idx, items in FILES.items():
    for t in items:
        for mode in (1, 0, 3):
            b = t.encode() if isinstance(t, str) else t
            put("files", i, bytes([idx, mode]) + b)
            i += 1

# fuzz_filter: byte 0 file (0-3) | 4 for O_TRUNC, byte 1 write size (0: one write)
FILTER = [
    (4, 0, "alpha"), (4, 0, "!alpha"), (4, 0, "*a*"), (4, 0, "a?p[h-i]a"), (4, 0, "[!a]*"),
    (4, 0, "1 2 3"), (4, 0, "0x2"), (4, 3, "main beta alpha_two"), (0, 0, "gamma*"),
    (4, 0, "foo_*:mod:libfoo.so.1"), (4, 0, ":mod:prog"), (4, 0, "*:mod:!prog"),
    (4, 0, "main:traceon:5"), (4, 0, "main:traceoff"), (4, 0, "alpha:stacktrace:2"),
    (4, 0, "beta:dump"), (4, 0, "beta:cpudump"), (4, 0, "!main:traceon:5"),
    (4, 0, "main:snapshot"), (4, 0, "nosuch"), (5, 0, "beta"), (6, 0, "main"),
    (6, 0, "!main"), (7, 0, "alpha*"), (4, 0, "a\\*b"), (4, 2, "al\x00pha main"),
]
texts("filter", [bytes([a, b]) + t.encode() for a, b, t in FILTER])

# fuzz_pid: byte 0 list (0-3) | 4 replace | 8 reset after
PID = [(4, "1 2 3"), (0, "100"), (4, "0x10 010"), (5, "4194304"), (6, "1073741824"),
       (7, "12 13"), (4, "x"), (4, ""), (12, "5 6"), (4, "-1"), (4, "4294967297")]
texts("pid", [bytes([a]) + t.encode() for a, t in PID])

# fuzz_cpumask: byte 0 number of CPUs - 1
CPUMASK = [(1, "3"), (1, "1\n"), (1, "0"), (39, "ff,ffffffff"), (63, "ffffffff,ffffffff"),
           (255, "1,0,0,0,0,0,0,0"), (1, "g"), (1, "4"), (31, ",1"), (1, "")]
texts("cpumask", [bytes([a]) + t.encode() for a, t in CPUMASK])

# fuzz_wire: packets (2-byte length, then the packet); the process is FUZZ_PID
PID_ = 4194000
HELLO, ACK, TASK, MAPS, TRACING, SITES, PROBE, EVENT, THREAD, STACK, PROFILE, LATENCY = (
    1, 3, 4, 5, 6, 7, 8, 11, 13, 14, 15, 16)
# the protocol version HELLO must carry, as common/ut_ctl.h says it
with open(os.path.join(os.path.dirname(TOP), "..", "..", "common", "ut_ctl.h")) as f:
    VERSION = int(re.search(r"#define UT_PROTO_VERSION (\d+)u", f.read()).group(1))


def pkt(body_type, payload):
    b = struct.pack("<II", body_type, 8 + len(payload)) + payload
    return struct.pack("<H", len(b)) + b


def cstr(s, n):
    return s.encode().ljust(n, b"\0")[:n]


hello = pkt(HELLO, struct.pack("<Iiii", VERSION, PID_, PID_, 0) + cstr("prog", 16) +
            cstr("/opt/app/prog", 256))
# a thread starts (created by the main thread, serial 2) and ends (event-fork, function-fork)
thread = pkt(THREAD, struct.pack("<iiII", PID_ + 1, PID_, 2, 0))
thread_end = pkt(THREAD, struct.pack("<iiII", PID_ + 1, 0, 0, 1))
ack = pkt(ACK, struct.pack("<II", 1, 0))
task = pkt(TASK, struct.pack("<ii", PID_ + 1, PID_) + cstr("worker", 16))
maps = pkt(MAPS, struct.pack("<Q", 12345))
tracing = pkt(TRACING, struct.pack("<II", 0, 0))
probe = pkt(PROBE, struct.pack("<IiiIQ", 5, 0, PID_, 0, 0x1005))


def stack(size, frames, epoch=0):
    """the stack tracer's new maximum: frames (ip, depth), room for 64"""
    ents = b"".join(struct.pack("<QQ", ip, d) for ip, d in frames)
    return pkt(STACK, struct.pack("<iIIIQQ", PID_, len(frames), epoch, 0, size, 99) +
               ents.ljust(64 * 16, b"\0"))


def sites(obj, total, first, offs, path="/opt/app/prog", base=0x555500000000):
    return pkt(SITES, struct.pack("<IIIIQ", obj, total, first, len(offs), base) +
               cstr(path, 256) + b"".join(struct.pack("<I", o) for o in offs))


def field(ctype, name, offset, size, elem, signed, kind):
    return cstr(ctype, 64) + cstr(name, 64) + struct.pack("<HHHBB", offset, size, elem, signed, kind)


def event(name, fields, fmt, size):
    f = fmt.encode() + b"\0"
    return pkt(EVENT, struct.pack("<II", 0, size) + cstr("app", 64) + cstr(name, 64) +
               struct.pack("<II", len(fields), len(f)) + b"".join(fields) + f)


ev_ok = event("req", [field("int", "id", 8, 4, 4, 1, 0), field("char", "tag[8]", 12, 8, 1, 1, 1),
                      field("__data_loc char[]", "path", 20, 4, 1, 1, 2)],
              '"id=%d path=%s", REC->id, __get_str(path)', 24)
ev_bad = event("req", [field("int", "id", 4, 4, 4, 1, 0)], '"x"', 12)


# the function profiler's counts: {epoch, first, nr, pad} then nr {ip, cpu, pad, hits, ns, sq}
def profile(epoch, first, nr, recs):
    return pkt(PROFILE, struct.pack("<IIII", epoch, first, nr, 0) +
               b"".join(struct.pack("<QIIQQQ", ip, cpu, 0, h, t, q) for ip, cpu, h, t, q in recs))


def latency(tid, start, end, last, cpu=0, flags=0):
    """a latency tracer's section: its times, its four ips, the task's scheduling, flags"""
    return pkt(LATENCY, struct.pack("<iIQQQQQQQiIII", tid, cpu, start, end, last,
                                    0x1105, 0x1205, 0x1305, 0x1405, 0, 0, 0, flags))


prof_ok = profile(1, 1, 2, [(0x555500001105, 0, 3, 30000000, 300000000000000),
                            (0x555500001205, 1, 1000, 160000, 25600000)])
prof_bad = profile(1, 0, 5, [(0x555500001105, 7, 1, 1, 1)])

WIRE = [
    hello, hello + ack, hello + task + ack, hello + maps, hello + tracing,
    hello + sites(0, 3, 0, [0x100, 0x200, 0x300]),
    hello + sites(0, 4, 0, [0x100, 0x200]) + sites(0, 4, 2, [0x300, 0x400]),
    hello + sites(1, 2, 0, [0x10, 0x20], "/usr/lib/libfoo.so.1", 0x7f0000000000) + sites(1, 0, 0, []),
    hello + probe, task, hello + hello, pkt(HELLO, b"short"), hello + pkt(99, b""),
    hello + ev_ok, hello + ev_bad + ev_ok + ev_ok,
    hello + thread + thread_end, hello + pkt(THREAD, struct.pack("<iiII", 0, -1, 0, 2)),
    hello + stack(1000, [(0x1005, 1000), (0x1042, 992), (0x2010, 400)]),
    hello + stack(50, [(0x1005, 900)]),
    hello + sites(0, 2, 0, [0x1100, 0x1200]) + prof_ok + ack, hello + prof_bad,
    hello + latency(PID_, 1000, 5000, 6000, 1), hello + latency(PID_, 5000, 1000, 6000),
    hello + latency(0, 1, 2, 3, 99), hello + latency(PID_, 10, 20, 30, 0, 1),
]
texts("wire", WIRE)


# fuzz_print_fmt: byte 0 bit 0 hash-ptr, the format, a NUL, the record after its common
# fields (the definition of tests/unit/print_fmt_fixture.h)
def pf_record():
    r = bytearray(76)

    def at(off, b):
        r[off - 8:off - 8 + len(b)] = b
    at(8, struct.pack("<iIqQh", -42, 3000000000, -5000000000, 0x1010, -2) + b"A\xff")
    at(36, struct.pack("<II", 64 | (6 << 16), 72 | (12 << 16)) + b"tag\0\0\0\0\0\xde\xad\xbe\xef")
    at(56, struct.pack("<Q", 0x1234) + b"hello\0\0\0" + struct.pack("<3i", 1, -2, 3))
    return bytes(r)


PRINT_FMTS = [
    '"i=%d u=%u l=%ld ul=%lx s=%hd c=%c", REC->i, REC->u, REC->l, REC->ul, REC->s, REC->c',
    '"%-8s|%.3s|%*d|%-*.*x|%#o|%+05d", __get_str(str), REC->tag, 6, REC->i, 8, 3, REC->u, '
    'REC->c, REC->sc',
    '"%p %px %pS %ps", REC->p, REC->p, REC->ul, (void *)REC->ul',
    '"%s %s", __print_symbolic(REC->i, {1, "one"}, {-42, "minus"}), '
    '__print_flags(REC->c, "|", {0x1, "A"}, {0x40, "G"})',
    '"%s %s %s", __print_hex(REC->bytes, 4), __print_hex_str(__get_dynamic_array(arr), '
    '__get_dynamic_array_len(arr)), __print_array(__get_dynamic_array(arr), '
    '__get_dynamic_array_len(arr) / 4, 4)',
    '"%d %d %u", (REC->s + 100) * 2 - REC->sc % 3 & 0xff, REC->i < 0 && REC->u > 5 ? 1 << 3 : ~0, '
    '(unsigned char)REC->i >> 1',
    '"%s\\n", REC->i > 0 ? "pos" : REC->i == 0 ? "zero" : "neg"',
]
# the same input is a bprint record's format and packed arguments (common/ut_printf.h)
BPRINT = (b"\1bprint %d %s %*.*x %hhd %llu %c %pS %px\n\0" + struct.pack("<i", 5) + b"hello\0\0\0" +
          struct.pack("<iiIb3xQb3xQQ", 8, 3, 0x1f, -5, 2**64 - 1, ord("z"), 0x1010, 0x1234))
texts("print_fmt", [bytes([i & 1]) + f.encode() + b"\0" + pf_record()
                    for i, f in enumerate(PRINT_FMTS)] + [BPRINT])

# fuzz_insn: bytes 0-3 the distance to relocate by (signed, in 16-byte units), then code:
# a function prologue, every branch kind, RIP-relative operands, prefixes, VEX/EVEX, x87
INSN = [
    (0x1000, "f30f1efa554889e54883ec10897dfc8b45fc83c0015dc3"),
    (-0x1000, "7410eb0ee9000000000f8500010000e8f0ffffffe2fee3fc"),
    (0x7ffffff0, "488b0510000000833d0400000005ff2500000000ff15f0ffffff"),
    (0x10, "66662e0f1f840000000000f20f1000c5f877c4e3790fc10862f1fe486f4001"),
    (0x20, "9bd97c2402dfe0d9c9dd1c24f6c101f7d966f7c10102a101020304050607086"
     "7a101020304c8080001c7f801000000cc0f050f0b0f0f c1b4"),
    (0x30, "41ffd3ff1424ff5508ffe03effe0c3c21000"),
    (-0x30, "8f6878c2ec0e8f00f30fa7c80f23876666 48e8000000 0066e90000"),
]
for i, (delta, hexcode) in enumerate(INSN):
    put("insn", i, struct.pack("<i", delta) + bytes.fromhex(hexcode.replace(" ", "")))
