"""The publisher: sends the journal's outbox to the broker, QoS 1, from its own thread.

The rules loop only writes rows (in the action's transaction); this thread reads
them in order, publishes them with paho-mqtt (QoS 1, at most ``WINDOW`` in flight)
and deletes a row only when the broker acknowledges it (``on_publish`` with the
message id). With the Wi-Fi down, rows wait in the journal; on every reconnect
the thread sends every row still there (the board drops duplicates by id), the
retained "table now", and the records of the latest matches (a broker killed
before it delivered what it acknowledged is made whole by them).

Whether the box is there: on connecting it sets the broker's *will* (retained
``club/CLUB/TABLE/status``, ``"online": false``), which the broker sends when the box
goes without a goodbye (killed, switched off, out of Wi-Fi: after the 10 s keepalive
and half as much again), then says ``"online": true`` itself; a box stopped in order
says ``false`` before it leaves. The board shows a table whose box is gone as such,
not as a match being played.

paho's network loop is run here (``loop()``), so its callbacks run on this thread
only; a fresh client is made for each connection, so paho never queues a message
behind our back.
"""
import logging
import re
import threading
import time
from urllib.parse import unquote, urlsplit

from assistant.club.public import VERSION, dumps, topic
from assistant.repeated import Repeated

log = logging.getLogger("assistant.club")
WINDOW = 50        # messages in flight (paho's max_inflight_messages)
RETRY = (0.2, 5.0)  # seconds between connection attempts: first, most
STEADY = 10.0      # seconds connected: a connection the broker closed sooner does not reset the backoff
TAKEN = 3          # connections in a row the broker closed that soon: another box has this table's name
ALIVE = 30.0       # seconds between a connected box's "online" statuses: the board's sign of life
TRIES = 3          # connections a row the broker refuses is sent on, in a run: then it waits for the next start
IDLE_WAIT = 1.0    # seconds an idle connection sleeps between paho loops (10 a second made a club box the
                   # busiest thing on an idle Pi; the journal's commit ends the wait at once)
SENDABLE = re.compile(rb"club/[A-Za-z0-9_-]{1,40}/[A-Za-z0-9_-]{1,40}/(events|record/[0-9]{1,9})")  # as public.py writes


def broker_address(url):
    """``(tls, host, port, username, password)`` of ``mqtt://[user:pass@]host[:port]``. A
    ValueError repeats the URL without its password (its words reach a log or a terminal)."""
    parts = urlsplit(url)
    said = url if not parts.password else url.replace(f":{parts.password}@", ":PASSWORD@", 1)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ValueError(f"broker {said!r}: write mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    tls = parts.scheme == "mqtts"
    try:
        port = parts.port
    except ValueError:  # urllib's words were "Port could not be cast to integer value as 'abc'"
        raise ValueError(f"broker {said!r}: its port is not a number from 1 to 65535") from None
    return (tls, parts.hostname, port or (8883 if tls else 1883),
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None)


def cafile_problem(path):
    """Why ``path`` holds no CA certificate a TLS connection can use, or None (never its text)."""
    import ssl
    import os

    from assistant.textfile import not_a_file, what_is_at
    try:
        if what_is_at(path) == "other":  # a pipe held the box's start for ever, /dev/zero was read to its end
            return not_a_file(os.stat(path).st_mode)
        ssl.create_default_context(cafile=path)
    except FileNotFoundError:
        return "does not exist"
    except IsADirectoryError:
        return "is a folder, not a file"
    except PermissionError:
        return "cannot be read by this user"
    except ssl.SSLError:  # a key, a text file, a DER certificate: no PEM certificate in it
        return "holds no CA certificate (a PEM file: -----BEGIN CERTIFICATE-----)"
    except (OSError, ValueError) as e:
        return f"cannot be read ({getattr(e, 'strerror', None) or type(e).__name__})"
    return None


def make_client(client_id, username, password, tls, cafile=None, clean=True, v5=False):
    """A paho client; ``v5``: MQTT 5 (a fresh session each connection), whose acknowledgement says
    when the broker refuses a message (3.1.1 acknowledges it and drops it)."""
    import paho.mqtt.client as mqtt
    if v5:
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    else:
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                             protocol=mqtt.MQTTv311, clean_session=clean)
    if username:
        client.username_pw_set(username, password)
    if tls:
        client.tls_set(ca_certs=cafile or None)
    return client


