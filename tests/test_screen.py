"""Golden images: one reference PNG per screen (every phase of both games, every alert, the menu).

Pixel-exact. After an intended change of look, regenerate with
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_screen.py`` and look at
the PNGs (``python tests/test_screen.py --preview DIR`` writes 4x copies).
"""
import os
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from assistant.rules.cards import parse_card as C
from assistant.box.screen import render
from assistant.box.view import Alert, Menu, View

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

T = dict(game="towers", seats=("P1", "P2"))
N = dict(game="twenty-nine", seats=("P1", "P2", "P3", "P4"))

CASES = {
    # towers, every phase, with the prompts the table writes (issue 9 items 4-6)
    "towers-flip": View(**T, phase="flip", prompt="Flip for the deal:\nnext card to P1", score=(2, 1),
                        turn=0, flipped=((0, C("QH")), (1, C("JD")))),
    "towers-upcard": View(**T, phase="upcard", prompt="J♣ to P2: P2 deals\nP2 deals 7 each\nthen tap the up-card",
                          score=(2, 1), dealer=1, hand_size=7),
    "towers-scan": View(**T, phase="scan", prompt="P2 deals 6 each\nScan P1 3/6 P2 0/6", score=(2, 1),
                        dealer=1, hand_size=6),
    "towers-trump1": View(**T, phase="trump1", prompt="P1 < Accept >", score=(2, 1),
                          dealer=1, turn=0, hand_size=7, up_card=C("10H")),
    "towers-discard": View(**T, phase="discard", prompt="P2: discard face down\non P2's pad; P1 leads",
                           score=(2, 1), dealer=1, turn=1, hand_size=7, trump=1, bidder=0, up_card=C("10H")),
    "towers-trump2": View(**T, phase="trump2", prompt="P1 < Name ♠ >", score=(2, 1),
                          dealer=1, turn=0, hand_size=7, turned_down=1),
    "towers-for2": View(**T, phase="for2", prompt="P1 leads;\nP1 for 2? < no >", score=(2, 1),
                        dealer=1, turn=0, hand_size=7, trump=3, bidder=0),
    "towers-play": View(**T, phase="play", prompt="P2 to play", score=(4, 3), dealer=1, turn=1,
                        hand_size=5, trump=0, bidder=0, for_two=True, tricks=(2, 1), trick_no=4,
                        trick=((0, C("10D")),)),
    "towers-last-trick": View(**T, phase="play", prompt="P1 takes trick 3", score=(4, 3), dealer=1,
                              turn=0, hand_size=5, trump=0, bidder=0, tricks=(2, 1), trick_no=3,
                              trick=((1, C("QD")), (0, C("JC")))),
    "towers-accused": View(**T, phase="play", prompt="P1 to play", score=(4, 3), dealer=1, turn=0,
                           hand_size=5, trump=0, bidder=0, tricks=(1, 1), trick_no=3,
                           extra=("accused P2",)),
    "towers-hand-over": View(**T, phase="hand-over", prompt="P1 took 5 of 5 (for 2)\nP1 +2 towers\n"
                             "Next: flip for the deal", score=(6, 3), hand_size=5, trump=0, bidder=0,
                             for_two=True, tricks=(5, 0)),
    "towers-match-over": View(**T, phase="match-over", prompt="P1 wins the match!\nClaim: P2's renege\n"
                              "replaces the hand:\nP1 +1 tower\nOK: menu, new match", score=(5, 3),
                              winner=(0,)),
    # Twenty-Nine, every phase
    "29-flip": View(**N, phase="flip", prompt="Flip for the deal:\nnext card to P1", turn=0, flipped=(
        (0, C("7S")), (1, C("QD")), (2, C("JH")), (3, C("AC")))),
    "29-scan": View(**N, phase="scan", prompt="P4 deals 4 more each\nScan P1 8/8 P2 3/7\nP3 0/8 P4 1/8",
                    score=(1, 2), dealer=3, turn=0, trump="hidden", bidder=1, bid=20, trick_no=1),
    "29-bidding": View(**N, phase="bidding", prompt="P1 deals 4 each\nP2 < Bid 16 >", score=(1, 2),
                       dealer=0, turn=1),
    "29-bidding-high": View(**N, phase="bidding", prompt="P3 bid 18\nP4 < Bid 19 >", score=(1, 2),
                            dealer=0, turn=3, bid=18, bidder=2),
    "29-forced-bid": View(**N, phase="bidding", prompt="All passed: P1 must bid\nP1 < Bid 16 >",
                          score=(1, 2), dealer=0, turn=0),
    "29-trump-card": View(**N, phase="trump-card", prompt="P2 bid 20: set trump\nP2 < card face down >",
                          score=(1, 2), dealer=0, turn=1, bidder=1, bid=20),
    "29-seventh": View(**N, phase="seventh", prompt="P1 deals 4 more each:\nP2's 7th card face down\n"
                       "on P1's or P2's pad", score=(1, 2), dealer=0, turn=0, bidder=1, bid=20),
    "29-lead": View(**N, phase="lead", prompt="P1 deals 4 more each\nP2 leads", score=(1, 2), dealer=0,
                    turn=1, trump="hidden", bidder=1, bid=20, points=(0, 0), trick_no=1),
    "29-double": View(**N, phase="double", prompt="P1 deals 4 more each\nP3 doubled\n"
                      "Redouble: P2+P4 (menu)\nP2 leads", score=(1, 2), dealer=0, turn=1,
                      bidder=1, bid=20, double=2, trump="hidden", points=(0, 0), trick_no=1),
    "29-play-hidden": View(**N, phase="play", prompt="P4 to play", score=(1, 2), dealer=3,
                           turn=3, trump="hidden", bidder=1, bid=20, double=2, points=(4, 9),
                           trick_no=3, trick=((0, C("JH")), (1, C("10H")), (2, C("7H")))),
    "29-call": View(**N, phase="play", prompt="P4 < Call trump >", score=(1, 2), dealer=3,
                    turn=3, trump="hidden", bidder=1, bid=20, points=(4, 9),
                    trick_no=3, trick=((0, C("JH")), (1, C("10H")), (2, C("7H")))),
    "29-play-revealed": View(**N, phase="play", prompt="P1 to play", score=(-2, 0), dealer=0,
                             turn=0, trump=2, bidder=3, bid=25, target=29, points=(15, 13), trick_no=8,
                             extra=("pair P2",)),
    "29-pair-and-accused": View(**N, phase="play", prompt="P1 to play", score=(-2, 0), dealer=0,
                                turn=0, trump=2, bidder=3, bid=25, target=29, points=(15, 13), trick_no=8,
                                extra=("pair P2", "accused P4")),
    "29-last-trick": View(**N, phase="play", prompt="P4 takes trick 1", score=(0, 0), dealer=0, turn=3,
                          trump=1, bidder=1, bid=20, double=4, points=(0, 3), trick_no=1,
                          trick=((1, C("JS")), (2, C("7S")), (3, C("7H")), (0, C("8S")))),
    "29-undone": View(**N, phase="play", prompt="Undone: P4's K♥", score=(0, 0), dealer=0, turn=3,
                      trump=1, bidder=1, bid=20, points=(0, 0), trick_no=1,
                      trick=((1, C("JS")), (2, C("7S")))),
    "29-hand-over": View(**N, phase="hand-over", prompt="P2 bid 21\nMissed: 19 points\nP1+P3 +2\n"
                         "Next: P4 deals 4 each", score=(3, 4), dealer=3, trump=2, bidder=1, bid=21,
                         target=21, points=(10, 19)),
    "29-match-over": View(**N, phase="match-over", prompt="P2+P4 win the match!\nP2 bid 20, finished\n"
                          "Made: 19 of 16 (pair)\nP2+P4 +8\nP1+P3 can claim\nP2's renege: hold OK",
                          score=(0, 8), winner=(1, 3)),
    # seat names given by a scenario (shortened by one rule, never cut)
    "towers-names": View(game="towers", seats=("Alexandra", "Bob"), phase="play",
                         prompt="Bob to play", score=(4, 10), dealer=0, turn=1, hand_size=7,
                         trump=3, bidder=1, tricks=(0, 0), trick=((0, C("AS")),)),
    "29-names": View(game="twenty-nine", seats=("Alice", "Bartholomew", "Carol", "Dev"),
                     phase="play", prompt="Carol to play", score=(-5, 0), dealer=1, turn=2,
                     trump=0, bidder=3, bid=21, double=4, points=(0, 13), trick_no=2,
                     trick=((3, C("9C")), (0, C("KC")), (1, C("JC")))),
    # alerts (over a play screen: they take it over)
    "alert-renege": View(**N, phase="play", alert=Alert(
        "renege", "P2 failed to follow ♥ (trick 3)")),
    "alert-renege-caller": View(**N, phase="play", alert=Alert(
        "renege", "P3 did not trump after calling (trick 1)")),
    "alert-refused": View(**T, phase="play", alert=Alert("refused", "P1 must follow spades ♠")),
    "alert-refused-finish": View(**N, phase="play", alert=Alert(
        "refused", "Not yet: P1+P3 need 5 more of 21, and can still make it")),
    "alert-unknown-tag": View(**T, phase="play", alert=Alert(
        "unknown-tag", "Unknown card tag: not in the enrolled pack")),
    "alert-reader-lost": View(**N, phase="play", alert=Alert(
        "reader-lost", "Card reader unplugged: check the USB cable")),
    "alert-info": View(**N, phase="play", alert=Alert(
        "info", "P2+P4 accuse P1: decided by the round's end")),
    "alert-no-effect": View(**N, phase="bidding", alert=Alert(
        "info", "Accusing P1 has no effect: no renege by P1 proven this round")),
    # menus
    "menu-game": View(**T, phase="menu", menu=Menu("New match", ("Towers", "Twenty-Nine"), 1)),
    "menu-options": View(**N, phase="menu", menu=Menu("House rules", (
        "Start Twenty-Nine", "Trumps count: whole trick", "Pair (K+Q): off", "Double: on",
        "Scoring: pagat (+6/-6)", "2 points from bid: 20"), 3)),
    "menu-main": View(**N, phase="menu", menu=Menu("Menu", (
        "Close", "Undo last", "Claim: P2's renege", "Accuse P1", "Finish round",
        "Pair: P4 shows K♥ Q♥", "House rules: pair, double", "Deal scan: off", "New match"), 5)),
    "menu-scan-unfinished": View(**T, phase="menu", menu=Menu("P2 not scanned", (
        "Keep scanning", "End scan: 9♥ up-card"), 0)),
}


