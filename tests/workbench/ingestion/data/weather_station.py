"""A small weather-station module: the code-chunking tests index it and search it."""

import math
import statistics

FREEZING_C = 0.0


def celsius_to_fahrenheit(celsius):
    """Convert a temperature from degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


class Station:
    """A station that records readings and summarises them."""

    unit = "celsius"

    def __init__(self, name):
        self.name = name
        self.readings = []

    def record(self, temperature):
        """Store one temperature reading."""
        self.readings.append(temperature)

    # frost matters to farmers: count the nights below zero
    def frost_nights(self):
        """Count readings at or below the freezing point."""
        return sum(1 for reading in self.readings if reading <= FREEZING_C)

    class Calibration:
        """Offsets that correct a miscalibrated thermometer."""

        def apply(self, reading, offset):
            return reading + offset


def dew_point(temperature, humidity):
    """Estimate the dew point with the Magnus formula from temperature and relative humidity."""
    a, b = 17.27, 237.7
    gamma = a * temperature / (b + temperature) + math.log(humidity / 100.0)
    return b * gamma / (a - gamma)


def median_reading(readings):
    return statistics.median(readings)
