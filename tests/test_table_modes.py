"""A smaller table (issue 11 item 6): the screen's modes are a stack of data (menu, alert, match end,
result, choices) and a short press goes to the top mode that takes it; every alert says why it is
up (its cause); and no game branches above the per-game table modules (issue 11 item 5)."""
import logging
import re
from pathlib import Path

import pytest

from assistant.box.daemon import Box
from assistant.box.journal import Journal, JournalError
from assistant.box.table import Table
from assistant.box.table_view import DESKS, desk
from assistant.box.view import Alert
from assistant.hw.events import ButtonPressed, PadCleared, PadConflict, ReaderStatus, TagArrived, TagRemoved
from tests.test_table import DECK, Hands, towers_to_play, uid

BOX = Path(__file__).resolve().parent.parent / "assistant" / "box"


def stack(h):
    return tuple(str(m) for m in h.table.mode_stack())


def renege_proven(h):
    """Towers: P2 deals, P1 accepts 9H and discards 10H ... P1 fails to follow spades (T9)."""
    h.tap(3, "JS"), h.tap(3, "9H"), h.press("ok")   # P1 deals 7, P2 accepts
    h.tap(1, "10H")                                  # P1's discard
    h.press("ok")                                    # no for 2
    for pad, c in [(2, "AS"), (1, "KC"), (2, "KS")]:
        v = h.tap(pad, c)
    v = h.tap(1, "QS")                               # P1 shows a spade: the renege is proven
    return v


def test_a_short_press_goes_to_the_top_mode_that_takes_it(tmp_path):
    """Item 6: menu over alert over result over choices; an alert lets left/right through."""
    h = Hands(tmp_path)
    assert stack(h) == ("choices",)
    h.table.handle(PadConflict(1))
    assert stack(h) == ("alert", "choices")
    h.press("left")                                  # moves what is under the alert; the alert stays
    assert stack(h) == ("alert", "choices")
    h.press("ok")                                    # clears the alert, and nothing else
    assert stack(h) == ("choices",) and h.lines() == []
    h.press("ok", held=True)
    assert stack(h) == ("menu", "choices")
    h.tap(3, "JH")                                   # a card while the menu is open
    assert stack(h) == ("menu", "alert", "choices") and h.table.alert.cause == "menu-first"
    h.press("right")                                 # the menu takes the press, not the alert
    assert h.table.menu.selected == 1 and h.table.alert is not None
    h.press("back")                                  # leaving the menu clears its stale alert
    assert stack(h) == ("choices",) and h.lines() == []


def test_a_result_takes_one_press_before_the_choices(tmp_path):
    """Item 6 (T9): a claim's result hides the choices until a press, which does nothing else."""
    h = Hands(tmp_path)
    v = renege_proven(h)
    assert v.alert.cause == "renege-proven" and stack(h) == ("alert", "choices")
    h.press("back")
    h.press("ok", held=True)
    labels = [label for label, _ in h.table.menu.items]
    for _ in range(labels.index("Claim: P1's renege")):
        h.press("right")
    h.press("ok")
    assert stack(h) == ("result", "choices")
    n = len(h.lines())
    h.press("ok")
    assert stack(h) == ("choices",) and len(h.lines()) == n


def test_holding_back_at_the_new_match_menu_keeps_the_menu(tmp_path):
    """No traceback reaches a user: with no match yet, hold Back has nothing to undo (it once
    closed the menu and the screen had no table to show)."""
    table = Table(Journal(str(tmp_path / "journal.sqlite3")), DECK)
    v = table.handle(ButtonPressed("back", held=True))
    assert v.phase == "menu" and v.menu.title == "New match" and table.match is None


class FullJournal(Journal):
    def append(self, action, seats=None, setting=None):
        raise JournalError("the storage card is full: this action was not saved")


def test_every_alert_says_why_it_is_up(tmp_path):
    """Item 6: an alert's cause is data (a rules refusal code or one of the table's causes),
    so that nothing has to read its words."""
    h = Hands(tmp_path)
    causes = []
    for event in (PadConflict(1), TagArrived(3, "04DEADBEEF0000"), TagArrived(3, uid("8S")),
                  TagArrived(9, uid("9S")), ReaderStatus(False, "unplugged"), TagArrived(1, uid("AS"), True)):
        causes.append(h.table.handle(event).alert.cause)
        h.table.handle(PadCleared(1)), h.table.handle(ReaderStatus(True))
    assert causes == ["pad-conflict", "unknown-tag", "not-in-pack", "unknown-pad", "reader-lost", "card-lying"]
    towers_to_play(h)                                # P2 deals, P1 accepts
    h.tap(2, "QC"), h.press("ok")                    # P2's discard; no for 2
    assert h.tap(2, "AS").alert.cause == "not-your-turn"
    full = Hands(tmp_path / "full")
    full.table.journal = FullJournal(str(tmp_path / "full.sqlite3"))
    assert full.tap(3, "JH").alert.cause == "journal" and full.lines() == []
    assert renege_proven(Hands(tmp_path / "renege")).alert.cause == "renege-proven"
    with pytest.raises(ValueError):
        Alert("info", "words", "no-such-cause")


