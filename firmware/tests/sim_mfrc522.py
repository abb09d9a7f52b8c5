"""A register-level model of the MFRC522 and of ISO 14443-A tags, for tests.

``SimReader.xfer`` decodes SPI transactions exactly as the chip does, so the
driver in ../mfrc522.py is exercised through its real register traffic. Tags
follow the ISO 14443-A state machine (IDLE, READY per cascade level, ACTIVE,
HALT); the field going off resets them. Runs under CPython and MicroPython.

With a ``Clock`` (shared by every reader on the bus) the model also keeps time,
with the figures of ../TIMING.md: each SPI transfer costs MicroPython's own
time per register access plus its bits at the SPI rate; a transceive completes
(its interrupt bits appear) only after the frame's time on air and the tag's
answer, or after the timer the driver programmed; a tag answers only once it
has had the field for its power-up time and only while it lies on the pad.
Without a clock, everything happens at once, as before.
"""

COMMAND, COM_IRQ, DIV_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x04, 0x05, 0x06, 0x09, 0x0A
CONTROL, BIT_FRAMING, COLL, TX_CONTROL = 0x0C, 0x0D, 0x0E, 0x14
CRC_H, CRC_L, VERSION = 0x21, 0x22, 0x37
T_MODE, T_PRESCALER, T_RELOAD_H, T_RELOAD_L = 0x2A, 0x2B, 0x2C, 0x2D
FC_HZ = 13560000  # the carrier: ISO/IEC 14443-2
BIT_US = 128 * 1000000 / FC_HZ  # one bit at 106 kbit/s: 9.44 us
FDT_US = 1236 * 1000000 / FC_HZ  # PICC frame delay time after a frame ending in 1 (ISO 14443-3 6.2.1.1): 91 us


