"""Triggers of the Falcon provider (run in the triggerer; importable from the installed package)."""
