"""A damaged journal never stops the box and loses no action that can still be read
(issue 10, items 1 and 5).

Real SQLite files, damaged in place the way an SD card does it: bytes written over a page of
the actions table, of its index, of the matches table; rows holding values the journal never
writes. Each test opens the journal as the box does (``Journal(path)`` then ``resume()``) and
checks: no exception, the damaged file is kept aside byte for byte with its -wal/-shm, every
row outside the damaged page is kept (in the journal, or in its ``set_aside`` table when an
earlier action of its match is lost), and the problem is said in words naming no card.
"""
import os
import shutil
import sqlite3
import stat

import pytest

from assistant.box.journal import Journal, JournalUnavailable
from assistant.rules.scenario import Action
from journal_faults import fill, journal_lines, overwrite, pages, rows_on_page

SIX = tuple((name, None) for name in ("towers-random.scn", "twenty-nine-random.scn") * 3)


def all_rows(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        kept = db.execute("SELECT match, seq, line FROM actions ORDER BY rowid").fetchall()
        aside = db.execute("SELECT match, seq, line FROM set_aside").fetchall()
        return kept, aside
    finally:
        db.close()


def damaged_files(folder):
    return sorted(p.name for p in folder.iterdir() if ".damaged-" in p.name
                  and not p.name.endswith(("-wal", "-shm")))


def open_as_the_box(path):
    j = Journal(str(path))
    return j, j.resume()


def test_the_issue_case_page_5_of_a_40_action_journal(tmp_path):
    """The issue's fault: 16 bytes over page 5 (the actions' page) of a 40-action journal made
    every start end in 'database disk image is malformed'. Now the box starts, says so, and the
    damaged file is kept as it was."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 40),))
    assert 5 in pages(path, "actions")
    overwrite(path, 4 * 4096, b"\xff" * 16)  # the page's header: SQLite cannot read the page at all
    damaged = path.read_bytes()
    j, r = open_as_the_box(path)
    assert r.match is not None and r.match.game == "towers"  # the match row (page 4) survived
    assert "Journal damaged: 0 action(s) recovered" in r.problems[0]
    assert "damaged file kept as journal.sqlite3.damaged-" in r.problems[0]
    [aside] = damaged_files(tmp_path)
    assert (tmp_path / aside).read_bytes() == damaged
    j.repair_seen()  # its alert seen at the table (else said again: test_journal_loss_report)
    j.close()
    j, r = open_as_the_box(path)  # the next start is a normal one
    assert r.problems == [] and damaged_files(tmp_path) == [aside]
    j.close()


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_a_damaged_leaf_of_the_actions_loses_that_page_only(tmp_path, which):
    path = tmp_path / "journal.sqlite3"
    fill(path, SIX)
    before, _ = all_rows(path)
    leaves = pages(path, "actions", "leaf")
    assert len(leaves) >= 3
    page = {"first": leaves[0], "middle": leaves[len(leaves) // 2], "last": leaves[-1]}[which]
    on_page = rows_on_page(path, "actions", page)
    overwrite(path, (page - 1) * 4096, b"\x00" * 16)
    j, r = open_as_the_box(path)
    j.close()
    kept, aside = all_rows(path)
    survived = set(kept) | set(aside)
    lost = [row for row in before if row not in survived]
    assert len(lost) == on_page  # exactly that page's rows, and only them
    positions = [before.index(row) for row in lost]
    assert positions == list(range(positions[0], positions[0] + on_page))  # one stretch
    assert sorted(survived) == sorted(row for row in before if row not in lost)
    assert f"{len(kept)} action(s) recovered" in r.problems[0]
    for mid, seq, _ in aside:  # set aside only because an earlier action of its match is lost
        assert any(m == mid and s < seq for m, s, _ in lost)


def test_a_damaged_index_loses_nothing(tmp_path):
    """The actions' index disagrees with its table (found by integrity_check at start): every
    action is read from the table itself and nothing is lost."""
    path = tmp_path / "journal.sqlite3"
    fill(path, SIX)
    stored = {mid: journal_lines(path, mid) for mid in range(1, 7)}
    leaf = pages(path, "sqlite_autoindex_actions_1", "leaf")[1]
    overwrite(path, (leaf - 1) * 4096 + 4096 - 40, b"\x07" * 16)  # inside the index's cells
    j, r = open_as_the_box(path)
    try:
        assert "recovered" in r.problems[0]
        assert f"{sum(map(len, stored.values()))} action(s) recovered" in r.problems[0]
        for mid, lines in stored.items():
            assert journal_lines(path, mid) == lines
        assert len(r.match.actions) > 0
    finally:
        j.close()


def test_a_damaged_matches_page_keeps_every_action_aside(tmp_path):
    path = tmp_path / "journal.sqlite3"
    stored = fill(path, SIX)
    [page] = pages(path, "matches")
    overwrite(path, (page - 1) * 4096, b"\xee" * 16)
    j, r = open_as_the_box(path)
    j.close()
    assert r.match is None  # no match can be rebuilt without its game and seats: the menu
    kept, aside = all_rows(path)
    assert kept == [] and len(aside) == sum(map(len, stored.values()))


BAD_ROWS = {
    "schema not a number": "UPDATE meta SET value='one' WHERE key='schema'",
    "unknown game": "UPDATE matches SET game='chess' WHERE id=1",
    "seats not JSON": "UPDATE matches SET seats='[\"P1\", ' WHERE id=1",
    "seats nested deep": "UPDATE matches SET seats='" + "[" * 5000 + "' WHERE id=1",
    "one seat": "UPDATE matches SET seats='[\"P1\"]' WHERE id=1",
    "options unknown": "UPDATE matches SET options='{\"pair\": \"maybe\"}' WHERE id=2",
    "options a list": "UPDATE matches SET options='[1]' WHERE id=2",
    "start time a word": "UPDATE matches SET started='noon' WHERE id=1",
    "5000-digit number": "UPDATE actions SET line='bid ' || printf('%.5000c', '9') WHERE match=2 AND seq=3",
    "line a blob": "UPDATE actions SET line=x'00ff' WHERE match=1 AND seq=5",
    "line blank": "UPDATE actions SET line='  ' WHERE match=1 AND seq=5",
    "NULL line": "UPDATE actions SET line=NULL WHERE match=1 AND seq=5",
    "seq zero": "UPDATE actions SET seq=0 WHERE match=1 AND seq=5",
    "action of no match": "UPDATE actions SET match=99 WHERE match=1 AND seq=5",
}


@pytest.mark.parametrize("fault", sorted(BAD_ROWS))
def test_a_row_holding_a_bad_value_is_left_out_and_the_rest_kept(tmp_path, fault):
    """Validated explicitly, never handed to a parser that raises: the box starts, the bad row is
    left out (or set aside), every other row is kept."""
    path = tmp_path / "journal.sqlite3"
    db = sqlite3.connect(path)  # as the journal makes it, but with no NOT NULL, so damage can be
    db.executescript("""CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE matches (id INTEGER PRIMARY KEY, game TEXT, seats TEXT, options TEXT, started REAL);
        CREATE TABLE actions (match INTEGER, seq INTEGER, line TEXT, PRIMARY KEY (match, seq));""")
    db.close()
    stored = fill(path, (("towers-random.scn", 30), ("twenty-nine-random.scn", 20)))
    db = sqlite3.connect(path)
    db.execute(BAD_ROWS[fault])
    db.commit()
    db.close()
    before, _ = all_rows(path)
    j, r = open_as_the_box(path)
    j.close()
    assert r.problems and "Journal damaged" in r.problems[0]
    kept, aside = all_rows(path)
    whole_match_lost = fault in ("unknown game", "seats not JSON", "seats nested deep", "one seat",
                                 "start time a word", "options unknown", "options a list")
    good = [row for row in before if isinstance(row[2], str) and row[2].strip() and len(row[2]) < 200
            and row[1] != 0]
    assert sorted(set(kept) | set(aside)) == sorted(good)
    if whole_match_lost:
        assert {m for m, _, _ in kept} == ({1, 2} - ({1} if "id=1" in BAD_ROWS[fault] else {2}))
    elif fault != "schema not a number":
        assert len(kept) < len(before) and aside  # the rest of the match waits in set_aside
    else:
        assert kept == before
    assert r.match is not None or whole_match_lost


def test_an_invalid_tail_is_still_set_aside_in_place(tmp_path):
    """A line that reads but that the rules refuse is not damage of the file: set aside inside
    the journal as before, the file itself stays."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 10),))
    db = sqlite3.connect(path)
    db.execute("INSERT INTO actions VALUES (1, 11, 'play QQ')")
    db.commit()
    db.close()
    j, r = open_as_the_box(path)
    j.close()
    assert damaged_files(tmp_path) == [] and len(r.match.actions) == 10
    assert "set aside" in r.problems[0]


def test_a_power_cut_during_recovery_leaves_the_repaired_journal_to_be_used(tmp_path):
    """The damaged file was set aside, the repaired one not yet renamed: the next start uses it."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 30),))
    stored = {1: journal_lines(path, 1)}
    os.replace(path, str(path) + ".recovered")
    j, r = open_as_the_box(path)
    j.close()
    assert r.problems == [] and journal_lines(path, 1) == stored[1]


@pytest.mark.parametrize("left", ["junk bytes", "a folder"])
def test_a_repaired_journal_that_is_not_one_never_takes_the_journals_place(tmp_path, left):
    """Fault (attack on the state folder): a `journal.sqlite3.recovered` of junk (or a folder) beside
    a sound journal. The start took it for the repaired journal a power cut leaves: the sound
    journal was set aside and the junk put in its place ("Journal damaged: 0 action(s) recovered,
    30 lost"; a folder: the box would not start). Now it is set aside, said, and the journal kept."""
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 30),))
    stored = journal_lines(path, 1)
    ready = tmp_path / "journal.sqlite3.recovered"
    if left == "a folder":
        ready.mkdir()
    else:
        ready.write_bytes(bytes(range(256)) * 40)
    j, r = open_as_the_box(path)
    j.close()
    assert len(r.problems) == 1 and "journal.sqlite3.recovered" in r.problems[0], r.problems
    assert "the journal is opened as it is" in r.problems[0]
    assert journal_lines(path, 1) == stored and not ready.exists()
    kept = [p for p in tmp_path.iterdir() if p.name.endswith(".recovered")]
    assert len(kept) == 1 and ".damaged-" in kept[0].name
    if left == "junk bytes":
        assert kept[0].read_bytes() == bytes(range(256)) * 40


