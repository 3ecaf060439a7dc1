"""Type stub of the compiled feature module (_features.c)."""

NF: int

def features(boards: bytes, /) -> bytes: ...
