"""The batch engine and the change log as the front ends use them: every name a front needs of
:mod:`hubtui.core.batches` and :mod:`hubtui.core.changes`, offered here and imported from its module
only when first asked for (as :mod:`hubtui.lazy` offers a package's parts), so a front reaches the
engine through the workflows and pays for what it uses, no more."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hubtui.lazy import names_from

if TYPE_CHECKING:
    from hubtui.core.batches import (
        ROLES,
        TYPE_THE_COUNT_ABOVE,
        Batch,
        ChangeSet,
        DecidedRow,
        Intent,
        ListedAccess,
        Outcome,
        Preview,
        Result,
        Verdict,
        Wanted,
        batches_in,
        batches_of,
        prepare,
        revert_of,
    )
    from hubtui.core.batches.applying import (
        SETTLING,
        Applied,
    )
    from hubtui.core.batches.file import (
        BATCH_FILE_BYTES,
        FILE_COLUMNS,
        LIMITED_WORDS,
        MADE_ON_COLUMNS,
        USERS_CSV_COLUMNS,
        BatchFileError,
        FileRow,
        MadeOn,
        read_batch_file,
        users_csv_cells,
    )
    from hubtui.core.batches.file_rows import (
        RowOfFile,
        rows_of_preview,
        write_results,
    )
    from hubtui.core.changes.actions import (
        Action,
    )
    from hubtui.core.changes.history import (
        changes_logged,
        last_invitation,
    )
    from hubtui.core.changes.kinds import (
        kind_of,
    )
    from hubtui.core.changes.log import (
        ChangeLog,
        ChangeLogError,
    )
    from hubtui.core.changes.operator import (
        who_words,
    )
    from hubtui.core.changes.record import (
        Change,
    )
    from hubtui.core.changes.sending import (
        ChangedSinceRead,
        EarlierAddUnknown,
        Sent,
        plan,
    )

_EXPORTS: dict[str, str] = {
    "Batch": "hubtui.core.batches",
    "ChangeSet": "hubtui.core.batches",
    "DecidedRow": "hubtui.core.batches",
    "Intent": "hubtui.core.batches",
    "ListedAccess": "hubtui.core.batches",
    "Outcome": "hubtui.core.batches",
    "Preview": "hubtui.core.batches",
    "ROLES": "hubtui.core.batches",
    "Result": "hubtui.core.batches",
    "TYPE_THE_COUNT_ABOVE": "hubtui.core.batches",
    "Verdict": "hubtui.core.batches",
    "Wanted": "hubtui.core.batches",
    "batches_in": "hubtui.core.batches",
    "batches_of": "hubtui.core.batches",
    "prepare": "hubtui.core.batches",
    "revert_of": "hubtui.core.batches",
    "Applied": "hubtui.core.batches.applying",
    "SETTLING": "hubtui.core.batches.applying",
    "BATCH_FILE_BYTES": "hubtui.core.batches.file",
    "BatchFileError": "hubtui.core.batches.file",
    "FILE_COLUMNS": "hubtui.core.batches.file",
    "FileRow": "hubtui.core.batches.file",
    "LIMITED_WORDS": "hubtui.core.batches.file",
    "MADE_ON_COLUMNS": "hubtui.core.batches.file",
    "MadeOn": "hubtui.core.batches.file",
    "USERS_CSV_COLUMNS": "hubtui.core.batches.file",
    "read_batch_file": "hubtui.core.batches.file",
    "users_csv_cells": "hubtui.core.batches.file",
    "RowOfFile": "hubtui.core.batches.file_rows",
    "rows_of_preview": "hubtui.core.batches.file_rows",
    "write_results": "hubtui.core.batches.file_rows",
    "Action": "hubtui.core.changes.actions",
    "changes_logged": "hubtui.core.changes.history",
    "last_invitation": "hubtui.core.changes.history",
    "kind_of": "hubtui.core.changes.kinds",
    "ChangeLog": "hubtui.core.changes.log",
    "ChangeLogError": "hubtui.core.changes.log",
    "who_words": "hubtui.core.changes.operator",
    "Change": "hubtui.core.changes.record",
    "ChangedSinceRead": "hubtui.core.changes.sending",
    "EarlierAddUnknown": "hubtui.core.changes.sending",
    "Sent": "hubtui.core.changes.sending",
    "plan": "hubtui.core.changes.sending",
}

__all__ = [
    "BATCH_FILE_BYTES",
    "FILE_COLUMNS",
    "LIMITED_WORDS",
    "MADE_ON_COLUMNS",
    "ROLES",
    "SETTLING",
    "TYPE_THE_COUNT_ABOVE",
    "USERS_CSV_COLUMNS",
    "Action",
    "Applied",
    "Batch",
    "BatchFileError",
    "Change",
    "ChangeLog",
    "ChangeLogError",
    "ChangeSet",
    "ChangedSinceRead",
    "DecidedRow",
    "EarlierAddUnknown",
    "FileRow",
    "Intent",
    "ListedAccess",
    "MadeOn",
    "Outcome",
    "Preview",
    "Result",
    "RowOfFile",
    "Sent",
    "Verdict",
    "Wanted",
    "batches_in",
    "batches_of",
    "changes_logged",
    "kind_of",
    "last_invitation",
    "plan",
    "prepare",
    "read_batch_file",
    "revert_of",
    "rows_of_preview",
    "users_csv_cells",
    "who_words",
    "write_results",
]

__getattr__ = names_from(__name__, _EXPORTS)
