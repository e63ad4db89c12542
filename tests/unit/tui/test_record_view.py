"""What a list shows, without a terminal: the filter, group, sort and indexing rules."""

from __future__ import annotations

from dataclasses import dataclass

from hubtui.text import fold
from hubtui.tui.record_view import INDEX_NOW_AT_MOST, ROWS_KEPT, Column, RecordView, Row

COLUMNS = (
    Column("name", "Name"),
    Column("email", "Email", keep=True),
    Column("n", "N", numeric=True),
)


@dataclass
class Person:
    id: int
    name: str
    email: str
    n: int
    limited: bool = False


def person_row(person: Person) -> Row:
    return Row(
        cells=(person.name, person.email, str(person.n)),
        group="limited" if person.limited else "member",
    )


def person_key(person: Person) -> str:
    return str(person.id)


PEOPLE = [
    Person(1, "Zoë Ångström", "zoe@acme-build.com", 10),
    Person(2, "Aiko Tanaka", "aiko.tanaka@acme-build.com", 9),
    Person(3, "Grace Osei", "grace.osei@northwind.example", 100, limited=True),
    Person(4, "Björn Lind", "bjorn@northwind.example", 2),
]


def view_of(people: list[Person]) -> RecordView[Person]:
    view: RecordView[Person] = RecordView(COLUMNS)
    view.replace(people, person_row, person_key)
    return view


def shown_keys(view: RecordView[Person]) -> list[str]:
    return [view.key(i) for i in view.shown]


def test_the_filter_ignores_case_and_accents_and_needs_every_word() -> None:
    view = view_of(PEOPLE)
    view.set_filter("ANGSTROM")
    assert shown_keys(view) == ["1"]
    view.set_filter("northwind grace")
    assert shown_keys(view) == ["3"]
    view.set_filter("northwind nobody")
    assert shown_keys(view) == []
    view.set_filter("")
    assert shown_keys(view) == ["1", "2", "3", "4"]


def test_a_filter_finds_letters_whose_accent_no_decomposition_removes() -> None:
    """``lodz`` finds Łódź and ``strasse`` Straße, as ``quebec`` finds Québec; a long value
    of them is folded whole."""
    assert fold("Łódź Øresund Đakovo Straße Québec") == "lodz oresund dakovo strasse quebec"
    assert fold("ø" * 100_000 + "É") == "o" * 100_000 + "e"


def test_narrowing_a_filter_and_widening_it_again_gives_the_same_rows() -> None:
    view = view_of(PEOPLE)
    typed = []
    for text in ("n", "no", "nor", "north", "nort", "no", ""):
        view.set_filter(text)
        typed.append(shown_keys(view))
    assert typed[1] == typed[5]
    assert typed[-1] == ["1", "2", "3", "4"]
    assert typed[3] == ["3", "4"]


def test_a_group_and_a_filter_choose_together() -> None:
    view = view_of(PEOPLE)
    view.show_group("limited")
    assert shown_keys(view) == ["3"]
    view.show_group("member")
    view.set_filter("acme")
    assert shown_keys(view) == ["1", "2"]


def test_numbers_sort_as_numbers_and_text_ignoring_accents() -> None:
    view = view_of(PEOPLE)
    view.sort_by(2)
    assert shown_keys(view) == ["4", "2", "1", "3"]  # 2 < 9 < 10 < 100, not "10" < "100" < "2"
    view.sort_by(0)
    assert shown_keys(view) == ["2", "4", "3", "1"]  # Björn between Aiko and Grace; Zoë last
    view.sort_by(0, reverse=True)
    assert shown_keys(view) == ["1", "3", "4", "2"]


def test_placeholders_sort_after_values_by_their_rows_words_whatever_the_order_before() -> None:
    """Hubs whose owner set no DisplayName show hubtui's words, not a value: sorted by that
    column they come after every value, among themselves by the rest of the row (the Name)."""

    def hub_row(person: Person) -> Row:
        unnamed = person.n == 0
        return Row(
            cells=("(none set = Name)" if unnamed else person.name, person.email, str(person.n)),
            placeholders=frozenset({0}) if unnamed else frozenset(),
        )

    people = [
        Person(1, "", "zeta-hub", 0),
        Person(2, "Bravo Group", "bravo", 1),
        Person(3, "", "alpha-hub", 0),
        Person(4, "Acme Group", "acme", 1),
        Person(5, "", "mid-hub", 0),
    ]
    for order in (people, people[::-1]):
        view: RecordView[Person] = RecordView(COLUMNS)
        view.replace(order, hub_row, person_key)
        view.sort_by(0)
        assert shown_keys(view) == ["4", "2", "3", "5", "1"]


def test_a_sort_survives_new_records_and_a_changed_column_set() -> None:
    view = view_of(PEOPLE)
    view.sort_by(1)
    view.replace([*PEOPLE, Person(5, "Al", "a@a.example", 1)], person_row, person_key)
    assert shown_keys(view)[0] == "5"
    view.set_columns((Column("email", "Email"), Column("name", "Name")))
    assert view.sort_column == 0  # still the email column, by its key


