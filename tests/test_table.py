"""The table: taps and button presses become scenario actions; bad input gets a clear alert and
changes nothing. Covers the box's phases for both games (rulings T1, T3, T4, T7, T9, N3, N4, N5)."""
import pytest

from assistant.rules.cards import card_label, parse_card
from assistant.hw.events import ButtonPressed, PadCleared, PadConflict, ReaderStatus, TagArrived
from assistant.box.journal import Journal
from assistant.rules.scenario import format_action
from assistant.box.table import Table

DECK = {f"U{c:02d}": c for c in range(32)}
TOWERS_PADS = ("P1", "P2", "centre")


def uid(name):
    return f"U{parse_card(name):02d}"


class Hands:
    """Drives a Table the way the adapters would."""

    def __init__(self, tmp_path, game="towers", pads=TOWERS_PADS, **kw):
        self.journal = Journal(str(tmp_path / "journal.sqlite3"))
        self.table = Table(self.journal, DECK, pads=pads, game=game, **kw)
        self.press("ok")  # the new-match menu offers the configured game first
        if game == "twenty-nine":
            self.press("ok")  # "Start Twenty-Nine" with the configured house rules

    def tap(self, pad, card):
        return self.table.handle(TagArrived(pad, uid(card)))

    def press(self, name, held=False):
        return self.table.handle(ButtonPressed(name, held))

    def lines(self):
        m = self.table.match
        return [format_action(a, m.seats) for a in m.actions]

    def journaled(self):
        return [r[0] for r in self.journal.db.execute("SELECT line FROM actions ORDER BY seq")]


@pytest.fixture
def towers(tmp_path):
    return Hands(tmp_path)


def towers_to_play(h):
    h.tap(3, "JH"), h.tap(3, "JS")   # T1: P2 receives the black jack: P2 deals, P1 leads
    h.tap(3, "9H")                    # the up-card
    h.press("ok")                     # P1 accepts ("Accept" is the first choice)


def test_flip_upcard_and_accept_become_actions_and_are_journaled(towers):
    towers_to_play(towers)
    assert towers.lines() == ["flip JH", "flip JS", "upcard 9H", "accept"]
    assert towers.journaled() == towers.lines()
    v = towers.table.view()
    assert (v.phase, v.trump, v.dealer, v.bidder) == ("discard", 1, 1, 0)


def test_unknown_tag_is_an_alert_never_a_guess(towers):
    v = towers.table.handle(TagArrived(3, "04DEADBEEF0000"))
    assert v.alert.kind == "unknown-tag" and "not in the enrolled pack" in v.alert.text
    assert towers.lines() == []


def test_card_not_in_this_games_pack(towers):
    v = towers.tap(3, "8S")
    assert v.alert.kind == "refused" and "8♠ is not in the towers pack" == v.alert.text
    assert towers.lines() == []


def test_tap_out_of_turn_and_card_already_played(towers):
    towers.tap(3, "JH"), towers.tap(3, "JS"), towers.tap(3, "9H")
    towers.press("right"), towers.press("ok"), towers.press("right"), towers.press("ok")
    towers.tap(3, "KS")                       # P1 names spades: no pick-up, no discard
    v = towers.tap(2, "AS")                   # P2's pad, but P1 leads
    assert v.alert.text == "Out of turn: P1 to play" and towers.lines()[-1] == "name S"
    towers.tap(1, "AS")
    v = towers.tap(2, "AS")
    assert v.alert.text == "A♠ was already played this hand"
    assert towers.lines()[-1] == "play AS" and towers.journaled() == towers.lines()


def test_two_cards_on_a_pad_are_not_read_until_cleared(towers):
    towers_to_play(towers)
    v = towers.table.handle(PadConflict(1))
    assert v.alert.text == "Two cards on P1's pad: lift one"
    towers.tap(1, "AS")
    assert towers.lines()[-1] == "accept"
    towers.table.handle(PadCleared(1))
    towers.tap(1, "AS")
    assert towers.lines()[-1] == "play AS"


def test_back_clears_any_alert_and_a_lost_reader_keeps_a_mark(towers):
    """Issue 9 item 3: Back clears any alert, the reader-lost one too; the header keeps a small
    "no reader" mark until the reader is back."""
    v = towers.table.handle(ReaderStatus(False, "Card reader unplugged"))
    assert v.alert.kind == "reader-lost"
    v = towers.press("back")
    assert v.alert is None and "no reader" in v.extra
    v = towers.press("ok", held=True)  # and above an open menu (it was dropped there once)
    assert v.phase == "menu" and "no reader" in v.extra
    towers.press("back")
    v = towers.table.handle(ReaderStatus(True))
    assert v.alert is None and "no reader" not in v.extra


