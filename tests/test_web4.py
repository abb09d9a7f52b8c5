"""The box's web page and the club board's pages as a player and a club member meet them (the
fourth web round): each test names the fault it covers."""
import json
import re

from assistant.box.journal import Journal
from assistant.rules.match import Match
from assistant.sim.bot_towers import TowersBot
from assistant.sim.bot_twentynine import TwentyNineBot
from test_web import request, served


def played_until(folder, game, seats, phase, seed=1):
    """A match of ``game`` written into ``folder``'s journal by a bot, up to its first ``phase``."""
    j = Journal(str(folder / "journal.sqlite3"))
    j.new_match(game, seats, {})
    m = Match(game, seats, {})
    bot = (TowersBot if game == "towers" else TwentyNineBot)(seed)
    while m.engine.phase != phase:
        action = bot.next_action(m.engine)
        m.apply(action)
        j.append(action)
    j.close()
    return m


def board_text(html):
    """The board's words as a reader sees them: tags dropped, entities read."""
    from html import unescape
    return unescape(re.sub(r"<[^>]+>", " ", html))


def test_the_now_page_shows_the_choice_on_the_screen_without_the_oleds_brackets(tmp_path):
    """Fault: the Now page wrote the OLED's choice line as it is drawn there, "Ann < Accept >":
    the brackets, the OLED's sign for "Left and Right change this", read on a phone as a garbled
    line (a player took it for a bug). The page now shows the choice the box's screen is on as a
    choice: who chooses, then the selected option marked, without the brackets; the JSON keeps
    the OLED's words."""
    played_until(tmp_path, "towers", ("Ann", "Bob"), "trump1")
    with served(tmp_path) as port:
        now = json.loads(request(port, "GET", "/api/now")[2])
        assert now["view"]["prompt"][-1] == "Ann < Accept >" or now["view"]["prompt"][-1] == "Bob < Accept >"
        for path in ("/now/board", "/"):
            html = request(port, "GET", path)[2]
            words = board_text(html)
            assert "<" not in words.replace("<!doctype", "") and " >" not in words, (path, words)
            assert re.search(r'(Ann|Bob): <span class="choice"[^>]*>Accept</span>', html), html
