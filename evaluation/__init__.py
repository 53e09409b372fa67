"""Offline evaluation of crag-fleet: the labelled question set and the harness that scores it."""
