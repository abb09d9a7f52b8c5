"""Enrolling a tagged pack and loading deck files (issue 4, item 5).

The enrolment runs end to end: `card-assistant enroll` opens the pty of a
virtual firmware through the real reader adapter, and the test taps cards.
"""
import threading

import pytest

from assistant.box import enroll
from assistant.rules.cards import TWENTY_NINE_PACK, TOWERS_PACK, card_name, parse_card
from assistant.box.deck import DeckError, UnknownTag, card_for, format_deck, load_deck, missing, parse_deck
from assistant.sim.virtual_firmware import VirtualFirmware

HANG_GUARD = 30
PACK = sorted(TWENTY_NINE_PACK)
UIDS = {c: f"04{0xA00000 + c:06X}5E7A80" for c in PACK}


class Session:
    """`card-assistant enroll ARGS` running in a thread against a virtual reader."""

    def __init__(self, tmp_path, *args, resting=None):
        self.link = tmp_path / "card-reader"
        self.vf = VirtualFirmware(self.link)
        self.vf.pads.update(resting or {})
        self.vf.plug()
        self.rc = None
        self.thread = threading.Thread(target=self._main, args=([*args, "--port", str(self.link)],))
        self.thread.start()
        assert self.vf.host_ready.wait(HANG_GUARD), "enroll never opened the reader"

    def _main(self, argv):
        self.rc = enroll.main(argv)

    def finish(self):
        self.thread.join(HANG_GUARD)
        assert not self.thread.is_alive(), "enroll is still waiting for taps"
        self.vf.unplug()
        return self.rc


def test_enrol_a_32_card_pack_refusing_a_repeat_and_two_tags(tmp_path, capsys):
    path = tmp_path / "deck.txt"
    s = Session(tmp_path, str(path))
    for i, card in enumerate(PACK):
        if i == 5:
            s.vf.tap(1, UIDS[PACK[0]])  # the ace of spades again: refused
        if i == 9:
            s.vf.pile(2)  # two cards on pad 2: refused
            s.vf.lift(2)
        s.vf.tap(1 + i % 4, UIDS[card])
    assert s.finish() == 0
    assert load_deck(path) == {UIDS[c]: c for c in PACK}
    out = capsys.readouterr().out
    assert "[ 1/32] tap A♠" in out and "[32/32] tap 7♣" in out
    assert f"refused: tag {UIDS[PACK[0]]} is already enrolled as A♠: put that card aside and tap 9♠" in out
    assert "refused: two tags on pad 2" in out
    assert out.count("refused") == 2


def test_card_lying_on_a_pad_at_start_is_not_enrolled(tmp_path, capsys):
    path = tmp_path / "deck.txt"
    path.write_text(format_deck({UIDS[c]: c for c in PACK[:31]}))
    s = Session(tmp_path, str(path), resting={2: "04BBBBBBBBBBBB"})  # someone left a card there
    s.vf.lift(2)
    s.vf.tap(1, UIDS[PACK[31]])
    assert s.finish() == 0
    assert "04BBBBBBBBBBBB" not in load_deck(path)
    assert "ignored: a card was already on pad 2" in capsys.readouterr().out


def test_enrolment_resumes_where_it_stopped(tmp_path, capsys):
    path = tmp_path / "deck.txt"
    path.write_text(format_deck({UIDS[c]: c for c in PACK[:30]}))
    s = Session(tmp_path, str(path))
    s.vf.tap(3, UIDS[PACK[30]])
    s.vf.tap(3, UIDS[PACK[31]])
    assert s.finish() == 0
    assert len(load_deck(path)) == 32
    assert "2 card(s) to tap" in capsys.readouterr().out


def test_enrol_one_card_refuses_a_second_tag_for_it(tmp_path, capsys):
    path = tmp_path / "deck.txt"
    path.write_text(format_deck({UIDS[c]: c for c in PACK}))
    assert enroll.main([str(path), "--card", "7S", "--port", str(tmp_path / "none")]) == 2
    assert "7♠ already has tag" in capsys.readouterr().err
    s = Session(tmp_path, str(path), "--card", "7S", "--replace")
    s.vf.tap(1, "04DDDDDDDDDDDD")
    assert s.finish() == 0
    assert card_for(load_deck(path), "04DDDDDDDDDDDD") == parse_card("7S")
    assert UIDS[parse_card("7S")] not in load_deck(path)


def test_verify_a_good_deck(tmp_path, capsys):
    path = tmp_path / "deck.txt"
    path.write_text(format_deck({UIDS[c]: c for c in PACK}))
    s = Session(tmp_path, str(path), "--verify")
    for card in PACK:
        s.vf.tap(2, UIDS[card])
    assert s.finish() == 0
    assert "32 of 32 right." in capsys.readouterr().out


def test_verify_finds_swapped_labels_and_an_unknown_tag(tmp_path, capsys):
    path = tmp_path / "deck.txt"
    path.write_text(format_deck({UIDS[c]: c for c in PACK}))
    s = Session(tmp_path, str(path), "--verify")
    taps = [UIDS[c] for c in PACK]
    taps[1], taps[2] = taps[2], taps[1]  # KS and QS stickers were swapped
    taps[31] = "04EEEEEEEEEEEE"
    for uid in taps:
        s.vf.tap(1, uid)
    assert s.finish() == 1
    out = capsys.readouterr().out
    assert "29 of 32 right." in out
    assert "K♠: that tag is Q♠ in the deck" in out
    assert "7♣: tag 04EEEEEEEEEEEE is not in the deck" in out


def test_unknown_tag_during_play_is_an_alert_not_a_guess():
    deck = parse_deck(format_deck({UIDS[c]: c for c in PACK}))
    assert card_name(card_for(deck, UIDS[parse_card("JD")].lower())) == "JD"
    with pytest.raises(UnknownTag, match="tag 04FFFFFFFFFFFF is not in this deck"):
        card_for(deck, "04FFFFFFFFFFFF")


def test_deck_serves_both_packs():
    deck = parse_deck(format_deck({UIDS[c]: c for c in PACK}))
    assert missing(deck) == [] and missing(deck, TOWERS_PACK) == []
    towers_only = {u: c for u, c in deck.items() if c in TOWERS_PACK}
    assert missing(towers_only, TOWERS_PACK) == []
    assert missing(towers_only) == ["8♠", "7♠", "8♥", "7♥", "8♦", "7♦", "8♣", "7♣"]


@pytest.mark.parametrize("text, why", [
    ("04A1B2C3D4E5F6 JS\n04A1B2C3D4E5F6 QS\n", "line 2: tag 04A1B2C3D4E5F6 is already J♠ on line 1"),
    ("04A1B2C3D4E5F6 JS\n04A1B2C3D4E5F7 js\n", "line 2: J♠ already has a tag on line 1"),
    ("04A1B2C3D4E5F6 1S\n", "line 1: '1S' is not a card"),
    ("04A1B2 JS\n", "line 1: '04A1B2' is not a tag UID"),
    ("# header\n\n04A1B2C3D4E5F6\n", "line 3: want `UID CARD`"),
])
def test_bad_deck_file_says_which_line_and_why(tmp_path, text, why):
    path = tmp_path / "deck.txt"
    path.write_text(text)
    with pytest.raises(DeckError) as e:
        load_deck(path)
    assert why in str(e.value)


def test_missing_deck_file_is_a_clear_error(tmp_path):
    with pytest.raises(DeckError, match="cannot read deck"):
        load_deck(tmp_path / "nope.txt")
