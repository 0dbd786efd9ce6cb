"""Sensors of the Falcon provider."""
