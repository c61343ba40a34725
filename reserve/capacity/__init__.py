"""The one capacity model: hosts, allocations and their maths."""
