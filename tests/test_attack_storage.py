"""Faults a second attack on the box's storage found (power cuts copied at a moment the earlier
attacks did not pick, one bit flipped where they did not flip it, ...): real files, real SQLite.
Each test names the fault and what the box did before."""
import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from journal_faults import example, fill, overwrite
from test_journal_wal import cut_power, lines, three_actions_more
from assistant.box.journal import Journal
from assistant.rules.scenario import parse_action

ROOT = Path(__file__).resolve().parents[1]
HANG = 60.0  # seconds: only ever a guard against a hung process, never a measurement


def restarted_wal(tmp_path, newest=5):
    """A journal whose -wal SQLite restarted after a checkpoint: its first frames are the newest
    transactions (match 2's first ``newest`` actions), the ~400 frames after them an older
    generation SQLite no longer reads (a -wal is never cut shorter). The power cut copy and its
    rows."""
    src = tmp_path / "writer" / "journal.sqlite3"
    _, box = fill(src, (("towers-random.scn", None),), close=False)
    box.db.execute("PRAGMA wal_checkpoint(PASSIVE)")  # all in the file: the next write restarts the -wal
    game, seats, options, body = example("twenty-nine-random.scn")
    box.new_match(game, seats, options)
    for n, line in enumerate(body[:newest], 1):
        box.append(parse_action(line.split(), game, seats, n), seats)
    return cut_power(src, box, tmp_path / "state")


def test_a_bit_flipped_in_the_header_of_a_restarted_wal_keeps_its_newest_actions(tmp_path):
    """Fault (a bit flipped in the -wal's 32-byte header after SQLite had restarted the -wal): with
    the header's own checksum wrong the frames' generation was taken to be the salts most frames
    share, which after a restart are the older generation's, hundreds of frames left behind the
    newest few. The newest frames, whole and checksummed, were dropped and the older ones laid over
    the file: "98 action(s) recovered, 5 lost", match 2's five actions gone. The generation SQLite
    writes is the one at the start of the -wal; every action is kept."""
    path, want = restarted_wal(tmp_path)
    wal = str(path) + "-wal"
    with open(wal, "rb") as f:
        head = f.read(32)
    assert os.path.getsize(wal) > 300 * 4096  # the older generation is still there
    overwrite(wal, 24, bytes([head[24] ^ 0x01]))  # one bit of the header's checksum
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert r.match_id == 2 and len(r.match.actions) == 5
    assert lines(path) == want
    assert r.problems[0].startswith(f"Journal damaged: {len(want)} action(s) recovered, 0 lost, 0 set aside")


def test_a_bit_flipped_in_the_magic_number_of_the_wal_keeps_every_action(tmp_path):
    """Fault (a bit flipped in the -wal's magic number, 0x377F0682 read as 0x377F0683, the other
    valid magic): the frames' checksums were then computed on big-endian words, none matched, and
    every frame but the first was taken to be unreadable: "... recovered, 5 lost". The byte order
    is the one the frames' own checksums agree with."""
    path, want = restarted_wal(tmp_path)
    wal = str(path) + "-wal"
    with open(wal, "rb") as f:
        head = f.read(32)
    overwrite(wal, 3, bytes([head[3] ^ 0x01]))
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert lines(path) == want
    assert r.problems[0].startswith(f"Journal damaged: {len(want)} action(s) recovered, 0 lost, 0 set aside")


