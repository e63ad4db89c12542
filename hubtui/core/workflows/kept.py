"""The store as the front ends use it: every name a front needs of :mod:`hubtui.core.store`,
offered here and imported from its module only when first asked for (as :mod:`hubtui.lazy` offers
a package's parts): the first frame loads no more of the store than it did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hubtui.lazy import names_from

if TYPE_CHECKING:
    from hubtui.core.store import (
        MIGRATIONS,
        SCHEMA,
        ListKey,
        ReviewInfo,
        Snapshot,
        SnapshotInfo,
        Store,
        StoreError,
        StoreOff,
        open_store,
        schema_of,
    )
    from hubtui.core.store.server_store import (
        ServerStore,
        StoredHub,
    )
    from hubtui.core.store.team import (
        copy_history,
    )

_EXPORTS: dict[str, str] = {
    "ListKey": "hubtui.core.store",
    "MIGRATIONS": "hubtui.core.store",
    "ReviewInfo": "hubtui.core.store",
    "SCHEMA": "hubtui.core.store",
    "Snapshot": "hubtui.core.store",
    "SnapshotInfo": "hubtui.core.store",
    "Store": "hubtui.core.store",
    "StoreError": "hubtui.core.store",
    "StoreOff": "hubtui.core.store",
    "open_store": "hubtui.core.store",
    "schema_of": "hubtui.core.store",
    "ServerStore": "hubtui.core.store.server_store",
    "StoredHub": "hubtui.core.store.server_store",
    "copy_history": "hubtui.core.store.team",
}

__all__ = [
    "MIGRATIONS",
    "SCHEMA",
    "ListKey",
    "ReviewInfo",
    "ServerStore",
    "Snapshot",
    "SnapshotInfo",
    "Store",
    "StoreError",
    "StoreOff",
    "StoredHub",
    "copy_history",
    "open_store",
    "schema_of",
]

__getattr__ = names_from(__name__, _EXPORTS)
