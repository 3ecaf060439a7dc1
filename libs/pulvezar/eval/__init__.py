"""Position evaluation: bear-off databases (and, later, the neural evaluators)."""
