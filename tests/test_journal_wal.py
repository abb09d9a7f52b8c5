"""A journal whose -wal holds what the file does not (fault report "the -wal is deleted or
dropped", defects 1 to 4): real files, a real simulator killed with SIGKILL, real SQLite.

1. An empty or missing journal file beside its -wal: SQLite deletes the -wal when it opens such a
   file, even read-only. The box recovers every action from the -wal's frames; export and the web
   page say in one line that the box must repair it and change no byte.
2. A damaged stretch in the middle of the -wal: SQLite drops every frame after it. The box reads
   the frames past it (walscan.py), keeps every readable action, invents none.
3. The damaged files are set aside exactly as they were on disk (no checkpoint folded into them).
4. A count record that cannot be read or written is one log line, once; the box keeps going.
"""
import hashlib
import logging
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assistant.box.journal import Journal
from assistant.box.journal_files import CountRecord
from assistant.rules.scenario import parse_action
from journal_faults import example, fill, overwrite, pages

ROOT = Path(__file__).resolve().parents[1]
HANG_GUARD = 60.0  # seconds: only ever a guard against a hung process, never a measurement
TESTER_TAPS = "\n9C\nJS\n9H\n\n2 AD\n1 KH\n2 AH\n"  # the report's input: a towers match, 7 actions


def digests(folder):
    """Every file of the state folder, -wal and -shm included, by content."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.is_file() and not p.is_symlink()}


def sim_killed(state):
    """The report's steps: `card-assistant sim` plays 7 actions, then is killed with SIGKILL while
    its journal is open (the file holds page 1, the -wal everything else)."""
    state.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "assistant.cli", "sim", "--state-dir", str(state)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.stdin.write(TESTER_TAPS.encode())
        proc.stdin.flush()
        record = CountRecord(str(state / "journal.sqlite3.count"))
        deadline = time.monotonic() + HANG_GUARD
        while record.read() != (1, 7, 7):
            assert time.monotonic() < deadline, "the simulator did not journal the 7 actions"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    path = state / "journal.sqlite3"
    assert os.path.getsize(str(path) + "-wal") > 100_000  # the actions are in the -wal only
    (state.parent / "truth").mkdir()  # read through SQLite on a copy only
    for suffix in ("", "-wal"):
        shutil.copyfile(str(path) + suffix, str(state.parent / "truth" / "journal.sqlite3") + suffix)
    return path


def truth_lines(state):
    copy = state.parent / "truth" / "journal.sqlite3"
    db = sqlite3.connect(copy)
    try:
        return db.execute("SELECT match, seq, line FROM actions ORDER BY match, seq").fetchall()
    finally:
        db.close()


def lines(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT match, seq, line FROM actions ORDER BY match, seq").fetchall()
    finally:
        db.close()


def aside_files(folder):
    return sorted(p.name for p in folder.iterdir() if ".damaged-" in p.name)


def empty_the_file(path, how):
    if how == "emptied":
        path.write_bytes(b"")  # `: > journal.sqlite3`
    else:
        path.unlink()  # `rm journal.sqlite3`


@pytest.mark.parametrize("how", ["emptied", "removed"])
def test_fault_1_an_empty_or_missing_file_beside_its_wal_is_recovered_by_the_box(tmp_path, how):
    """Fault 1: the box deleted the -wal and every action with it, kept no copy and reset the
    count record. Now every action comes back from the -wal, which is kept aside byte for byte."""
    state = tmp_path / "S3"
    path = sim_killed(state)
    want = truth_lines(state)
    assert len(want) == 7
    wal = (Path(str(path) + "-wal")).read_bytes()
    empty_the_file(path, how)
    j = Journal(str(path))
    r = j.resume()
    j.repair_seen()  # its alert seen at the table (else said again: test_journal_loss_report)
    j.close()
    assert r.match_id == 1 and len(r.match.actions) == 7
    assert lines(path) == want
    assert r.problems[0].startswith("Journal damaged: 7 action(s) recovered, 0 lost, 0 set aside")
    names = aside_files(state)
    [kept_wal] = [n for n in names if n.endswith("-wal")]
    assert (state / kept_wal).read_bytes() == wal
    if how == "emptied":
        assert (state / kept_wal[:-4]).read_bytes() == b""
    assert CountRecord(str(path) + ".count").read() == (1, 7, 7)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert db.execute("SELECT count(*) FROM meta WHERE key='last:1'").fetchone()[0] == 1  # the web's time
    db.close()
    j = Journal(str(path))  # the next start is a normal one
    assert j.resume().problems == [] and aside_files(state) == names
    j.close()


@pytest.mark.parametrize("how", ["emptied", "removed"])
def test_fault_1_export_and_the_web_page_leave_every_byte_and_say_the_box_must_repair(tmp_path, how):
    """Fault 1, readers: `card-assistant export` and the web page opened SQLite on the empty file,
    which deleted the -wal. Now one line says the box must repair the journal; no byte changes."""
    from assistant.web.server import Site
    state = tmp_path / "S3"
    path = sim_killed(state)
    empty_the_file(path, how)
    before = digests(state)
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", "export", "--all", "--state-dir", str(state),
                           str(tmp_path / "out")], cwd=ROOT, capture_output=True, text=True,
                          timeout=HANG_GUARD, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "needs the box's repair" in proc.stderr, proc.stderr
    assert digests(state) == before
    site = Site(str(state), runtime=str(tmp_path / "run"))  # the web page's Now
    assert "needs the box's repair" in site.now()["message"] and site.records() == []
    site.history.close()
    assert digests(state) == before
    j = Journal(str(path))  # and the box still recovers every action afterwards
    assert len(j.resume().match.actions) == 7
    j.close()


def cut_power(src, box, state):
    """The power cut while ``box`` still has ``src`` open: its files as they lie on the card, copied
    to the new folder ``state``. Returns the copy's journal and the rows the box had stored."""
    state.mkdir()
    path = state / "journal.sqlite3"
    for suffix in ("", "-wal", ".count"):
        shutil.copyfile(str(src) + suffix, str(path) + suffix)
    want = lines(src)
    box.close()
    return path, want