def test_a_bit_flipped_in_the_only_frame_of_a_split_leaf_loses_no_action(tmp_path):
    """Fault (one random bit flipped in every page of a power-cut journal's -wal, 911 cases): when
    the actions' root page splits, SQLite copies its rows to a new leaf page, written once in the
    -wal; one bit flipped in that frame lost all 226 actions it held ("0 action(s) recovered, 226
    lost, 55 set aside"), although every one of them is still in the journal file's older version
    of the root page, which the -wal's newer version hid. Rows that only an older version of a
    page still holds are read too (an action's number missing everywhere else, never a row set
    aside); nothing is lost, nothing invented."""
    from assistant.box import walscan
    src = tmp_path / "writer" / "journal.sqlite3"
    _, box = fill(src, (("towers-random.scn", None), ("twenty-nine-random.scn", None), ("towers-random.scn", 50)),
                  close=False)
    box.db.execute("PRAGMA wal_checkpoint(PASSIVE)")  # the file holds the root page as one leaf
    game, seats, options, body = example("twenty-nine-random.scn")
    box.new_match(game, seats, options)
    for n, line in enumerate(body[:60], 1):
        box.append(parse_action(line.split(), game, seats, n), seats)
    path, want = cut_power(src, box, tmp_path / "state")
    wal = str(path) + "-wal"
    with open(wal, "rb") as f:
        data = f.read()
    frames = walscan.read(data).frames
    written = [page for _, page, _, _, _ in frames]
    once = [at for _, page, _, at, _ in frames if written.count(page) == 1
            and data[at + 24] == 0x0D and int.from_bytes(data[at + 27:at + 29], "big") > 200]
    assert len(once) == 1  # the leaf the root's rows were copied to
    overwrite(wal, once[0] + 24 + 3000, bytes([data[once[0] + 24 + 3000] ^ 0x10]))
    j = Journal(str(path))
    r = j.resume()
    j.close()
    assert lines(path) == want
    assert r.match_id == 4
    assert r.problems[0].startswith(f"Journal damaged: {len(want)} action(s) recovered, 0 lost, 0 set aside")


