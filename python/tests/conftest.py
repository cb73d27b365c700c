"""Shared tools for the suite."""

import threading
import time
from typing import Dict, List, Optional

import pytest

import ptc


class Clock:
    """Records how many handlers run at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.active = 0
        self.peak = 0

    def enter(self) -> None:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)

    def leave(self) -> None:
        with self.lock:
            self.active -= 1


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def weather() -> ptc.Tool:
    @ptc.tool(name="Weather")
    def weather(city: str, unit: str = "C") -> Dict[str, object]:
        """Gives the weather of a city. Temperatures in `unit`."""
        return {"city": city, "temp": 24 if city == "Rome" else 11, "unit": unit}

    return weather


@pytest.fixture
def sleeper(clock: Clock) -> ptc.Tool:
    @ptc.tool(name="Sleep")
    def sleep(ms: int, tag: Optional[str] = None) -> List[object]:
        """Sleeps `ms` milliseconds and echoes its tag."""
        clock.enter()
        try:
            time.sleep(ms / 1000)
        finally:
            clock.leave()
        return [ms, tag]

    return sleep
