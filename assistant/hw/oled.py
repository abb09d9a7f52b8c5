"""OLED drivers that send only what changed: luma.oled's ssd1306 and sh1106, partial.

luma's drivers send the whole frame on every ``display()``: 1,034 bytes on I2C
for an SSD1306 (~23 ms at 400 kHz), although a tap usually changes one card,
a name or a number. These subclasses keep the controller's display RAM as it
was last written (1,024 bytes, page by page) and write only the changed
windows, through luma's own serial interface and with the controller's own
addressing commands:

- **SSD1306**, horizontal addressing (which luma's init selects): a window is
  ``COLUMNADDR c0 c1`` and ``PAGEADDR p0 p1`` then its bytes, column by column and page by
  page. Each command is sent only when its range differs from the one in the controller
  (after a window's last byte the pointer is back at its start, and either command puts it
  at the start of its new range): a window costs 10 bytes on the wire besides its data (a
  command transaction of address, control byte and six command bytes; a data transaction of
  address and control byte), 7 when only its columns change (the next run of the same pages),
  2 when it is the window already set.
- **SSD1306**, page addressing (``0x20 0x02``, datasheet 10.1.3), for changes that lie on one
  page: a run is ``0xB0|page, low nibble, 0x10|high nibble`` then its bytes, 7 bytes besides
  the data, 6 for the next run on the same page. Switching the mode costs its two command
  bytes, in the command transaction that goes anyway.
- **SH1106** (132 columns, page addressing only): runs as above, the column shifted by the
  panel's offset (2).

The writes are planned per frame to cost the fewest bytes: the pages are split into bands of
consecutive pages; a band is written as horizontal windows over the runs of the columns
changed in any of its pages, or (one page) as page-addressing runs; runs are joined where
the gap costs fewer bytes than another run (a small dynamic programme over the 8 pages and
the mode each band leaves set, counting every command byte as above). A full frame is sent
when that is cheaper, on the first frame, and after a write failed (the RAM and the
controller's mode and pointers are then unknown).

    from luma.core.interface.serial import i2c
    device = PartialSSD1306(i2c(port=1, address=0x3C))
    device.display(image)        # a mode-'1' 128x64 PIL image, as luma's own
    device.last_bytes            # I2C bytes that frame cost on the wire

``capture_i2c()`` is luma's ``i2c`` interface with a bus that records each
transaction instead of sending it (the benchmark and the tests read it).
"""
import time

from luma.core.interface.serial import i2c
from luma.oled.device import sh1106, ssd1306
from PIL import Image

from assistant.hw import timing

HORIZONTAL, PAGE = 0x00, 0x02  # SSD1306 addressing modes (command 0x20's argument)
WINDOW_COST = 10     # SSD1306: [addr, 0x00, 21 c0 c1 22 p0 p1] + [addr, 0x40, ...]
NEXT_RUN_COST = 7    # SSD1306, the same pages: [addr, 0x00, 21 c0 c1] + [addr, 0x40, ...]
PAGE_RUN_COST = 7    # SSD1306 page addressing: [addr, 0x00, B0|p lo hi] + [addr, 0x40, ...]
PAGE_NEXT_RUN_COST = 6  # ... the next run on that page: [addr, 0x00, lo hi] + [addr, 0x40, ...]
RUN_COST = 7         # SH1106:  [addr, 0x00, B0|p lo hi] + [addr, 0x40, ...]
SAME_PAGE_RUN_COST = 6  # SH1106, the same page: [addr, 0x00, lo hi] + [addr, 0x40, ...]
_REVERSE = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))


def page_bytes(image, width, pages):
    """The frame as the controller's RAM holds it: ``pages`` rows of ``width`` bytes, bit i of
    byte (page p, column x) the pixel (x, 8p + i)."""
    cols = image.transpose(Image.Transpose.TRANSPOSE).tobytes().translate(_REVERSE)
    return [cols[p::pages] for p in range(pages)]  # TRANSPOSE: row x holds column x, 8 bytes


