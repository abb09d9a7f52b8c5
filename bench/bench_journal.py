"""The journal's start-up check, its recovery from a damaged page, and the count record's cost.

    python3 dev.py bench journal

1. Start-up: every start opens the journal through PRAGMA integrity_check and a check of every
   row (journal.check). Median of 5 opens of journals of 1,000 / 10,000 / 100,000 actions, side
   by side with PRAGMA quick_check alone (which would not see an index that disagrees with its
   table) and with no check at all.
2. Recovery: a 10,000-action journal with 16 bytes over the header of one leaf page of the
   actions, and one with its actions' root page damaged. Actions recovered and the time, for
   the box's own recovery (row by row through SQLite, then the leaf pages themselves), side by
   side with the sqlite3 shell's .recover where that shell is installed (it is not on Raspberry
   Pi OS, which is why the box does not use it).
3. Saving an action: median and p99 of 300 appends, with and without the count record (one more
   fdatasync, of a 64-byte file), on the disk this runs on.
4. Looking at the files before SQLite opens them (preflight.inspect, median of 5): at a clean
   start (no -wal: a stat and a 100-byte read) and after a power cut, with a -wal of 100 and of
   1,000 frames (read and checksummed frame by frame), beside the whole open of that journal.
"""
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from assistant.box.journal import SCHEMA, Journal
from assistant.rules.scenario import Action

LINES = ["flip JH KS", "upcard 9S", "pass", "name D", "play KS", "play AS", "play JD", "play QS"]


