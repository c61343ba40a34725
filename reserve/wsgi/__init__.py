"""WSGI entry points (uwsgi, gunicorn, mod_wsgi)."""
