"""The quota of the reserve API."""


class LimitsManager:
    """/v1/limits: a project's reservation quota and its usage."""

    path = '/v1/limits'

    def __init__(self, http):
        self.http = http

    def get(self, project_id=None):
        """{project_id, driver, resources: {name: {limit, in_use}}}"""
        return self.http.get(self.path, {'project_id': project_id})['limits']