class Publisher(threading.Thread):
    """One box's link to the broker. ``outbox`` is the journal's :class:`ClubOutbox`."""

    def __init__(self, journal, outbox, broker, username=None, password=None, cafile=None):
        super().__init__(name=f"club-{outbox.table}", daemon=True)
        self.journal, self.outbox = journal, outbox
        tls, self.host, self.port, user, pw = broker_address(broker)
        self.tls, self.cafile = tls, cafile
        self.username = username or user or outbox.table
        self.password = password if password else pw
        self.stopping = threading.Event()
        self.offline = threading.Event()  # set: act as if the Wi-Fi were down (the club simulation)
        self.connected = threading.Event()
        self.acked = 0
        self.connections = 0
        self._client = None
        # once when it starts and once when connected again: a broker out of reach is the Wi-Fi's
        # ordinary weather (info); one that refuses the box is a mistake in its [club] (a warning)
        self.down = {"reach": Repeated(log, logging.INFO), "refused": Repeated(log)}
        # two boxes with one [club] table (an SD card copied to a second box) have one client id: the
        # broker closes the older connection as each connects, for ever; said once, and the backoff
        # keeps them to a connection each 5 s, not three a second with the records sent anew each time
        self.taken = Repeated(log)
        self.denied = Repeated(log)  # messages the broker refuses: said once a run
        self.damaged = Repeated(log)  # outbox rows that are no message (damaged in the file): said once a run
        self.refused = 0
        self.tries = {}       # outbox row id -> connections on which the broker refused it (this run)
        self.set_aside = set()  # rows not sent again this run: refused TRIES times, or of an old table name
        self.dropped = 0  # outbox rows deleted as no club message
        self.lasted = None  # seconds the last connection lasted, when the broker closed it

    # --- control (any thread)
    def stop(self, timeout=5):
        self.stopping.set()
        self.outbox.wake.set()  # ends an idle wait at once
        if self.ident is not None:  # a publisher stopped before its start (sim --club stopped early)
            self.join(timeout)

    def drop(self):
        """Break the connection now, as a Wi-Fi drop would (the thread reconnects)."""
        client = self._client
        sock = client.socket() if client is not None else None
        if sock is not None:
            try:
                import socket
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def idle(self):
        """Nothing left to send: the outbox is empty."""
        return not self.journal.outbox_raw(0, 1)

    # --- the thread
    def run(self):
        delay = RETRY[0]
        short = 0  # connections in a row the broker closed within STEADY seconds
        while not self.stopping.is_set():
            if self.offline.is_set():
                self.stopping.wait(0.05)
                continue
            try:
                self.lasted = None
                if self._session() and (self.lasted is None or self.lasted >= STEADY):
                    delay, short = RETRY[0], 0  # it was connected: the next attempt is soon, the backoff anew
                elif self.lasted is not None:
                    short += 1
                    if short >= TAKEN:
                        self.taken.happened("taken", (
                            f"club: the broker closed table {self.outbox.table}'s connection {short} times in a row "
                            f"within {STEADY:g} s: is another box's [club] table {self.outbox.table} too (one "
                            f"name, one client id: the broker keeps one), or is the Wi-Fi at its edge or the "
                            f"broker restarting? (the broker does not say which); trying again every "
                            f"{RETRY[1]:g} s at most"))
            except (OSError, ValueError) as e:
                self.down["reach"].happened("reach", f"club: broker {self.host}:{self.port} not reached "
                                            f"({type(e).__name__}); trying again")
            except Exception:  # never let a broker problem stop the box
                log.exception("club: publisher error; trying again")
            self.connected.clear()
            self.stopping.wait(delay)
            delay = min(delay * 2, RETRY[1])

    def _session(self):
        client = make_client(f"box-{self.outbox.club}-{self.outbox.table}", self.username,
                             self.password, self.tls, self.cafile, v5=True)
        client.max_inflight_messages_set(WINDOW)
        inflight = {}   # mid -> (outbox row id (None: a retained message, not in the outbox), its topic)
        acked = []
        state = {"up": False, "down": False}

        def on_connect(c, userdata, flags, reason, properties):
            state["up"] = not reason.is_failure
            if reason.is_failure:  # a wrong password or ACL: logged once, retried with the backoff
                self.down["refused"].happened("refused", f"club: the broker refused table {self.outbox.table} "
                                              f"({reason}); trying again")
                state["down"] = state["refused"] = True

        def on_publish(c, userdata, mid, reason, properties):
            row, tpc = inflight.pop(mid, (None, ""))
            if reason.is_failure:  # refused (its ACL: another table's or club's topics): kept in the journal
                self.refused += 1
                self._denied(row, tpc, reason)
            elif row is not None:
                acked.append(row)

        def on_disconnect(c, userdata, flags, reason, properties):
            state["down"] = True

        client.on_connect, client.on_publish, client.on_disconnect = on_connect, on_publish, on_disconnect
        client.will_set(self._status_topic(), self._status(False), qos=1, retain=True)
        self._client = client
        try:
            client.connect(self.host, self.port, keepalive=10)
            deadline = time.monotonic() + 10
            while not state["up"] and not state["down"]:
                client.loop(0.05)
                if self.stopping.is_set():
                    return False
                if time.monotonic() > deadline:
                    self._no_broker("sent no answer in 10 s")
                    return False
            if state["down"]:
                if not state.get("refused"):
                    self._no_broker("closed the connection without an answer")
                return False
            self.connected.set()
            self.connections += 1
            up = time.monotonic()
            for why, repeated in self.down.items():
                repeated.ended(why, f"club: table {self.outbox.table} connected to the broker "
                                     f"{self.host}:{self.port}")
            self._resend(client, inflight)
            cursor, alive = 0, time.monotonic()
            while not state["down"] and not self.stopping.is_set() and not self.offline.is_set():
                if time.monotonic() - alive >= ALIVE:  # still here: a retained "online" alone proves
                    alive = time.monotonic()           # nothing after a power cut took the broker too
                    self._publish(client, inflight, self._status_topic(), self._status(True))
                room = WINDOW - len(inflight)
                if room > 0:
                    for rid, tpc, payload in self.journal.outbox_raw(cursor, room):
                        cursor = rid
                        if rid in self.set_aside:
                            continue
                        if not SENDABLE.fullmatch(tpc or b""):
                            self._drop(rid)
                            continue
                        tpc = tpc.decode()
                        self._publish(client, inflight, tpc, payload, rid, retain="/record/" in tpc)
                if self.outbox.now is not None and self._now_sent is not self.outbox.now:
                    self._now_sent = self.outbox.now
                    self._publish(client, inflight, topic(self.outbox.club, self.outbox.table, "now"),
                                  self._now_sent)
                if inflight:
                    client.loop(0.02)
                else:  # nothing in flight: wait for the journal's next commit (or a second: paho's
                    self.outbox.wake.wait(IDLE_WAIT)  # loop then keeps the keep-alive and reads the broker)
                    self.outbox.wake.clear()
                    client.loop(0)
                if self.taken.active and time.monotonic() - up >= STEADY:
                    self.taken.ended("taken", f"club: table {self.outbox.table} stays connected again")
                if acked:
                    self.journal.outbox_done(acked)
                    self.acked += len(acked)
                    acked.clear()
            if self.stopping.is_set() and not state["down"]:
                self._goodbye(client, inflight, state)
            elif state["down"] and not self.stopping.is_set():  # the broker, or the network, closed it
                self.lasted = time.monotonic() - up
            return True
        finally:
            self._client = None
            try:
                if not self.offline.is_set():  # a Wi-Fi that is gone (the simulation's) says no goodbye
                    client.disconnect()
            except Exception:
                pass
            try:
                client.socket() and client.socket().close()
            except Exception:
                pass

    _now_sent = None

    @staticmethod
    def _publish(client, inflight, tpc, payload, row=None, retain=True):
        """Publish ``payload`` on ``tpc`` at QoS 1 and keep it in flight as (outbox row id, None for
        a message not in the outbox, and its topic) until the broker answers."""
        info = client.publish(tpc, payload, qos=1, retain=retain)
        inflight[info.mid] = (row, tpc)
        return info

    def _no_broker(self, what):
        """A connection taken that brings no MQTT answer (the board's page at [club] broker, a
        firewall that lets nothing through): said once, as the broker out of reach is; before, the
        box said nothing at all while it published nothing, all night."""
        self.down["refused"].happened("refused", f"club: {self.host}:{self.port} {what}: no MQTT broker answers "
                                             f"there (check [club] broker: the broker's host and port, "
                                             f"mqtts:// for TLS); trying again")

    def _drop(self, rid):
        """An outbox row whose topic is none the box writes (a damaged file: a bit flipped into a
        '#' or '+', a NUL, bytes that are no UTF-8) can never be sent: paho refused it with an error
        that was taken for the broker out of reach, and every row after it waited for ever. It is
        deleted, said once; its event is in the journal, and in its match's record."""
        self.journal.outbox_done([rid])
        self.dropped += 1
        self.damaged.happened("damaged", f"club: table {self.outbox.table}'s outbox holds a row that is no club "
                                         f"message (damaged in the journal's file): deleted; the other rows go "
                                         f"on, and the match's record, sent at its end, carries its event")

    def _status_topic(self):
        return topic(self.outbox.club, self.outbox.table, "status")

    def _status(self, online):
        """Whether the box is there; with its clock's time when it says so (the board compares it with
        its own to read the box's times of play on one clock: assistant/club/clocks.py) and, when it is,
        every how many seconds it says so again (``alive``: an older box, which says it only as it
        connects, sends neither, and the board does not take its silence between matches as gone)."""
        status = {"v": VERSION, "table": self.outbox.table, "online": online, "t": round(time.time(), 4)}
        if online:  # how often it says so: the board takes a box silent for three times that as gone
            status["alive"] = ALIVE
        return dumps(self.outbox.named(status))

    def _goodbye(self, client, inflight, state, wait=1.0):
        """A box stopped in order says it is leaving (a clean disconnect drops the will), and waits
        up to ``wait`` seconds for the broker to take it."""
        info = self._publish(client, inflight, self._status_topic(), self._status(False))
        deadline = time.monotonic() + wait
        while info.mid in inflight and not state["down"] and time.monotonic() < deadline:
            client.loop(0.02)

    def _resend(self, client, inflight):
        """After a (re)connect: the box is there (retained, in the will's place), the latest
        matches' records, retained, and the table now."""
        self._now_sent = None
        self._publish(client, inflight, self._status_topic(), self._status(True))
        for mid in self.outbox.recent_matches():
            payload = self.outbox.record(mid)
            if payload is not None:
                self._publish(client, inflight, topic(self.outbox.club, self.outbox.table, f"record/{mid}"),
                              payload)

    def _denied(self, row, tpc, reason):
        """The broker refused the message of outbox row ``row`` (None: a retained one) sent on ``tpc``:
        said once a run, naming the table and club *of its topic*. A row the box kept under its old
        table name (renamed in [club] while rows waited) can never be sent by the new name's account:
        it is set aside at once; any other is sent again on the next ``TRIES`` connections (the
        broker's ACL may be mended meanwhile), then set aside. Set aside: kept in the journal, not
        sent again until the box's next start."""
        parts = tpc.split("/")
        club, table = (parts[1], parts[2]) if len(parts) > 3 else (self.outbox.club, self.outbox.table)
        renamed = (club, table) != (self.outbox.club, self.outbox.table)
        if row is not None:
            self.tries[row] = self.tries.get(row, 0) + 1
            if renamed or self.tries[row] >= TRIES:
                self.set_aside.add(row)
        if renamed:
            self.denied.happened(("renamed", club, table), (
                f"club: the broker refuses the messages this box kept as table {table} of club {club}, before it "
                f"was renamed {self.outbox.table} of club {self.outbox.club} ({reason}): the account "
                f"{self.username} may not write club/{club}/{table}/. They stay in the journal and are not sent "
                f"again until the box starts again; to send them, start it once with [club] table = \"{table}\", "
                f"club = \"{club}\" and that table's password"))
        else:
            self.denied.happened(("denied", club, table), (
                f"club: the broker refuses table {table}'s messages ({reason}): may its account {self.username} "
                f"write club/{club}/{table}/? (check [club] table, club and username); they wait in the journal, "
                f"sent again on the next {TRIES - 1} connections, then at the box's next start"))
