"""workings: a claims ledger for published figures."""

__version__ = "0.1.0"