def card_assistant(*args, timeout=HANG):
    return subprocess.run([sys.executable, "-m", "assistant.cli", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def make_odd(name, kind):
    if kind == "a pipe":
        os.mkfifo(name)
    else:
        os.mkdir(name)


@pytest.mark.parametrize("kind", ["a pipe", "a folder"])
@pytest.mark.parametrize("suffix", ["-journal", "-wal", "-shm"])
def test_a_pipe_or_folder_where_sqlite_keeps_its_files_is_moved_aside_not_a_hang(tmp_path, suffix, kind):
    """Fault (odd files in the state folder): a pipe named journal.sqlite3-journal held the box's
    start for ever (SQLite reads that name to see whether a transaction must be rolled back, and a
    pipe's read waits for a writer), and export and the web page with it while the box had its
    -wal; a pipe at -wal had every action refused ("disk I/O error") while the box looked as if it
    played; a folder at -wal stopped the box ("unable to open database file") and one at -shm said
    "the storage card is read-only". Such a name holds no saved action: the box moves it aside
    (renamed, never deleted), says so in one line and plays on; a reader says in one line that the
    journal needs the box's repair."""
    state = tmp_path / "state"
    path = state / "journal.sqlite3"
    _, box = fill(path, (("towers-random.scn", 20),), close=False)  # the box has its -wal
    try:
        if suffix != "-journal":  # a name SQLite holds now: made where the box is not running
            box.close()
            box = None
        make_odd(str(path) + suffix, kind)
        said = card_assistant("export", "--state-dir", state, "-")
        if box is not None or suffix != "-shm" or kind == "a pipe":
            assert said.returncode == 1 and said.stdout == "", said
            assert said.stderr.count("\n") == 1 and f"journal.sqlite3{suffix} (where SQLite keeps its own files) " \
                "is not a file" in said.stderr and "needs the box's repair" in said.stderr, said.stderr
    finally:
        if box is not None:
            box.close()
    played = card_assistant("sim", "--bots", "--matches", "1", "--seed", "1", "--state-dir", state, "--verbose")
    assert played.returncode == 0 and "Traceback" not in played.stderr, played.stderr
    assert "this action was not saved" not in played.stderr and "read-only" not in played.stderr
    moved = [line for line in played.stderr.splitlines() if "was not a file: moved aside as" in line]
    assert len(moved) == 1 and f"journal.sqlite3{suffix} " in moved[0], played.stderr
    aside = [p for p in state.iterdir() if ".damaged-" in p.name]
    assert len(aside) == 1 and aside[0].name.endswith(suffix)
    assert (stat.S_ISFIFO if kind == "a pipe" else stat.S_ISDIR)(aside[0].lstat().st_mode)
    out = tmp_path / "out"
    assert card_assistant("export", "--all", "--state-dir", state, out).returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["match-1.scn"]  # the bots finished the match in play
    kept = [ln for ln in (out / "match-1.scn").read_text().splitlines() if not ln.startswith(("#", "game", "seats"))]
    assert len(kept) > 20  # its 20 actions, then the bots' to its end


@pytest.mark.parametrize("left", ["an empty file", "one table of four"])
def test_a_journal_whose_first_start_stopped_short_is_no_match_yet_for_its_readers(tmp_path, left):
    """Fault (the box killed, or its card full, between creating the journal's file and writing its
    tables): export said "cannot be read (no such table: matches); the box recovers it at its next
    start" and the web page "The journal cannot be read now; the box repairs it" (503), of a journal
    that holds nothing and that the box does not repair but completes. Now it is a journal with no
    match yet; the box's own start, as before, completes it and plays."""
    from test_web_faults import Web
    state = tmp_path / "state"
    state.mkdir()
    path = state / "journal.sqlite3"
    path.write_bytes(b"")
    if left == "one table of four":
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.close()
    said = card_assistant("export", "--all", "--state-dir", state, tmp_path / "out")
    assert said.returncode == 1 and said.stderr == f"card-assistant export: {path}: no match in the journal yet\n"
    web = Web(state)
    try:
        status, _, body = web.get("/api/matches")
    finally:
        web.stop()
    assert status == 200 and json.loads(body) == [], body
    played = card_assistant("sim", "--bots", "--matches", "1", "--seed", "1", "--state-dir", state)
    assert played.returncode == 0 and played.stderr == "", played.stderr
    assert card_assistant("export", "--all", "--state-dir", state, tmp_path / "out").returncode == 0


CARD_TURNS_READ_ONLY = """
import subprocess, sys
from assistant.box.journal import Journal, JournalError
from assistant.rules.scenario import Action
j = Journal(sys.argv[1] + "/state/journal.sqlite3")
j.new_match("towers", ("P1", "P2"), {})
j.append(Action("flip", cards=(0,)))
subprocess.run(["mount", "-o", "remount,abort", sys.argv[1]], check=True)  # as ext4 does after an I/O error
try:
    j.append(Action("flip", cards=(1,)))
except JournalError as e:
    print(e)
"""


def test_a_card_the_kernel_turns_read_only_mid_match_is_said_to_be_read_only(tmp_path):
    """Fault (a card that turns read-only while the bots play: a real ext4 on a loop device, made
    read-only as the kernel does after an I/O error, with errors=remount-ro): every action after it
    was refused with "the journal ... could not be written (disk I/O error)", SQLite's words for
    the kernel's EROFS, sending the owner to look for a broken card rather than a read-only one.
    Now it says the card is mounted read-only, as at a start on such a card."""
    if os.geteuid() != 0 or not all(shutil.which(t) for t in ("unshare", "losetup", "mkfs.ext4")):
        pytest.skip("needs root, unshare, losetup and mkfs.ext4 to make a card turn read-only")
    card = tmp_path / "card.img"
    with open(card, "wb") as f:
        f.truncate(8 << 20)
    if subprocess.run(["mkfs.ext4", "-q", "-F", str(card)], capture_output=True).returncode:
        pytest.skip("mkfs.ext4 failed here")
    mnt = tmp_path / "card"
    mnt.mkdir()
    script = tmp_path / "play.py"
    script.write_text(CARD_TURNS_READ_ONLY)
    got = subprocess.run(
        ["unshare", "-m", "sh", "-c", 'loop=$(losetup -f --show "$1") || exit 77; '
         'mount -o errors=remount-ro "$loop" "$2" && mkdir "$2/state" && "$3" "$4" "$2"; rc=$?; '
         'umount "$2"; losetup -d "$loop"; exit $rc', "sh", str(card), str(mnt), sys.executable, str(script)],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, timeout=HANG)
    if got.returncode == 77 or "mount" in got.stderr:
        pytest.skip(f"no loop device or mount here: {got.stderr[:120]}")
    assert got.returncode == 0 and "Traceback" not in got.stderr, got.stderr
    assert got.stdout == f"the storage card is mounted read-only ({mnt}/state): this action was not saved\n", got.stdout


def test_a_link_in_place_of_the_count_record_never_writes_through_it(tmp_path, caplog):
    """Fault (a link at journal.sqlite3.count, here to the journal itself): the record was written
    through the link, 64 bytes over the journal's header at every action while the box ran ("count1
    4 49 ..." where "SQLite format 3" belongs: a power cut then left a journal with no header, and
    export and the web page read a file that was not a database); the log said the record "holds
    no readable record". Now a link is not the record: one log line says it is not a file, nothing
    is written through it, the box plays on."""
    import logging
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 5),))
    record = Path(str(path) + ".count")
    record.unlink()
    record.symlink_to(path.name)
    with caplog.at_level(logging.WARNING, logger="card-assistant"):
        j = three_actions_more(path)
        with open(path, "rb") as f:
            head = f.read(16)
        j.close()
    assert head == b"SQLite format 3\x00"
    said = [m for m in caplog.messages if "count record" in m]
    assert len(said) == 1 and f"{record} is not a file" in said[0], caplog.messages
    assert record.is_symlink() and len(lines(path)) == 8


