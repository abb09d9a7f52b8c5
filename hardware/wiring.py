#!/usr/bin/env python3
"""Draw hardware/wiring.png, the wiring diagram of the box, from the pin tables in this file.

    python hardware/wiring.py           # redraw hardware/wiring.png
    python hardware/wiring.py --check   # exit 1 if the committed PNG is not what this file draws

The tables below are the source; the PNG is generated, never edited by hand. tests/test_wiring.py
fails when the PNG is stale, and checks the reader pins against firmware/hw.py.

Only Pillow is needed, and only its built-in bitmap font, so the picture is the same pixel for
pixel on every machine. Everything is drawn at 1x and then enlarged 2x (nearest neighbour).
"""
import sys
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
PNG = HERE / "wiring.png"

# ---- colours (one per signal, used for the wire and for the pin it lands on) ----------------
RED, BLACK, WHITE = (210, 30, 30), (25, 25, 25), (255, 255, 255)
BLUE, YELLOW, ORANGE = (30, 90, 220), (225, 170, 0), (235, 110, 0)
GREEN, VIOLET, BROWN = (20, 150, 60), (140, 60, 190), (130, 80, 30)
PINK, CYAN, GREY, TEAL = (225, 80, 150), (0, 160, 190), (120, 120, 120), (0, 120, 110)
LIGHT, PAPER, INK = (200, 200, 200), (250, 250, 246), (20, 20, 20)

# ---- the Raspberry Pi 40-pin header (the same on the Zero 2 W, 3, 4 and 5) --------------------
PI_HEADER = {
    1: "3V3", 2: "5V", 3: "GPIO2 SDA", 4: "5V", 5: "GPIO3 SCL", 6: "GND", 7: "GPIO4", 8: "GPIO14",
    9: "GND", 10: "GPIO15", 11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND", 15: "GPIO22",
    16: "GPIO23", 17: "3V3", 18: "GPIO24", 19: "GPIO10", 20: "GND", 21: "GPIO9", 22: "GPIO25",
    23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7", 27: "ID_SD", 28: "ID_SC", 29: "GPIO5",
    30: "GND", 31: "GPIO6", 32: "GPIO12", 33: "GPIO13", 34: "GND", 35: "GPIO19", 36: "GPIO16",
    37: "GPIO26", 38: "GPIO20", 39: "GND", 40: "GPIO21",
}

# Pi side: (part, part's pin, header pin, colour). The daemon's config defaults use these GPIOs.
OLED = [("VCC", 1, RED), ("SDA", 3, BLUE), ("SCL", 5, YELLOW), ("GND", 9, BLACK)]
BUTTONS = [("LEFT", 29, GREEN), ("RIGHT", 31, GREEN), ("OK", 33, GREEN), ("BACK", 35, GREEN)]
BUTTON_GROUND = 39
# The active buzzer runs from 5 V, switched by an NPN transistor whose base takes GPIO18 via 1k.
BUZZER_5V, BUZZER_GPIO, BUZZER_GROUND = 4, 12, 14
LED_GPIO, LED_GROUND = 16, 20            # the alert LED: GPIO23 -> 330 ohm -> LED -> GND

# ---- the Raspberry Pi Pico (reader) -----------------------------------------------------------
# (signal, GP number or None, Pico physical pin, colour). firmware/hw.py uses the same GP numbers.
PICO_BUS = [
    ("3V3", None, 36, RED),        # 3V3(OUT): powers the readers
    ("GND", None, 38, BLACK),
    ("SCK", 18, 24, YELLOW),
    ("MOSI", 19, 25, BLUE),
    ("MISO", 16, 21, GREEN),
    ("RST", 20, 26, VIOLET),       # every reader's RST, held high by the firmware
]
PICO_CS = [(17, 22, ORANGE), (13, 17, BROWN), (14, 19, PINK), (15, 20, CYAN)]  # pad 1..4
PICO_EXTRAS = [  # optional: per-pad LEDs (each through 330 ohm to GND), a beeper, a service jumper
    ("LED pad 1", 2, 4, TEAL), ("LED pad 2", 3, 5, TEAL), ("LED pad 3", 4, 6, TEAL),
    ("LED pad 4", 5, 7, TEAL), ("beeper (NPN)", 6, 9, ORANGE), ("service jumper", 22, 29, GREY),
]
# The MFRC522 module's header, left to right as printed on the board.
RC522_PINS = ["SDA", "SCK", "MOSI", "MISO", "IRQ", "GND", "RST", "3.3V"]
RC522_SIGNAL = {"SDA": "CS", "SCK": "SCK", "MOSI": "MOSI", "MISO": "MISO", "IRQ": None,
                "GND": "GND", "RST": "RST", "3.3V": "3V3"}

