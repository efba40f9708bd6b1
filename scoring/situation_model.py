"""The situation model: how a hand was won, as one pydantic model with one name for each field.

``SituationModel`` is built from the table of ``mjtable.scoring.situation_fields`` (``FIELDS``): each field
under its canonical name, its old names as ``validation_alias`` choices (deprecated, kept for the 0.2 release),
``extra="forbid"`` so that a misspelt name is refused. The command line, the web API and the Python API read a
situation with ``situation(fields)``; JSON hand lines are read from the same table without pydantic
(``situation_fields.read_fields``, for ``mjtable batch``'s start-up).

    situation({"seat_wind": "S", "self_drawn": True})          # -> mjtable.scoring.hand.Situation
    situation({"round_wind": "W"}) == situation({"prevalent_wind": "W"})
    situation({"self_drawn": "on"}, text=True)                 # form fields and command-line words
    situation({"seat_wind": "X"})    # SituationError: seat_wind: want E, S, W or N, got 'X'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    create_model,
    model_validator,
)
from pydantic import Field as ModelField

from .hand import Situation
from .situation import SituationError
from .situation_fields import (
    BY_NAME,
    CANONICAL,
    FIELDS,
    FLAG,
    SUIT,
    BadValue,
    Field,
    fold_inverted,
    read_value,
    twice,
    unknown,
)


def _text(info: ValidationInfo) -> bool:
    return bool(isinstance(info.context, Mapping) and info.context.get("text"))


class _Situation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _fold(cls, data: Any, info: ValidationInfo) -> Any:
        """An inverted old name (winning_tile_not_apart) becomes its canonical name with the opposite value."""
        return fold_inverted(data, _text(info)) if isinstance(data, Mapping) else data

    def situation(self) -> Situation:
        """The frozen dataclass the engines take."""
        return Situation(**{name: getattr(self, name) for name in CANONICAL})


def _declared(f: Field) -> Any:
    """A table row -> its pydantic field: type, default, aliases, and its values read as the table says."""

    def read(value: object, info: ValidationInfo) -> Any:
        return read_value(f, value, _text(info))

    kind: Any = bool if f.kind == FLAG else int | None if f.kind == SUIT else int
    alias = AliasChoices(f.name, *f.aliases)
    return (Annotated[kind, BeforeValidator(read)], ModelField(f.default, validation_alias=alias, description=f.help))


SituationModel = create_model(
    "SituationModel",
    __base__=_Situation,
    __doc__="How the hand was won: each field of Situation under one name (old names accepted, deprecated).",
    **{f.name: _declared(f) for f in FIELDS},
)


def situation(fields: Mapping[str, object], text: bool = False) -> Situation:
    """The Situation of these fields (canonical or old names); ``text``: values may be words (form fields, the
    command line). SituationError (exit code 2, HTTP 422) in one line for an unknown name or a bad value."""
    try:
        model = SituationModel.model_validate(fields, context={"text": text})
    except ValidationError as e:
        raise SituationError(_line(e.errors()[0])) from None
    return model.situation()


def _line(err: Any) -> str:
    """pydantic's first error -> the line situation_fields.read_fields gives for the same input."""
    name = str(err["loc"][0]) if err["loc"] else ""
    cause = (err.get("ctx") or {}).get("error")
    if isinstance(cause, SituationError):
        return str(cause)
    if isinstance(cause, BadValue):
        return f"{name}: {cause}"
    if err["type"] == "extra_forbidden":
        return twice(name) if name in BY_NAME else unknown([name])
    return f"{name}: {err['msg']}"
