"""What the resource managers of the reserve API (v1) have in common."""
from reserveclient.v1 import httpclient


class Manager:
    """The calls of one resource."""

    path = None
    key = None
    collection_key = None
    what = None

    def __init__(self, http):
        self.http = http

    def _item_path(self, ref):
        return '%s/%s' % (self.path, httpclient.quote(ref))

    def _list(self, params=None, limit=None, marker=None):
        return self.http.list(self.path, self.collection_key, params,
                              limit=limit, marker=marker)

    def list(self, limit=None, marker=None, **filters):
        """Every item (following the next links), filtered."""
        return self._list(filters, limit=limit, marker=marker)

    def get(self, ref):
        return self.http.get(self._item_path(ref))[self.key]

    def delete(self, ref):
        self.http.delete(self._item_path(ref))

    def _create(self, body):
        return self.http.post(self.path, body)[self.key]

    def _update(self, ref, body):
        return self.http.patch(self._item_path(ref), body)[self.key]

    def find(self, ref):
        """The item whose id (or, where the API has names, name) is ref."""
        return self.get(ref)
