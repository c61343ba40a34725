"""What the API answers: the representation of each resource, one module
per resource."""
