"""Secrets kept out of what reserve prints, logs and sends.

* ``masked_url``: a database or transport URL with its password hidden,
  for banners and log lines;
* ``public_context``: what of a request context goes on the message bus
  (RPC casts and notifications, read by every daemon and listener of the
  shared topics): who and what, never a token.
"""
import urllib.parse

MASK = '***'

# Keys of oslo.context's to_dict() that are credentials. The daemons act
# with their own service credentials ([nova], [placement], [keystone]),
# never with the caller's token.
SECRET_CONTEXT_KEYS = ('auth_token', 'service_token', 'auth_token_info',
                       'user_auth_plugin', 'service_catalog')


def masked_url(url):
    """``url`` with the password of each of its hosts replaced by ***
    (a transport URL may name several: rabbit://u:p@h1,u:p@h2/)."""
    if not url or '@' not in url:
        return url
    parts = urllib.parse.urlsplit(url)
    hosts = []
    for host in parts.netloc.split(','):
        userinfo, at, address = host.rpartition('@')
        if at and ':' in userinfo:
            userinfo = userinfo.split(':', 1)[0] + ':' + MASK
        hosts.append(userinfo + at + address)
    return urllib.parse.urlunsplit(parts._replace(netloc=','.join(hosts)))


def public_context(values):
    """A copy of a context's to_dict() without its credentials."""
    return {key: value for key, value in values.items()
            if key not in SECRET_CONTEXT_KEYS}
