"""Everything that touches the Pico: SPI bus and chip-selects, LEDs, buzzer, USB serial, clock.

The one module that imports ``machine``; the rest of the firmware runs under
CPython too. Pin numbers are the table in hardware/reader.md.
"""
import sys
import time

import machine
import micropython
import select
from machine import Pin, SPI

SPI_ID, SCK, MOSI, MISO = 0, 18, 19, 16
CS_PINS = (17, 13, 14, 15)  # one chip-select per reader, pad 1..4
RST_PIN = 20  # all readers' NRSTPD, held high
LED_PINS = (2, 3, 4, 5)  # one LED per pad
BUZZER_PIN = 6
SERVICE_PIN = 22  # jumper to GND at boot: Ctrl-C stays live, for mpremote

ticks_ms = time.ticks_ms
ticks_diff = time.ticks_diff


class Bus:
    """One reader's view of the shared SPI bus: its chip-select is low for exactly one transfer."""

    def __init__(self, spi, cs):
        self.spi = spi
        self.cs = Pin(cs, Pin.OUT, value=1)

    def xfer(self, tx):
        rx = bytearray(len(tx))
        self.cs(0)
        try:
            self.spi.write_readinto(tx, rx)
        finally:
            self.cs(1)
        return rx


def buses(count):
    Pin(RST_PIN, Pin.OUT, value=1)
    spi = SPI(SPI_ID, baudrate=4_000_000, polarity=0, phase=0, sck=Pin(SCK), mosi=Pin(MOSI), miso=Pin(MISO))
    return [Bus(spi, cs) for cs in CS_PINS[:count]]


def boot_id():
    """Four hex digits that differ from boot to boot, so the host can tell a restart."""
    import os
    return "%02X%02X" % tuple(os.urandom(2))


def write(data):
    sys.stdout.write(data.decode())


class Serial:
    """Non-blocking reads of whatever the host sent over USB serial."""

    def __init__(self):
        if Pin(SERVICE_PIN, Pin.IN, Pin.PULL_UP).value():
            micropython.kbd_intr(-1)  # a stray 0x03 from the host must not stop the firmware
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self):
        data = bytearray()
        while len(data) < 64 and self.poller.poll(0):
            data += sys.stdin.buffer.read(1)
        return data


class Feedback:
    """Pad LEDs and the buzzer; timed effects end in ``service``, so nothing here blocks."""

    def __init__(self, count):
        self.leds = [Pin(p, Pin.OUT, value=0) for p in LED_PINS[:count]]
        self.buzzer = Pin(BUZZER_PIN, Pin.OUT, value=0)
        self.blinking = set()
        self.beep_until = None

    def __call__(self, pad, what, value):
        if what == "beep":
            self.buzzer(1)
            self.beep_until = time.ticks_add(ticks_ms(), value)
            return
        led = self.leds[pad - 1]
        self.blinking.discard(pad)
        if value == "blink":
            self.blinking.add(pad)
        else:
            led(1 if value == "on" else 0)

    def service(self, now):
        if self.beep_until is not None and ticks_diff(now, self.beep_until) >= 0:
            self.buzzer(0)
            self.beep_until = None
        phase = (now // 250) & 1
        for pad in self.blinking:
            self.leds[pad - 1](phase)


def watchdog():
    """Reset the Pico if the main loop ever hangs (a wedged SPI read, say)."""
    return machine.WDT(timeout=4000).feed
