"""The fault campaign (issue 10, item 7): each fault an SD card or a flaky cable produces, put on
a real journal or a real reader line, and the simulated box (the daemon's own run_box on mock
pins, a dummy display and a virtual reader on a pty) started on it. A trial survives when the
box starts, says what happened whenever the journal lost or changed anything, and keeps every
action that can still be read (what it resumes is exactly a prefix of what was saved).

    python3 tests/fault_campaign.py      # the table for the README's reliability section

tests/test_fault_campaign.py runs the same trials, one test each.
"""
import logging
import os
import random
import shutil
import sqlite3
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from journal_faults import PAGE, example, fill, overwrite  # noqa: E402

BASE = (("towers-random.scn", None), ("twenty-nine-random.scn", None), ("towers-random.scn", 60))
SEED = 10


class Unavailable(Exception):
    """This machine cannot make the fault (no way to mount a folder read-only as root)."""


@dataclass
class Outcome:
    started: bool
    said: bool  # a problem was logged and shown
    lost: int  # saved actions that are in neither the journal nor its set_aside table
    prefix: bool  # the resumed match is a prefix of the saved one
    missed: int = 0  # actions still readable in the damaged file (any intact leaf cell) not kept


_BASE = {}


def _base():
    """The journal every journal trial damages: three matches, 231 actions, closed cleanly,
    written once with its count record (each trial damages a copy)."""
    import tempfile
    if "dir" not in _BASE:
        _BASE["dir"] = Path(tempfile.mkdtemp(prefix="campaign-base-"))
        fill(_BASE["dir"] / "journal.sqlite3", BASE)
    return _BASE["dir"] / "journal.sqlite3"


def base_journal(folder):
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in ("", ".count"):
        shutil.copyfile(str(_base()) + suffix, str(folder / "journal.sqlite3") + suffix)


def base_pages():
    return os.path.getsize(_base()) // PAGE