def _png(name):
    return GOLDEN / f"{name}.png"


@pytest.mark.parametrize("name", sorted(CASES))
def test_screen_matches_golden(name):
    """Every phase, alert and menu renders exactly as its reviewed reference PNG."""
    img = render(CASES[name])
    assert img.mode == "1" and img.size == (128, 64)
    path = _png(name)
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        img.save(path)
    assert path.exists(), f"no reference for {name}: run with UPDATE_GOLDEN=1 and review it"
    ref = Image.open(path).convert("L")
    diff = ImageChops.difference(img.convert("L"), ref).getbbox()
    assert diff is None, f"{name} differs from {path.name} in box {diff}"


def test_every_golden_file_has_a_case():
    """No stale references lying around unreviewed."""
    assert {p.stem for p in GOLDEN.glob("*.png")} == set(CASES)


def test_cases_cover_every_phase_and_alert_kind():
    from assistant.box.view import ALERT_KINDS, PHASES

    phases = {(v.game, v.phase) for v in CASES.values() if v.alert is None}
    towers_phases = PHASES - {"bidding", "trump-card", "seventh", "lead", "double", "menu"}
    nine_phases = PHASES - {"upcard", "trump1", "trump2", "discard", "for2", "menu"}
    assert {("towers", p) for p in towers_phases} <= phases
    assert {("twenty-nine", p) for p in nine_phases} <= phases
    assert {v.alert.kind for v in CASES.values() if v.alert} == set(ALERT_KINDS)
    assert any(v.phase == "menu" for v in CASES.values())


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_golden_screens_text_lies_inside_the_frame_uncut(name):
    """Issue 9 item 4: every text of every golden screen lies inside 128x64 with the font's real
    widths, one column clear of the right edge for the score; each prompt line is drawn whole on
    one line (never wrapped or cut); an alert's words are all drawn."""
    from assistant.box.screen import text_items
    v = CASES[name]
    items = text_items(v)
    for x, y, w, h, text in items:
        assert x >= 0 and y >= 0 and x + w <= 128 and y + h <= 64, f"{text!r} at {x},{y} {w}x{h}"
    drawn = [t for *_, t in items]
    if v.alert is not None:
        words = v.alert.text.split()  # the title, then the words (the score may follow)
        assert " ".join(drawn[1:]).split()[:len(words)] == words
    elif v.menu is None:
        for line in v.prompt.split("\n"):
            assert line in drawn, f"{line!r} is not drawn whole: {drawn}"
        score = [(x, w) for x, y, w, h, t in items if t == str(v.score[1]) and h == 16]
        assert score and score[-1][0] + score[-1][1] <= 127, "the score touches the right edge"


