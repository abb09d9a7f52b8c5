"""A model of an OLED controller's display RAM, fed with the I2C transactions a driver wrote.

As the datasheets define it (Solomon Systech SSD1306 rev 1.1, sections 8.1.3 and 10.1.1-10.1.3
and the command table 9; Sino Wealth SH1106 V2.3, "Commands" 1-3 and 11):

- An I2C write is the slave address, then control bytes: Co (bit 7) = 0 means every byte that
  follows is a command (D/C# bit 6 = 0) or display data (D/C# = 1); Co = 1 means one byte
  follows and then another control byte.
- SSD1306: 128 columns x 8 pages. Page addressing (0x20 0x02): 0xB0-B7 sets the page, 0x00-0x0F
  and 0x10-0x1F the column's nibbles; after each data byte the column goes up by one and wraps
  to the start column on the same page. Horizontal (0x20 0x00) and vertical (0x20 0x01):
  0x21 c0 c1 and 0x22 p0 p1 set a window and put the pointer at its start; data fill it column
  first (horizontal) or page first (vertical) and wrap to the window's start.
- SH1106: 132 columns x 8 pages, page addressing only; the column goes up by one per data byte.
  Writing past column 131 is outside the datasheet: the model refuses it. Bytes that are not
  SH1106 commands (luma's shared init sends SSD1306's 0x20 and 0x8D) are kept in ``ignored``.

Bytes that are not commands of the controller raise ``ValueError`` (SSD1306), so a driver bug
cannot pass silently.
"""
SSD1306_ARGS = {0x20: 1, 0x21: 2, 0x22: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5, 0x2E: 0, 0x2F: 0,
                0x81: 1, 0x8D: 1, 0xA3: 2, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
                0xA0: 0, 0xA1: 0, 0xA4: 0, 0xA5: 0, 0xA6: 0, 0xA7: 0, 0xAE: 0, 0xAF: 0,
                0xC0: 0, 0xC8: 0, 0xE3: 0}
SH1106_ARGS = {0x81: 1, 0xA8: 1, 0xAD: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1,
               0xA0: 0, 0xA1: 0, 0xA4: 0, 0xA5: 0, 0xA6: 0, 0xA7: 0, 0xAE: 0, 0xAF: 0,
               0xC0: 0, 0xC8: 0, 0xE0: 0, 0xEE: 0, 0xE3: 0}


class Controller:
    """Display RAM of an SSD1306 (``columns=128``) or an SH1106 (``columns=132``)."""

    def __init__(self, kind, address=0x3C):
        self.kind, self.address = kind, address
        self.columns = 132 if kind == "sh1106" else 128
        self.ram = [bytearray(self.columns) for _ in range(8)]
        self.mode = 2  # both power up in page addressing (SSD1306 0x20 resets to 0x02)
        self.page, self.col, self.col_start = 0, 0, 0
        self.window = (0, 127, 0, 7)
        self.ignored = []
        self.modes_set = set()  # SSD1306: every addressing mode a 0x20 command selected
        self._cmd = []  # a command waiting for its arguments

    def feed(self, transactions):
        for address, payload in transactions:
            if address != self.address:
                continue
            i = 0
            while i < len(payload):
                control = payload[i]
                single, data = control & 0x80, control & 0x40
                rest = payload[i + 1:i + 2] if single else payload[i + 1:]
                for b in rest:
                    self._data(b) if data else self._command_byte(b)
                i += 1 + len(rest)

    # -- commands --------------------------------------------------------------------------
    def _command_byte(self, b):
        self._cmd.append(b)
        op = self._cmd[0]
        args = self._args(op)
        if args is None:
            self._cmd = []
            return
        if len(self._cmd) == 1 + args:
            cmd, self._cmd = self._cmd, []
            self._run(cmd)

    def _args(self, op):
        if op < 0x20 or 0x40 <= op <= 0x7F or 0xB0 <= op <= 0xB7:
            return 0
        if self.kind == "sh1106":
            if 0x30 <= op <= 0x33:
                return 0
            if op not in SH1106_ARGS:
                self.ignored.append(op)
                return None
            return SH1106_ARGS[op]
        if op not in SSD1306_ARGS:
            raise ValueError(f"0x{op:02X} is not an SSD1306 command")
        return SSD1306_ARGS[op]

    def _run(self, cmd):
        op = cmd[0]
        if op < 0x10:
            self.col = self.col_start = (self.col & 0xF0) | op
        elif op < 0x20:
            self.col = self.col_start = (self.col & 0x0F) | (op & 0x0F) << 4
        elif 0xB0 <= op <= 0xB7:
            self.page = op & 7
        elif self.kind == "ssd1306" and op == 0x20:
            self.mode = cmd[1] & 3
            self.modes_set.add(self.mode)
        elif self.kind == "ssd1306" and op == 0x21:
            self.window = (cmd[1] & 0x7F, cmd[2] & 0x7F) + self.window[2:]
            self.col = self.window[0]
        elif self.kind == "ssd1306" and op == 0x22:
            self.window = self.window[:2] + (cmd[1] & 7, cmd[2] & 7)
            self.page = self.window[2]

    # -- data ------------------------------------------------------------------------------
    def _data(self, b):
        if self.col >= self.columns:
            raise ValueError(f"data written past column {self.columns - 1}")
        self.ram[self.page][self.col] = b
        c0, c1, p0, p1 = self.window
        if self.mode == 2 or self.kind == "sh1106":
            self.col += 1
            if self.kind == "ssd1306" and self.col > 127:
                self.col = self.col_start
        elif self.mode == 0:  # horizontal
            self.col += 1
            if self.col > c1:
                self.col, self.page = c0, self.page + 1
                if self.page > p1:
                    self.page = p0
        else:  # vertical
            self.page += 1
            if self.page > p1:
                self.page, self.col = p0, self.col + 1
                if self.col > c1:
                    self.col = c0

    def image_bytes(self, first_column=0, width=128):
        """The RAM as a mode-'1' image's ``tobytes()``: pixel (x, y) is bit y % 8 of the byte at
        page y // 8, column ``first_column + x`` (luma's mapping)."""
        out = bytearray()
        for y in range(64):
            row = self.ram[y // 8]
            bit = 1 << (y % 8)
            for x0 in range(0, width, 8):
                byte = 0
                for k in range(8):
                    if row[first_column + x0 + k] & bit:
                        byte |= 0x80 >> k
                out.append(byte)
        return bytes(out)
