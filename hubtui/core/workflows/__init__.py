"""The workflows both front ends run, each one use case: it reads, decides and hands its front
what to show, asking the front only what a person must answer (:mod:`.why`: a ticket)."""