def test_a_refused_face_down_card_has_one_cause_whatever_the_rules_reason(tmp_path):
    """Hidden information (item 6): the rules refuse this discard as not held by the dealer,
    that one as known in the other hand; the alert, cause included, is the same."""
    scanned = Hands(tmp_path / "a", deal_scan=True)
    scanned.tap(3, "JH"), scanned.tap(3, "JS")      # P2 deals
    for c in ("AS", "KS", "QS", "AC", "KC", "QC", "AD"):
        scanned.tap(1, c)
    for c in ("9S", "10S", "9C", "10C", "9D", "10D", "KD"):
        scanned.tap(2, c)
    scanned.tap(3, "9H"), scanned.press("ok")       # P1 accepts: P2 picks up 9H
    not_held = scanned.tap(2, "AH").alert
    partly = Hands(tmp_path / "b", deal_scan=True)
    partly.tap(3, "JH"), partly.tap(3, "JS")
    for c in ("AS", "KS", "QS", "AC", "KC", "QC", "AD"):
        partly.tap(1, c)
    partly.tap(3, "9H"), partly.press("right"), partly.press("ok")   # end the scan: 9H is the up-card
    partly.press("ok")                              # P1 accepts
    elsewhere = partly.tap(2, "AS").alert           # in P1's scanned hand
    assert not_held == elsewhere == Alert("refused", "That card cannot be the discard", "hidden-card")


def test_no_game_branches_above_the_per_game_table_modules():
    """Item 5: the box asks the per-game modules (and the rules' data), never "which game is this?".
    stats.py is another part of issue 11 (another helper's) and is left to it."""
    pattern = re.compile(r'game ?== ?"(towers|twenty-nine)"|game ?!= ?"|hasattr\(.*engine')
    per_game = {"table_towers.py", "table_twentynine.py", "stats.py"}
    found = [f"{p.name}:{n}: {line.strip()}" for p in sorted(BOX.glob("*.py")) if p.name not in per_game
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []


def test_the_new_match_menu_lists_the_per_game_modules(tmp_path):
    """Item 5: the games offered are the registry's, the configured one shown first."""
    table = Table(Journal(str(tmp_path / "journal.sqlite3")), DECK, game="twenty-nine")
    v = table.view()
    assert v.menu.items == tuple(desk(g).TITLE for g in DESKS) == ("Towers", "Twenty-Nine")
    assert v.menu.items[v.menu.selected] == "Twenty-Nine"


def test_a_pad_conflict_is_not_logged_twice_but_a_refusal_is(tmp_path, caplog):
    """Item 6: the daemon tells a pad conflict (the reader already logs it) by its cause, not by
    matching its words."""
    from assistant.box.config import Display as DisplayCfg
    from assistant.hw.display import open_display
    table = Table(Journal(str(tmp_path / "journal.sqlite3")), DECK, pads=("P1", "P2", "centre"))
    display = open_display(DisplayCfg(driver="dummy"))
    box = Box(table, display)
    try:
        box.step(ButtonPressed("ok"))               # a new towers match
        with caplog.at_level(logging.INFO, logger="card-assistant"):
            box.step(PadConflict(1))
            box.step(ButtonPressed("back"))
            box.step(TagArrived(3, uid("8S")))       # not in the towers pack: refused
        alerts = [r.getMessage() for r in caplog.records if r.getMessage().startswith("alert:")]
        assert alerts == ["alert: refused: 8♠ is not in the towers pack"]
    finally:
        display.close()
        box.table.journal.close()


def test_a_storm_of_alerts_is_logged_up_to_twenty_then_counted(tmp_path, caplog):
    """Fault (an outside attack on the reader's line): a firmware sending 5,000 well-framed taps of
    unknown tags on alternating pads made 5,000 "alert:" log lines, enough for journald's rate
    limit to drop the `action:` lines. Now the first 20 alerts in 30 s are logged one by one, the
    rest counted (one line at the start, one with the count 30 s after the last)."""
    from assistant.box.config import Display as DisplayCfg
    from assistant.hw.display import open_display
    table = Table(Journal(str(tmp_path / "journal.sqlite3")), DECK, pads=("P1", "P2", "centre"))
    box = Box(table, open_display(DisplayCfg(driver="dummy")))
    now = [0.0]
    box.clock = lambda: now[0]
    try:
        box.step(ButtonPressed("ok"))               # a new towers match
        with caplog.at_level(logging.INFO, logger="card-assistant"):
            for n in range(500):                    # not in the towers pack: refused, each time
                box.step(TagArrived(3, uid("8S" if n % 2 else "8H")))
            alerts = [r.getMessage() for r in caplog.records if r.getMessage().startswith("alert:")]
            storm = [r.getMessage() for r in caplog.records if "alerts" in r.getMessage()]
            assert len(alerts) == 20 and storm == [
                "more than 20 alerts in 30 s: the next ones are counted, not logged (logged once until it ends)"]
            now[0] += 31
            box.step(TagArrived(3, uid("8H")))
            said = [r.getMessage() for r in caplog.records][-2:]
            assert said[0] == "30 s without a storm of alerts (after 480 times in 31 s)"
            assert said[1] == "alert: refused: 8♥ is not in the towers pack"  # logged again
    finally:
        box.display.close()
        box.table.journal.close()


def test_the_alert_about_a_card_found_lying_goes_when_that_card_is_lifted(tmp_path):
    """Fault (attacker, serial): "A card is lying on P2's pad: lift it" stayed over the screen
    after the card was lifted, until Back or OK; lifting a card from another pad leaves it up."""
    h = Hands(tmp_path)
    assert h.table.handle(TagArrived(2, uid("AS"), True)).alert.cause == "card-lying"
    assert h.table.handle(TagRemoved(1, uid("KS"))).alert.cause == "card-lying"
    assert h.table.handle(TagRemoved(2, uid("AS"))).alert is None
