"""The view model: no room for hidden information, validation with plain words, light imports."""
import subprocess
import sys
from dataclasses import fields

import pytest

from assistant.box.view import Alert, Menu, View

T = dict(game="towers", seats=("P1", "P2"))
N = dict(game="twenty-nine", seats=("P1", "P2", "P3", "P4"))

# Every field of the view model. Adding one is a decision to show it to the whole table:
# a hand, a scanned card or the face-down trump card must never become one.
PUBLIC_FIELDS = {
    "game", "seats", "phase", "prompt", "score", "dealer", "turn", "hand_size", "trump",
    "up_card", "turned_down", "bidder", "bid", "target", "for_two", "double", "tricks", "points",
    "trick", "trick_no", "flipped", "winner", "alert", "menu", "extra",
}


def test_view_has_only_public_fields():
    assert {f.name for f in fields(View)} == PUBLIC_FIELDS


def test_trump_is_a_suit_hidden_or_none_never_a_card():
    View(**N, phase="play", trump="hidden")
    View(**N, phase="play", trump=3)
    for bad in (8, 27, "JS", "H", -1, True):  # a card int or a name would leak the face-down card
        with pytest.raises(ValueError, match="trump"):
            View(**N, phase="play", trump=bad)


def test_view_is_frozen_and_hashable_with_lists_turned_to_tuples():
    v = View(**T, phase="play", score=[1, 2], tricks=[0, 1], trick=[[0, 5]])
    assert v.score == (1, 2) and v.trick == ((0, 5),)
    hash(v)
    with pytest.raises(AttributeError):
        v.score = (2, 2)


@pytest.mark.parametrize("kwargs, words", [
    (dict(**T, phase="bidding-ish"), "phase 'bidding-ish'"),
    (dict(game="euchre", seats=("a", "b"), phase="play"), "game 'euchre'"),
    (dict(game="towers", seats=("P1", "P2", "P3"), phase="play"), "towers has 2 seats"),
    (dict(**N, phase="play", bid=30), "bid 30 is outside 16..29"),
    (dict(**N, phase="play", dealer=4), "dealer: seat 4"),
    (dict(**N, phase="play", trick=((0, 32),)), "trick: 32 is not a card"),
    (dict(**T, phase="play", trick=((2, 1),)), "trick: seat 2"),
    (dict(**N, phase="play", double=3), "double 3"),
    (dict(**T, phase="play", score=(1, 2, 3)), "score has two entries"),
    (dict(**T, phase="menu"), "menu phase needs a menu"),
])
def test_bad_views_are_refused_in_plain_words(kwargs, words):
    with pytest.raises(ValueError) as e:
        View(**kwargs)
    assert words in str(e.value)


def test_alert_kinds_and_menu_bounds_are_checked():
    with pytest.raises(ValueError, match="alert kind 'boom'"):
        Alert("boom", "x")
    with pytest.raises(ValueError, match="outside its 2 items"):
        Menu("Game", ("Towers", "Twenty-Nine"), 2)


def test_side_names():
    assert View(**N, phase="play").side_names() == ("P1+P3", "P2+P4")


def test_view_screen_display_config_import_neither_luma_nor_gpiozero():
    """The Pi Zero 2 W is slow: the hardware libraries load only when a device is opened."""
    code = ("import sys, assistant.box.view, assistant.box.screen, assistant.hw.display, assistant.hw.buttons, "
            "assistant.hw.alerts, assistant.box.config; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('luma', 'gpiozero')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