def test_long_seat_names_are_shortened_by_one_rule():
    """Issue 9 item 4: a long name is shown as its first letters and a full stop, never clipped."""
    from assistant.box.screen import short_name, text_items
    assert short_name("Bartholomew") == "Bart." and short_name("Carol") == "Carol"
    drawn = [t for *_, t in text_items(CASES["29-names"])]
    assert "Bart." in drawn and "Alex." in [t for *_, t in text_items(CASES["towers-names"])]


def test_render_is_pure_and_leaves_the_view_alone():
    """Same view, same pixels, every time (the display adapter relies on it to skip frames)."""
    v = CASES["towers-play"]
    assert render(v).tobytes() == render(v).tobytes()
    assert v == CASES["towers-play"]


def test_golden_differs_when_a_field_changes():
    """The comparison can fail: a one-point score change moves pixels."""
    v = CASES["towers-play"]
    from dataclasses import replace

    assert render(v).tobytes() != render(replace(v, score=(4, 4))).tobytes()


# ---- a layout that keeps things in place (issue 12 item 2: the bus carries what changed) ----

def _changed(a, b):
    """{page: set of columns} where two frames differ, as the OLED's RAM holds them."""
    from assistant.hw.oled import page_bytes
    out = {}
    for p, (x, y) in enumerate(zip(page_bytes(a, 128, 8), page_bytes(b, 128, 8))):
        cols = {c for c in range(128) if x[c] != y[c]}
        if cols:
            out[p] = cols
    return out


