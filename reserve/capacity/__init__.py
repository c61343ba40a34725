"""The one capacity model: hosts, claims and their maths."""
