"""The club's board, fourth round: a club night run as docs/club.md says, then broken as a club
would (a season's first start, a damaged duplicate, boxes upgraded one at a time, ...).

Each test names the fault it covers.
"""
import sqlite3

from assistant.club.board import Board
from assistant.club.page import club_json
from test_club import bot_table, deliver, play


def standings_of(board):
    return club_json(board)["standings"]


def test_a_boards_first_start_on_a_season_replays_each_match_once_not_once_a_hand(tmp_path, monkeypatch):
    """Fault (a club's board on a Pi, the first start of this board on a season an older board
    wrote: 309 s at 3,600 matches): a start read each match's events from the file and applied them
    one at a time as if they arrived live, so each towers hand's discard took the up-card as its
    stand-in, the dealer then played the up-card, and the whole match so far was replayed again:
    once a hand, every match of the season. A start now gives a match's events at once, and the
    match is replayed once, its stand-ins chosen from every card played after them; the standings
    and every match's score are the same."""
    from assistant.club.replay import BoardMatch
    board = Board(str(tmp_path / "board.sqlite3"), "c", keep=None)
    for name, game, seats, seed in (("t1", "towers", ("Ann", "Bob"), 2), ("t2", "towers", ("Cat", "Dan"), 5),
                                    ("t3", "twenty-nine", ("Ann", "Cat", "Dan", "Eve"), 3)):
        j, t, bot = bot_table(tmp_path, game, seed, name=name)
        play(t, bot, game, seats)
        play(t, bot, game, seats)
        deliver(board, j)
        j.close()
    scores = {k: bm.match.state()["score"] for k, bm in board.matches.items()}
    everything = standings_of(board)
    board.close()
    db = sqlite3.connect(tmp_path / "board.sqlite3")  # as an older board left it, a day ago
    with db:
        db.execute("DROP TABLE matches")
        db.execute("UPDATE events SET received = received - 86400")
    db.close()
    rebuilt = []
    rebuild = BoardMatch.rebuild
    monkeypatch.setattr(BoardMatch, "rebuild", lambda self: rebuilt.append((self.table, self.mid)) or rebuild(self))
    board = Board(str(tmp_path / "board.sqlite3"), "c")  # puts matches 1 away, keeps each table's latest
    try:
        assert sorted(rebuilt) == sorted({(t, m) for t, _, m in scores}), rebuilt  # was one a towers hand
        assert {k: bm.match.state()["score"] for k, bm in board.matches.items()} == {
            k: s for k, s in scores.items() if k[2] == 2}
        assert standings_of(board) == everything
        rebuilt.clear()
        board.close()
        board = Board(str(tmp_path / "board.sqlite3"), "c")  # a later start: tonight's matches, once each
        assert sorted(rebuilt) == [(t, 2) for t in ("t1", "t2", "t3")]
    finally:
        board.close()

    # a match whose last row cannot be used (stored by an older board): the rows before it, which
    # waited for it to be applied together, are applied without it
    db = sqlite3.connect(tmp_path / "board.sqlite3")
    with db:
        db.execute("UPDATE events SET body='{' WHERE tbl='t1' AND match=2 AND n=(SELECT max(n) FROM events "
                   "WHERE tbl='t1' AND match=2)")
    db.close()
    board = Board(str(tmp_path / "board.sqlite3"), "c")
    try:
        (bm,) = [bm for key, bm in board.matches.items() if key[0] == "t1"]
        assert bm.next - 1 == len(bm.events) > 100 and bm.problem is None  # all but the last, applied
    finally:
        board.close()