class Clock:
    """Simulated time in microseconds, for every reader on one SPI bus.

    ``access_us``: MicroPython's own cost of one register access on the Pico (the driver's
    method call, the transfer buffer, two chip-select pin calls); ``spi_hz``: the bus rate
    (hw.py: 4 MHz). ``sleep_us`` and ``ticks_ms`` stand in for MicroPython's ``time``."""

    def __init__(self, spi_hz=4000000, access_us=40):
        self.us = 0.0
        self.spi_hz = spi_hz
        self.access_us = access_us

    def transfer(self, nbytes):
        self.us += self.access_us + nbytes * 8 * 1000000 / self.spi_hz

    def sleep_us(self, us):
        self.us += us

    def ticks_ms(self):
        return int(self.us // 1000)


def air_us(nbytes, bits=0):
    """A frame on air at 106 kbit/s: start bit, 9 bits a byte (parity), end of frame."""
    if bits:  # a short frame (REQA, WUPA): start, 7 bits, end
        return (bits + 2) * BIT_US
    return (nbytes * 9 + 2) * BIT_US
IDLE_S, READY_S, ACTIVE_S, HALT_S = "idle", "ready", "active", "halt"


def crc_a(data):
    crc = 0x6363
    for b in data:
        b ^= crc & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = (crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)
    return bytes([crc & 0xFF, (crc >> 8) & 0xFF])


class SimTag:
    """A tag with a 4-, 7- or 10-byte UID; ``answers`` is a repeating pattern of
    whether it answers when woken (a tag at the edge of the field drops out)."""

    def __init__(self, uid_hex, answers=(True,), powerup_us=0, laid_us=None, lifted_us=None):
        self.uid = bytes(int(uid_hex[i:i + 2], 16) for i in range(0, len(uid_hex), 2))
        self.answers = answers
        self.asked = 0
        self.powerup_us = powerup_us  # field time before it can answer (ISO 14443-3: up to 5 ms)
        self.laid_us, self.lifted_us = laid_us, lifted_us  # on the pad from .. until (clock time)
        self.reset()

    def on_pad(self, now):
        return (self.laid_us is None or now >= self.laid_us) and (self.lifted_us is None or now < self.lifted_us)

    def reset(self):
        self.state, self.level = IDLE_S, 0

    def cascade(self, level):
        """The 4 UID bytes this tag sends at cascade ``level`` (0-based), with CT where needed."""
        u = self.uid
        if len(u) == 4:
            return u
        if len(u) == 7:
            return bytes([0x88]) + u[:3] if level == 0 else u[3:7]
        return (bytes([0x88]) + u[:3], bytes([0x88]) + u[3:6], u[6:10])[level]

    def levels(self):
        return {4: 1, 7: 2, 10: 3}[len(self.uid)]

    def receive(self, frame, bits):
        """The tag's answer to one frame, or None for silence."""
        if bits == 7 and len(frame) == 1 and frame[0] in (0x26, 0x52):
            if not (self.state == IDLE_S or (frame[0] == 0x52 and self.state == HALT_S)):
                return None
            ok = self.answers[self.asked % len(self.answers)]
            self.asked += 1
            if ok:
                self.state, self.level = READY_S, 0
                return bytes([0x44, 0x00])
            return None
        if len(frame) >= 2 and frame[0] == 0x50 and frame[1] == 0 and self.state == ACTIVE_S:
            self.state = HALT_S
            return None
        if self.state != READY_S or len(frame) < 2 or frame[0] != (0x93, 0x95, 0x97)[self.level]:
            return None
        part = self.cascade(self.level)
        bcc = part[0] ^ part[1] ^ part[2] ^ part[3]
        if frame[1] == 0x20 and len(frame) == 2:
            return part + bytes([bcc])
        if frame[1] == 0x70 and len(frame) == 9 and crc_a(frame[:7]) == frame[7:]:
            if frame[2:7] != part + bytes([bcc]):
                self.state = IDLE_S  # not chosen: drops out until the next REQA
                return None
            more = self.level + 1 < self.levels()
            if more:
                self.level += 1
            else:
                self.state = ACTIVE_S
            sak = bytes([0x04 if more else 0x00])
            return sak + crc_a(sak)
        return None


class SimReader:
    """One MFRC522 on the SPI bus. ``tags`` is the list of tags on its pad (edit it freely)."""

    def __init__(self, version=0x92, tags=None, clock=None):
        self.regs = bytearray(64)
        self.regs[VERSION] = version
        self.fifo = bytearray()
        self.tags = tags if tags is not None else []
        self.transactions = 0
        self.field_on_polls = 0  # transceives sent while the field was on
        self.clock = clock
        self.field_since = 0.0  # clock time the field was switched on
        self.done_at = 0.0  # clock time the transceive under way completes
        self.pending_irq = 0  # ComIrqReg bits it sets then

    def now(self):
        return self.clock.us if self.clock is not None else 0.0

    def field(self):
        return self.regs[TX_CONTROL] & 0x03 == 0x03

    # --- SPI: first byte is the address, the rest data (write) or repeated addresses (read)
    def xfer(self, tx):
        self.transactions += 1
        if self.clock is not None:
            self.clock.transfer(len(tx))
        rx = bytearray(len(tx))
        addr = tx[0]
        reg = (addr >> 1) & 0x3F
        if addr & 0x80:
            for i in range(1, len(tx)):
                rx[i - 1 + 1] = self.read_reg(reg)
                reg = (tx[i] >> 1) & 0x3F
        else:
            for v in tx[1:]:
                self.write_reg(reg, v)
        return bytes(rx)

    def read_reg(self, reg):
        if self.pending_irq and self.now() >= self.done_at:
            self.regs[COM_IRQ] |= self.pending_irq
            self.pending_irq = 0
        if reg == FIFO_DATA:
            if not self.fifo:
                return 0
            v = self.fifo[0]
            self.fifo = self.fifo[1:]
            return v
        if reg == FIFO_LEVEL:
            return len(self.fifo)
        return self.regs[reg]

    def write_reg(self, reg, v):
        if reg == FIFO_DATA:
            self.fifo.append(v)
        elif reg == FIFO_LEVEL:
            if v & 0x80:
                self.fifo = bytearray()
        elif reg in (COM_IRQ, DIV_IRQ):  # bit 7 set: set the masked bits; clear: clear them
            self.regs[reg] = (self.regs[reg] | (v & 0x7F)) if v & 0x80 else (self.regs[reg] & ~v & 0x7F)
        elif reg == COMMAND:
            self.regs[COMMAND] = v & 0x0F
            self.command(v & 0x0F)
        elif reg == TX_CONTROL:
            was = self.field()
            self.regs[reg] = v
            if was and not self.field():
                for t in self.tags:
                    t.reset()
            elif self.field() and not was:
                self.field_since = self.now()
        elif reg == BIT_FRAMING:
            self.regs[reg] = v
            if v & 0x80 and self.regs[COMMAND] == 0x0C:
                self.transceive()
        else:
            self.regs[reg] = v

    def command(self, cmd):
        if cmd == 0x0F:  # SoftReset
            version = self.regs[VERSION]
            self.regs = bytearray(64)
            self.regs[VERSION] = version
            self.fifo = bytearray()
        elif cmd == 0x03:  # CalcCRC
            crc = crc_a(bytes(self.fifo))
            self.fifo = bytearray()
            self.regs[CRC_L], self.regs[CRC_H] = crc[0], crc[1]
            self.regs[DIV_IRQ] |= 0x04
            self.regs[COMMAND] = 0

    def timeout_us(self):
        """The timer the driver programmed (TAuto: it starts when the frame has been sent)."""
        prescaler = (self.regs[T_MODE] & 0x0F) << 8 | self.regs[T_PRESCALER]
        reload = self.regs[T_RELOAD_H] << 8 | self.regs[T_RELOAD_L]
        return (2 * prescaler + 1) * (reload + 1) * 1000000 / FC_HZ

    def _complete(self, irq, after_us):
        if self.clock is None:
            self.regs[COM_IRQ] |= irq
        else:
            self.pending_irq, self.done_at = irq, self.now() + after_us

    def transceive(self):
        frame, bits = bytes(self.fifo), self.regs[BIT_FRAMING] & 7
        self.fifo = bytearray()
        self.regs[ERROR] = 0
        answers = []
        sent = air_us(len(frame), bits)
        if self.field():
            self.field_on_polls += 1
            now = self.now()
            for t in self.tags:
                if not t.on_pad(now):
                    t.reset()
                    continue
                powered = now - max(self.field_since, t.laid_us or 0.0)
                if powered < t.powerup_us:
                    continue
                a = t.receive(frame, bits)
                if a is not None:
                    answers.append(a)
        if not answers:
            self._complete(0x01, sent + self.timeout_us())  # TimerIRq: nobody answered
            return
        merged = bytearray(max(len(a) for a in answers))
        coll_bit = None
        for i in range(len(merged)):
            for a in answers:
                merged[i] |= a[i] if i < len(a) else 0
            if coll_bit is None:
                for a in answers:
                    b = a[i] if i < len(a) else 0
                    diff = b ^ answers[0][i] if i < len(answers[0]) else b
                    if diff:
                        low = diff & -diff
                        coll_bit = i * 8 + len(bin(low)) - 3
                        break
        if coll_bit is not None:
            self.regs[ERROR] |= 0x08
            self.regs[COLL] = (coll_bit + 1) & 0x1F
            self.regs[COM_IRQ] |= 0x02
        self.fifo = merged
        self.regs[CONTROL] = 0
        self._complete(0x30 | (self.regs[COM_IRQ] & 0x02), sent + FDT_US + air_us(len(merged)))  # RxIRq | IdleIRq
