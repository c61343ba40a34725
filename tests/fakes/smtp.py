"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives.

``SMTPServer(starttls=True)`` offers STARTTLS, ``implicit_tls=True``
speaks SMTPS, ``login=(user, password)`` requires that AUTH LOGIN/PLAIN
(only over TLS, as real relays do). ``tls_files(tmp_path)`` makes a CA
and a certificate for 127.0.0.1 signed by it (the client verifies the
server against that CA). Addresses in ``refuse`` get ``550`` at RCPT.
"""
import datetime
import email
import email.policy
import ipaddress
import socket
import ssl
import threading
import time

from aiosmtpd import controller
from aiosmtpd import smtp as aiosmtpd_smtp


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def tls_files(directory):
    """(ca_file, cert_file, key_file): a CA and a server cert for 127.0.0.1
    and localhost, written under ``directory``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                            'reserve test CA')])
    ca_cert = (x509.CertificateBuilder()
               .subject_name(ca_name).issuer_name(ca_name)
               .public_key(ca_key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=True, path_length=0),
                              critical=True)
               .add_extension(x509.KeyUsage(
                   digital_signature=True, key_cert_sign=True, crl_sign=True,
                   content_commitment=False, key_encipherment=False,
                   data_encipherment=False, key_agreement=False,
                   encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(
                   ca_key.public_key()), critical=False)
               .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                        '127.0.0.1')]))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName('localhost'),
                x509.IPAddress(ipaddress.ip_address('127.0.0.1'))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                           critical=True)
            .add_extension(x509.ExtendedKeyUsage(
                [x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = [directory / 'ca.pem', directory / 'cert.pem',
             directory / 'key.pem']
    paths[0].write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    return tuple(str(p) for p in paths)


class Received:
    """One accepted message: the envelope and the parsed mail."""

    def __init__(self, envelope, session, tls):
        self.mail_from = envelope.mail_from
        self.rcpt_tos = list(envelope.rcpt_tos)
        self.raw = envelope.original_content or envelope.content
        self.message = email.message_from_bytes(
            self.raw, policy=email.policy.default)
        self.tls = tls

    @property
    def subject(self):
        # A long subject is folded onto the next line; unfolded it may keep
        # the folding white space in front.
        return str(self.message['Subject']).strip()

    @property
    def body(self):
        # As a mail client shows it: lines end in \n, not the wire's CRLF.
        return self.message.get_content().replace('\r\n', '\n')


class _Handler:
    def __init__(self, server):
        self.server = server

    async def handle_RCPT(self, server, session, envelope, address,
                          rcpt_options):
        if address in self.server.refuse:
            return '550 5.1.1 <%s>: no such mailbox' % address
        envelope.rcpt_tos.append(address)
        return '250 OK'

    async def handle_DATA(self, server, session, envelope):
        with self.server.lock:
            tls = (session.ssl is not None or server.transport
                   .get_extra_info('ssl_object') is not None)
            self.server.received.append(Received(envelope, session, tls))
            self.server.arrived.notify_all()
        return '250 Message accepted for delivery'


class SMTPServer:
    def __init__(self, starttls=False, implicit_tls=False, login=None,
                 tls=None, refuse=()):
        self.login = login
        self.refuse = set(refuse)
        self.received = []
        self.logins = []
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        self.port = _free_port()
        self.host = '127.0.0.1'
        kwargs = {}
        context = None
        if starttls or implicit_tls:
            _, cert_file, key_file = tls
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(cert_file, key_file)
        if starttls:
            kwargs.update(tls_context=context, require_starttls=True)
        if implicit_tls:
            kwargs['ssl_context'] = context
        if login:
            kwargs.update(authenticator=self._authenticate,
                          auth_required=True,
                          auth_require_tls=True)
        self._controller = controller.Controller(
            _Handler(self), hostname=self.host, port=self.port,
            ident='reserve-test-smtp', **kwargs)

    def _authenticate(self, server, session, envelope, mechanism, auth_data):
        login = auth_data.login.decode()
        password = auth_data.password.decode()
        self.logins.append((mechanism, login))
        ok = (login, password) == tuple(self.login)
        return aiosmtpd_smtp.AuthResult(success=ok, handled=False)

    def start(self):
        self._controller.start()
        self._running = True
        return self

    def stop(self):
        if getattr(self, '_running', False):
            self._running = False
            self._controller.stop()

    def wait_for(self, count, timeout=10):
        """The received messages once there are ``count`` of them."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        'got %d mails, not %d: %s' % (
                            len(self.received), count,
                            [m.subject for m in self.received]))
                self.arrived.wait(left)
            return list(self.received)
