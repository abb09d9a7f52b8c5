"""The OLED bus per screen change, render time per frame and display push time.

    python3 dev.py bench screen

1. The bus: whole bot matches of both games play on the simulated box; every frame it hands
   its display also goes, in the same run, to assistant.hw.oled's partial ssd1306/sh1106 and to
   luma's stock drivers, each on luma's I2C interface with a recording bus (capture_i2c). Bytes
   on the wire per screen change (address and control bytes included), as % of luma's full
   frame, and as milliseconds at 400 kHz (9 clocks a byte, start/stop ignored). Also the bytes
   that differ from the frame before, the floor for any partial write. Goal: median <= 25 %,
   p99 <= 60 %; and the CPU time of one display() call here.
2. Render and push: median and p99 in milliseconds, and ratios against the ~23 ms a full frame
   takes on a 400 kHz I2C bus (1,034 bytes x 9 bits / 400 kHz).
"""
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.rules.cards import parse_card as C  # noqa: E402
from assistant.box.config import Display as DisplayCfg  # noqa: E402
from assistant.hw.display import Display, open_display  # noqa: E402
from assistant.box.screen import render  # noqa: E402
from assistant.box.view import Alert, Menu, View  # noqa: E402

I2C_FRAME_MS = 1034 * 9 / 400_000 * 1000
N = 2000
MATCHES = (("towers", 3, 5, ("P1", "P2", "centre")), ("twenty-nine", 2, 7, ("P1", "P2", "P3", "P4")))

VIEWS = {
    "towers play": View(game="towers", seats=("P1", "P2"), phase="play", prompt="P2 to play",
                        score=(4, 3), dealer=1, turn=1, hand_size=5, trump=0, bidder=0,
                        for_two=True, tricks=(2, 1), trick=((0, C("10D")),)),
    "29 play": View(game="twenty-nine", seats=("P1", "P2", "P3", "P4"), phase="play",
                    prompt="P4 to play", score=(1, 2), dealer=3, turn=3, trump="hidden", bidder=1,
                    bid=20, double=2, points=(4, 9), trick_no=3,
                    trick=((0, C("JH")), (1, C("10H")), (2, C("7H")))),
    "29 bidding": View(game="twenty-nine", seats=("P1", "P2", "P3", "P4"), phase="bidding",
                       prompt="P3: bid or pass?", score=(1, 2), dealer=3, turn=2, bidder=1, bid=18),
    "renege alert": View(game="twenty-nine", seats=("P1", "P2", "P3", "P4"), phase="play",
                         alert=Alert("renege", "P2 failed to follow ♥ (trick 3)")),
    "menu": View(game="towers", seats=("P1", "P2"), phase="menu",
                 menu=Menu("New match", ("Towers", "Twenty-Nine"), 1)),
}


def timed(fn, n=N):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    out.sort()
    return statistics.median(out), out[int(len(out) * 0.99) - 1]


def report(label, med, p99):
    print(f"{label:<34} median {med:7.3f} ms   p99 {p99:7.3f} ms   "
          f"median / I2C frame {med / I2C_FRAME_MS:6.3f}")


def match_frames():
    """Every frame the simulated box hands its display during whole bot matches, and the
    indexes of those that followed a card tap (the rest followed a button)."""
    import tempfile

    from assistant.sim.simulator import SimBox
    from assistant.sim.bots import run_bots

    frames, tapped = [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for game, matches, seed, pads in MATCHES:
            sim = SimBox(Path(tmp) / game, game, pads).start()
            device = sim.box.display.device
            shown, tap = device.display, sim.tap

            def keep(image, shown=shown):
                frames.append(image.copy())
                shown(image)

            def tap_and_mark(pad, card, tap=tap):
                n = len(frames)
                tap(pad, card)
                tapped.update(range(n, len(frames)))
            device.display, sim.tap = keep, tap_and_mark
            try:
                run_bots(sim, game, matches, seed, 0.1, out=lambda line: None)
            finally:
                sim.stop()
    return frames, tapped


def pct(samples, q):
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * q))]