def test_a_link_in_place_of_the_journal_is_one_line_and_touches_nothing(tmp_path):
    """Fault (attack on the state folder): journal.sqlite3 replaced by a link to another box's
    journal, its own -wal (the latest match) left beside the link. SQLite opened the file the link
    points to and looks for the -wal beside that: the box played on in the other journal, said
    "the storage lost the latest match", and its own -wal lay unread (and `export --all` wrote the
    other box's matches as this box's). Now a link is one line, as a folder in the journal's place
    is, for the box and for the readers, and no file on either side changes."""
    other = tmp_path / "other" / "journal.sqlite3"
    fill(other, (("twenty-nine-random.scn", 10),))
    state = tmp_path / "state"
    path = state / "journal.sqlite3"
    _, box = fill(path, (("towers-random.scn", 20),), close=False)
    wal = (state / "journal.sqlite3-wal").read_bytes()
    shutil.copyfile(str(path), str(tmp_path / "kept"))
    box.db.close()  # as a power cut leaves it: the -wal is not folded in
    shutil.copyfile(str(tmp_path / "kept"), str(path))
    (state / "journal.sqlite3-wal").write_bytes(wal)
    path.unlink()
    path.symlink_to(other)
    theirs = other.read_bytes()
    with pytest.raises(JournalUnavailable, match="taken by a link"):
        Journal(str(path))
    with pytest.raises(JournalUnavailable, match="taken by a link"):  # export, the web page: the
        Journal(str(path), readonly=True)  # other box's matches were written as this box's
    assert other.read_bytes() == theirs and (state / "journal.sqlite3-wal").read_bytes() == wal
    assert not (other.parent / "journal.sqlite3-wal").exists()


