"""People: a person across projects, a hub's people, reviews and offboarding, and why a
person can or cannot get into a project. Textual-free: the app and the headless commands share it.

Its parts: :mod:`~hubtui.core.people.search` (find a person across projects, the app's ``w`` and
``hubtui who``), :mod:`~hubtui.core.people.hub` (a hub's people joined by person, when each was
last seen, the access matrix), :mod:`~hubtui.core.people.review` (an access review's decisions,
and offboarding as one) and :mod:`~hubtui.core.people.why` (a support ticket's verdict, its facts
and the next step). Each name below is imported when first asked for, so a command that needs one
part loads no other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hubtui.lazy import names_from

if TYPE_CHECKING:
    from hubtui.core.people.hub import (
        HubPeople,
        HubPerson,
        Matrix,
        access_matrix,
        hub_people,
        pending_invitations,
        read_hub_people,
        resend_change,
    )
    from hubtui.core.people.review import (
        Decision,
        Review,
        ReviewRow,
        decision_named,
        offboarding,
        offboarding_reviews,
        outcome_of,
        row_of,
        rows_of,
    )
    from hubtui.core.people.search import Finding, PersonQuery, Progress, search_people
    from hubtui.core.people.why import (
        LIMITED,
        NOT_IN_YET,
        Answer,
        ProjectNamed,
        answers_text,
        explain,
        explain_everywhere,
        offline_note,
        project_named,
        projects_named,
        shown,
    )

_EXPORTS: dict[str, str] = {
    "HubPeople": "hubtui.core.people.hub",
    "HubPerson": "hubtui.core.people.hub",
    "Matrix": "hubtui.core.people.hub",
    "access_matrix": "hubtui.core.people.hub",
    "hub_people": "hubtui.core.people.hub",
    "pending_invitations": "hubtui.core.people.hub",
    "read_hub_people": "hubtui.core.people.hub",
    "resend_change": "hubtui.core.people.hub",
    "Decision": "hubtui.core.people.review",
    "Review": "hubtui.core.people.review",
    "ReviewRow": "hubtui.core.people.review",
    "decision_named": "hubtui.core.people.review",
    "offboarding": "hubtui.core.people.review",
    "offboarding_reviews": "hubtui.core.people.review",
    "outcome_of": "hubtui.core.people.review",
    "row_of": "hubtui.core.people.review",
    "rows_of": "hubtui.core.people.review",
    "Finding": "hubtui.core.people.search",
    "PersonQuery": "hubtui.core.people.search",
    "Progress": "hubtui.core.people.search",
    "search_people": "hubtui.core.people.search",
    "LIMITED": "hubtui.core.people.why",
    "NOT_IN_YET": "hubtui.core.people.why",
    "Answer": "hubtui.core.people.why",
    "answers_text": "hubtui.core.people.why",
    "offline_note": "hubtui.core.people.why",
    "explain": "hubtui.core.people.why",
    "explain_everywhere": "hubtui.core.people.why",
    "ProjectNamed": "hubtui.core.people.why",
    "project_named": "hubtui.core.people.why",
    "shown": "hubtui.core.people.why",
    "projects_named": "hubtui.core.people.why",
}

__all__ = [
    "LIMITED",
    "NOT_IN_YET",
    "Answer",
    "answers_text",
    "offline_note",
    "ProjectNamed",
    "Decision",
    "Finding",
    "HubPeople",
    "HubPerson",
    "Matrix",
    "PersonQuery",
    "Progress",
    "Review",
    "ReviewRow",
    "access_matrix",
    "decision_named",
    "explain",
    "explain_everywhere",
    "project_named",
    "shown",
    "projects_named",
    "hub_people",
    "offboarding",
    "offboarding_reviews",
    "outcome_of",
    "pending_invitations",
    "read_hub_people",
    "resend_change",
    "row_of",
    "rows_of",
    "search_people",
]


__getattr__ = names_from(__name__, _EXPORTS)
