"""A call for trump taken back by an undo (D9, N11, T9's correction) is no call in the words for a
renege proven later.

Fault (found by the review of D9): the table kept each call in ``Table.callers`` for N5's words
("P3 did not trump after calling") and an undo never took it out. D9's refusal tells a caller who
holds the led suit to undo the call; when the led suit was trump itself and that player then
failed to follow anyway, the renege proven once trump was revealed for good (another player's
call) was said as "P3 did not trump after calling", of a call the table had taken back.
"""
from test_screen_walkthrough import Walk


def test_a_call_undone_is_not_named_in_the_renege_words(tmp_path):
    w = Walk(tmp_path)
    w.press("ok"), w.press("ok")
    w.tap(1, "JS")                                   # P1 deals, P2 bids first
    w.choose("Bid 16"), w.choose("Pass"), w.choose("Pass"), w.choose("Pass")
    w.tap(2, "9C")                                   # trump ♣, face down
    w.tap(2, "AC")                                   # trick 1 led ♣ (trump, still hidden)
    w.choose("Call trump")                           # P3 calls: ♣ revealed
    v = w.tap(3, "7C")                               # N11 refuses the led suit: D9 says undo
    assert v.alert.text.endswith("undo the call to play 7♣ (D9)")
    w.press("back"), w.press("back", held=True)      # the call taken back: trump hidden again
    assert w.table.view().trump == "hidden"
    w.tap(3, "JS")                                   # P3 fails ♣ after all, holding 7♣
    w.tap(4, "8C"), w.tap(1, "QC")                   # P2 takes trick 1 with A♣
    w.tap(2, "AS"), w.tap(3, "KS")                   # trick 2 led ♠
    w.choose("Call trump")                           # P4 calls: ♣ revealed again, for good
    w.tap(4, "JC"), w.tap(1, "QS")                   # P4 takes trick 2 with J♣
    w.press("back")
    w.tap(4, "10C"), w.tap(1, "KC"), w.tap(2, "9C")  # trick 3 led ♣
    v = w.tap(3, "7C")                               # P3 shows a club: the renege is proven
    assert v.alert is not None and v.alert.text == "P3 failed to follow ♣ (trick 1)"