def bus():
    from luma.oled import device as stock

    from assistant.hw.oled import DRIVERS, capture_i2c, page_bytes

    frames, tapped = match_frames()
    games = " and ".join(f"{m} {g}" for g, m, _, _ in MATCHES)
    print(f"{len(frames)} screen changes in bot matches ({games} matches), {len(tapped)} of them "
          f"after a card tap, the rest after a button")
    pages = [b"".join(page_bytes(f, 128, 8)) for f in frames]
    floor = [sum(a != b for a, b in zip(p, q)) for p, q in zip(pages, pages[1:])]
    for driver in ("ssd1306", "sh1106"):
        full = None
        for label, make in (("luma stock", getattr(stock, driver)), ("partial", DRIVERS[driver])):
            serial = capture_i2c()
            device = make(serial, width=128, height=64)
            sizes, cpu = [], []
            for frame in frames:
                before = serial.wire_bytes()
                t = time.perf_counter()
                device.display(frame)
                cpu.append((time.perf_counter() - t) * 1000)
                sizes.append(serial.wire_bytes() - before)
            after_tap = [n for i, n in enumerate(sizes) if i in tapped and i > 0]
            sizes = sizes[1:]  # the first frame is whole for both: the RAM is unknown at start
            full = full or max(sizes)
            med, p99 = statistics.median(sizes), pct(sizes, 0.99)
            ms = lambda n: n * 9 / 400_000 * 1000  # noqa: E731
            print(f"{driver} {label:<10} I2C bytes per screen change: median {med:.0f} "
                  f"({100 * med / full:.0f} % of a full frame), p99 {p99} ({100 * p99 / full:.0f} %)")
            print(f"{driver} {label:<10} I2C time at 400 kHz:         median {ms(med):.1f} ms "
                  f"({100 * med / full:.0f} %), p99 {ms(p99):.1f} ms ({100 * p99 / full:.0f} %); "
                  f"display() CPU median {statistics.median(cpu):.2f} ms")
            if label == "partial":
                med, p99 = statistics.median(after_tap), pct(after_tap, 0.99)
                print(f"{driver} {label:<10}   of which after a card tap: median {med:.0f} "
                      f"({100 * med / full:.0f} %), p99 {p99} ({100 * p99 / full:.0f} %)")
    med, p99 = statistics.median(floor), pct(floor, 0.99)
    print(f"bytes that differ from the frame before (the floor): median {med:.0f} "
          f"({100 * med / 1024:.0f} % of 1,024), p99 {p99} ({100 * p99 / 1024:.0f} %)")
    print("goal: partial median <= 25 %, p99 <= 60 % of a full frame")


def main():
    bus()
    print(f"one full frame on 400 kHz I2C: {I2C_FRAME_MS:.1f} ms (1,034 bytes)")
    render(VIEWS["towers play"])  # warm the glyph cache, as the daemon's first frame does
    for name, view in VIEWS.items():
        report(f"render {name}", *timed(lambda v=view: render(v)))
    from assistant.box import font  # the alternative: every line drawn glyph by glyph, as if new

    def uncached(view):
        font._text_mask.cache_clear()
        return render(view)
    for name in ("towers play", "29 play"):
        report(f"render {name}, no line cached", *timed(lambda v=VIEWS[name]: uncached(v)))

    frames = [render(v) for v in VIEWS.values()]
    dummy = open_display(DisplayCfg(driver="dummy"))
    i = iter(range(10 ** 9))
    report("push, luma dummy (changed frame)", *timed(lambda: dummy.show(frames[next(i) % 2])))
    report("push, identical frame (skipped)", *timed(lambda: dummy.show(frames[0])))
    dummy.close()

    from luma.core.interface.serial import noop
    from luma.oled.device import ssd1306

    oled = Display(ssd1306(serial_interface=noop()))
    j = iter(range(10 ** 9))
    report("push, ssd1306 driver on noop bus", *timed(lambda: oled.show(frames[next(j) % 2]), 500))
    oled.close()

    bg = Display(ssd1306(serial_interface=noop()), background=True)
    m = iter(range(10 ** 9))
    report("show() return, background writer", *timed(lambda: bg.show(frames[next(m) % 2]), 500))
    bg.flush()
    print(f"{'':<34} background: {bg.sent} sent, {bg.coalesced} coalesced of 500 accepted")
    bg.close()

    view = VIEWS["29 play"]
    d = open_display(DisplayCfg(driver="dummy"))
    k = iter(range(10 ** 9))
    alt = [view, VIEWS["29 bidding"]]
    report("render + push (dummy)", *timed(lambda: d.show(render(alt[next(k) % 2]))))
    d.close()


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)  # luma's getdata() on Pillow 13
    main()