def test_a_damaged_journal_of_a_newer_card_assistant_is_left_as_it_is(tmp_path):
    """Fault (a journal written by a newer card-assistant, schema 2, after a power cut and with junk
    in its -wal, opened by this version): it was "repaired" into a schema 1 journal, the newer
    version's files set aside, although a newer journal is never read, written or set aside by this
    version (only the newer one knows its rows). Now the damage is left for that version: the
    files are as they were, byte for byte, and the box says the journal is from a newer version."""
    from assistant.box.journal_files import JournalTooNew
    from test_journal_wal import digests
    src = tmp_path / "writer" / "journal.sqlite3"
    _, box = fill(src, (("towers-random.scn", None), ("twenty-nine-random.scn", None)), close=False)
    box.db.execute("UPDATE meta SET value='2' WHERE key='schema'")  # as a newer card-assistant writes it
    path, _ = cut_power(src, box, tmp_path / "state")
    overwrite(str(path) + "-wal", 32 + 5 * 4120 + 50, bytes(range(256)) * 8)
    before = digests(path.parent)
    with pytest.raises(JournalTooNew, match="newer card-assistant"):
        Journal(str(path))
    assert digests(path.parent) == before


def test_a_wal_of_gigabytes_on_a_box_of_1_gb_is_not_a_crash_at_start(tmp_path):
    """Fault (a -wal of 2 GB beside a sound journal: one grown while a reader held SQLite's
    checkpoints back, or a size a damaged file system reports), on a box whose memory is 1 GB (here
    the sim's address space limited to 1.2 GB): the start read the whole -wal into memory and
    ended in "internal error (MemoryError)", a restart loop for the service. Now a large -wal is
    mapped, not read, or left to SQLite when even that cannot be done: the box starts and plays."""
    import resource
    state = tmp_path / "state"
    fill(state / "journal.sqlite3", (("towers-random.scn", 20),))
    with open(str(state / "journal.sqlite3") + "-wal", "wb") as f:
        f.truncate(2 << 30)  # sparse: no disk is used

    def small_box():
        resource.setrlimit(resource.RLIMIT_AS, (1200 << 20, 1200 << 20))

    played = subprocess.run([sys.executable, "-m", "assistant.cli", "sim", "--bots", "--matches", "1", "--seed", "1",
                             "--state-dir", str(state)], cwd=ROOT, capture_output=True, text=True, timeout=HANG,
                            stdin=subprocess.DEVNULL, preexec_fn=small_box)
    assert played.returncode == 0 and "internal error" not in played.stderr, played.stderr
    out = tmp_path / "out"
    assert card_assistant("export", "--all", "--state-dir", state, out).returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["match-1.scn"]  # the bots finished the match in play