class _Partial:
    """What both drivers share: the RAM as last written, the byte count, the fallback."""
    last_bytes = 0  # I2C bytes on the wire for the last display(), both transactions' overheads

    def display(self, image):
        assert image.mode == self.mode
        assert image.size == self.size
        started = time.perf_counter()
        new = page_bytes(self.preprocess(image), self._w, self._pages)
        old, self._ram = self._ram, None  # unknown until every write has gone through
        self.last_bytes = 0
        if old is None:
            self._full(new)
        else:
            self._changes(old, new)
        self._ram = new
        if timing.enabled:
            timing.log.info("OLED: %d bytes on I2C in %.1f ms", self.last_bytes,
                            (time.perf_counter() - started) * 1e3)

    def command(self, *cmd):
        super().command(*cmd)
        self.last_bytes += 2 + len(cmd)

    def data(self, data):
        super().data(data)
        self.last_bytes += 2 + len(data)


class PartialSSD1306(_Partial, ssd1306):
    """luma's ssd1306 (128x64), writing only the changed windows; see the module's text."""

    def __init__(self, serial_interface=None, width=128, height=64, rotate=0, **kwargs):
        self._ram = None
        self._mode = HORIZONTAL  # luma's init selects horizontal addressing
        self._window = None  # horizontal: (c0, c1, p0, p1) set, the pointer at its start
        self._pointer = None  # page addressing: (page, column) of the next byte
        super().__init__(serial_interface, width, height, rotate, **kwargs)

    def _write(self, new, op):
        mode, was, self._mode = self._mode, (self._window, self._pointer), None
        self._window = self._pointer = None  # unknown until the data has gone through
        cmd = [] if mode == op[0] else [self._const.MEMORYMODE, op[0]]
        if op[0] == HORIZONTAL:
            _, c0, c1, p0, p1 = op
            window = (c0 + self._colstart, c1 + self._colstart, p0, p1)
            was = was[0] if mode == HORIZONTAL else None
            if was is None or was[:2] != window[:2]:
                cmd += [self._const.COLUMNADDR, *window[:2]]
            if was is None or was[2:] != window[2:]:
                cmd += [self._const.PAGEADDR, p0, p1]
            self.command(*cmd) if cmd else None
            self.data(b"".join(new[p][c0:c1 + 1] for p in range(p0, p1 + 1)))
            self._window = window
        else:
            _, page, c0, c1 = op
            col = c0 + self._colstart
            was = was[1] if mode == PAGE else None
            if was is None or was[0] != page:
                cmd.append(0xB0 | page)
            if was is None or was[1] != col:
                cmd += [col & 0x0F, 0x10 | col >> 4]
            self.command(*cmd) if cmd else None
            self.data(new[page][c0:c1 + 1])
            end = col + c1 - c0 + 1
            self._pointer = (page, end) if end < self._w + self._colstart else None
        self._mode = op[0]

    def _full(self, new):
        self._write(new, (HORIZONTAL, 0, self._w - 1, 0, self._pages - 1))

    def _changes(self, old, new):
        cost, plan = _plan(old, new, self._mode)
        full = WINDOW_COST + self._w * self._pages + (2 if self._mode != HORIZONTAL else 0)
        if cost >= full:
            plan = [(HORIZONTAL, 0, self._w - 1, 0, self._pages - 1)]
        for op in plan:
            self._write(new, op)

    def cleanup(self):
        self._ram = None
        super().cleanup()