def test_a_card_played_rewrites_only_its_seat_the_turn_and_the_prompts_change():
    """Issue 12 item 2: a tap changes the card under its seat, the seat to act and one digit of the
    prompt; the score, the details and the rest of the prompt's line stay where they were (a
    centred line moved whole, the turn's bar was a whole column wide)."""
    from dataclasses import replace
    before = CASES["29-play-hidden"]  # P4 to play, P1-P3 have played
    after = replace(before, turn=0, prompt="P1 to play", trick=(*before.trick, (3, C("8H"))))
    changed = _changed(render(before), render(after))
    assert set(changed) == {4, 5, 6, 7}  # names, cards, prompt: nothing above
    assert max(changed[7]) - min(changed[7]) < 6  # "P4" -> "P1": one digit of the prompt
    assert min(changed[5] | changed[6]) >= 96  # P4's card only, in P4's column
    assert len(changed[4]) <= 2 * 18  # the two names' boxes, not two whole columns


def test_an_alert_takes_the_lower_half_and_keeps_the_score_and_details_in_view():
    """Issue 12 item 2: a renege alert over the table rewrites pages 4-7 only (half a frame, not
    the whole of it, going up and coming down); its words are all drawn."""
    from dataclasses import replace
    from assistant.box.screen import text_items
    play = CASES["29-play-hidden"]
    alert = replace(play, alert=Alert("renege", "P2 failed to follow ♥ (trick 3)"))
    assert set(_changed(render(play), render(alert))) == {4, 5, 6, 7}
    drawn = [t for *_, t in text_items(alert)]
    assert drawn[0] == "RENEGE!" and "P1+P3" in drawn
    assert render(alert).crop((0, 32, 128, 64)).convert("L").getextrema() == (0, 255)


def test_texts_of_the_table_sit_on_page_boundaries():
    """Issue 12 item 2: every line of details, names and prompt starts on a page (8 rows), so a
    changed line rewrites one page (or two at double size), never three."""
    from assistant.box.screen import text_items
    for name, v in CASES.items():
        if v.alert is not None or v.menu is not None:
            continue
        for x, y, w, h, text in text_items(v):
            if y >= 16 and text not in ("Up ", "Not "):  # those two sit on the card's baseline
                assert y % 8 == 0 or (y % 8 == 1 and h == 16), f"{name}: {text!r} at row {y}"


def _preview(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, view in CASES.items():
        img = render(view).convert("L").resize((512, 256), Image.NEAREST)
        img.save(out / f"{name}.png")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--preview":
        _preview(sys.argv[2])


def test_the_notes_are_kept_apart_not_run_together_into_one_sentence():
    """Fault (newcomer at the simulator): the details line ran the notes together, "pair P2
    accused P4", which reads as P2 accusing P4; P2 had declared the pair and P4 was accused."""
    from assistant.box.screen import W, drawn_details, text_width
    from assistant.sim.keyboard import table_words
    assert drawn_details(CASES["29-pair-and-accused"])[1][1] == "pair P2, accused P4"
    # drawn beside the points they ran over them ("Pts 15-13" under "pair P2"); with players'
    # names and the reader gone, off the screen's left edge: the notes win the line, the pair's
    # note goes first when even the line is too short
    long = View(game="twenty-nine", seats=("Alexa.", "Barth.", "Carol", "Dev"), phase="play",
                prompt="Alexa. to play", score=(0, 0), dealer=0, turn=0, trump=2, bidder=3, bid=25,
                target=29, points=(15, 13), trick_no=8, extra=("pair Barth.", "accused Dev", "no reader"))
    for view in (CASES["29-pair-and-accused"], long, CASES["29-play-revealed"], CASES["towers-accused"]):
        left, right = drawn_details(view)[1]
        assert text_width(left) + (text_width(" ") if left else 0) + text_width(right) <= W, (left, right)
    assert drawn_details(long)[1] == ("", "accused Dev, no reader")
    # the terminal's line has the room: the points and every note stay there (second read: the
    # screen's fitting had taken the points off the sim's line too)
    assert "Pts 15-13 | pair Barth., accused Dev, no reader" in table_words(long)
