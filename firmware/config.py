"""Tunables of the reader firmware; edit on the Pico to suit the table."""

PADS = 4  # readers wired, 1 to 4; pad numbers on the wire are 1..PADS
PRESENT_AFTER = 3  # consecutive polls reading a tag before it counts as arrived
GONE_AFTER = 4  # consecutive polls missing it before it counts as removed
HEARTBEAT_MS = 1000  # an HB line this often, so the host can tell a dead link from a quiet table
POWERUP_US = 5000  # field on -> first REQA: the longest a tag may take to power up (TIMING.md)