def _plan(old, new, mode=HORIZONTAL):
    """The writes covering every changed byte at the fewest bytes on the wire, and that cost:
    the pages split into bands of consecutive pages; a band is written as horizontal windows
    ``(HORIZONTAL, c0, c1, p0, p1)`` over the runs of the columns changed in any of its pages,
    or, a band of one page, as page-addressing runs ``(PAGE, page, c0, c1)``; switching the
    addressing mode costs its two command bytes. A dynamic programme over the bands and the
    mode each leaves set, starting from ``mode``."""
    pages = len(new)
    changed = [{x for x in range(len(n)) if o[x] != n[x]} if o != n else set()
               for o, n in zip(old, new)]
    best = [{mode: (0, [])}] + [{} for _ in range(pages)]

    def offer(j, m, cost, ops):
        if m not in best[j] or cost < best[j][m][0]:
            best[j][m] = (cost, ops)

    for j in range(1, pages + 1):
        cols = set()
        for i in range(j - 1, -1, -1):  # the band of pages i .. j-1
            cols |= changed[i]
            if not cols:
                for m, (cost, ops) in best[i].items():
                    offer(j, m, cost, ops)
                continue
            height, ordered = j - i, sorted(cols)
            runs = _runs(ordered, -(-NEXT_RUN_COST // height))
            h_cost = WINDOW_COST - NEXT_RUN_COST + sum(
                NEXT_RUN_COST + (c1 - c0 + 1) * height for c0, c1 in runs)
            h_ops = [(HORIZONTAL, c0, c1, i, j - 1) for c0, c1 in runs]
            for m, (cost, ops) in best[i].items():
                offer(j, HORIZONTAL, cost + h_cost + 2 * (m != HORIZONTAL), ops + h_ops)
            if height == 1:
                runs = _runs(ordered, PAGE_NEXT_RUN_COST)
                p_cost = PAGE_RUN_COST - PAGE_NEXT_RUN_COST + sum(
                    PAGE_NEXT_RUN_COST + c1 - c0 + 1 for c0, c1 in runs)
                p_ops = [(PAGE, i, c0, c1) for c0, c1 in runs]
                for m, (cost, ops) in best[i].items():
                    offer(j, PAGE, cost + p_cost + 2 * (m != PAGE), ops + p_ops)
    return min(best[pages].values(), key=lambda plan: plan[0])


def _runs(columns, join):
    """Sorted columns as runs ``(first, last)``, joined across gaps shorter than ``join``."""
    runs = []
    for x in columns:
        if runs and x - runs[-1][1] - 1 < join:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return runs


class PartialSH1106(_Partial, sh1106):
    """luma's sh1106 (128x64 shown of its 132x64 RAM), writing only the changed runs of each
    page with page addressing; see the module's text."""

    def __init__(self, serial_interface=None, width=128, height=64, rotate=0, **kwargs):
        self._ram = None
        self._pointer = None  # (page, RAM column) where the next data byte goes, if known
        super().__init__(serial_interface, width, height, rotate, **kwargs)

    def _write(self, new, page, c0, c1):
        col = c0 + self._page_address_offset
        was, self._pointer = self._pointer, None  # unknown until the data has gone through
        cmd = [] if was is not None and was[0] == page else [0xB0 | page]
        if was is None or was[1] != col:
            cmd += [col & 0x0F, 0x10 | col >> 4]
        if cmd:
            self.command(*cmd)
        self.data(new[page][c0:c1 + 1])
        self._pointer = (page, col + c1 - c0 + 1)  # the column goes up by one a byte

    def _full(self, new):
        for page in range(self._pages):
            self._write(new, page, 0, self._w - 1)

    def _changes(self, old, new):
        for page, (o, n) in enumerate(zip(old, new)):
            runs = _runs([x for x in range(len(n)) if o[x] != n[x]], SAME_PAGE_RUN_COST) if o != n else []
            if RUN_COST - SAME_PAGE_RUN_COST + sum(SAME_PAGE_RUN_COST + c1 - c0 + 1 for c0, c1 in runs) \
                    >= RUN_COST + self._w:
                runs = [(0, self._w - 1)]
            for c0, c1 in runs:
                self._write(new, page, c0, c1)

    def cleanup(self):
        self._ram = None
        super().cleanup()


DRIVERS = {"ssd1306": PartialSSD1306, "sh1106": PartialSH1106}


class capture_i2c(i2c):
    """luma's I2C interface whose bus keeps each transaction as ``(address, bytes)`` in
    ``transactions`` instead of sending it. Data goes out as on the box (luma's managed
    smbus2 path: one ``i2c_rdwr`` message per ``data()``, made by smbus2's ``i2c_msg``)."""

    def __init__(self, address=0x3C):
        import smbus2

        self.transactions = []
        super().__init__(bus=self, address=address)
        self._managed = True
        self._i2c_msg_write = smbus2.i2c_msg.write

    # the bus (smbus2.SMBus's methods that luma's i2c calls)
    def write_i2c_block_data(self, address, register, data):
        self.transactions.append((address, bytes([register, *data])))

    def i2c_rdwr(self, *messages):
        self.transactions.extend((m.addr, bytes(m)) for m in messages)

    def close(self):
        pass

    def wire_bytes(self):
        """Bytes on the wire so far: each transaction's address byte and its payload."""
        return sum(1 + len(payload) for _, payload in self.transactions)
