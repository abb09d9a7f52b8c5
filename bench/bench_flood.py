"""A flood of taps into the daemon's bounded input queue (issue 10, item 6).

    python3 dev.py bench flood

A virtual firmware on a real pty sends 10,000 taps (20,000 ARRIVE/REMOVE lines) as fast as it
can write them, while the loop is busy (it takes nothing for the first second, then takes
events as they come). The reader runs on a thread of its own (as `enroll` and the players' list
run it) and posts into the daemon's queue (events.event_queue, bounded at QUEUE_SIZE): when it
is full the reader waits, stops reading, the pty's buffer fills and the firmware's writes wait
too. (The box itself reads the line on its own thread, so while it is busy it reads nothing at
all and the same buffers take the flood.) Side by side, the same flood into an unbounded queue (what
the daemon had): every event waits in memory. Printed for each: taps sent, events received, lost,
doubled (each event is checked against the tap it should be, in order: "not as sent" counts
any lost, doubled or reordered one; "extra" any event past the 20,000), the longest the queue got, the memory Python allocated at the peak above the start
(tracemalloc), and the time.
"""
import queue
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from assistant.hw.events import QUEUE_SIZE, ReaderStatus, TagArrived, TagRemoved, event_queue
from assistant.hw.reader import Reader
from assistant.sim.virtual_firmware import VirtualFirmware

TAPS = 10_000
BUSY = 3.0  # seconds the loop takes nothing at the start


def flood(events):
    with tempfile.TemporaryDirectory() as tmp:
        link = Path(tmp) / "card-reader"
        vf = VirtualFirmware(link).plug()
        reader = Reader(str(link), events, silence=None).start()
        try:
            assert vf.host_ready.wait(30)
            while True:  # the connect and boot statuses
                try:
                    events.get(timeout=0.2)
                except queue.Empty:
                    break
            uids = [f"04{i:012X}" for i in range(TAPS)]
            want = iter([(kind, 1 + i % 4, uid) for i, uid in enumerate(uids)
                         for kind in (TagArrived, TagRemoved)])
            sender = threading.Thread(target=lambda: [vf.tap(1 + i % 4, uid) for i, uid in enumerate(uids)])
            tracemalloc.start()
            base = tracemalloc.get_traced_memory()[0]
            t0 = time.perf_counter()
            sender.start()
            time.sleep(BUSY)
            longest, n, wrong = events.qsize(), 0, 0
            while n < 2 * TAPS:  # each event checked as it comes, none kept: the queue's memory shows
                longest = max(longest, events.qsize())
                e = events.get(timeout=30)
                if not isinstance(e, ReaderStatus):
                    n += 1
                    wrong += (type(e), e.pad, e.uid) != next(want)
            sender.join()
            seconds = time.perf_counter() - t0
            peak = tracemalloc.get_traced_memory()[1] - base
            tracemalloc.stop()
            extra = 0
            while not events.empty():
                extra += not isinstance(events.get(), ReaderStatus)
        finally:
            reader.stop()
            vf.unplug()
    return n + extra, wrong, extra, longest, peak, seconds


def main():
    print(f"{TAPS:,} taps ({2 * TAPS:,} lines) through a real pty; the loop busy for the first {BUSY:g} s")
    print(f"{'queue':<22}{'events':>8}{'not as sent':>12}{'extra':>7}{'longest':>9}{'peak memory':>13}{'time':>8}")
    for name, q in ((f"bounded ({QUEUE_SIZE})", event_queue()), ("unbounded (before)", queue.Queue())):
        n, wrong, extra, longest, peak, seconds = flood(q)
        print(f"{name:<22}{n:>8,}{wrong:>10}{extra:>9}{longest:>9,}{peak / 1024:>10,.0f} KiB{seconds:>7.1f}s")


if __name__ == "__main__":
    main()
