"""User e-mails: allocated, start ("your reservation is ready"),
before_end (the instances will be DELETED) and end.

render builds a mail from the templates in reserve/notification/templates,
users finds the user's address in keystone, drivers deliver it (log or
smtp), mailer ties them together for the notification daemon.
"""
