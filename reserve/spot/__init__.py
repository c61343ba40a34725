"""Spot flavors: idle fenced capacity lent, in GPUs, to the projects that
opt in, and taken back when it is needed (budget: how much a host may
lend now; lending: the manager's task that sets it and reclaims)."""
