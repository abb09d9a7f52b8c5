"""Boot entry on the Pico: wire app.App to hw.py and run the polling loop forever."""
import time

import app
import config
import hw
import mfrc522
from proto import LineBuffer


def main():
    readers = [mfrc522.Mfrc522(bus) for bus in hw.buses(config.PADS)]
    feedback = hw.Feedback(config.PADS)
    fw = app.App(readers, hw.write, feedback, config.PRESENT_AFTER, config.GONE_AFTER,
                 config.HEARTBEAT_MS, hw.boot_id(), hw.ticks_diff, config.POWERUP_US, time.sleep_us)
    fw.start(hw.ticks_ms())
    serial, lines, feed = hw.Serial(), LineBuffer(), hw.watchdog()
    while True:
        try:
            fw.poll_next()
            for line in lines.feed(serial.read()):
                fw.on_line(line)
            now = hw.ticks_ms()
            fw.tick(now)
            feedback.service(now)
        except Exception as e:  # keep reading cards; the host logs the fault
            fw.send("ERR - internal %s" % type(e).__name__)
        feed()


main()
