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

from assistant.cards import parse_card as C
from assistant.screen import render
from assistant.view import Alert, Menu, View

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

T = dict(game="towers", seats=("P1", "P2"))
N = dict(game="twenty-nine", seats=("P1", "P2", "P3", "P4"))

CASES = {
    # towers, every phase
    "towers-flip": View(**T, phase="flip", prompt="Tap flip cards", score=(2, 1),
                        flipped=((0, C("QH")), (1, C("JD")))),
    "towers-upcard": View(**T, phase="upcard", prompt="P2 deals: tap up-card", score=(2, 1),
                          dealer=1, hand_size=7),
    "towers-trump1": View(**T, phase="trump1", prompt="P1: accept or pass?", score=(2, 1),
                          dealer=1, turn=0, hand_size=7, up_card=C("10H")),
    "towers-discard": View(**T, phase="discard", prompt="P2: discard face down", score=(2, 1),
                           dealer=1, turn=1, hand_size=7, trump=1, bidder=0, up_card=C("10H")),
    "towers-trump2": View(**T, phase="trump2", prompt="P1: name a suit or pass", score=(2, 1),
                          dealer=1, turn=0, hand_size=7, turned_down=1),
    "towers-for2": View(**T, phase="for2", prompt="P1: for 2? OK yes, back no", score=(2, 1),
                        dealer=1, turn=0, hand_size=7, trump=3, bidder=0),
    "towers-play": View(**T, phase="play", prompt="P2 to play", score=(4, 3), dealer=1, turn=1,
                        hand_size=5, trump=0, bidder=0, for_two=True, tricks=(2, 1), trick_no=4,
                        trick=((0, C("10D")),)),
    "towers-hand-over": View(**T, phase="hand-over", prompt="P1 swept: wins 2 towers",
                             score=(6, 3), dealer=1, hand_size=5, trump=0, bidder=0,
                             for_two=True, tricks=(5, 0)),
    "towers-match-over": View(**T, phase="match-over", prompt="OK: new match", score=(6, 3),
                              winner=(0,)),
    # Twenty-Nine, every phase
    "29-flip": View(**N, phase="flip", prompt="Flip for the deal: tap cards", flipped=(
        (0, C("7S")), (1, C("QD")), (2, C("JH")), (3, C("AC")))),
    "29-scan": View(**N, phase="scan", prompt="P3: tap your hand (5 of 8)", score=(1, 2),
                    dealer=3, turn=2),
    "29-bidding": View(**N, phase="bidding", prompt="P3: bid or pass?", score=(1, 2), dealer=3,
                       turn=2, bid=18),
    "29-trump-card": View(**N, phase="trump-card", prompt="P2: set trump face down or call 7th",
                          score=(1, 2), dealer=3, turn=1, bidder=1, bid=20),
    "29-seventh": View(**N, phase="seventh", prompt="P4: put P2's 7th card face down",
                       score=(1, 2), dealer=3, turn=3, bidder=1, bid=20),
    "29-double": View(**N, phase="double", prompt="P1 or P3: double?", score=(1, 2), dealer=3,
                      bidder=1, bid=20, trump="hidden"),
    "29-play-hidden": View(**N, phase="play", prompt="P4 to play", score=(1, 2), dealer=3,
                           turn=3, trump="hidden", bidder=1, bid=20, double=2, points=(4, 9),
                           trick_no=3, trick=((0, C("JH")), (1, C("10H")), (2, C("7H")))),
    "29-play-revealed": View(**N, phase="play", prompt="P1 to play (OK: call)", score=(-2, 0), dealer=0,
                             turn=0, trump=2, bidder=3, bid=29, points=(15, 13), trick_no=8,
                             extra=("pair P4",)),
    "29-hand-over": View(**N, phase="hand-over", prompt="P2+P4 made 20: +2", score=(1, 4),
                         dealer=3, trump=2, bidder=1, bid=20, points=(8, 21)),
    "29-match-over": View(**N, phase="match-over", prompt="OK: new match", score=(3, 6),
                          winner=(1, 3)),
    # seat names given by the table (truncated to fit, never overlapping)
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
    "alert-refused": View(**T, phase="play", alert=Alert("refused", "P1 must follow ♠")),
    "alert-unknown-tag": View(**T, phase="play", alert=Alert(
        "unknown-tag", "Tag 04A1B2C3 is not in this deck")),
    "alert-reader-lost": View(**N, phase="play", alert=Alert(
        "reader-lost", "Card reader unplugged: check the USB cable")),
    "alert-info": View(**N, phase="hand-over", alert=Alert("info", "Undone: P3 plays 9♣")),
    # menus
    "menu-game": View(**T, phase="menu", menu=Menu("New match", ("Towers", "Twenty-Nine"), 1)),
    "menu-options": View(**N, phase="menu", menu=Menu("Twenty-Nine options", (
        "Trick trumps: whole", "Pair: off", "Double: on", "Scoring: pagat", "Two points: 20",
        "Start"), 3)),
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
    from assistant.view import ALERT_KINDS, PHASES

    phases = {(v.game, v.phase) for v in CASES.values() if v.alert is None}
    towers_phases = PHASES - {"bidding", "trump-card", "seventh", "double", "scan", "menu"}
    nine_phases = PHASES - {"upcard", "trump1", "trump2", "discard", "for2", "menu"}
    assert {("towers", p) for p in towers_phases} <= phases
    assert {("twenty-nine", p) for p in nine_phases} <= phases
    assert {v.alert.kind for v in CASES.values() if v.alert} == set(ALERT_KINDS)
    assert any(v.phase == "menu" for v in CASES.values())


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


def _preview(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name, view in CASES.items():
        img = render(view).convert("L").resize((512, 256), Image.NEAREST)
        img.save(out / f"{name}.png")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--preview":
        _preview(sys.argv[2])