def test_hold_back_undoes_and_the_undo_is_journaled(towers, tmp_path):
    towers_to_play(towers)
    towers.press("back", held=True)
    assert towers.lines() == ["flip JH", "flip JS", "upcard 9H"]
    assert towers.journaled()[-1] == "undo"
    resumed = Journal(str(tmp_path / "journal.sqlite3")).resume().match
    assert resumed.engine.snapshot() == towers.table.match.engine.snapshot()


def test_round_two_name_by_tapping_a_suit_and_turned_down_refused(towers):
    """T3: after two passes the up-card's suit is turned down; a tapped card names its suit."""
    towers.tap(3, "JH"), towers.tap(3, "JS"), towers.tap(3, "9H")
    towers.press("right"), towers.press("ok")   # P1: Pass
    towers.press("right"), towers.press("ok")   # P2: Pass -> hearts turned down
    v = towers.tap(3, "KH")
    assert v.alert.kind == "refused" and "turned down" in v.alert.text
    towers.tap(3, "KS")
    assert towers.lines()[-1] == "name S" and towers.table.view().trump == 0


def test_dealer_has_no_pass_in_round_two(towers):
    """T3: the screen offers the dealer only the three suits."""
    towers.tap(3, "JH"), towers.tap(3, "JS"), towers.tap(3, "9H")
    towers.press("right"), towers.press("ok")
    towers.press("right"), towers.press("ok")
    towers.press("right"), towers.press("right"), towers.press("right"), towers.press("ok")  # P1 passes
    assert towers.lines()[-1] == "pass"
    from assistant.box.table_view import choices_for
    assert [label for label, _ in choices_for(towers.table)] == ["Name ♠", "Name ♦", "Name ♣"]


def test_for_two_is_chosen_never_a_stray_ok(towers):
    """T4 and issue 9 item 6: a stray OK before the first lead declares nothing; the bidder
    selects "For 2" (right) and confirms with OK."""
    towers_to_play(towers)
    towers.tap(2, "QC")                        # P2's discard
    v = towers.press("ok")
    assert towers.lines()[-1] == "discard QC" and not v.for_two and "P1 for 2? < no >" in v.prompt
    v = towers.press("right")
    assert "P1 for 2? < For 2 >" in v.prompt
    towers.press("ok")
    assert towers.lines()[-1] == "for2" and towers.table.view().for_two


def test_discard_is_tapped_on_the_dealers_pad_and_never_named(towers):
    towers_to_play(towers)
    v = towers.tap(2, "QC")  # P2 deals and picked up: its pad before the first lead is the discard
    assert towers.lines()[-1] == "discard QC"
    assert "QC" not in v.prompt and "Q♣" not in v.prompt and v.alert is None
    assert towers.table.view().phase == "for2"


