"""Reader adapter benchmark: host-side parsing rate, and pty-to-queue latency.

    python3 dev.py bench reader

1. Parsing: lines per second through protocol.parse alone and through the
   Tracker (parse + sequence check + pad view + events), median of 7 runs of
   20,000 ARRIVE/REMOVE lines; compared with the firmware's pure-Python framing
   (what the Pico runs), to show what binascii's C CRC buys the host.
2. Latency: a virtual firmware writes one ARRIVE or REMOVE line on a real pty;
   the time until the reader thread's event comes off the queue, for 1,000
   taps (2,000 lines) one at a time: p50 and p99.
"""
import queue
import statistics
import sys
import tempfile
import time
from pathlib import Path

from assistant import protocol
from assistant.reader import Reader, Tracker
from assistant.virtual_firmware import VirtualFirmware

ROOT = Path(__file__).resolve().parent.parent
LINES, RUNS, TAPS = 20_000, 7, 1_000


def make_lines(n):
    out = []
    for seq in range(n):
        tap = seq // 2
        uid, pad = f"04{tap:012X}", tap % 4 + 1
        body = f"ARRIVE {pad} {uid}" if seq % 2 == 0 else f"REMOVE {pad} {uid}"
        out.append(protocol.frame(seq % protocol.SEQ_MOD, body).rstrip(b"\n"))
    return out


def rate(fn, lines):
    runs = []
    for _ in range(RUNS):
        t = time.perf_counter()
        fn(lines)
        runs.append(len(lines) / (time.perf_counter() - t))
    return statistics.median(runs)


def parse_only(lines):
    for line in lines:
        protocol.parse(line)


def tracker(lines):
    t = Tracker()
    for line in lines:
        t.feed(line)
    assert not t.counts, t.counts


def firmware_unframe(lines):
    sys.path.insert(0, str(ROOT / "firmware"))
    try:
        import proto
    finally:
        sys.path.pop(0)
    for line in lines:
        proto.unframe(line)


def latency():
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / "card-reader"
        vf = VirtualFirmware(link).plug()
        q = queue.Queue()
        reader = Reader(str(link), q, silence=None).start()
        try:
            vf.host_ready.wait(10)
            while not q.empty():
                q.get()
            samples = []
            for i in range(TAPS):
                for action in (lambda: vf.place(1 + i % 4, f"04{i:012X}"), lambda: vf.lift(1 + i % 4)):
                    t = time.perf_counter()
                    action()
                    q.get(timeout=10)
                    samples.append(time.perf_counter() - t)
        finally:
            reader.stop()
            vf.unplug()
    samples.sort()
    return samples[len(samples) // 2], samples[int(len(samples) * 0.99)], len(samples)


def main():
    lines = make_lines(LINES)
    p = rate(parse_only, lines)
    t = rate(tracker, lines)
    f = rate(firmware_unframe, lines)
    print(f"parse only        {p:>10,.0f} lines/s (median of {RUNS} x {LINES:,})")
    print(f"tracker (events)  {t:>10,.0f} lines/s   = {t / p:.2f} x parse only")
    print(f"firmware unframe  {f:>10,.0f} lines/s   host parse is {p / f:.1f} x the pure-Python CRC framing")
    p50, p99, n = latency()
    print(f"pty line -> queue event latency over {n:,} lines: p50 {p50 * 1e6:,.0f} us, p99 {p99 * 1e6:,.0f} us"
          f" (p99/p50 = {p99 / p50:.1f})")


if __name__ == "__main__":
    main()
