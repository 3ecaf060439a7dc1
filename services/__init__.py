"""pulvezar's services: thin adapters over the engine library (see services/README.md)."""