def test_deal_scan_refuses_a_renege_at_once(tmp_path):
    """T9: where the box knows the hand it refuses the illegal card instead of proving a renege."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")        # P2 deals 7
    for c in ("AS", "KS", "QS", "AC", "KC", "QC", "AD"):
        v = h.tap(1, c)                   # P1 scans
    assert v.phase == "scan" and "P1" not in v.prompt and "P2 0/7" in v.prompt
    assert all(c not in v.prompt for c in ("AS", "A♠"))
    for c in ("9S", "10S", "9C", "10C", "9D", "10D", "KD"):
        h.tap(2, c)
    assert [line.split()[:2] for line in h.lines()[2:]] == [["hand", "P1"], ["hand", "P2"]]
    h.tap(3, "9H"), h.press("ok")         # up-card, P1 accepts
    h.tap(1, "AS")
    v = h.tap(2, "9D")                    # P2 holds spades
    assert v.alert.kind == "refused" and v.alert.text == "P2 must follow spades ♠"
    h.tap(2, "9S")
    assert h.lines()[-1] == "play 9S" and h.table.match.engine.book.proven == []


@pytest.fixture
def nine(tmp_path):
    return Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"))


def test_twenty_nine_bids_by_buttons_and_forced_dealer(nine):
    """N2, N3: the flip finds the dealer; the first three pass; the dealer has no Pass."""
    for c in ("9D", "JC"):                 # P1 9D, P2 JC: P2 deals, P3 speaks first
        nine.tap(1, c)
    for _ in range(3):
        nine.press("left"), nine.press("ok")   # "Pass" is left of the lowest bid
    from assistant.box.table_view import choices_for
    assert "Pass" not in [label for label, _ in choices_for(nine.table)]
    nine.press("right"), nine.press("ok")      # the dealer bids 17
    assert nine.lines()[-4:] == ["pass", "pass", "pass", "bid 17"]


def test_twenty_nine_trump_card_is_hidden(nine):
    """N4: the trump card is tapped face down and shown as hidden, never by name."""
    nine.tap(1, "9D"), nine.tap(1, "JC")
    for _ in range(3):
        nine.press("left"), nine.press("ok")
    nine.press("ok")                           # P2 (dealer) bids 16
    v = nine.tap(1, "QS")                      # not the bidder's pad
    assert v.alert.text == "The trump card goes on P2's pad"
    v = nine.tap(2, "QS")
    assert nine.lines()[-1] == "trump QS"
    assert v.trump == "hidden" and "QS" not in v.prompt and card_label(parse_card("QS")) not in v.prompt
    assert nine.table.match.state()["trump"] == "hidden"


def test_twenty_nine_call_for_trump_with_ok(nine):
    """N5: a player unable to follow calls for trump with OK; the suit is then shown."""
    nine.tap(1, "9D"), nine.tap(1, "JC")
    for _ in range(3):
        nine.press("left"), nine.press("ok")
    nine.press("ok")
    nine.tap(2, "QS")
    nine.tap(3, "AH")                          # P3 leads
    nine.press("ok")                           # a stray OK calls nothing (issue 9 item 6)
    assert nine.lines()[-1] == "play AH"
    assert nine.press("right").prompt == "P4 < Call trump >"
    nine.press("ok")                           # P4 calls
    v = nine.table.view()
    assert nine.lines()[-1] == "call" and v.trump == 0


def test_twenty_nine_deal_scan_includes_the_trump_card(tmp_path):
    """N4 and the hand line: the bidder scans seven, the face-down card completes the eight."""
    h = Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"), deal_scan=True)
    h.tap(1, "9D"), h.tap(1, "JC")
    for _ in range(3):
        h.press("left"), h.press("ok")
    h.press("ok")
    h.tap(2, "QS")
    deal = {1: "AS KS 10S 9S 8S 7S AH KH", 2: "JS AD KD QD JD 10D 9D", 3: "AC KC QC JC 10C 9C 8C 7C",
            4: "QH JH 10H 9H 8H 7H 8D 7D"}
    for pad, cards in deal.items():
        for c in cards.split():
            v = h.tap(pad, c)
            assert not any(x in v.prompt for x in cards.split())
    hands = [line for line in h.lines() if line.startswith("hand")]
    assert len(hands) == 4 and "QS" in hands[1].split()
    assert h.table.view().phase == "lead"


def test_a_refused_face_down_card_is_not_named(tmp_path):
    """Hidden information: a refused discard (or trump card) is refused without naming it."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")
    for c in ("AS", "KS", "QS", "AC", "KC", "QC", "AD"):
        h.tap(1, c)
    for c in ("9S", "10S", "9C", "10C", "9D", "10D", "KD"):
        h.tap(2, c)
    h.tap(3, "9H"), h.press("ok")            # P1 accepts: P2 (dealer) picks up 9H
    v = h.tap(2, "AH")                        # P2 does not hold AH
    assert v.alert.kind == "refused" and v.alert.text == "That card cannot be the discard"
    assert h.lines()[-1] == "accept"
    h.tap(2, "KD")
    assert h.lines()[-1] == "discard KD"


def test_new_match_chooses_game_and_house_rules(tmp_path):
    """Options (rulings): the house rules are switched on the box before the match starts."""
    h = Hands(tmp_path)
    h.press("ok", held=True)
    title, items, _ = h.table.menu
    labels = [label for label, _ in items]
    for _ in range(labels.index("New match")):
        h.press("right")
    h.press("ok")
    h.press("right"), h.press("ok")            # "Yes, new match": a match was in play
    h.press("right"), h.press("ok")            # Twenty-Nine
    assert h.table.menu[1][2][0] == "Pair (K+Q): off"   # issue 17 item 10: words, not config keys
    h.press("right"), h.press("right"), h.press("ok")   # switch pair on
    assert h.table.menu[1][2][0] == "Pair (K+Q): on"
    for _ in range(2):
        h.press("left")
    h.press("ok")                              # Start
    m = h.table.match
    assert m.game == "twenty-nine" and m.options == {"pair": "on"}
    assert Journal(str(tmp_path / "journal.sqlite3")).resume().match.options["pair"] == "on"


def test_a_card_found_lying_on_a_pad_is_not_taken_as_a_tap(towers):
    """Never guess: a card the reader found on a pad (at start, or after a garbled line) is not a
    play; the table asks for a fresh tap and names no card (it may be a face-down one)."""
    towers_to_play(towers)
    v = towers.table.handle(TagArrived(1, uid("AS"), inferred=True))
    assert v.alert.kind == "info" and "P1's pad" in v.alert.text and "AS" not in v.alert.text
    assert towers.lines()[-1] == "accept"


def test_one_card_proving_two_reneges_says_so(towers):
    """T9: failing spades at two tricks, then showing one, proves two reneges at once."""
    towers.tap(3, "JS"), towers.tap(3, "9H"), towers.press("ok")   # P1 deals, P2 accepts
    for pad, card in ((2, "AS"), (1, "KC"), (2, "KS"), (1, "QC"), (2, "AC"), (1, "QS")):
        v = towers.tap(pad, card)
    assert v.alert.kind == "renege" and v.alert.text == "P1 failed to follow ♠ (tricks 1, 2)"


