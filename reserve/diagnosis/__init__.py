"""Diagnosis: the layers of a reservation walked in order, read live
(the operators' playbook done by the lease manager), and the doctor that
walks every live one. See findings for the shape of a diagnosis."""
