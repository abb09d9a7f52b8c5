"""card-assistant: a card-table box for towers and Twenty-Nine."""