def _open_menu_item(h, label):
    h.press("ok", held=True)
    labels = [x for x, _ in h.table.menu[1]]
    for _ in range(labels.index(label)):
        h.press("right")
    h.press("ok")


def test_new_match_mid_match_asks_first(towers):
    """A stray OK in the menu must not end the evening's match."""
    towers_to_play(towers)
    _open_menu_item(towers, "New match")
    assert towers.table.menu[0] == "End this match?"
    towers.press("ok")                          # "No, play on" is the first choice
    assert towers.table.menu is None and towers.lines()[-1] == "accept"


def test_twenty_nine_result_screen_is_dismissed_before_any_bid(nine):
    """N3: after a round the result is shown; the first press only moves on, it never bids."""
    nine.tap(1, "9D"), nine.tap(1, "JC")
    for _ in range(3):
        nine.press("left"), nine.press("ok")
    nine.press("ok")                            # P2 bids 16
    nine.tap(2, "QS")                           # trump card face down
    for pad, card in ((3, "AH"), (4, "KH"), (1, "QH"), (2, "JH")):
        nine.tap(pad, card)                     # P2 wins J♥: 3+1 points to P2+P4
    n = len(nine.lines())
    nine.table.result = "round over"            # what the table sets when a round is scored
    nine.press("right"), nine.press("ok")
    assert len(nine.lines()) == n and nine.table.result is None


def test_scan_taps_on_a_finished_scan_say_why_and_back_takes_back_a_scan_card(tmp_path):
    """Deal scan: a mis-tapped scan card is taken back with hold Back (not the flip), and a tap
    on a pad whose hand is already scanned is refused in words."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")
    for c in ("AS", "KS", "QS"):
        h.tap(1, c)
    h.press("back", held=True)
    assert h.table.scan.cards[0] == [parse_card("AS"), parse_card("KS")]
    assert h.lines() == ["flip JH", "flip JS"]
    for c in ("QS", "AC", "KC", "QC", "AD"):
        h.tap(1, c)
    v = h.tap(1, "9H")
    assert v.alert.text == "P1's hand is scanned: waiting for P2 to scan"


def test_taps_on_a_pad_with_two_cards_say_why(towers):
    towers_to_play(towers)
    towers.table.handle(PadConflict(1))
    towers.press("back")
    v = towers.tap(1, "AS")
    assert v.alert.text == "Two cards on P1's pad: lift one" and towers.lines()[-1] == "accept"


def test_a_full_card_at_the_first_new_match_keeps_the_menu(tmp_path):
    """Issue 6: a storage error when the first match starts is an alert, never a dead screen."""
    from assistant.box.journal import JournalError

    class FullJournal(Journal):
        def new_match(self, *a):
            raise JournalError("the storage card is full: this action was not saved")
    t = Table(FullJournal(str(tmp_path / "j.sqlite3")), DECK, pads=TOWERS_PADS)
    v = t.handle(ButtonPressed("ok"))
    assert v.phase == "menu" and v.alert.text.startswith("the storage card is full")
    v = t.handle(ButtonPressed("back"))
    assert v.phase == "menu"


# ---- issue 9 items 4-7 and issue 17: every action shown, impossible scans refused --------------

def nine_to_trump(h, seventh=False):
    """P1 turns J♠ and deals; P2 bids 16, the others pass; trump is P2's to set."""
    h.tap(1, "JS")
    h.press("ok")                               # P2 bids 16
    for _ in range(3):
        h.press("left"), h.press("ok")          # pass, pass, pass
    if seventh:
        h.press("right"), h.press("ok")


def test_29_deal_guidance_four_each_then_four_more(nine):
    """Issue 9 item 5, issue 17 item 10: the flip winner is announced, then "P1 deals 4 each";
    once trump is set "P1 deals 4 more each"; the last round's trump leaves the header."""
    v = nine.tap(1, "JS")
    assert v.prompt.split("\n")[:2] == ["J♠ to P1: P1 deals", "P1 deals 4 each"]
    nine.press("ok")                            # P2 bids 16
    for _ in range(3):
        nine.press("left")
        v = nine.press("ok")
    assert v.prompt.startswith("P2 bid 16: set trump")
    v = nine.tap(2, "QS")
    assert v.phase == "lead" and v.prompt == "P1 deals 4 more each\nP2 leads" and v.trump == "hidden"