def saved_rows(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT match, seq, line FROM actions").fetchall()
    finally:
        db.close()


class Said(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def start_box(state):
    """Start the simulated box on ``state``; (outcome parts, the rows it kept, its latest match)."""
    from assistant.sim.simulator import SimBox
    said = Said()
    logger = logging.getLogger("card-assistant")
    logger.addHandler(said)
    level, logger.level = logger.level, logging.WARNING
    try:
        sim = SimBox(state, "towers").start()
        try:
            match = sim.table.match
            resumed = (match.game, list(match.actions)) if match is not None else None
            alert = sim.box.view.alert
        finally:
            sim.stop()
    finally:
        logger.removeHandler(said)
        logger.setLevel(level)
    journal = state / "journal.sqlite3"
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        kept = set(db.execute("SELECT match, seq, line FROM actions").fetchall())
        kept |= set(db.execute("SELECT match, seq, line FROM set_aside").fetchall())
        latest = db.execute("SELECT max(id) FROM matches").fetchone()[0]
    finally:
        db.close()
    problems = [ln for ln in said.lines if "journal" in ln.lower() or "storage" in ln.lower()]
    return bool(problems) and alert is not None, kept, resumed, latest


def judge(state, before):
    """Start the box on the damaged ``state`` and compare with the rows ``before`` the fault.
    "Still readable" is judged apart from the box's own way of reading: every cell of every
    intact table-leaf page of the damaged file, decoded (pagescan) before the box starts."""
    from assistant.box.pagescan import scan
    main = state / "journal.sqlite3"
    readable = {row for row in scan(main)[1] if row in set(before)} if main.exists() else set()
    try:
        said, kept, _, latest = start_box(state)
    except Exception:
        return Outcome(False, False, len(before), False)
    lost = len([row for row in before if row not in kept])
    prefix = True
    if latest is not None:  # what the box goes on from is exactly the start of what was saved
        db = sqlite3.connect(f"file:{state / 'journal.sqlite3'}?mode=ro", uri=True)
        try:
            on = db.execute("SELECT seq, line FROM actions WHERE match=? ORDER BY seq", (latest,)).fetchall()
        finally:
            db.close()
        want = sorted((s, line) for m, s, line in before if m == latest)
        prefix = on == want[:len(on)]
    changed = lost > 0 or len(kept) != len(before)
    return Outcome(True, said or not changed, lost, prefix, len(readable - kept))


# --- the trials: (kind, label, make(state) -> rows before the fault)
def on_base(damage):
    """A trial that damages a copy of the base journal with ``damage(path)``."""
    def make(state):
        base_journal(state)
        path = state / "journal.sqlite3"
        before = saved_rows(path)
        damage(path)
        return before
    return make


def page_overwrite(seed):
    def damage(path):
        rng = random.Random(seed)
        at = rng.randrange(os.path.getsize(path) // PAGE * PAGE - 16)
        overwrite(path, at, bytes(rng.getrandbits(8) for _ in range(16)))
    return on_base(damage)


def truncation(k):
    return on_base(lambda path: os.truncate(path, k * PAGE))


BAD_VALUES = {
    "schema not a number": "UPDATE meta SET value='one' WHERE key='schema'",
    "unknown game": "UPDATE matches SET game='chess' WHERE id=3",
    "seats nested 5,000 deep": "UPDATE matches SET seats='" + "[" * 5000 + "' WHERE id=3",
    "options malformed": "UPDATE matches SET options='{\"pair\": 1}' WHERE id=2",
    "5,000-digit number": "UPDATE actions SET line='bid ' || printf('%.5000c', '9') WHERE match=2 AND seq=3",
    "line a blob": "UPDATE actions SET line=x'00ff' WHERE match=3 AND seq=5",
}


def bad_value(sql):
    def damage(path):
        db = sqlite3.connect(path)
        db.execute(sql)
        db.commit()
        db.close()
    return on_base(damage)


def wal_fault(kind):
    """A power cut with the last 20 actions only in the -wal, then the -wal lost, torn or junk, or
    the journal file emptied or removed beside it (SQLite deletes such a -wal when it opens)."""
    def make(state):
        src = state.parent / (state.name + "-writer")
        src.mkdir(parents=True)
        stored, box = fill(src / "journal.sqlite3", BASE[:2], close=False)
        box.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        from assistant.rules.scenario import parse_action
        game, seats, options, body = example("towers-random.scn")
        box.new_match(game, seats, options)
        for n, line in enumerate(body[:20], 1):
            box.append(parse_action(line.split(), game, seats, n), seats)
        state.mkdir(parents=True, exist_ok=True)
        for suffix in ("", ".count"):
            shutil.copyfile(str(src / "journal.sqlite3") + suffix, str(state / "journal.sqlite3") + suffix)
        wal = open(str(src / "journal.sqlite3") + "-wal", "rb").read()
        db = sqlite3.connect(f"file:{src / 'journal.sqlite3'}?mode=ro", uri=True)
        before = db.execute("SELECT match, seq, line FROM actions").fetchall()
        db.close()
        box.close()
        if kind == "torn":
            wal = wal[:len(wal) - 5000]
        elif kind == "junk":
            at = len(wal) // 2
            wal = wal[:at] + bytes(random.Random(3).getrandbits(8) for _ in range(512)) + wal[at + 512:]
        if kind != "deleted":
            open(str(state / "journal.sqlite3") + "-wal", "wb").write(wal)
        if kind == "file emptied":
            os.truncate(state / "journal.sqlite3", 0)
        elif kind == "file removed":
            os.remove(state / "journal.sqlite3")
        return before
    return make


def lost_hello(folder):
    """The reader restarts with its counter low and its HELLO garbled, then a card is tapped at
    once: the flip it makes must be journaled."""
    from assistant.hw.events import TagRemoved
    from assistant.rules.cards import parse_card
    from assistant.sim.simbox import SimBox, sim_uid
    from assistant.sim.bots import start_match
    sim = SimBox(folder / "state", "towers").start()
    flips = ["9H", "QD", "KS", "10C", "AH", "KD"]  # no black jack: the flip goes on
    try:
        start_match(sim, "towers")
        for card in flips[:5]:
            sim.tap(2, parse_card(card))
        fw = sim.firmware
        assert 12 < fw.seq < 64
        before = sim.box.counts.get(TagRemoved, 0)
        with fw._lock:
            fw.corrupt_next()
            fw.reboot()
            fw.tap(3, sim_uid(parse_card(flips[5])))
        try:
            sim.box.wait_counted(TagRemoved, before + 1, timeout=10)
        except TimeoutError:
            pass
        sim.settle()
        kept = len(sim.table.match.actions)
    finally:
        sim.stop()
    return Outcome(True, True, len(flips) - kept, True), len(flips)


def flood(folder, taps=400):
    """Taps as fast as the firmware can send them while the box runs: every one handled, none
    lost, the queue bounded."""
    from assistant.hw.events import QUEUE_SIZE, TagRemoved
    from assistant.sim.simbox import SimBox, sim_uid
    from assistant.sim.bots import start_match
    sim = SimBox(folder / "state", "towers").start()
    try:
        start_match(sim, "towers")
        before = sim.box.counts.get(TagRemoved, 0)
        for i in range(taps):
            sim.firmware.tap(3, sim_uid(i % 32))
        try:
            sim.box.wait_counted(TagRemoved, before + taps, timeout=60)
        except TimeoutError:
            pass
        handled = sim.box.counts.get(TagRemoved, 0) - before
        bounded = sim.box.events.maxsize == QUEUE_SIZE
    finally:
        sim.stop()
    return Outcome(True, bounded, taps - handled, True), taps


def read_only(folder):
    """The journal's files and folder are read-only (a card mounted read-only, a wrong owner):
    the real `card-assistant run` starts, shows the match, says it cannot save."""
    import signal
    import socket
    import subprocess
    import tempfile
    root = Path(__file__).resolve().parents[1]
    top = Path(tempfile.mkdtemp(prefix="campaign-ro-"))  # outside private temp folders: others traverse it
    try:
        os.chmod(top, 0o755)
        state = top / "state"
        base_journal(state)
        from assistant.box.journal import Journal
        j = Journal(str(state / "journal.sqlite3"), readonly=True)
        in_effect = len(j.read(3)[0].actions)  # the actions of the latest match in effect (undos applied)
        j.close()
        config = top / "config.toml"
        config.write_text(f'[display]\ndriver = "dummy"\n[reader]\ndevice = "{top / "no-reader"}"\n')
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(str(top / "notify"))
        notify.settimeout(30)
        os.chmod(top / "notify", 0o777)
        command = [sys.executable, "-m", "assistant.cli", "run", "--config", str(config), "--state-dir", str(state)]
        if os.geteuid() == 0:  # root writes through any mode: mount the folder read-only instead
            command = ["unshare", "-m", "sh", "-c", f"mount --bind {state} {state} && "
                       f"mount -o remount,bind,ro {state} && exec \"$@\"", "sh", *command]
        else:
            for p in state.iterdir():
                os.chmod(p, 0o444)
            os.chmod(state, 0o555)
        env = dict(os.environ, GPIOZERO_PIN_FACTORY="mock", NOTIFY_SOCKET=str(top / "notify"),
                   PYTHONPATH=str(root))
        log = top / "stderr.log"
        with open(log, "wb") as err:
            proc = subprocess.Popen(command, cwd=root, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err)
        try:
            while "READY=1" not in notify.recv(4096).decode().split("\n"):
                pass
            started = proc.poll() is None
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            started = False
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            notify.close()
        text = log.read_text()
        if not started and "mount" in text:
            raise Unavailable(f"cannot mount the state folder read-only here: {text.strip()[:120]}")
        said = "read-only" in text and "Traceback" not in text
        import re
        resumed = re.search(r"resumed match 3 after (\d+) actions", text)
        kept = int(resumed.group(1)) if resumed else 0
        return Outcome(started, said, in_effect - kept, True), in_effect
    finally:
        os.chmod(top / "state", 0o755) if (top / "state").exists() else None
        shutil.rmtree(top, ignore_errors=True)


def trials():
    """Every trial: (fault kind, label, make). ``make`` damages a state folder and returns the
    rows saved before the fault, or is a whole trial of its own (``own``)."""
    out = [("page overwrite at a random offset", f"seed {s}", page_overwrite(s)) for s in range(SEED)]
    out += [("truncation at a page boundary", f"{k} of {base_pages()} pages", truncation(k))
            for k in range(1, base_pages())]
    out += [("bad row value", name, bad_value(sql)) for name, sql in BAD_VALUES.items()]
    out += [(f"-wal {kind}", kind, wal_fault(kind)) for kind in ("deleted", "torn", "junk")]
    out += [(f"journal {kind} beside its -wal", kind, wal_fault(kind)) for kind in ("file emptied", "file removed")]
    out += [("read-only journal and folder", "real card-assistant run", own(read_only)),
            ("reader reboot, HELLO lost", "counter below 64", own(lost_hello)),
            ("flood of taps", "400 taps at once", own(flood))]
    return out


def own(trial):
    trial.own = True
    return trial


def run_trial(make, folder):
    """(Outcome, actions at stake)."""
    folder.mkdir(parents=True, exist_ok=True)
    if getattr(make, "own", False):
        return make(folder)
    state = folder / "state"
    before = make(state)
    return judge(state, before), len(before)


def table(folder):
    """The campaign's table: fault, tried, survived, actions lost (of actions saved)."""
    rows = {}
    for kind, label, make in trials():
        outcome, saved = run_trial(make, folder / f"{kind}-{label}".replace(" ", "-").replace(",", ""))
        tried, survived, lost, total = rows.get(kind, (0, 0, 0, 0))
        ok = outcome.started and outcome.said and outcome.prefix
        rows[kind] = (tried + 1, survived + ok, lost + outcome.lost, total + saved)
    return rows


if __name__ == "__main__":
    import tempfile
    logging.basicConfig(level=logging.CRITICAL)
    with tempfile.TemporaryDirectory() as tmp:
        print("| fault | tried | survived | actions lost (of saved) |")
        print("| --- | --- | --- | --- |")
        for kind, (tried, survived, lost, total) in table(Path(tmp)).items():
            print(f"| {kind} | {tried} | {survived} | {lost} of {total} |")
