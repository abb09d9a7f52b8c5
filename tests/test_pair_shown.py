"""The pair (Twenty-Nine's house rule pair=on) after a deal scan is shown on the reader.

Fault (a hidden-information leak, found by the review of the last change): once the box knew the
hands by a deal scan, anyone could open the menu and choose "Pair: P1 shows K♥ Q♥" for a seat
that had shown nothing; the rules checked the choice against P1's scanned hand and the refusal
("P1 does not hold K♥") or the acceptance told the whole table what that hidden hand held. Now,
once a hand is scanned, the seat chosen taps its K and Q of trump on its own pad (or the centre)
before the pair is declared: the box answers only about cards the table has seen. Without a deal
scan the box knows no hidden hand and the menu declares the pair at once, as before
(tests/test_screen_walkthrough.py).

Played through the keyboard simulator, as a user plays it: P4 deals (J♣), P3 bids 17 and lays
9♥ face down; P3 holds K♥ Q♥; P1 leads J♠, P3 cannot follow and plays 7♥, P4 calls (trump ♥)
and P3 takes trick 1, so P1+P3 may declare the pair.
"""
from test_sim_newcomer import piped
from test_sim_newcomer_examiner import SCANNED_PAIR

PAIR_P1 = "m\nd\nd\nd\n\n"  # the menu, three steps right: "Pair: P1 shows K♥ Q♥", OK
PAIR_P3 = "m\nd\nd\nd\nd\n\n"


def sim(tmp_path, keys):
    out = piped(["sim", "--game", "twenty-nine", "--deal-scan", "--option", "pair=on",
                 "--state-dir", tmp_path], SCANNED_PAIR + keys + "q\n")
    return " ".join(out.split())


def screens(out):
    return [part.split(" >")[0] for part in out.split("screen: ")[1:]]


def test_choosing_a_pair_for_a_scanned_hand_asks_for_the_cards_and_tells_nothing(tmp_path):
    """P1 holds neither K♥ nor Q♥ (scanned): choosing P1's pair asks P1 to show them; Back leaves
    it; no line says whether P1 holds them, and the match is as it was."""
    out = sim(tmp_path, PAIR_P1 + "b\n")
    assert "play: Pair: P1 taps K♥ Q♥ / Back: not now" in screens(out)
    assert screens(out)[-1] == "play: P3 takes trick 1 / Pair not declared"
    assert "does not hold" not in out and "Pair P1" not in out and "REFUSED" not in out


def test_the_pair_is_declared_once_its_holder_has_shown_both_cards(tmp_path):
    out = sim(tmp_path, PAIR_P3 + "3 KH\n")
    assert screens(out)[-1] == "play: Pair: P3 taps Q♥ / Back: not now"
    out = sim(tmp_path / "2", PAIR_P3 + "3 KH\n3 QH\n")
    assert screens(out)[-1] == "play: Pair P3: P1+P3 need 16"


def test_a_card_that_is_not_the_pair_is_refused_and_not_played(tmp_path):
    """While the pair is shown, another card is refused (not taken as P3's play), and so is the
    pair's card on another seat's pad; the showing goes on."""
    out = sim(tmp_path, PAIR_P3 + "3 8H\n\n2 KH\n\n3 KH\n3 QH\n")
    assert "REFUSED: 8♥ is not K♥ Q♥ (Back: not now)" in out
    assert "REFUSED: P3's pair is shown on P3's pad (Back: not now)" in out
    assert screens(out)[-1] == "play: Pair P3: P1+P3 need 16"


def test_hold_back_while_showing_leaves_the_showing_and_undoes_nothing(tmp_path):
    """Hold Back is undo; while a pair is being shown it first leaves the showing (as it first
    takes back a deal-scan card), so P3's card of trick 1 is not undone."""
    out = sim(tmp_path, PAIR_P3 + "u\n")
    assert screens(out)[-1] == "play: P3 takes trick 1 / Pair not declared"
    assert "Undone" not in out


def test_a_card_typed_alone_while_a_pair_is_shown_goes_on_the_showing_seats_pad(tmp_path):
    """Fault (review): in the sim a card typed without a pad went on the pad of the player to act
    (P3 leads trick 2), so P1 showing a pair was refused "P1's pair is shown on P1's pad" for a
    card typed as the screen asked; it goes on the pad of the seat the screen asks a card of."""
    out = sim(tmp_path, PAIR_P1 + "KH\n")
    assert "REFUSED" not in out
    assert screens(out)[-1] == "play: Pair: P1 taps Q♥ / Back: not now"


def test_a_card_of_the_pair_taken_after_a_refusal_clears_that_refusal(tmp_path):
    """Fault (review): after a wrong card ("8♥ is not K♥ Q♥"), the K♥ tapped next was taken but
    the refusal stayed over the screen, so it read as if K♥ had been refused too; a card shown
    clears an earlier refusal, as a counted deal-scan card does."""
    out = sim(tmp_path, PAIR_P3 + "3 8H\n3 KH\n")
    assert "REFUSED: 8♥ is not K♥ Q♥ (Back: not now)" in out
    assert screens(out)[-1] == "play: Pair: P3 taps Q♥ / Back: not now"
