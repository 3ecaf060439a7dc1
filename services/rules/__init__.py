"""The Rules gRPC service: legal plays, notation, IDs and scores from ``pulvezar.rules``."""
