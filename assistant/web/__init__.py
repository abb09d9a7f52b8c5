"""The box's web page: a separate, read-only process (``card-assistant web``)."""
