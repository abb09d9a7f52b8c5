"""Line charts drawn on the server as SVG: no JavaScript library, every label escaped.

>>> svg = line_chart([("Ann", [0, 1, 2]), ("<b>", [0, 0, 1])], "score")
>>> svg.count("<polyline"), "&lt;b&gt;" in svg, "<b>" in svg
(2, True, False)
"""
from html import escape

COLOURS = ("#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457")
DASHES = ("", "6 3", "2 2", "8 3 2 3")  # past 8 lines the colours come round again, dashed


def stroke(k):
    """Line ``k``'s colour and dash pattern: 32 lines, no two alike (a club's ninth player was
    drawn exactly as its first).

    >>> len({stroke(k) for k in range(32)}), stroke(0), stroke(8)
    (32, ('#1565c0', ''), ('#1565c0', '6 3'))
    """
    return COLOURS[k % len(COLOURS)], DASHES[(k // len(COLOURS)) % len(DASHES)]
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 320, 180, 28, 8, 10, 22


def counted(n, plural):
    """``3 matches``, ``1 match``, ``1 hand``: the x axis's count in words.

    >>> counted(1, "matches"), counted(2, "hands"), counted(1, "hands")
    ('1 match', '2 hands', '1 hand')
    """
    word = plural if n != 1 else plural[:-2] if plural.endswith(("ches", "shes")) else plural.removesuffix("s")
    return f"{n} {word}"


def line_chart(series, title, xlabel=""):
    """``series``: ``[(name, [y0, y1, ...])]``, all of one length or shorter; an SVG element. A
    ``None`` y is no point: a line that begins later on the x axis starts with them.

    >>> svg = line_chart([("Ann", [0, 1, 2]), ("Bob", [None, 0, 0])], "wins")
    >>> svg.count("<circle"), "NaN" in svg
    (5, False)
    """
    n = max((len(ys) for _, ys in series), default=0)
    top = max([1] + [y for _, ys in series for y in ys if y is not None])
    bottom = min([0] + [y for _, ys in series for y in ys if y is not None])
    span_x = max(n - 1, 1)
    span_y = max(top - bottom, 1)

    def x(i):
        return PAD_L + (W - PAD_L - PAD_R) * i / span_x

    def y(v):
        return PAD_T + (H - PAD_T - PAD_B) * (top - v) / span_y

    out = [f'<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-label="{escape(title)}" '
           f'xmlns="http://www.w3.org/2000/svg" data-points="{sum(y is not None for _, ys in series for y in ys)}">',
           f'<title>{escape(title)}</title>']
    for v in sorted({bottom, top, 0}):
        out.append(f'<line x1="{PAD_L}" x2="{W - PAD_R}" y1="{y(v):.1f}" y2="{y(v):.1f}" class="grid"/>'
                   f'<text x="{PAD_L - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    out.append(f'<text x="{W - PAD_R}" y="{H - 6}" text-anchor="end">{escape(counted(max(n - 1, 0), xlabel))}</text>')
    strokes = [stroke(k) for k in range(len(series))]
    for (name, ys), (colour, dash) in zip(series, strokes):
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        shown = [(i, v) for i, v in enumerate(ys) if v is not None]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in shown)
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2"{dashed} points="{points}">'
                   f'<title>{escape(str(name))}</title></polyline>')
        out.extend(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5" fill="{colour}"/>' for i, v in shown)
    out.append("</svg>")
    legend = "".join(f'<span class="key"><svg width="22" height="12" aria-hidden="true"><line x1="1" x2="21" '
                     f'y1="6" y2="6" stroke="{colour}" stroke-width="3"'
                     + (f' stroke-dasharray="{dash}"' if dash else "")
                     + f'/></svg> {escape(str(name))}</span>' for (name, _), (colour, dash) in zip(series, strokes))
    return f'<figure>{"".join(out)}<figcaption>{legend}</figcaption></figure>'
