"""What a damaged journal says it lost, in true totals for the whole journal (fault report
"the loss report undercounts and leaves out actions set aside", items 1 and 2): how many actions
were recovered, how many the storage lost, how many readable rows were set aside (an earlier
action of their match is missing); the screen's alert says the numbers in words that fit, the log
has the full line.
"""
import logging

from assistant.box.config import Game
from assistant.box.daemon import open_table
from assistant.box.journal import Journal
from assistant.box.screen import W, _wrap
from journal_faults import fill, overwrite, pages
from test_journal_damage import SIX, all_rows


def totals(path, before):
    kept, aside = all_rows(path)
    return len(kept), len(before) - len(kept) - len(aside), len(aside)


def test_a_lost_page_of_an_earlier_match_counts_the_rows_set_aside_and_the_lost(tmp_path):
    """Bytes over the first leaf of the actions: that page's rows are lost, the rest of that match
    is readable but set aside; the report said only the recovered ones and 'lost N of earlier
    matches', never the rows set aside."""
    path = tmp_path / "journal.sqlite3"
    fill(path, SIX)
    before, _ = all_rows(path)
    overwrite(path, (pages(path, "actions", "leaf")[0] - 1) * 4096, b"\x00" * 16)
    j = Journal(str(path))
    r = j.resume()
    j.close()
    kept, lost, aside = totals(path, before)
    assert lost > 0 and aside > 0
    assert r.problems[0].startswith(f"Journal damaged: {kept} action(s) recovered, {lost} lost, "
                                    f"{aside} set aside (readable but not replayed")
    assert j.summary == f"Journal damaged: recovered {kept}, lost {lost}, set aside {aside}; see the log"


def test_a_cut_journal_counts_every_match_it_lost(tmp_path):
    """The journal cut short (as a card torn mid-copy): the report said only the current match's
    loss; now the total, and the earlier matches' share in the detail line."""
    path = tmp_path / "journal.sqlite3"
    fill(path, SIX)
    before, _ = all_rows(path)
    last = max(m for m, _, _ in before)
    with open(path, "r+b") as f:
        f.truncate(5 * 4096)
    j = Journal(str(path))
    r = j.resume()
    j.close()
    kept, lost, aside = totals(path, before)
    assert lost > sum(1 for m, _, _ in before if m == last)  # more than the current match lost
    assert r.problems[0].startswith(f"Journal damaged: {kept} action(s) recovered, {lost} lost, "
                                    f"{aside} set aside")
    assert "of earlier matches" in r.problems[1]


def test_the_alert_at_the_table_says_the_numbers_and_fits_the_screen(tmp_path, caplog):
    """At the table the alert was the first 120 characters of the log line, cut inside the folder's
    name: the numbers of the loss were in the log only. Now the alert is the numbers, in at most
    four lines of the screen's alert area; the log keeps the full line with the file's name."""
    state = tmp_path / ("a-rather-long-state-folder-name" * 3)
    state.mkdir()
    path = state / "journal.sqlite3"
    fill(path, SIX)
    before, _ = all_rows(path)
    with open(path, "r+b") as f:
        f.truncate(5 * 4096)
    with caplog.at_level(logging.WARNING):
        table = open_table(str(state), {}, Game(), ("play",))
    table.journal.close()
    kept, lost, aside = totals(path, before)
    words = table.alert.text
    assert words == f"Journal damaged: recovered {kept}, lost {lost}, set aside {aside}; see the log"
    assert len(_wrap(words, W - 10 - 4)) <= 4
    assert any("damaged file kept as journal.sqlite3.damaged-" in m and str(state) in m
               for m in caplog.messages)


def test_a_lost_wal_alert_says_the_number_and_fits_the_screen(tmp_path):
    """With no damage to recover from (the -wal lost), the alert was the ~100-character log line,
    more than the screen's four lines: now the number lost, short."""
    from test_journal_lost import CHECKPOINTED, SAVED, power_cut_copy
    path = power_cut_copy(tmp_path, wal=lambda data: None)
    table = open_table(str(path.parent), {}, Game(), ("play",))
    table.journal.close()
    words = table.alert.text
    assert words == f"Journal: the storage lost {SAVED - CHECKPOINTED} saved action(s); see the log"
    assert len(_wrap(words, W - 10 - 4)) <= 4


def test_a_repair_not_seen_before_the_box_was_killed_is_said_again_until_seen(tmp_path, caplog):
    """Fault (leftover of the last session): the repair's numbers (what was recovered, lost, set
    aside) were said at the start that repaired the journal only; a box killed then (a watchdog
    restart, a second power cut) started on the repaired journal, sound now, and said nothing, so
    a user who did not see the first start never learned of the loss. The words are kept in the
    journal and said again at each start (log and screen) until a person has seen the alert: on
    the screen, then taken away by a press."""
    import signal
    from assistant.sim.simbox import SimBox
    from test_state_lock import start_box
    state = tmp_path / "state"
    state.mkdir()
    path = state / "journal.sqlite3"
    fill(path, SIX)
    with open(path, "r+b") as f:
        f.truncate(5 * 4096)
    box = start_box(tmp_path, state)  # the real daemon repairs the journal and shows the alert ...
    box.send_signal(signal.SIGKILL)   # ... and is killed before anyone pressed a button
    assert "Journal damaged: " in box.communicate()[1]
    with caplog.at_level(logging.WARNING):
        again = open_table(str(state), {}, Game(), ("play",))
    again.journal.close()
    words = again.alert.text
    assert any(m.startswith("the journal was repaired at a start at ") and "which stopped before anyone saw "
               "it: Journal damaged: " in m for m in caplog.messages), caplog.messages
    assert words.startswith("Journal damaged: recovered ") and words.endswith("; see the log")
    sim = SimBox(state).start()  # the box again: the alert is up until a press
    try:
        assert sim.box.view.alert.text == words
        sim.press("back")
    finally:
        sim.stop()
    j = Journal(str(path))
    try:
        assert j.resume().problems == [] and j.summary is None  # seen: not said again
    finally:
        j.close()
