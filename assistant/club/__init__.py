"""Club night: many boxes, one live results board, over MQTT (docs/club.md).

* :mod:`.public` turns a box's journal lines into the messages the table may see
  (the journal writes them into its outbox in the action's own transaction);
* :mod:`.publisher` sends the outbox to the broker (paho-mqtt, QoS 1) from its own
  thread and deletes a row only when the broker has acknowledged it;
* :mod:`.board` subscribes, stores every event once, rebuilds each table's matches
  through the rules engines and serves the club's page (:mod:`.page`);
* :mod:`.broker` runs a private Mosquitto (tests, the club simulation, the bench);
* :mod:`.club_sim` is ``card-assistant sim --club``.

Topics, for club ``C`` and table ``T``: ``club/C/T/events`` (one message per journal
action, QoS 1), ``club/C/T/now`` (retained: the table now) and ``club/C/T/record/M``
(retained: match ``M``'s public events, sent again after every reconnect).
"""
