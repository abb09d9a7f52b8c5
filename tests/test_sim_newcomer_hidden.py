"""What a second newcomer met at the keyboard simulator about hidden cards: a refusal must never
tell which card lies face down where (the towers discard, the Twenty-Nine face-down trump card, a
scanned hand). Anyone can type any card in the simulator, so the words for those cards are the
same as for any card the player does not hold; the box still never accepts such a tap."""
import pytest

from assistant.replay import replay_lines
from assistant.rules.game import not_held_words
from assistant.rules.scenario import ScenarioError
from test_sim_newcomer_words import screens, sim

# towers (the new-match menu: OK): the flip's first card to P1 is a black jack (P1 deals), 9H
# turned up, P2 accepts, P1 discards 9S face down on P1's pad
TOWERS_DISCARD = ["", "JS", "9H", "", "1 9S"]
# Twenty-Nine: new match, P1 deals, P2 bids 16, the others pass, P2 lays 7H face down
TWENTY_NINE_TRUMP = ["d", "", "", "JS", "", "a", "", "a", "", "a", "", "2 7H"]


def test_sim_typing_the_towers_discard_is_refused_in_the_words_for_any_card_not_held(tmp_path):
    """Fault: typing the recorded discard was refused as "out of play this hand", and it was the
    only card refused so: the words told which card lay face down."""
    lines = screens(sim(tmp_path, TOWERS_DISCARD + ["2 9S", "", "2 AS"]))
    refused = lines[len(TOWERS_DISCARD) + 1]
    assert refused.endswith("| REFUSED: P2 does not hold that card"), refused
    assert not any("out of play" in ln for ln in lines)
    assert "P1 to play" in lines[-1]  # the discard was never played; AS was


def test_sim_typing_the_face_down_trump_is_refused_in_the_words_for_any_card_not_held(tmp_path):
    """Fault: typing the face-down trump card was refused as "it is not in play now", words no
    other card got: they told which card was the hidden trump."""
    lines = screens(sim(tmp_path, TWENTY_NINE_TRUMP + ["2 7H", "", "2 AS"]))
    refused = lines[len(TWENTY_NINE_TRUMP) + 1]
    assert refused.endswith("| REFUSED: P2 does not hold that card"), refused
    assert not any("not in play" in ln or "7H" in ln or "7♥" in ln for ln in lines)
    assert "P3 to play" in lines[-1] or "P3 < play a card >" in lines[-1], lines[-1]


def refused(text):
    with pytest.raises(ScenarioError) as e:
        replay_lines(text.splitlines())
    return e.value.message


@pytest.mark.parametrize("text,who", [
    # the discard, face down (T3): by the leader, and by the dealer who put it down
    ("game towers\nflip JS\nupcard 9H\naccept\ndiscard 9S\nplay 9S", "P2"),
    ("game towers\nseats Ann Bob\nflip JS\nupcard 9H\naccept\ndiscard 9S\nplay AS\nplay 9S", "Ann"),
    # a card of the other player's known hand, and one the player's own known hand lacks
    ("game towers\nseats Ann Bob\nflip Ann 9H JS\nupcard 10H\naccept\n"
     "hand Bob AS KS QS JH 9S 10S AD\nplay AS", "Ann"),
    ("game towers\nflip JS\nupcard 9H\naccept\nhand P2 AS KS QS JH 9S 10S AD\nplay AH", "P2"),
    # Twenty-Nine: the face-down trump card (N4), a card of another known hand, one not held
    ("game twenty-nine\nflip JS\nbid 16\npass\npass\npass\ntrump 7H\nplay 7H", "P2"),
    ("game twenty-nine\nflip JS\nhand P3 JH 9H AH 10H KD QD 8D 7D\nbid 16\npass\npass\npass\n"
     "trump 7S\nplay AH", "P2"),
    ("game twenty-nine\nflip JS\nhand P2 JH 9H AH 10H KD QD 8D 7D\nbid 16\npass\npass\npass\n"
     "trump 7D\nplay AS", "P2"),
])
def test_a_card_not_held_is_refused_in_one_wording_that_names_no_card(text, who):
    """Faults: "AS was dealt to the other player", "that card is out of play this hand", "that
    card is out of play this round", "AH cannot be P2's: it is known to be in another hand": the
    words named a card of a hidden hand or told which card lay face down, on the box's screen and
    in its log (its alert line). Now one wording for every card the player does not hold."""
    assert refused(text) == not_held_words(who) == f"{who} does not hold that card"


def test_a_deal_scan_refuses_the_face_down_trump_in_the_words_for_a_card_another_hand_holds(tmp_path):
    """Fault: scanning the face-down trump card into another hand said "scan only the cards you
    hold", while a card another seat had scanned said "That card is already scanned into P2's
    hand": the words told which card was the face-down trump (and named where other cards were)."""
    from test_table import Hands, nine_to_trump
    h = Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"), deal_scan=True)
    nine_to_trump(h)
    h.tap(2, "QS")                                  # P2 lays QS face down
    h.tap(1, "AS")                                  # P1 scans AS
    trump, scanned = h.tap(3, "QS").alert.text, h.tap(3, "AS").alert.text
    assert trump == scanned == "That card cannot be in P3's hand: another hand holds it"


def test_a_pair_declared_without_the_king_says_so_not_that_another_hand_holds_it():
    """Fault (pair=on with known hands): a pair declared by a player whose K of trump is in
    another known hand was refused with "KH is known to be in another hand", which told the
    table what a hidden (scanned) hand held. Now: the player does not hold it."""
    text = ("game twenty-nine\noption pair=on\nflip JS\n"
            "hand P1 JS 9S AS 10S KH QH 8H 7H\nhand P2 JH 9H AH 10H KD QD 8D 7D\n"
            "hand P3 JD 9D AD 10D KC QC 8C 7C\nhand P4 JC 9C AC 10C KS QS 8S 7S\n"
            "pass\npass\nbid 16\npass\ntrump 10C\nplay JH\ncall\nplay 7C\nplay 8S\nplay 7H\npair P1")
    assert refused(text) == "P1 does not hold K♣"