FOREIGN = {  # made with the sqlite3 shell; what the box did with each before
    "a trigger refusing every row": "CREATE TRIGGER t BEFORE INSERT ON actions BEGIN SELECT RAISE(ABORT, 'no'); END",
    "a trigger deleting every row": "CREATE TRIGGER t AFTER INSERT ON actions BEGIN DELETE FROM actions; END",
    "a unique index": "CREATE UNIQUE INDEX u ON actions(match, length(line), seq)",
}


@pytest.mark.parametrize("made", sorted(FOREIGN))
def test_a_trigger_or_index_the_box_never_makes_is_repaired_away(tmp_path, made):
    """Fault (attack on the journal with the sqlite3 shell): a trigger that refuses every insert
    made the box refuse every action from then on ("could not be written (no): this action was
    not saved"), at every start, without a word at start; one that deletes every row lost each
    action as it was saved; a unique index of another hand refuses rows it dislikes. The box makes
    tables and their own indexes only: anything else is damage, repaired as any (every row kept)."""
    import sqlite3
    from assistant.rules.scenario import parse_action
    from journal_faults import example
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 30),))
    db = sqlite3.connect(path)
    db.execute(FOREIGN[made])
    db.commit()
    db.close()
    j, r = open_as_the_box(path)
    assert r.problems[0].startswith("Journal damaged: 30 action(s) recovered, 0 lost, 0 set aside")
    assert "never makes" in r.problems[0]
    game, seats, _, body = example("towers-random.scn")
    for n, line in enumerate(body[30:33], 31):
        j.append(parse_action(line.split(), game, seats, n), seats)
    j.close()
    assert len(journal_lines(path, 1)) == 33


