"""The booking desk: the flavor catalogue, the calendar, admission and
quotas behind /v1/flavors, /v1/maintenance-windows, /v1/limits and
/v1/reservations."""
