"""MFRC522 driver: find the one tag on a reader's antenna and read its UID.

Talks to the chip through ``bus.xfer(tx) -> rx`` (one SPI transaction with the
reader's chip-select held low), so the same code drives real silicon through
hw.py and the register model in tests/sim_mfrc522.py. Reads 4-, 7- and 10-byte
UIDs (cascade levels 1 to 3); NTAG213 stickers have 7 bytes.
A scan reports NONE, ONE (with the UID), MANY (two or more tags) or ERROR.
"""

# Registers (datasheet section 9.2)
COMMAND = 0x01
COM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_CONTROL = 0x14
TX_ASK = 0x15
CRC_RESULT_H = 0x21
CRC_RESULT_L = 0x22
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

# Commands
IDLE = 0x00
CALC_CRC = 0x03
TRANSCEIVE = 0x0C
SOFT_RESET = 0x0F

# ComIrqReg bits
RX_IRQ = 0x20
IDLE_IRQ = 0x10
ERR_IRQ = 0x02
TIMER_IRQ = 0x01
# ErrorReg bits
COLL_ERR = 0x08
BAD_FRAME = 0x17  # BufferOvfl | CRCErr | ParityErr | ProtocolErr

# ISO/IEC 14443-A
REQA = 0x26
HLTA = 0x50
SELECT_CL = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
SAK_MORE = 0x04

NONE, ONE, MANY, ERROR_ = "none", "one", "many", "error"
KNOWN_VERSIONS = (0x88, 0x90, 0x91, 0x92, 0xB2)
WAIT_POLLS = 200  # register reads before a command is given up as hung
TIMER_RELOAD = 40  # timer ticks of 25 us: 1.0 ms for a tag to answer


