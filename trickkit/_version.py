"""The version of trickkit (one place, read by the package, saved states and records)."""

__version__ = "0.1.0"