def make(path, actions, per_match=200):
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    db.execute("BEGIN")
    db.execute("INSERT INTO meta VALUES ('schema', '1')")
    for m in range(1, actions // per_match + 1):
        db.execute("INSERT INTO matches VALUES (?, 'towers', ?, '{}', ?)", (m, json.dumps(["P1", "P2"]), time.time()))
        db.executemany("INSERT INTO actions VALUES (?, ?, ?)",
                       ((m, s, LINES[s % len(LINES)]) for s in range(1, per_match + 1)))
    db.execute("COMMIT")
    db.close()


def median_ms(fn, runs=5):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def startup(tmp):
    print("1. opening the journal at start (median of 5)")
    print(f"{'actions':>9}{'size':>9}{'box (integrity + rows)':>24}{'quick_check only':>18}{'no check':>10}")
    for n in (1_000, 10_000, 100_000):
        path = tmp / f"start-{n}.sqlite3"
        make(path, n)
        size = os.path.getsize(path) / 1e6

        def box():
            Journal(str(path)).close()

        def quick():
            db = sqlite3.connect(path)
            db.execute("PRAGMA quick_check").fetchall()
            db.close()

        def none():
            db = sqlite3.connect(path)
            db.execute("SELECT count(*) FROM matches").fetchall()
            db.close()
        print(f"{n:>9,}{size:>7.1f}MB{median_ms(box):>21.0f} ms{median_ms(quick):>15.0f} ms{median_ms(none):>7.0f} ms")


def recovery(tmp):
    print("2. recovery of a 10,000-action journal")
    shell = shutil.which("sqlite3")
    print(f"{'damage':<34}{'box: recovered':>16}{'time':>9}{'.recover: recovered':>21}{'time':>9}")
    for damage in ("a leaf page's header", "the actions' root page"):
        path = tmp / "damaged.sqlite3"
        for p in tmp.glob("damaged*"):
            p.unlink()
        make(path, 10_000)
        db = sqlite3.connect(path)
        rows = db.execute("SELECT pageno, pagetype FROM dbstat WHERE name='actions'").fetchall()
        db.close()
        leaves = [p for p, t in rows if t == "leaf"]
        page = leaves[len(leaves) // 2] if damage.startswith("a leaf") else [p for p, t in rows if t == "internal"][0]
        with open(path, "r+b") as f:
            f.seek((page - 1) * 4096)
            f.write(b"\xa5" * 16)
        copy = tmp / "damaged-copy.sqlite3"
        shutil.copyfile(path, copy)
        t = time.perf_counter()
        j = Journal(str(path))
        seconds = time.perf_counter() - t
        got = j.recovered.count if j.recovered else 0
        j.close()
        other = "shell not installed"
        if shell:
            t = time.perf_counter()
            ran = subprocess.run([shell, str(copy), ".recover"], capture_output=True, text=True)
            dump = ran.stdout
            out = tmp / "recovered.sqlite3"
            out.unlink(missing_ok=True)
            subprocess.run([shell, str(out)], input=dump, capture_output=True, text=True)
            rec_seconds = time.perf_counter() - t
            db = sqlite3.connect(out)
            try:
                recovered = db.execute("SELECT count(*) FROM actions").fetchone()[0]
            except sqlite3.Error:
                recovered = 0
            db.close()
            other = f"{recovered:>14,}{rec_seconds * 1000:>7.0f} ms"
            if "error" in ran.stdout + ran.stderr and not recovered:  # Debian's 3.40 shell lacks sqlite_dbpage
                other = "   fails: " + (ran.stdout + ran.stderr).strip().splitlines()[-1][:40]
        print(f"{damage:<34}{got:>16,}{seconds * 1000:>6.0f} ms{other:>30}")


def appends(tmp):
    print("3. saving one action (300 appends)")
    path = tmp / "appends.sqlite3"
    j = Journal(str(path))
    j.new_match("towers", ("P1", "P2"), {})
    play = Action("pass")
    for name, record in (("with the count record", True), ("without it", False), ("with the count record", True)):
        if not record:
            j._note = lambda *a: None
        else:
            j.__dict__.pop("_note", None)
        times = []
        for _ in range(300):
            t = time.perf_counter()
            j.append(play)
            times.append(time.perf_counter() - t)
        times.sort()
        print(f"   {name:<24} median {statistics.median(times) * 1000:.2f} ms, p99 {times[int(len(times) * .99)] * 1000:.2f} ms")
    j.close()


def preflight(tmp):
    from assistant.box.preflight import inspect
    print("4. looking at the files before SQLite opens them (median of 5)")
    print(f"{'state':<40}{'-wal':>10}{'look':>10}{'whole open':>12}")
    for frames in (0, 100, 1000):
        path = tmp / f"look-{frames}" / "journal.sqlite3"
        path.parent.mkdir()
        make(path, 10_000)
        if frames:  # a power cut: the writer's -wal, copied while it is open
            db = sqlite3.connect(path, isolation_level=None)
            db.execute("PRAGMA wal_autocheckpoint=0")
            while not os.path.exists(str(path) + "-wal") or os.path.getsize(str(path) + "-wal") < 32 + frames * (24 + 4096):
                db.execute("UPDATE meta SET value=value WHERE key='schema'")
                db.execute("INSERT INTO meta VALUES ('pad', randomblob(3000)) "
                           "ON CONFLICT(key) DO UPDATE SET value=randomblob(3000)")
            cut = path.parent / "cut"
            cut.mkdir()
            for suffix in ("", "-wal"):
                shutil.copyfile(str(path) + suffix, str(cut / "journal.sqlite3") + suffix)
            db.close()
            path = cut / "journal.sqlite3"
        wal = os.path.getsize(str(path) + "-wal") if os.path.exists(str(path) + "-wal") else 0
        look = median_ms(lambda: inspect(str(path)))
        copies = []

        def whole():  # on a fresh copy each time: the open folds the -wal in
            n = len(copies)
            folder = path.parent / f"open-{n}"
            folder.mkdir()
            for suffix in ("", "-wal"):
                if os.path.exists(str(path) + suffix):
                    shutil.copyfile(str(path) + suffix, str(folder / "journal.sqlite3") + suffix)
            copies.append(folder)
            t = time.perf_counter()
            Journal(str(folder / "journal.sqlite3")).close()
            return time.perf_counter() - t
        opens = sorted(whole() for _ in range(5))
        state = "clean start, 10,000 actions" if not frames else f"after a power cut, {frames:,}-frame -wal"
        print(f"{state:<40}{wal / 1e6:>8.1f}MB{look:>7.1f} ms{opens[2] * 1000:>9.0f} ms")


def main():
    with tempfile.TemporaryDirectory(dir=Path(__file__).resolve().parent.parent) as tmp:
        tmp = Path(tmp)
        startup(tmp)
        recovery(tmp)
        appends(tmp)
        preflight(tmp)


if __name__ == "__main__":
    main()
