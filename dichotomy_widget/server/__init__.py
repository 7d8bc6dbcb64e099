"""The server process: ``dichotomy serve``, the hub service, voila's launch, kernel bounds and pool."""
