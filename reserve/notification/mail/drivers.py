"""How a rendered mail leaves: drivers of reserve.notification.email_drivers.

A driver is a class built without arguments (it reads its options from
``[email]``) whose ``send(message)`` delivers one
``email.message.EmailMessage`` or raises.
"""
import abc
import smtplib
import ssl

from oslo_config import cfg
from oslo_log import log as logging
from stevedore import driver as stevedore_driver

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

NAMESPACE = 'reserve.notification.email_drivers'


class DriverError(Exception):
    """The configured driver cannot be loaded or is misconfigured."""


class EmailDriver(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def send(self, message):
        """Deliver ``message`` (an EmailMessage); raise if it cannot."""


class LogDriver(EmailDriver):
    """Writes the mail to the log and sends nothing (the default)."""

    def send(self, message):
        LOG.info('E-mail not sent ([email]driver = log):\n%s',
                 message.as_string())


class SMTPDriver(EmailDriver):
    """Hands each mail to an SMTP relay, one connection per mail."""

    def __init__(self):
        opts = CONF.email
        if opts.smtp_ssl and opts.smtp_starttls:
            raise DriverError('[email]smtp_ssl and smtp_starttls are '
                              'exclusive: SMTPS (465) is TLS from the first '
                              'byte, STARTTLS (587) upgrades a plain '
                              'connection')
        if opts.smtp_password and not opts.smtp_username:
            raise DriverError('[email]smtp_password is set without '
                              'smtp_username')
        self.host = opts.smtp_host
        self.port = opts.smtp_port
        self.timeout = opts.smtp_timeout
        self.starttls = opts.smtp_starttls
        self.use_ssl = opts.smtp_ssl
        self.username = opts.smtp_username
        self.password = opts.smtp_password
        self.ca_file = opts.smtp_ca_file

    def _tls_context(self):
        return ssl.create_default_context(cafile=self.ca_file)

    def _connect(self):
        if self.use_ssl:
            return smtplib.SMTP_SSL(self.host, self.port,
                                    timeout=self.timeout,
                                    context=self._tls_context())
        return smtplib.SMTP(self.host, self.port, timeout=self.timeout)

    def send(self, message):
        with self._connect() as smtp:
            if self.starttls:
                smtp.starttls(context=self._tls_context())
            if self.username:
                smtp.login(self.username, self.password or '')
            refused = smtp.send_message(message)
        if refused:
            # Some recipients were accepted; name the others.
            raise smtplib.SMTPRecipientsRefused(refused)


def _reraise(_manager, _entrypoint, exc):
    raise exc


def load(name=None):
    """The driver named ``name`` (default ``[email]driver``), built."""
    name = name or CONF.email.driver
    try:
        manager = stevedore_driver.DriverManager(
            NAMESPACE, name, invoke_on_load=True,
            on_load_failure_callback=_reraise)
    except DriverError:
        raise
    except Exception as exc:
        raise DriverError('cannot load e-mail driver %r (namespace %s): %s'
                          % (name, NAMESPACE, exc))
    return manager.driver
