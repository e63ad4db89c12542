"""Changes to a person's access, one at a time: each kind of change, its log, and how it is sent.

- :mod:`~hubtui.core.changes.kinds`: each kind of change, one class: its request, the evidence
  checked before it leaves, how an unknown outcome is settled, how it is put back.
- :mod:`~hubtui.core.changes.actions` and :mod:`~hubtui.core.clock`: leaves (what a
  change does and how it ended, in the log's words; the time as the log writes it).
- :mod:`~hubtui.core.changes.record`: one change as its log line holds it, written and read.
- :mod:`~hubtui.core.changes.log`: the write-ahead change log: a ``pending`` line written and
  flushed before a request leaves, its outcome after, and an unknown add's check.
- :mod:`~hubtui.core.changes.history`: the changes logged for a server, read back.
- :mod:`~hubtui.core.changes.sending`: the one way a change is sent: the account read again by its
  Id, the evidence checked, the request planned, never retried unless idempotent in effect, an
  ambiguous answer left unknown for a read back to settle.

Batches (:mod:`hubtui.core.batches`) build on it; it never imports them.
"""
