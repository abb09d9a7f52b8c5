import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest


@pytest.fixture
def factory():
    """gpiozero's own MockFactory for one test, closed after it."""
    from gpiozero.pins.mock import MockFactory
    f = MockFactory()
    yield f
    f.close()
