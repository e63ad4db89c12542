"""A review campaign's use cases, for ``hubtui campaign`` and the app, which run the same ones,
each in a module of its own:

- :mod:`.population`: the hub read whole (its users and every project's users);
- :mod:`.starting`: the population frozen, each row with its reviewer of record;
- :mod:`.records`: a campaign as the store holds it, of this server and profile only;
- :mod:`.deciding`: who may decide which row, a decisions file read as people edit it, the
  decisions recorded, a packet given to another role;
- :mod:`.reminding`: the reviewers still behind, at their accounts' addresses now;
- :mod:`.closing`: the close as a journal that can always be finished;
- :mod:`.reporting`: the record an auditor reads.

The store is the server's and profile's: a campaign of another server is never read, decided or
closed from here.
"""

from hubtui.core.store.campaigns import Closed
from hubtui.core.workflows.campaign.deciding import (
    DECISIONS_FILE_BYTES,
    DECISIONS_FILE_ROWS,
    FILE_COLUMNS,
    ROW_FACTS,
    FileCheck,
    account_named,
    addresses_differ,
    check_file,
    decide,
    decider,
    decisions_text,
    delegate,
    delegated,
    events_of,
    is_owner,
    may_not_decide,
    read_file,
    reassign,
    row_facts,
)
from hubtui.core.workflows.campaign.population import (
    HubMember,
    Incomplete,
    Member,
    Population,
    hub_member_of,
    member_of,
    read_population,
)
from hubtui.core.workflows.campaign.records import (
    RecordChanged,
    Refused,
    campaigns_kept,
    changed_since,
    open_campaign,
    previous_of,
)
from hubtui.core.workflows.campaign.reminding import (
    Reminder,
    Waiting,
    addresses_now,
    reminders,
    reviewers_now,
    waiting_on,
)
from hubtui.core.workflows.campaign.starting import StartAsked, Started, freeze, start

__all__ = [
    "DECISIONS_FILE_BYTES",
    "DECISIONS_FILE_ROWS",
    "FILE_COLUMNS",
    "ROW_FACTS",
    "row_facts",
    "Closed",
    "FileCheck",
    "HubMember",
    "Incomplete",
    "Member",
    "Population",
    "RecordChanged",
    "Refused",
    "Reminder",
    "StartAsked",
    "Started",
    "Waiting",
    "addresses_differ",
    "addresses_now",
    "campaigns_kept",
    "changed_since",
    "check_file",
    "decide",
    "decider",
    "decisions_text",
    "delegate",
    "account_named",
    "reassign",
    "delegated",
    "events_of",
    "freeze",
    "hub_member_of",
    "is_owner",
    "may_not_decide",
    "member_of",
    "open_campaign",
    "previous_of",
    "read_file",
    "read_population",
    "reminders",
    "reviewers_now",
    "start",
    "waiting_on",
]
