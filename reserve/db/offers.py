"""Offers of the offer search (GET /v1/offers): windows a project may
book as is until they lapse.

Same conventions as reserve.db.api: every function takes a
RequestContext first and joins the transaction the caller may have open
on it.
"""
import datetime

from reserve.common import exception
from reserve.common import timeutils
from reserve.db import api as db_api
from reserve.db import models

# How long a lapsed offer is kept, so that booking it says it lapsed
# rather than that it does not exist; the search purges it after that.
KEPT_LAPSED = datetime.timedelta(hours=1)


def offers_create(context, rows, now):
    """Write the offers ``rows`` (dicts of the model's columns), after
    purging the offers that lapsed more than KEPT_LAPSED before ``now``:
    lapsed offers never pile up."""
    with db_api.writer.using(context) as session:
        (session.query(models.Offer)
         .filter(models.Offer.expires_at < now - KEPT_LAPSED)
         .delete(synchronize_session=False))
        offers = [models.Offer(**row) for row in rows]
        session.add_all(offers)
        session.flush()
        return offers


def offer_get(context, offer_id, project_id):
    """The offer ``offer_id`` of ``project_id``; OfferNotFound (404) for
    another project's as for a missing one."""
    with db_api.reader.using(context) as session:
        offer = (session.query(models.Offer)
                 .filter_by(id=offer_id, project_id=project_id).first())
        if offer is None:
            raise exception.OfferNotFound(id=offer_id)
        return offer


def check_open(offer, now, hold_seconds):
    """OfferUsed or OfferLapsed (409) unless ``offer`` can be booked at
    ``now``."""
    if offer.booking_id is not None:
        raise exception.OfferUsed(id=offer.id, booking_id=offer.booking_id)
    if offer.expires_at <= now:
        raise exception.OfferLapsed(
            id=offer.id, hold=hold_seconds,
            expires_at=timeutils.isoformat(offer.expires_at))


def offer_use(context, offer_id, booking_id, now, hold_seconds):
    """Mark the offer booked as ``booking_id``, in the caller's (the
    admission's) transaction: a compare-and-swap, so two bookings of one
    offer at the same instant make one booking, and the other is told
    (OfferUsed, or OfferLapsed when it lapsed meanwhile)."""
    with db_api.writer.using(context) as session:
        swapped = (session.query(models.Offer)
                   .filter(models.Offer.id == offer_id)
                   .filter(models.Offer.booking_id.is_(None))
                   .filter(models.Offer.expires_at > now)
                   .update({'booking_id': booking_id},
                           synchronize_session=False))
        if not swapped:
            offer = session.query(models.Offer).filter_by(
                id=offer_id).one()
            session.refresh(offer)
            check_open(offer, now, hold_seconds)
            raise exception.OfferNotFound(id=offer_id)