def power_cut_wal(tmp_path):
    """The report's 2-match journal after a power cut: match 1 (40 actions) checkpointed into the
    file, match 2 (26 actions) only in a ~412 KB -wal. Returns the copy and its rows."""
    src = tmp_path / "writer" / "journal.sqlite3"
    src.parent.mkdir()
    _, box = fill(src, (("towers-random.scn", 40),), close=False)
    box.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    game, seats, options, body = example("twenty-nine-random.scn")
    box.new_match(game, seats, options)
    for n, line in enumerate(body[:26], 1):
        box.append(parse_action(line.split(), game, seats, n), seats)
    path, want = cut_power(src, box, tmp_path / "state")
    assert 380_000 < os.path.getsize(str(path) + "-wal") < 450_000
    return path, want


def junk(path):
    """100 KB of random bytes at offset 50,000 of the -wal (the report's fault 2)."""
    overwrite(str(path) + "-wal", 50_000, random.Random(2).randbytes(100_000))


def test_fault_2_frames_after_a_damaged_stretch_of_the_wal_are_read(tmp_path):
    """Fault 2: the box said "the storage lost the last 22 action(s)" and dropped the -wal, yet the
    frames after the junk hold match 2's leaf page with all 26 actions. Now they are read: nothing
    is lost, nothing invented, and the files are kept aside as they were."""
    path, want = power_cut_wal(tmp_path)
    junk(path)
    before = {n: h for n, h in digests(path.parent).items() if n.startswith("journal.sqlite3")}
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert r.match_id == 2
    assert lines(path) == want
    assert r.problems[0].startswith("Journal damaged: 66 action(s) recovered, 0 lost, 0 set aside")
    assert "its -wal is damaged" in r.problems[0]
    kept = {n.split(".damaged-")[0] + ("-wal" if n.endswith("-wal") else ""): h
            for n, h in digests(path.parent).items() if ".damaged-" in n}
    assert kept == {n: h for n, h in before.items() if not n.endswith(".count")}