def test_29_forced_dealer_bid_says_so(nine):
    """Issue 17 item 10 (N3): the forced dealer is told "must bid"; the high bid names its bidder."""
    nine.tap(1, "9D"), nine.tap(1, "JC")        # P2 deals, P3 speaks first
    nine.press("right")
    v = nine.press("ok")                        # P3 bids 17
    assert v.prompt.startswith("P3 bid 17") and (v.bid, v.bidder) == (17, 2)
    nine.press("ok", held=True), nine.press("back")
    nine.press("back", held=True)               # undo the bid: "Undone: P3's bid 17"
    assert nine.table.view().prompt.startswith("Undone: P3's bid 17")
    for _ in range(3):
        nine.press("left")
        v = nine.press("ok")
    assert v.prompt.startswith("All passed: P2 must bid") and "Pass" not in v.prompt


def test_29_seventh_card_is_set_on_the_dealers_pad(nine):
    """Issue 17 item 5 (N4): the dealer deals the seventh card face down: the dealer's pad takes
    it, the prompt says where, and another player's pad is refused with where to tap."""
    nine_to_trump(nine, seventh=True)
    v = nine.table.view()
    assert v.phase == "seventh" and "on P1's or P2's pad" in v.prompt and "P1 deals 4 more each" in v.prompt
    v = nine.tap(3, "9H")
    assert v.alert.text == "The trump card goes on P1's or P2's pad" and nine.lines()[-1] == "seventh"
    v = nine.tap(1, "9H")
    assert nine.lines()[-1] == "trump 9H" and v.trump == "hidden" and "9♥" not in v.prompt


def test_29_stray_ok_calls_no_seventh_card(nine):
    """Issue 9 item 6: OK on the fresh trump prompt calls nothing; the seventh card is selected."""
    nine_to_trump(nine)
    v = nine.press("ok")
    assert nine.lines()[-1] == "pass" and "< card face down >" in v.prompt


def test_29_face_down_trump_tapped_as_a_play_gives_no_hint(nine):
    """Issue 9 item 7: the face-down trump card tapped as a play is refused in the words used for
    any card the player does not hold, naming neither the card nor trump."""
    nine_to_trump(nine)
    nine.tap(2, "QS")
    v = nine.tap(2, "QS")
    assert v.alert.text == "P2 does not hold that card"
    assert "trump" not in v.alert.text and "Q" not in v.alert.text and nine.lines()[-1] == "trump QS"


def test_29_finish_is_offered_and_refused_with_the_reason(nine):
    """Issue 17 item 6 (N10): Finish is in the menu while the contract is open; refused with what
    the bidders still need."""
    nine_to_trump(nine)
    nine.tap(2, "QS")
    _open_menu_item(nine, "Finish round")
    v = nine.table.view()
    assert v.alert.kind == "refused" and v.alert.text == "Not yet: P2+P4 need 16 more of 16, and can still make it"
    assert nine.lines()[-1] == "trump QS"


def test_29_redouble_only_after_a_double_and_the_prompt_follows(tmp_path):
    """Issue 17 item 7: Redouble is not offered before a double; after it the prompt says who
    doubled and who may redouble."""
    h = Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"), options={"double": "on"})
    nine_to_trump(h)
    h.tap(2, "QS")
    h.press("ok", held=True)
    labels = [x for x, _ in h.table.menu[1]]
    assert "Double: P1+P3" in labels and not any(x.startswith("Redouble") for x in labels)
    h.press("back")
    _open_menu_item(h, "Double: P1+P3")
    v = h.table.view()
    assert "P1+P3 doubled" in v.prompt and "Redouble: P2+P4 (menu)" in v.prompt and v.double == 2
    assert "may double" not in v.prompt


def _29_round_with_proven_renege(h):
    """P1 deals, P2 bids 16 with trump Q♠ face down; trick 1: P4 does not follow ♥ (8♣), trick 2:
    P4 shows ♥: P4's renege is proven."""
    nine_to_trump(h)
    h.tap(2, "QS")
    for pad, c in ((2, "AH"), (3, "KH"), (4, "8C"), (1, "QH")):
        h.tap(pad, c)                            # P2 wins trick 1
    for pad, c in ((2, "AD"), (3, "KD"), (4, "9H")):
        v = h.tap(pad, c)
    return v


def test_29_accusations_are_confirmed_marked_or_said_to_have_no_effect(nine):
    """Issue 17 items 1 and 8, issue 9 item 4: a pending accusation is confirmed and marked until
    settled; one that cannot have an effect says so."""
    nine_to_trump(nine)
    nine.tap(2, "QS")
    _open_menu_item(nine, "Accuse P3")
    v = nine.table.view()
    assert v.alert.text == "P2+P4 accuse P3: decided by the round's end"
    v = nine.press("back")
    assert "accused P3" in v.extra