def test_journal_and_folder_are_created_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        path = tmp_path / "state" / "journal.sqlite3"
        j = Journal(str(path))
        j.new_match("towers", ("P1", "P2"), {})
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        for name in (path, str(path) + "-wal", str(path) + "-shm"):
            assert stat.S_IMODE(os.stat(name).st_mode) == 0o600, name
        j.close()
    finally:
        os.umask(old)


def test_an_existing_journal_readable_by_others_is_made_private(tmp_path):
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 3),))
    os.chmod(path, 0o644)
    Journal(str(path)).close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


@pytest.mark.parametrize("case", ["a file", "under /proc", "a file in the path", "a folder as journal"])
def test_a_state_folder_that_cannot_be_one_is_one_line_naming_it(tmp_path, case):
    (tmp_path / "plain").write_text("x")
    folder = {"a file": tmp_path / "plain", "under /proc": "/proc/card-assistant-test",
              "a file in the path": tmp_path / "plain" / "state", "a folder as journal": tmp_path}[case]
    path = os.path.join(folder, "journal.sqlite3")
    if case == "a folder as journal":
        os.mkdir(path)
    with pytest.raises(JournalUnavailable) as e:
        Journal(path)
    text = str(e.value)
    assert "\n" not in text and (str(folder) in text or path in text), text
    assert "Traceback" not in text


def test_export_reads_only_and_keeps_the_current_match(tmp_path):
    """Reading the journal no longer writes to it: after exporting an older match, the next
    action is stored in the current one."""
    path = tmp_path / "journal.sqlite3"
    stored, j = fill(path, (("towers-random.scn", 5), ("towers-random.scn", 3)), close=False)
    j.resume()
    assert j.export(1).splitlines()[-5:] == journal_lines(path, 1)
    from assistant.rules.cards import parse_card
    j.append(Action("play", cards=(parse_card("AS"),)))
    j.close()
    assert journal_lines(path, 2)[-1] == "play AS" and len(journal_lines(path, 1)) == 5


@pytest.mark.parametrize("where", ["the actions' root page", "the file header", "the schema on page 1"])
def test_rows_under_a_damaged_root_or_schema_are_read_from_their_pages(tmp_path, where):
    """SQLite cannot walk to any action when the table's root (interior) page, the file header
    or the schema is damaged; the leaves are intact, and are read page by page (pagescan)."""
    path = tmp_path / "journal.sqlite3"
    fill(path, SIX)
    before, _ = all_rows(path)
    [root] = pages(path, "actions", "internal")
    at = {"the actions' root page": (root - 1) * 4096, "the file header": 0,
          "the schema on page 1": 100}[where]
    overwrite(path, at, b"\xa5" * 16)
    j, r = open_as_the_box(path)
    j.close()
    kept, aside = all_rows(path)
    assert sorted(set(kept) | set(aside)) == sorted(before)
    assert f"{len(before)} action(s) recovered" in r.problems[0]


def test_an_action_that_cannot_be_saved_names_where(tmp_path):
    """Issue 10, item 5: 'the storage card is read-only' named no path. Now the message names the
    folder (or the file, or a read-only mount) that refused the write."""
    from assistant.box.journal import JournalError
    path = tmp_path / "journal.sqlite3"
    fill(path, (("towers-random.scn", 3),))
    j = Journal(str(path), readonly=True)
    j.match_id = 1
    with pytest.raises(JournalError) as e:
        j.append(Action("pass"), ("Cy", "Bob"))
    j.close()
    assert str(tmp_path) in str(e.value) and "not saved" in str(e.value)


def test_damage_met_while_resuming_is_recovered_as_at_opening(tmp_path):
    """Open and resume are one guard: a page damaged after the journal was opened (and checked)
    is found by resume, and recovered the same way."""
    path = tmp_path / "journal.sqlite3"
    fill(path, SIX)
    j = Journal(str(path))
    leaf = pages(path, "actions", "leaf")[-1]
    overwrite(path, (leaf - 1) * 4096, b"\x00" * 16)
    j.db.execute("PRAGMA cache_size=0")  # nothing of the file kept in memory: read it again
    r = j.resume()
    j.close()
    assert r.match is not None and "Journal damaged" in r.problems[-1]
    assert damaged_files(tmp_path)