def test_fault_2_export_and_the_web_page_leave_a_damaged_wal_as_it_is(tmp_path):
    """Fault 2, readers: a read-only connection would show only what precedes the damage, as if it
    were the whole journal. Now they say the box must repair it, and change no byte."""
    from assistant.web.server import Site
    path, _ = power_cut_wal(tmp_path)
    junk(path)
    before = digests(path.parent)
    proc = subprocess.run([sys.executable, "-m", "assistant.cli", "export", "--state-dir", str(path.parent), "-"],
                          cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "its -wal is damaged" in proc.stderr, proc.stderr
    site = Site(str(path.parent), runtime=str(tmp_path / "run"))
    assert "needs the box's repair" in site.now()["message"] and site.records() == []
    site.history.close()
    assert digests(path.parent) == before


@pytest.mark.parametrize("fault", ["cut to 16384 bytes", "first 16 bytes overwritten"])
def test_fault_3_the_damaged_file_is_kept_exactly_as_it_was(tmp_path, fault):
    """Fault 3: the copy set aside was 36,864 bytes with a 0-byte -wal (SQLite had folded the -wal
    into the cut file before it was set aside), or had no -wal at all. Now the files set aside are
    the bytes that were on disk, and every action in the -wal is still recovered."""
    path, want = power_cut_wal(tmp_path)
    if fault.startswith("cut"):
        os.truncate(path, 16384)
    else:
        overwrite(path, 0, random.Random(4).randbytes(16))
    before = {n: h for n, h in digests(path.parent).items() if n.startswith("journal.sqlite3")}
    j = Journal(str(path))
    r = j.resume()
    j.close()
    kept = {n.split(".damaged-")[0] + ("-wal" if n.endswith("-wal") else ""): h
            for n, h in digests(path.parent).items() if ".damaged-" in n}
    assert kept == {n: h for n, h in before.items() if not n.endswith(".count")}
    assert "Journal damaged" in r.problems[0]
    got = lines(path)
    assert set(got) <= set(want)  # nothing invented
    assert [row for row in got if row[0] == 2] == [row for row in want if row[0] == 2]  # the -wal's match


def test_fault_3_damage_found_by_the_check_is_kept_with_its_wal(tmp_path):
    """Damage that only SQLite's integrity check finds (a page of the file that the -wal does not
    hold, overwritten, while the -wal holds the latest actions): found through a read-only
    connection, so no writing connection folds the -wal into the damaged file before it is set
    aside; both are kept as they were."""
    path, want = power_cut_wal(tmp_path)
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # the file alone
    [(root,)] = db.execute("SELECT rootpage FROM sqlite_master WHERE name='set_aside'").fetchall()
    db.close()
    overwrite(path, (root - 1) * 4096, b"\x07" * 16)
    before = {n: h for n, h in digests(path.parent).items() if n.startswith("journal.sqlite3")}
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert "Journal damaged" in r.problems[0]
    kept = {n.split(".damaged-")[0] + ("-wal" if n.endswith("-wal") else ""): h
            for n, h in digests(path.parent).items() if ".damaged-" in n}
    assert kept == {n: h for n, h in before.items() if not n.endswith(".count")}
    assert lines(path) == want


def three_actions_more(path):
    """The journal at ``path`` opened as the box starts (its count record compared), a towers
    match begun and three actions appended; the Journal, still open."""
    from assistant.rules.scenario import Action
    j = Journal(str(path))
    j.resume()
    j.new_match("towers", ("P1", "P2"), {})
    for _ in range(3):
        j.append(Action("pass"), ("P1", "P2"))
    return j


@pytest.mark.parametrize("fault", ["a folder", "zero bytes", "random bytes"])
def test_fault_4_a_count_record_that_cannot_be_used_is_one_log_line(tmp_path, caplog, fault):
    """Fault 4: with journal.sqlite3.count a folder, or holding zeros or random bytes, loss
    detection was off without a word. Now one log line says so, once; the box plays on."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 5),))
    record = Path(str(path) + ".count")
    record.unlink()
    if fault == "a folder":
        record.mkdir()
    else:
        record.write_bytes(bytes(64) if fault == "zero bytes" else random.Random(1).randbytes(64))
    with caplog.at_level(logging.WARNING, logger="card-assistant"):
        three_actions_more(path).close()
    said = [m for m in caplog.messages if "count record" in m]
    assert len(said) == 1 and str(record) in said[0], caplog.messages
    assert "cannot tell" in said[0]
    if fault != "a folder":
        assert CountRecord(str(record)).read() == (2, 3, 8)  # written anew: detection is on again


def test_a_power_cut_during_a_checkpoint_is_not_damage(tmp_path):
    """Fault 3's check does not cry wolf: a file shorter than its header says while the -wal holds
    every page past its end (a checkpoint cut after it wrote page 1) is opened as it is."""
    from assistant.box.walscan import read
    src = tmp_path / "writer" / "journal.sqlite3"
    src.parent.mkdir()
    _, box = fill(src, (("towers-random.scn", 20),), close=False)  # nothing checkpointed yet
    path, want = cut_power(src, box, tmp_path / "state")
    data = Path(str(path) + "-wal").read_bytes()
    wal = read(data)
    page1 = wal.pages(data)[1]
    assert int.from_bytes(page1[28:32], "big") * 4096 > os.path.getsize(path)
    overwrite(path, 0, page1)  # the checkpoint's first write, then the power cut
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert r.problems == [] and aside_files(path.parent) == []
    assert lines(path) == want


def test_a_power_cut_while_the_damaged_files_are_set_aside_loses_nothing(tmp_path):
    """The repaired journal written (``.recovered``), the -wal already set aside, the damaged file
    still under the journal's name: the next start used that file alone (match 2 was only in the
    -wal) and ignored the repaired journal. Now the repaired one is put in place and the file set
    aside too; no byte is deleted."""
    path, want = power_cut_wal(tmp_path)
    junk(path)
    before = {n: h for n, h in digests(path.parent).items() if n in ("journal.sqlite3", "journal.sqlite3-wal")}
    from assistant.box.preflight import inspect
    from assistant.box.salvage import salvage_files, write_recovered
    from assistant.box.journal import SCHEMA, SCHEMA_VERSION
    found = salvage_files(str(path), inspect(str(path)))
    write_recovered(str(path) + ".recovered", found, SCHEMA, SCHEMA_VERSION)
    os.replace(str(path) + "-wal", str(path) + ".damaged-20260101T000000Z-wal")  # then the power cut
    j = Journal(str(path))
    j.resume()
    j.close()
    assert lines(path) == want
    kept = sorted(h for n, h in digests(path.parent).items() if ".damaged-" in n)
    assert kept == sorted(before.values())


def test_fault_3_damage_met_while_resuming_is_copied_aside_before_the_connection_closes(tmp_path):
    """Fault 3 at resume: a page damaged after the box opened the journal (its writing connection
    open, the latest actions in the -wal). Closing that connection folded the -wal into the
    damaged file before it was set aside; now the files are copied aside first, as they were."""
    path, want = power_cut_wal(tmp_path)
    j = Journal(str(path))
    db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)  # the file alone
    [(root,)] = db.execute("SELECT rootpage FROM sqlite_master WHERE name='set_aside'").fetchall()
    db.close()
    overwrite(path, (root - 1) * 4096, b"\x07" * 16)
    before = {n: h for n, h in digests(path.parent).items() if n in ("journal.sqlite3", "journal.sqlite3-wal")}
    j.db.execute("PRAGMA cache_size=0")  # nothing of the file kept in memory: read it again
    r = j.resume()
    j.close()
    assert "Journal damaged" in r.problems[-1]
    kept = {n.split(".damaged-")[0] + ("-wal" if n.endswith("-wal") else ""): h
            for n, h in digests(path.parent).items() if ".damaged-" in n and not n.endswith("-shm")}
    assert kept == before
    assert lines(path) == want


def test_rows_only_in_the_wal_are_kept_when_the_files_actions_root_is_damaged(tmp_path):
    """Fault (attack on the journal's files): after a power cut the latest match was only in the
    -wal (the newest version of its leaf page) and the file's root page of the actions table was
    damaged: SQLite could not walk the table, and the page scan read the file alone, where that
    leaf is an older version. "Journal damaged: ... 26 lost", yet every row was in the -wal. Now
    the page scan reads each page's latest version from the -wal, as SQLite would."""
    from assistant.box.walscan import read
    from test_journal_damage import SIX
    src = tmp_path / "writer" / "journal.sqlite3"
    src.parent.mkdir()
    fill(src, SIX)  # closed: every page checkpointed into the file
    box = Journal(str(src))
    box.resume()
    game, seats, options, body = example("towers-random.scn")
    box.new_match(game, seats, options)
    for n, line in enumerate(body[:26], 1):
        box.append(parse_action(line.split(), game, seats, n), seats)
    path, want = cut_power(src, box, tmp_path / "state")
    root = pages(path, "actions", "internal")[0]
    data = Path(str(path) + "-wal").read_bytes()
    assert root not in read(data).pages(data)  # the root is the file's; the latest leaf the -wal's
    overwrite(path, (root - 1) * 4096, bytes(4096))
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert r.problems[0].startswith(f"Journal damaged: {len(want)} action(s) recovered, 0 lost, 0 set aside")
    assert lines(path) == want


def test_a_match_whose_row_is_in_a_wal_frame_with_a_damaged_header_is_kept(tmp_path):
    """Fault (attack on the -wal: one byte of one frame's header): match 2's row (its game and
    seats) is written once, in the first frame after the checkpoint; that frame's checksum hit,
    SQLite and the frame-by-frame read both pass over it, the match was lost and all 26 of its
    actions, intact in later frames, were set aside ("the storage lost the latest match"). A
    match's row never changes, so its copy in a frame that fails its checksum is the match: now it
    is read from there (its actions' rows are not: an action's number may be reused)."""
    from assistant.box.walscan import read
    path, want = power_cut_wal(tmp_path)
    page = pages(tmp_path / "writer" / "journal.sqlite3", "matches")[0]
    data = Path(str(path) + "-wal").read_bytes()
    frames = [at for _, p, _, at, _ in read(data).frames if p == page]
    assert len(frames) == 1  # match 2's row is in one frame only
    overwrite(str(path) + "-wal", frames[0] + 16, bytes([data[frames[0] + 16] ^ 0xFF]))
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert r.match_id == 2
    assert r.problems[0].startswith(f"Journal damaged: {len(want)} action(s) recovered, 0 lost, 0 set aside")
    assert lines(path) == want


def test_fault_4_a_pipe_in_place_of_the_count_record_does_not_hold_the_start(tmp_path, caplog):
    """Fault (attack on the state folder): `mkfifo journal.sqlite3.count`. Opening a pipe waits
    for its other end, so the box never started (the sim: "the simulated box did not start within
    30 s", for ever at each restart). Now a pipe is not a record: one log line, the box plays on."""
    import threading
    from assistant.rules.scenario import Action
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 5),))
    record = Path(str(path) + ".count")
    record.unlink()
    os.mkfifo(record)
    done = []

    def play():
        j = Journal(str(path))
        j.resume()
        j.new_match("towers", ("P1", "P2"), {})
        j.append(Action("pass"), ("P1", "P2"))
        j.close()
        done.append(True)
    with caplog.at_level(logging.WARNING, logger="card-assistant"):
        box = threading.Thread(target=play, daemon=True)
        box.start()
        box.join(HANG_GUARD)
    assert done, "the box is still opening its count record"
    said = [m for m in caplog.messages if "count record" in m]
    assert len(said) == 1 and str(record) in said[0] and "is not a file" in said[0], caplog.messages


def test_the_wal_of_another_journal_is_set_aside_not_laid_over_this_one(tmp_path):
    """Fault (attack on the state folder: another box's -wal copied in beside this journal, as a
    restore or a copy between boxes leaves it). SQLite laid its frames over this journal page by
    page: the box played on in the other box's matches (actions it never saw, under this box's
    match numbers), said "the storage lost ... actions", and its next checkpoint wrote the other
    pages into this file. A match's row is never changed, so a -wal that changes one the file holds
    is not this journal's: the files are set aside as they were and the journal recovered from the
    file alone."""
    path, want = power_cut_wal(tmp_path)
    others = tmp_path / "other" / "journal.sqlite3"
    _, box = fill(others, (("twenty-nine-random.scn", 60),), close=False)
    foreign = Path(str(others) + "-wal").read_bytes()
    box.close()
    Path(str(path) + "-wal").write_bytes(foreign)
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert r.problems[0].startswith("Journal damaged: 40 action(s) recovered, 26 lost, 0 set aside")
    assert "another journal's" in r.problems[0]
    assert lines(path) == [row for row in want if row[0] == 1]  # match 1, from the file alone
    kept = [p for p in path.parent.iterdir() if p.name.endswith("-wal") and ".damaged-" in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == foreign