def test_29_claim_and_a_later_accusation_say_what_they_did(nine):
    """Issue 17 item 1 (N11): a claim ends the round with words naming the renege and the points;
    an accusation after the round with no renege to prove changes nothing and says so."""
    v = _29_round_with_proven_renege(nine)
    assert v.alert.kind == "renege" and v.alert.text == "P4 failed to follow ♥ (trick 1)"
    nine.press("back")
    _open_menu_item(nine, "Claim: P4's renege")
    v = nine.table.view()
    assert v.phase == "hand-over" and v.prompt.split("\n") == [
        "Claim: P4's renege", "P1+P3 +1", "Next: P2 deals 4 each"]
    assert (v.trump, v.points, v.bid) == (None, (), None)  # 17.10: the last round's figures go
    score = v.score
    nine.press("back")
    _open_menu_item(nine, "Accuse P1")
    v = nine.table.view()
    assert v.alert.text == "Accusing P1 has no effect: no renege by P1 proven this round"
    assert v.score == score and nine.lines()[-1] == "accuse P1"


def test_towers_deal_guidance_names_the_dealer_and_how_many(towers):
    """Issue 9 item 5: "P2 deals 7 each", then the up-card."""
    v = towers.tap(3, "JH")
    v = towers.tap(3, "JS")
    assert v.prompt == "J♠ to P2: P2 deals\nP2 deals 7 each\nthen tap the up-card"


def test_towers_up_card_during_a_deal_scan_asks_first(tmp_path):
    """Issue 9 item 5: an up-card tap before every hand is scanned asks before ending the scan."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")
    h.tap(1, "AS")
    v = h.tap(3, "9H")
    assert v.phase == "menu" and v.menu.title == "P1, P2 not scanned" and v.menu.selected == 0
    h.press("ok")                               # "Keep scanning": nothing is lost
    assert h.lines() == ["flip JH", "flip JS"] and h.table.scan.cards[0] == [parse_card("AS")]
    h.tap(3, "9H"), h.press("right"), h.press("ok")
    assert h.lines()[-1] == "upcard 9H" and h.table.view().phase == "trump1"


def test_scan_refuses_an_impossible_card_at_its_tap(tmp_path):
    """Issue 17 item 4: a card already scanned into another hand is refused at the tap, with the
    reason, and nothing else is thrown away."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")
    h.tap(1, "AS"), h.tap(1, "KS")
    v = h.tap(2, "AS")
    assert v.alert.text == "That card cannot be in P2's hand: another hand holds it"
    assert h.table.scan.cards == {0: [parse_card("AS"), parse_card("KS")]}


def test_29_scan_refuses_the_face_down_card_in_another_hand_without_naming_it(tmp_path):
    """Issue 17 item 4: the face-down trump card scanned into another hand is refused at once in
    words that do not name it (those for any card another hand holds); the bidder's own hand
    counts it already."""
    h = Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"), deal_scan=True)
    nine_to_trump(h)
    h.tap(2, "QS")
    v = h.tap(3, "QS")
    assert v.alert.text == "That card cannot be in P3's hand: another hand holds it"
    v = h.tap(2, "QS")
    assert v.alert.text.startswith("That card is already counted")
    assert "Q♠" not in v.alert.text and h.table.scan.cards == {}


def test_deal_scan_switched_from_the_menu_is_kept_over_a_restart(towers, tmp_path):
    """Issue 9 item 7, issue 17 item 10: the switch says what it did and survives a restart."""
    _open_menu_item(towers, "Deal scan: off")
    v = towers.table.view()
    assert v.alert.kind == "info" and v.alert.text.startswith("Deal scan on")
    again = Table(Journal(str(tmp_path / "journal.sqlite3")), DECK, pads=TOWERS_PADS,
                  match=towers.table.match)
    assert again.deal_scan


def test_match_over_ok_opens_the_menu_and_new_match_keeps_house_rules(tmp_path):
    """Issue 17 item 9: at the match end OK opens the menu (Close first); the new match offers the
    last game with its house rules; Accuse is not offered without a renege to prove."""
    h = Hands(tmp_path, game="twenty-nine", pads=("P1", "P2", "P3", "P4"), options={"pair": "on"})
    m = h.table.match
    m.engine.score = [5, 0]
    nine_to_trump(h)
    h.tap(2, "QS")
    m.engine.score = [0, 5]
    m.engine.points = [0, 20]
    _open_menu_item(h, "Finish round")
    v = h.table.view()
    assert v.phase == "match-over" and v.prompt.startswith("P2+P4 win the match!")
    assert v.prompt.endswith("OK: menu, new match")
    v = h.press("ok")
    assert v.menu.title == "Menu" and v.menu.items[0] == "Close"
    assert not any(x.startswith(("Accuse", "Pair", "Finish")) for x in v.menu.items)
    for _ in range(v.menu.items.index("New match")):
        h.press("right")
    h.press("ok")
    v = h.press("ok")                            # Twenty-Nine, offered first
    assert v.menu.title == "House rules" and "Pair (K+Q): on" in v.menu.items


def test_a_stray_ok_in_the_menu_changes_nothing(towers):
    """Issue 9 item 6: hold OK opens the menu on "Close"; OK there closes it, nothing else."""
    towers_to_play(towers)
    v = towers.press("ok", held=True)
    assert v.menu.items[0] == "Close" and v.menu.selected == 0
    v = towers.press("ok")
    assert v.menu is None and towers.lines()[-1] == "accept"


