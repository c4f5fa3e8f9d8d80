"""The base of every typed block of a result record (twinbench/result/blocks.py) and of the record
itself: fields that may be absent, documented with their unit, and keys a block does not declare
kept rather than dropped.

A record written by another machine or another version is data: a block is parsed without
validating or converting a value (a reader that needs a number checks it), so
`to_json(parse(x)) == x` for any JSON `x`, keys in their original order included.
"""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from typing import Any, ClassVar, TypeVar

# The metadata keys of a documented field: what it means, its unit, and the block it holds.
DOC, UNIT, BLOCK = "doc", "unit", "block"
# Fields of the base that carry no data of their own.
INTERNAL = ("extra", "order")


class _Absent:
    """Marks a field the record does not carry (as opposed to None, written as null)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

B = TypeVar("B", bound="Block")


def spec(doc: str, unit: str | None = None, block: type[Block] | None = None, default=ABSENT):
    """A documented field: absent unless set; `block` when its value is a nested block."""
    return field(default=default, metadata={DOC: doc, UNIT: unit, BLOCK: block})


def present(value: Any) -> Any:
    """The value, or None where the record does not carry it."""
    return None if value is ABSENT else value


@dataclass(frozen=True)
class Block:
    """A JSON object with declared fields. Subclasses declare theirs with `spec`."""

    # keys this block does not declare, kept and written back (a newer writer's, a one-off note)
    extra: dict[str, Any] = field(default_factory=dict, repr=False)
    # the order the keys were read in; written back in it (empty: declared order, then extra)
    order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    KEEPS_ORDER: ClassVar[bool] = True

    @classmethod
    def declared(cls) -> dict[str, Field]:
        return {f.name: f for f in fields(cls) if f.name not in INTERNAL}

    @classmethod
    def parse(cls: type[B], value: Any) -> B | Any:
        """`value` as this block where it is a JSON object; anything else is returned as it is
        (a malformed record stays readable and is written back unchanged)."""
        if isinstance(value, cls):
            return value
        if not isinstance(value, dict):
            return value
        declared = cls.declared()
        known = {
            k: (declared[k].metadata[BLOCK].parse(v) if declared[k].metadata.get(BLOCK) else v)
            for k, v in value.items()
            if k in declared
        }
        return cls(
            **known,
            extra={k: v for k, v in value.items() if k not in declared},
            order=tuple(value) if cls.KEEPS_ORDER else (),
        )

    @classmethod
    def typed(cls: type[B], value: Any) -> B:
        """`value` if it is this block, else an empty one (every field absent): for readers that
        take what a record carries and None for the rest."""
        return value if isinstance(value, cls) else cls()

    def to_json(self) -> dict[str, Any]:
        """The block as JSON holds it: absent fields left out, nested blocks as objects."""
        out = {
            name: _json(getattr(self, name))
            for name in self.declared()
            if getattr(self, name) is not ABSENT
        }
        out |= {k: v for k, v in self.extra.items() if k not in out}
        if not self.order:
            return out
        first = {k: out[k] for k in self.order if k in out}
        return first | {k: v for k, v in out.items() if k not in first}


def _json(value: Any) -> Any:
    return value.to_json() if isinstance(value, Block) else value
