"""One module per resource: the JSON schemas of its request bodies (what
the API validates with) and its part of the OpenAPI document."""
