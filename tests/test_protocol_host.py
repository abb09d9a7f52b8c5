"""Host parsing of the reader protocol against the shared vectors (issue 4, item 2).

The same firmware/protocol_vectors.json is checked by the firmware's own
framing code under MicroPython and CPython (tests/test_firmware_*.py).
"""
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from assistant.hw import protocol
from assistant.hw.protocol import BadLine

VECTORS = json.loads((Path(__file__).resolve().parent.parent / "firmware" / "protocol_vectors.json").read_text())


def raw(v):
    return bytes.fromhex(v["hex"]) if "hex" in v else v["line"].encode()


@pytest.mark.parametrize("v", VECTORS["crc16"], ids=lambda v: v["ascii"] or "empty")
def test_crc16_vector(v):
    assert f"{protocol.crc16(v['ascii'].encode()):04X}" == v["crc"]


@pytest.mark.parametrize("v", VECTORS["frames"], ids=lambda v: v["body"].split()[0])
def test_frame_vector_builds_and_parses(v):
    assert protocol.frame(v["seq"], v["body"]) == (v["line"] + "\n").encode()
    msg = protocol.parse((v["line"] + "\r\n").encode())
    assert (msg.seq, [msg.kind, *msg.fields]) == (v["seq"], v["body"].split())


@pytest.mark.parametrize("v", VECTORS["bad_frames"] + VECTORS["bad_messages"], ids=lambda v: v["reason"])
def test_bad_line_refused_with_its_reason(v):
    with pytest.raises(BadLine) as e:
        protocol.parse(raw(v))
    assert e.value.reason == v["reason"]


@pytest.mark.parametrize("v", [c for c in VECTORS["commands"] if not c["reply"][0].startswith("ERR -")],
                         ids=lambda v: v["line"][:12])
def test_host_frames_commands_as_in_the_vectors(v):
    seq, _, rest = v["line"].partition(" ")
    assert protocol.frame(int(seq), rest.rpartition("*")[0]) == (v["line"] + "\n").encode()


def test_state_line_values():
    assert protocol.parse(protocol.frame(3, "STATE 2 -")).uid == ""
    assert protocol.parse(protocol.frame(3, "STATE 2 MANY")).uid == protocol.MANY
    assert protocol.parse(protocol.frame(3, "STATE 2 DEADBEEF")).uid == "DEADBEEF"


def test_hello_info():
    msg = protocol.parse(protocol.frame(0, "HELLO card-reader 1.0.0 boot=3FA2 pads=4 present=3 gone=4"))
    assert protocol.hello_info(msg) == {"version": "1.0.0", "boot": "3FA2", "pads": "4", "present": "3", "gone": "4"}


@given(st.binary(max_size=120))
def test_any_bytes_parse_or_are_refused_never_crash(data):
    try:
        protocol.parse(data)
    except BadLine as e:
        assert e.reason


@given(st.integers(0, 65535), st.sampled_from(["ARRIVE 1 04A1B2C3D4E5F6", "HB 3FA2 9", "CLEAR 4"]),
       st.integers(0, 30), st.integers(1, 255))
def test_any_single_byte_change_is_caught(seq, body, where, new):
    line = bytearray(protocol.frame(seq, body).rstrip(b"\n"))
    where %= len(line)
    if line[where] == new or new == 10:
        return
    line[where] = new
    with pytest.raises(BadLine):
        protocol.parse(bytes(line))


@pytest.mark.parametrize("v", VECTORS["grammar_frames"]["bad"], ids=lambda v: v["reason"])
def test_a_frame_outside_the_grammar_is_refused(v):
    """Issue 10, item 3: leading zeros, tabs, repeated spaces and white space outside the CRC
    were accepted; the parser now takes exactly PROTOCOL.md's grammar."""
    with pytest.raises(BadLine) as e:
        protocol.parse(raw(v))
    assert e.value.reason == v["reason"]


@pytest.mark.parametrize("line", VECTORS["grammar_frames"]["good"])
def test_a_carriage_return_before_the_newline_is_allowed(line):
    assert protocol.parse((line + "\n").encode()).kind == "HB"


@given(st.integers(0, 65535), st.sampled_from(["ARRIVE 1 04A1B2C3D4E5F6", "HB 3FA2 9", "CLEAR 4"]),
       st.integers(0, 30), st.sampled_from([b" ", b"\t", b"0"]))
def test_any_added_space_or_zero_is_caught_even_under_a_good_crc(seq, body, where, extra):
    """The CRC is recomputed over the changed bytes, so only the grammar can refuse them."""
    head = protocol.frame(seq, body).rstrip(b"\n").rpartition(b"*")[0]
    where = 0 if extra == b"0" else where % (len(head) + 1)  # a zero: a leading zero on the seq
    changed = head[:where] + extra + head[where:]
    with pytest.raises(BadLine):
        protocol.parse(b"%s*%04X" % (changed, protocol.crc16(changed)))
