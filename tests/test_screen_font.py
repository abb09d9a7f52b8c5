"""The bitmap font: coverage, widths that match drawing, suits as distinct glyphs."""
import string

from PIL import Image

from assistant.box.font import GLYPHS, HEIGHT, draw_text, text_width


def test_every_printable_letter_digit_and_common_punctuation_has_a_glyph():
    wanted = string.ascii_letters + string.digits + " .,:;!?-+=/()[]'\"<>*#%_^|&@$~"
    assert [c for c in wanted if c not in GLYPHS] == []


def test_glyphs_are_rectangular_and_fit_the_cell():
    for ch, rows in GLYPHS.items():
        assert len({len(r) for r in rows}) == 1, ch
        assert len(rows) <= HEIGHT, ch
        assert set("".join(rows)) <= {"#", "."}, ch


def test_four_suits_are_four_different_shapes_and_red_suits_are_hollow():
    shapes = {GLYPHS[s] for s in "♠♥♦♣"}
    assert len(shapes) == 4
    filled = {s: "".join(GLYPHS[s]).count("#") for s in "♠♥♦♣"}
    assert filled["♥"] < filled["♠"] and filled["♦"] < filled["♣"]


def test_text_width_is_where_drawing_ends():
    img = Image.new("1", (200, 20))
    for text, scale, bold in [("P1 10♥", 1, False), ("Renege!", 2, False), ("wm", 1, True)]:
        end = draw_text(img, (3, 0), text, scale, bold=bold)
        assert end - 3 == text_width(text, scale, bold)


def test_unknown_characters_fall_back_without_error():
    img = Image.new("1", (100, 10))
    assert text_width("é") == text_width("e")   # accents dropped
    assert text_width("ж") == text_width("?")
    draw_text(img, (0, 0), "Zoë ж")


def test_digits_are_all_as_wide_so_a_number_that_changes_moves_nothing_else():
    """Issue 12 item 2: "P4 to play" -> "P1 to play" rewrites one digit on the OLED, not the rest
    of the line (a narrow 1 shifted everything after it)."""
    for bold in (False, True):
        assert len({text_width(d, 1, bold) for d in "0123456789"}) == 1