W, H = 1240, 720          # canvas at 1x
SCALE = 2
FONT = ImageFont.load_default_imagefont() if hasattr(ImageFont, "load_default_imagefont") \
    else ImageFont.load_default()
CH = 6                    # bitmap font: 6 px per character, 11 px tall


class Pen:
    def __init__(self):
        self.img = Image.new("RGB", (W, H), PAPER)
        self.d = ImageDraw.Draw(self.img)

    def text(self, xy, s, fill=INK, anchor="l"):
        x, y = xy
        width = len(s) * CH
        if anchor == "r":
            x -= width
        elif anchor == "c":
            x -= width // 2
        self.d.text((x, y - 6), s, font=FONT, fill=fill)

    def line(self, pts, fill, width=2):
        self.d.line(pts, fill=fill, width=width)

    def dot(self, xy, fill, r=3):
        x, y = xy
        self.d.ellipse((x - r, y - r, x + r, y + r), fill=fill)

    def box(self, x0, y0, x1, y1, title=None, fill=WHITE, outline=INK):
        self.d.rectangle((x0, y0, x1, y1), fill=fill, outline=outline, width=1)
        if title:
            self.text((x0 + 4, y0 + 8), title)

    def chip(self, x0, y, label, colour, width):
        """A pin label filled with its wire's colour."""
        self.d.rectangle((x0, y - 7, x0 + width, y + 7), fill=colour)
        fg = INK if colour in (YELLOW, LIGHT, PINK, CYAN, ORANGE) else WHITE
        self.text((x0 + 3, y), label, fill=fg)


