"""The declarations every table is made of: ``Column``, ``Table`` and the column types."""

from __future__ import annotations

from dataclasses import dataclass

# Column types. "ts" is an ISO-8601 UTC timestamp with Z; "date" is YYYY-MM-DD;
# "prob" is a float in [0, 1] written with 6 decimals; "float" is written with 10 significant digits.
TYPES = ("str", "ts", "date", "float", "prob", "int", "enum")


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    description: str
    nullable: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Table:
    name: str
    path: str
    description: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    sort: tuple[str, ...]
    mutability: str
    late: tuple[str, ...] = ()  # nullable columns added after the first files were written: a file may lack them

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)


def col(name: str, type_: str, description: str, nullable: bool = False, choices: tuple[str, ...] = ()) -> Column:
    return Column(name, type_, description, nullable, choices)