class Mfrc522:
    def __init__(self, bus):
        self.bus = bus
        self.errors = 0

    # --- register access: address byte is 0AAAAAA0 to write, 1AAAAAA0 to read
    def write(self, reg, *values):
        tx = bytearray(1 + len(values))
        tx[0] = (reg << 1) & 0x7E
        for i, v in enumerate(values):
            tx[i + 1] = v
        self.bus.xfer(tx)

    def read(self, reg, count=1):
        addr = 0x80 | ((reg << 1) & 0x7E)
        tx = bytearray([addr] * count + [0])
        return bytes(self.bus.xfer(tx)[1:])

    def reg(self, reg):
        return self.read(reg)[0]

    def set_bits(self, reg, mask):
        self.write(reg, self.reg(reg) | mask)

    def clear_bits(self, reg, mask):
        self.write(reg, self.reg(reg) & ~mask & 0xFF)

    # --- set-up
    def init(self):
        """Reset and configure; returns the chip version (0x00/0xFF: no reader wired)."""
        self.write(COMMAND, SOFT_RESET)
        for _ in range(WAIT_POLLS):
            if not self.reg(COMMAND) & 0x10:  # PowerDown bit clears when reset is done
                break
        # Timer: starts when a frame has been sent (TAuto), 13.56 MHz / (2 * 169 + 1)
        # = 40 kHz ticks, 41 of them: an empty pad answers "nobody" after 1.0 ms; a tag's
        # longest answer here (anticollision, 5 bytes) ends 0.55 ms after the frame
        # (TIMING.md), so an empty pad costs little of each round.
        self.write(T_MODE, 0x80)
        self.write(T_PRESCALER, 0xA9)
        self.write(T_RELOAD_H, 0)
        self.write(T_RELOAD_L, TIMER_RELOAD)
        self.write(TX_ASK, 0x40)  # 100 % ASK, as ISO 14443-A wants
        self.write(MODE, 0x3D)  # CRC preset 0x6363
        self.antenna(False)
        return self.version()

    def version(self):
        return self.reg(VERSION)

    def antenna(self, on):
        """Field on or off; off resets every tag in the field, so the next scan sees them afresh."""
        if on:
            self.set_bits(TX_CONTROL, 0x03)
        else:
            self.clear_bits(TX_CONTROL, 0x03)

    # --- talking to tags
    def transceive(self, data, last_bits=0):
        """Send ``data``; return ``(status, bytes, bits in last byte)``; status ONE, NONE (silence), MANY (collision) or ERROR_."""
        self.write(COMMAND, IDLE)
        self.write(COM_IRQ, 0x7F)  # clear every interrupt flag
        self.write(FIFO_LEVEL, 0x80)  # flush
        self.write(FIFO_DATA, *data)
        self.write(BIT_FRAMING, last_bits & 7)
        self.write(COMMAND, TRANSCEIVE)
        self.set_bits(BIT_FRAMING, 0x80)  # StartSend
        irq = 0
        for _ in range(WAIT_POLLS):
            irq = self.reg(COM_IRQ)
            if irq & (RX_IRQ | IDLE_IRQ | TIMER_IRQ):
                break
        self.clear_bits(BIT_FRAMING, 0x80)
        if not irq & (RX_IRQ | IDLE_IRQ | TIMER_IRQ):
            self.errors += 1
            return ERROR_, b"", 0
        if irq & TIMER_IRQ and not irq & RX_IRQ:
            return NONE, b"", 0
        err = self.reg(ERROR)
        if err & COLL_ERR:
            return MANY, b"", 0
        if err & BAD_FRAME:
            self.errors += 1
            return ERROR_, b"", 0
        n = self.reg(FIFO_LEVEL) & 0x7F
        bits = self.reg(CONTROL) & 0x07
        return ONE, (self.read(FIFO_DATA, n) if n else b""), bits

    def crc_a(self, data):
        """ISO 14443-A CRC computed by the chip's own coprocessor, low byte first."""
        self.write(COMMAND, IDLE)
        self.write(DIV_IRQ, 0x04)
        self.write(FIFO_LEVEL, 0x80)
        self.write(FIFO_DATA, *data)
        self.write(COMMAND, CALC_CRC)
        for _ in range(WAIT_POLLS):
            if self.reg(DIV_IRQ) & 0x04:
                break
        else:
            self.errors += 1
            return None
        self.write(COMMAND, IDLE)
        return bytes([self.reg(CRC_RESULT_L), self.reg(CRC_RESULT_H)])

    def request(self):
        """REQA: is any idle tag in the field?"""
        status, data, bits = self.transceive(bytes([REQA]), last_bits=7)
        if status == ONE and len(data) != 2:
            self.errors += 1
            return ERROR_
        return status

    def select(self):
        """Anticollision and select, cascade level by level; ``(status, uid bytes)``."""
        uid = b""
        for level in SELECT_CL:
            status, part, _ = self.transceive(bytes([level, 0x20]))
            if status != ONE:
                return status, b""
            if len(part) != 5 or part[0] ^ part[1] ^ part[2] ^ part[3] != part[4]:
                self.errors += 1
                return ERROR_, b""
            frame_ = bytes([level, 0x70]) + part
            crc = self.crc_a(frame_)
            if crc is None:
                return ERROR_, b""
            status, sak, _ = self.transceive(frame_ + crc)
            if status != ONE:
                return status, b""
            if len(sak) != 3 or self.crc_a(sak[:1]) != sak[1:]:
                self.errors += 1
                return ERROR_, b""
            if sak[0] & SAK_MORE:
                if part[0] != CASCADE_TAG:
                    self.errors += 1
                    return ERROR_, b""
                uid += part[1:4]
            else:
                return ONE, uid + part[:4]
        self.errors += 1
        return ERROR_, b""

    def halt(self):
        crc = self.crc_a(bytes([HLTA, 0]))
        if crc is not None:
            self.transceive(bytes([HLTA, 0]) + crc)  # a halted tag stays silent: no answer expected

    def scan(self):
        """One look at the field (antenna already on): ``(NONE|ONE|MANY|ERROR_, uid hex)``.

        A tag is selected and halted, then REQA is sent again: any answer means
        a second tag lies on the same pad, even one whose UID never collided.
        """
        status = self.request()
        if status != ONE:
            return status, ""
        status, uid = self.select()
        if status != ONE:
            return status, ""
        self.halt()
        again = self.request()
        if again == ONE or again == MANY:
            return MANY, ""
        return ONE, "".join("%02X" % b for b in uid)
