"""pulvezar's version (one place; ``pulvezar.__version__``), importable from every layer."""

__version__ = "0.1.0"