def header_row_y(pin, top):
    return top + ((pin - 1) // 2) * 20


def draw_pi(p):
    top, hx = 96, 300                          # header: odd pins at hx, even pins at hx + 20
    p.text((20, 40), "RASPBERRY PI  (Zero 2 W, 4 or 5: the 40-pin header is the same)")
    p.text((20, 56), "header seen from above; pin 1 is at the microSD-card end (square pad)",
           fill=GREY)
    p.box(hx - 12, top - 14, hx + 32, top + 19 * 20 + 14, fill=(40, 110, 60), outline=INK)
    used = {}
    for part in (OLED, BUTTONS):
        for _, pin, colour in part:
            used[pin] = colour
    used.update({BUTTON_GROUND: BLACK, BUZZER_5V: RED, BUZZER_GPIO: ORANGE,
                 BUZZER_GROUND: BLACK, LED_GPIO: VIOLET, LED_GROUND: BLACK})
    for pin, name in PI_HEADER.items():
        y = header_row_y(pin, top)
        odd = pin % 2 == 1
        x = hx if odd else hx + 20
        colour = used.get(pin)
        p.d.ellipse((x - 5, y - 5, x + 5, y + 5), fill=colour or LIGHT, outline=WHITE)
        label = f"{name} {pin:>2}" if odd else f"{pin:<2} {name}"
        if colour:
            lx = hx - 20 - len(label) * CH - 6 if odd else hx + 40
            p.chip(lx, y, label, colour, len(label) * CH + 6)
        else:
            p.text((hx - 20 if odd else hx + 40, y), label, fill=GREY, anchor="r" if odd else "l")

    def wire_left(pin, x_from, colour):
        y = header_row_y(pin, top)
        label = f"{PI_HEADER[pin]} {pin:>2}"
        p.line([(x_from, y), (hx - 20 - len(label) * CH - 6, y)], colour)
        p.line([(hx - 20, y), (hx - 5, y)], colour)

    def wire_right(pin, x_to, colour):
        y = header_row_y(pin, top)
        label = f"{pin:<2} {PI_HEADER[pin]}"
        p.line([(hx + 25, y), (hx + 40, y)], colour)
        p.line([(hx + 46 + len(label) * CH, y), (x_to, y)], colour)

    # OLED, left of pins 1-9
    y0, y1 = header_row_y(1, top) - 26, header_row_y(9, top) + 12
    p.box(20, y0, 130, y1, "OLED 128x64")
    p.text((24, header_row_y(7, top)), "SSD1306/SH1106", fill=GREY)
    p.text((24, y1 - 6), "I2C addr 0x3C", fill=GREY)
    for name, pin, colour in OLED:
        y = header_row_y(pin, top)
        p.text((126, y), name, anchor="r")
        wire_left(pin, 130, colour)

    # Buttons, left of pins 29-39: each between its GPIO and a common ground rail
    y0, y1 = header_row_y(29, top) - 30, header_row_y(BUTTON_GROUND, top) + 12
    p.box(20, y0, 130, y1, "4 BUTTONS")
    rail_x = 34
    p.line([(rail_x, header_row_y(29, top)), (rail_x, header_row_y(BUTTON_GROUND, top))], BLACK)
    for name, pin, colour in BUTTONS:
        y = header_row_y(pin, top)
        p.dot((rail_x, y), BLACK, 2)
        p.line([(rail_x, y), (48, y)], BLACK, 1)
        p.line([(48, y), (60, y - 6)], INK, 1)           # the switch's open contact
        p.line([(60, y), (72, y)], INK, 1)
        p.text((76, y), name)
        wire_left(pin, 130, colour)
    y = header_row_y(BUTTON_GROUND, top)
    p.line([(rail_x, y), (130, y)], BLACK)
    p.text((40, y - 8), "other legs", fill=GREY)
    wire_left(BUTTON_GROUND, 130, BLACK)

    # Active buzzer switched by an NPN transistor, right of pins 4-14
    bx = hx + 160
    y5v, yb, yg = header_row_y(BUZZER_5V, top), header_row_y(BUZZER_GPIO, top), \
        header_row_y(BUZZER_GROUND, top)
    p.text((bx, y5v - 26), "ACTIVE BUZZER (5 V)")
    p.box(bx, y5v - 14, bx + 120, yg + 12)
    wire_right(BUZZER_5V, bx, RED)
    wire_right(BUZZER_GPIO, bx, ORANGE)
    wire_right(BUZZER_GROUND, bx, BLACK)
    nx = bx + 74                                           # the transistor's bar
    p.line([(bx, y5v), (nx + 12, y5v), (nx + 12, y5v + 8)], INK, 1)
    p.d.rectangle((nx - 2, y5v + 8, nx + 26, y5v + 34), outline=INK, fill=(60, 60, 60))
    p.text((nx + 30, y5v + 14), "+")
    p.text((nx + 30, y5v + 28), "-")
    p.text((bx + 8, y5v + 21), "buzzer")
    p.line([(nx + 12, y5v + 34), (nx + 12, yb - 12), (nx, yb - 5)], INK, 1)     # collector
    p.line([(nx, yb + 5), (nx + 12, yb + 12), (nx + 12, yg), (bx, yg)], INK, 1)  # emitter
    p.d.polygon([(nx + 12, yb + 12), (nx + 4, yb + 11), (nx + 9, yb + 6)], fill=INK)
    p.line([(nx, yb - 9), (nx, yb + 9)], INK, 3)
    p.d.rectangle((bx + 8, yb - 4, bx + 34, yb + 4), outline=INK)             # 1k resistor
    p.line([(bx, yb), (bx + 8, yb)], INK, 1)
    p.line([(bx + 34, yb), (nx, yb)], INK, 1)
    p.text((bx + 8, yb - 12), "1k")
    p.text((nx + 18, yb), "NPN", fill=GREY)
    p.text((nx + 18, yb + 12), "E", fill=GREY)
    p.text((nx + 18, yb - 12), "C", fill=GREY)
    p.text((nx - 10, yb + 10), "B", fill=GREY)

    # Alert LED through 330 ohm, right of pins 16-20
    ya, yc = header_row_y(LED_GPIO, top), header_row_y(LED_GROUND, top)
    p.box(bx, ya - 14, bx + 120, yc + 12)
    wire_right(LED_GPIO, bx, VIOLET)
    wire_right(LED_GROUND, bx, BLACK)
    p.line([(bx, ya), (bx + 8, ya)], INK, 1)
    p.d.rectangle((bx + 8, ya - 4, bx + 34, ya + 4), outline=INK)             # 330 ohm
    p.text((bx + 8, ya - 12 + 24), "330R")
    p.line([(bx + 34, ya), (nx + 12, ya), (nx + 12, yc - 18)], INK, 1)
    p.d.polygon([(nx + 5, yc - 18), (nx + 19, yc - 18), (nx + 12, yc - 8)], outline=INK, fill=RED)
    p.line([(nx + 5, yc - 8), (nx + 19, yc - 8)], INK, 1)
    p.line([(nx + 12, yc - 8), (nx + 12, yc), (bx, yc)], INK, 1)
    p.text((nx + 22, yc - 13), "LED")
    p.text((nx + 16, yc - 26), "+", fill=GREY)

    # The USB cable to the reader
    cy = header_row_y(29, top)
    p.box(hx + 150, cy - 20, hx + 272, cy + 58, fill=(235, 235, 235))
    p.text((hx + 156, cy - 8), "USB port")
    p.text((hx + 156, cy + 6), "(Zero 2 W: the", fill=GREY)
    p.text((hx + 156, cy + 18), "port marked USB,", fill=GREY)
    p.text((hx + 156, cy + 30), "with an OTG", fill=GREY)
    p.text((hx + 156, cy + 42), "adapter)", fill=GREY)
    return cy


def draw_pico(p, cable_y):
    px0, px1 = 700, 800
    top = 140
    p.text((620, 40), "READER: RASPBERRY PI PICO + MFRC522 PADS  (one SPI bus, one CS per pad)")
    p.text((620, 56), "Pico pins named GPn, physical pin number in brackets", fill=GREY)
    rows = [(s, gp, pin, c) for s, gp, pin, c in PICO_BUS]
    rows += [(f"CS{i + 1}", gp, pin, c) for i, (gp, pin, c) in enumerate(PICO_CS)]
    bottom = top + 20 * (len(rows) - 1)
    extras_top = bottom + 56
    extras_bottom = extras_top + 20 * (len(PICO_EXTRAS) - 1)
    p.box(px0, top - 40, px1, extras_bottom + 14, fill=(40, 110, 60), outline=INK)
    p.text((px0 + 6, top - 24), "PICO", fill=WHITE)
    p.d.rectangle((px0 + 40, top - 40, px0 + 62, top - 32), fill=LIGHT, outline=INK)

    # The cable from the Pi panel into the Pico's micro-USB socket (top of the board)
    p.line([(572, cable_y + 19), (604, cable_y + 19), (604, 84), (px0 + 51, 84),
            (px0 + 51, top - 42)], GREY, 5)
    p.text((612, 74), "micro-USB data cable", fill=GREY)

    lane_gap, readers_x = 14, 1070
    lane_x = {}
    # Lanes in reverse order of the Pico pins, so the Pico-side wires never cross each other.
    for i, (signal, gp, pin, colour) in enumerate(rows):
        lane_x[signal] = readers_x - 24 - lane_gap * i
    pin_y = {}
    for i, (signal, gp, pin, colour) in enumerate(rows):
        y = top + 20 * i
        pin_y[signal] = y
        name = f"GP{gp}" if gp is not None else ("3V3 OUT" if signal == "3V3" else "GND")
        p.chip(px1 + 2, y, f"{name} ({pin})", colour, 78)
        p.text((px1 + 86, y), signal, fill=colour if colour not in (YELLOW,) else ORANGE)
        p.line([(px1 + 120, y), (lane_x[signal], y)], colour)
        p.dot((lane_x[signal], y), colour)

    # The readers, stacked; each pin taps its lane.
    pitch, rtop = 13, 80
    box_h = pitch * len(RC522_PINS) + 30
    gap = 12
    last_tap = {}
    for r in range(len(PICO_CS)):
        y0 = rtop + r * (box_h + gap)
        p.box(readers_x, y0, readers_x + 150, y0 + box_h, fill=(30, 70, 150))
        p.text((readers_x + 60, y0 + 10), f"MFRC522", fill=WHITE)
        p.text((readers_x + 60, y0 + 24), f"pad {r + 1}", fill=WHITE)
        for k, pin_name in enumerate(RC522_PINS):
            y = y0 + 22 + k * pitch
            p.text((readers_x + 6, y), pin_name, fill=WHITE)
            signal = RC522_SIGNAL[pin_name]
            if signal is None:
                p.text((readers_x + 36, y), "(not used)", fill=LIGHT)
                continue
            if signal == "CS":
                signal = f"CS{r + 1}"
            colour = dict((s, c) for s, _, _, c in rows)[signal]
            x = lane_x[signal]
            p.line([(x, y), (readers_x, y)], colour)
            p.dot((x, y), colour)
            last_tap[signal] = max(last_tap.get(signal, 0), y)
    for signal, x in lane_x.items():
        colour = dict((s, c) for s, _, _, c in rows)[signal]
        p.line([(x, pin_y[signal]), (x, last_tap[signal])], colour)
    p.text((readers_x - 60, rtop + 4 * (box_h + gap) + 4), "2 players: pads 1-3 (CS4 unwired)")
    p.text((readers_x - 60, rtop + 4 * (box_h + gap) + 18), "4 players: pads 1-4")
    p.text((readers_x - 60, rtop + 4 * (box_h + gap) + 32), "10uF across 3.3V/GND", fill=GREY)
    p.text((readers_x - 60, rtop + 4 * (box_h + gap) + 46), "at every reader", fill=GREY)

    # Optional extras on the Pico (GP2-GP6 are on its left edge)
    p.text((px0 + 4, extras_top - 24), "optional", fill=WHITE)
    for i, (name, gp, pin, colour) in enumerate(PICO_EXTRAS):
        y = extras_top + 20 * i
        p.chip(px0 + 18, y, f"GP{gp} ({pin})", colour, 78)
        p.line([(px0 - 14, y), (px0 + 18, y)], colour)
        p.text((px0 - 18, y), name, anchor="r")
    p.text((612, extras_bottom + 32), "pad LEDs: each through 330R to GND")
    p.text((612, extras_bottom + 46), "beeper: 1k to a 2N3904's base, buzzer")
    p.text((612, extras_bottom + 60), "  from VBUS (pin 40), as on the Pi side")
    p.text((612, extras_bottom + 74), "service jumper: GP22 to GND while powering")
    p.text((612, extras_bottom + 88), "  up keeps Ctrl-C live for mpremote")


def draw():
    """The diagram as a PIL image (deterministic: same tables, same pixels)."""
    p = Pen()
    p.text((20, 16), "card-assistant wiring   (drawn by hardware/wiring.py from its pin tables;"
           " wire colours are only a guide)")
    p.line([(590, 36), (590, H - 10)], LIGHT, 1)
    cable_y = draw_pi(p)
    draw_pico(p, cable_y)
    return p.img.resize((W * SCALE, H * SCALE), Image.NEAREST)


def same_pixels(a, b):
    return a.size == b.size and a.convert("RGB").tobytes() == b.convert("RGB").tobytes()


def main(argv):
    img = draw()
    if "--check" in argv:
        if not PNG.exists() or not same_pixels(img, Image.open(PNG)):
            print(f"{PNG} is stale: run python hardware/wiring.py", file=sys.stderr)
            return 1
        print(f"{PNG} is up to date")
        return 0
    img.save(PNG, optimize=True)
    print(f"wrote {PNG} ({img.size[0]}x{img.size[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