def test_towers_claim_after_the_hand_says_it_replaces_the_result(towers):
    """Issue 17 (the same gap in towers), T9: a claim after the hand replaces its result in words."""
    towers.tap(3, "JS"), towers.tap(3, "9H"), towers.press("ok")   # P1 deals 7, P2 accepts
    towers.tap(1, "10H")                                             # P1's discard
    towers.press("ok")                                               # no for 2
    plays = [(2, "AS"), (1, "KC"), (2, "KS"), (1, "QS")]             # P1 fails ♠, then shows ♠
    for pad, c in plays:
        v = towers.tap(pad, c)
    assert v.alert.text == "P1 failed to follow ♠ (trick 1)"
    towers.press("back")
    e = towers.table.match.engine
    # the rest of the hand: P2 leads and wins every trick it can, P1 follows
    rest = [(2, "AH"), (1, "KH"), (2, "QH"), (1, "JH"), (2, "AD"), (1, "KD"), (2, "QD"), (1, "JD"),
            (2, "AC"), (1, "9H")]  # P1's last card is the up-card it picked up (S1)
    for pad, c in rest:
        if e.phase != "play":
            break
        pad = e.to_act + 1
        towers.tap(pad, c)
    assert not towers.table.match.engine.hand_no or towers.table.match.engine.hand_over
    towers.press("back")
    _open_menu_item(towers, "Claim: P1's renege")
    v = towers.table.view()
    assert v.prompt.split("\n")[:3] == ["Claim: P1's renege", "replaces the hand:", "P2 +1 tower"]


def test_towers_accusation_is_confirmed_and_marked(towers):
    """Issue 17 item 8 in towers (T9): a pending accusation is confirmed and marked until settled."""
    towers_to_play(towers)
    towers.tap(2, "QC")                          # P2's discard
    towers.tap(1, "AS")
    _open_menu_item(towers, "Accuse P2")
    v = towers.table.view()
    assert v.alert.text == "P1 accuses P2: decided by the hand's end"
    v = towers.press("back")
    assert "accused P2" in v.extra and towers.lines()[-1] == "accuse P2"


def test_scanned_cards_are_kept_over_a_power_cut(tmp_path):
    """Nothing accepted is lost (found by an outside tester): the cards of a deal scan were counted
    on the screen but kept only in memory until a hand was complete, so a restart showed
    "Scan P1 0/7". Each tap is journaled before it is counted; a restart takes the scan up."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")        # P2 deals 7
    for c in ("AS", "KS", "QS"):
        h.tap(1, c)
    h.tap(2, "9S")
    assert "P1 3/7 P2 1/7" in h.table.view().prompt
    journal = Journal(str(tmp_path / "journal.sqlite3"))   # the box again, after the cut
    again = Table(journal, DECK, pads=TOWERS_PADS, deal_scan=True, match=journal.resume().match)
    assert "P1 3/7 P2 1/7" in again.view().prompt
    again.handle(ButtonPressed("back", True))              # the last tap is P2's: taken back
    assert "P1 3/7 P2 0/7" in again.view().prompt
    for c in ("AC", "KC", "QC", "AD"):
        again.handle(TagArrived(1, uid(c)))
    hand = [r[0] for r in journal.db.execute("SELECT line FROM actions ORDER BY seq")][-1]
    assert hand.split() == ["hand", "P1", "AS", "KS", "QS", "AC", "KC", "QC", "AD"]


def test_a_match_begun_with_deal_scan_goes_on_with_it_when_the_config_says_off(tmp_path):
    """Nothing accepted is lost (leftover of the last session): deal scan switched on by the
    config (or `sim --deal-scan`) was not kept in the journal, only the menu's switch was, so a
    restart with it off dropped the scan in progress (P1's three cards) and left the hands
    unscanned. The match in play goes on with deal scan on; the next new match takes the config's."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")        # P2 deals 7
    for c in ("AS", "KS", "QS"):
        h.tap(1, c)
    journal = Journal(str(tmp_path / "journal.sqlite3"))   # the box again, its config now off
    again = Table(journal, DECK, pads=TOWERS_PADS, deal_scan=False, match=journal.resume().match)
    assert again.deal_scan and again.scan_kept and "P1 3/7 P2 0/7" in again.view().prompt
    again.new_match("towers")
    assert not again.deal_scan
    journal = Journal(str(tmp_path / "journal.sqlite3"))
    assert not Table(journal, DECK, pads=TOWERS_PADS, deal_scan=False, match=journal.resume().match).deal_scan


def test_a_scan_under_way_in_a_journal_of_an_older_version_is_taken_up_with_the_config_off(tmp_path):
    """The same fault in a journal written before the match with deal scan on was kept (no
    deal_scan_match setting): the taps kept for this very hand say a scan was under way, so deal
    scan was on; a restart with the config off takes it up instead of dropping the three cards."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")
    for c in ("AS", "KS", "QS"):
        h.tap(1, c)
    h.journal.db.execute("DELETE FROM meta WHERE key='setting:deal_scan_match'")  # as an older box left it
    journal = Journal(str(tmp_path / "journal.sqlite3"))
    again = Table(journal, DECK, pads=TOWERS_PADS, deal_scan=False, match=journal.resume().match)
    assert again.scan_kept and "P1 3/7 P2 0/7" in again.view().prompt


def test_a_kept_scan_of_another_hand_is_not_taken_up(tmp_path):
    """The kept scan names its match and hand: a line left from an earlier hand restores nothing."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")
    h.tap(1, "AS")
    journal = Journal(str(tmp_path / "journal.sqlite3"))
    match = journal.resume().match
    journal.set_setting("scan", f"{journal.match_id} {match.engine.hand_no + 1} 0:AS")
    again = Table(journal, DECK, pads=TOWERS_PADS, deal_scan=True, match=match)
    assert "P1 0/7" in again.view().prompt
    journal.set_setting("scan", f"{journal.match_id} {match.engine.hand_no} 0:AS 0:AS")  # damaged
    again = Table(journal, DECK, pads=TOWERS_PADS, deal_scan=True, match=match)
    assert "P1 1/7" in again.view().prompt                  # the good part, then it stops