def test_an_update_replaces_its_record_or_adds_it() -> None:
    view = view_of(PEOPLE)
    view.set_filter("editor")
    view.update(Person(2, "Aiko Tanaka", "aiko@editor.example", 9), "2")
    assert shown_keys(view) == ["2"]
    view.update(Person(9, "New Editor", "new@x.example", 1), "9")
    assert shown_keys(view) == ["2", "9"]
    assert view.total == 5
    assert view.position_of("9") == 1
    assert view.position_of("1") is None


def test_rows_are_built_only_when_asked_for() -> None:
    built: list[int] = []

    def counting_row(person: Person) -> Row:
        built.append(person.id)
        return person_row(person)

    view: RecordView[Person] = RecordView(COLUMNS)
    view.replace(PEOPLE, counting_row, person_key)
    assert built == []
    assert view.row(2).cells[0] == "Grace Osei"
    assert view.row(2) is view.row(2)
    assert built == [3]


def test_a_large_list_filters_what_is_indexed_and_adds_each_chunk() -> None:
    many = [Person(i, f"Person {i}", f"p{i}@x.example", i) for i in range(INDEX_NOW_AT_MOST * 3)]
    view = view_of(many)
    view.set_filter("p1@")  # typed before any indexing: nothing indexed is searched yet
    assert not view.complete
    assert shown_keys(view) == []
    view.index_next(2)
    assert shown_keys(view) == ["1"]
    while view.index_next(4000):
        pass
    assert view.complete
    assert shown_keys(view) == ["1"]


def test_matches_added_chunk_by_chunk_are_those_a_search_of_the_indexed_rows_finds() -> None:
    total = INDEX_NOW_AT_MOST * 3
    many = [
        Person(i, f"Person {i}", f"p{i}@x.example", i % 7, limited=i % 3 == 0) for i in range(total)
    ]
    for sort in (None, 2):  # in the records' order, and sorted by N
        whole = view_of(many)
        while whole.index_next(total):
            pass
        view = view_of(many)
        for chosen in (whole, view):
            if sort is not None:
                chosen.sort_by(sort)
        view.index_next(1000)
        for chosen in (whole, view):
            chosen.show_group("limited")
            chosen.set_filter("person 1")
        indexed = 1000
        while not view.complete:
            assert view.shown == [i for i in whole.shown if i < indexed]
            view.index_next(777)
            indexed += 777
        assert view.shown == whole.shown
        # Every name holds "person": the rows are the limited ones with a 1 in some cell.
        assert sorted(view.shown) == [
            i for i, p in enumerate(many) if p.limited and "1" in f"{p.name} {p.email} {p.n}"
        ]


def test_a_long_list_keeps_few_rows_built_and_still_groups_sorts_and_lays_out() -> None:
    total = ROWS_KEPT * 3
    many = [
        Person(i, f"Person {i}", f"p{i}@x.example", total - i, limited=i % 2 == 0)
        for i in range(total)
    ]
    view = view_of(many)
    while view.index_next(1000):
        pass
    for index in range(total):
        assert view.row(index).cells[0] == f"Person {index}"
    assert sum(view.is_built(i) for i in range(total)) == ROWS_KEPT
    view.show_group("limited")
    assert len(view.shown) == total // 2
    view.sort_by(2)  # N, as numbers: the reverse of the records' order
    assert view.shown[:2] == [total - 2, total - 4]
    view.update(Person(0, "Person 0", "p0@x.example", -1, limited=True), "0")
    assert view.shown[:2] == [0, total - 2]
    view.set_filter("p2")  # found by their search keys, limited ones only, in sorted order
    chosen = [i for i in range(total) if i % 2 == 0 and f"p{i}".startswith("p2")]
    assert view.shown == sorted(chosen, reverse=True)
    assert view.natural == [len(f"Person {total - 1}"), len(f"p{total - 1}@x.example"), 4]


def test_a_small_rest_is_indexed_at_once_when_a_filter_needs_it() -> None:
    many = [Person(i, f"Person {i}", f"p{i}@x.example", i) for i in range(INDEX_NOW_AT_MOST)]
    view = view_of(many)
    view.set_filter(f"p{INDEX_NOW_AT_MOST - 1}@")
    assert view.complete
    assert shown_keys(view) == [str(INDEX_NOW_AT_MOST - 1)]


def test_a_longer_cell_widens_its_column_and_says_so() -> None:
    widened: list[int] = []
    view: RecordView[Person] = RecordView(COLUMNS, on_widen=widened.append)
    view.replace(PEOPLE, person_row, person_key)
    view.row(0)
    assert view.natural == [len("Zoë Ångström"), len("zoe@acme-build.com"), 2]
    widened.clear()
    view.row(2)  # a longer email, a longer number; a shorter name
    assert sorted(widened) == [1, 2]
