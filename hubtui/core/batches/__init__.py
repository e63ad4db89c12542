"""Changes in batches: wished, staged, previewed against a fresh read, run the one way, reverted.

Textual-free: the app's staged changes and ``hubtui apply``/``review``/``offboard``/``revert``
share it, and both run a previewed batch through one use case,
:func:`~hubtui.core.batches.applying.apply_batch` (not imported here: it keeps reviews).

- :mod:`~hubtui.core.batches.wanted`: what one person should have (a row), with the evidence it
  was decided on, and a step (a row decided: a change to send, or why not).
- :mod:`~hubtui.core.batches.staging`: the rows staged in the app until applied or dropped.
- :mod:`~hubtui.core.batches.projects`: a project's rows decided against a fresh read.
- :mod:`~hubtui.core.batches.hubs`: a hub's rows (invitation, hub role, removal from the hub).
- :mod:`~hubtui.core.batches.running`: sending and settling the unknown rows.
- :mod:`~hubtui.core.batches.applying`: the use case: send, settle, what is left, keep reviews.
- :mod:`~hubtui.core.batches.reverting`: the one revert rule.
- :mod:`~hubtui.core.batches.file`: the batch file (CSV) read and written.
"""

from hubtui.core.access import ROLES
from hubtui.core.batches.projects import (
    TYPE_THE_COUNT_ABOVE,
    Preview,
    decide,
    new_batch_id,
    on_its_own,
    prepare,
    read_lists,
)
from hubtui.core.batches.reverting import (
    RevertPlan,
    batches_in,
    batches_of,
    plan_revert,
    put_back_already,
    revert_of,
)
from hubtui.core.batches.running import Batch, Result
from hubtui.core.batches.staging import ChangeSet
from hubtui.core.batches.wanted import DecidedRow, Evidence, Intent, ListedAccess, Verdict, Wanted
from hubtui.core.changes.actions import Outcome

__all__ = [
    "ROLES",
    "TYPE_THE_COUNT_ABOVE",
    "Batch",
    "ChangeSet",
    "Outcome",
    "Evidence",
    "Intent",
    "Preview",
    "Result",
    "RevertPlan",
    "ListedAccess",
    "DecidedRow",
    "Verdict",
    "Wanted",
    "batches_in",
    "batches_of",
    "decide",
    "new_batch_id",
    "on_its_own",
    "plan_revert",
    "prepare",
    "put_back_already",
    "read_lists",
    "revert_of",
]
