"""The fence of the reservable nova hosts (fence.py): the flavor plugin
gives reserved flavors its specs, host enrollment and the manager's
periodic repair put hosts in and out of it."""