def test_ok_on_the_harmless_choice_says_who_taps_now(towers):
    """T4 (a stray OK never declares for 2): OK on "no" changes nothing, but a newcomer who pressed
    it saw nothing happen (outside tester); the screen now says whose card the table waits for."""
    towers_to_play(towers)
    v = towers.tap(2, "9C")                # the dealer's discard: P1 leads, and may go for 2 first
    assert v.prompt.splitlines()[-1] == "P1 for 2? < no >"
    before = towers.lines()
    v = towers.press("ok")                 # "< no >" is selected
    assert towers.lines() == before
    assert v.prompt.splitlines()[0] == "P1: tap a card"
    v = towers.tap(1, "AS")
    assert "tap a card" not in v.prompt and towers.lines()[-1] == "play AS"


def test_hold_back_on_a_hands_last_scanned_card_after_a_restart_takes_back_that_card(tmp_path):
    """Deal scan, nothing accepted lost (S-rulings' journal rule): the card that completed P2's
    hand is the last scanned card. Fault: which card hold Back takes back was kept only in
    memory, so after a power cut hold Back undid P2's whole hand (all seven cards gone), and the
    take-back (an undo line, then the taps in a second write) was not one transaction. Now the
    journal says it (the scan line stored with the hand line), and the take-back survives a
    restart on the same journal."""
    h = Hands(tmp_path, deal_scan=True)
    h.tap(3, "JH"), h.tap(3, "JS")                          # P2 deals 7
    h.tap(1, "AS")
    for c in ("AD", "KD", "QD", "JD", "10D", "9D", "AC"):   # P2's hand: AC is the mis-tap
        h.tap(2, c)

    def restart():
        journal = Journal(str(tmp_path / "journal.sqlite3"))
        return Table(journal, DECK, pads=TOWERS_PADS, deal_scan=True, match=journal.resume().match)

    again = restart()                                        # power cut after P2's last card
    again.handle(ButtonPressed("back", True))
    assert "P1 1/7 P2 6/7" in again.view().prompt
    again = restart()                                        # power cut right after the take-back
    assert "P1 1/7 P2 6/7" in again.view().prompt
    again.handle(TagArrived(2, uid("AH")))
    assert [r[0] for r in again.journal.db.execute("SELECT line FROM actions ORDER BY seq")][-1] == \
        "hand P2 AD KD QD JD 10D 9D AH"


def test_a_card_a_person_reads_is_written_one_way_whoever_says_it(towers):
    """Fault: the engines wrote cards as `QS` and the box as `Q♠`, so one screen said "Undone:
    P1's A♠" and the next "AS was already played this hand" (the log's alert lines, the web page
    and replay's error lines too). Every card a person reads now has its suit sign (README,
    "Cards in words"); the scenario lines the box journals and exports keep `AS`."""
    towers.tap(3, "JH"), towers.tap(3, "JS"), towers.tap(3, "9H")
    towers.press("right"), towers.press("ok"), towers.press("right"), towers.press("ok")
    towers.tap(3, "KS")                       # P1 names spades
    towers.tap(1, "AS")
    assert towers.press("back", held=True).prompt.startswith("Undone: P1's A♠")
    towers.tap(1, "AS"), towers.tap(2, "KS")
    assert towers.tap(1, "AS").alert.text == "A♠ was already played this hand"
    assert towers.journaled()[-4:] == ["play AS", "undo", "play AS", "play KS"]
