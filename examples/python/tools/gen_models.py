"""Writes ``catan_client/models.py``: typed models of every message and body of the
protocol, generated from the JSON Schema the server serves
(``crates/protocol/schema/catan-protocol.schema.json``, one source for the Rust types,
the TypeScript declarations and these).

    python tools/gen_models.py            # rewrite catan_client/models.py
    python tools/gen_models.py --check    # exit 1 if it is not what the schema gives

Each object becomes a ``TypedDict`` (what ``json.loads`` returns, typed), a field the
schema does not require ``NotRequired``; each tagged union (``oneOf`` of objects told
apart by a constant ``type`` or ``name``) a ``TypedDict`` per variant and a union of
them; each union of constant strings a ``Literal``. Standard library only.
"""

from __future__ import annotations

import json
import keyword
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent
SCHEMA = PACKAGE.parent.parent / "crates" / "protocol" / "schema" / "catan-protocol.schema.json"
OUTPUT = PACKAGE / "catan_client" / "models.py"

Schema = dict[str, Any]


def camel(name: str) -> str:
    """``road_built`` -> ``RoadBuilt``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def ref_name(ref: str) -> str:
    """``#/$defs/Seat`` -> ``Seat``."""
    prefix = "#/$defs/"
    if not ref.startswith(prefix):
        raise ValueError(f"unsupported $ref {ref}")
    return ref[len(prefix) :]


def doc(node: Schema) -> str | None:
    """The node's description, as one docstring's text."""
    text = node.get("description")
    return text.strip() if text else None


class Generator:
    """Turns the schema's ``$defs`` into Python source, one definition at a time."""

    def __init__(self, schema: Schema) -> None:
        self.defs: dict[str, Schema] = schema["$defs"]
        #: Every definition (a ``TypedDict`` or an alias ``Name = ...``): its source and
        #: the names it uses, which must be defined before it (annotations are
        #: evaluated when the module loads, so that ``NotRequired`` counts).
        self.items: dict[str, tuple[str, set[str]]] = {}

    def type_of(self, node: Schema, uses: set[str]) -> str:
        """The Python type of a schema node; the definitions it names go into ``uses``."""
        if "$ref" in node:
            name = ref_name(node["$ref"])
            uses.add(name)
            return name
        if "const" in node:
            return f"Literal[{json.dumps(node['const'])}]"
        if "enum" in node:
            return "Literal[" + ", ".join(json.dumps(v) for v in node["enum"]) + "]"
        for key in ("anyOf", "oneOf"):
            if key in node:
                return " | ".join(dict.fromkeys(self.type_of(n, uses) for n in node[key]))
        if "allOf" in node and len(node["allOf"]) == 1:
            return self.type_of(node["allOf"][0], uses)
        kinds = node.get("type")
        if kinds is None:
            return "Any"
        if isinstance(kinds, list):
            return " | ".join(self.type_of({**node, "type": k}, uses) for k in kinds)
        if kinds == "array":
            return f"list[{self.type_of(node.get('items', {}), uses)}]"
        if kinds == "object":
            extra = node.get("additionalProperties")
            if "properties" in node or not isinstance(extra, dict):
                raise ValueError(f"an object inside a definition: {json.dumps(node)[:200]}")
            return f"dict[str, {self.type_of(extra, uses)}]"
        scalars = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
        return scalars[kinds]

    def fields(self, node: Schema) -> tuple[list[tuple[str, str, str | None]], set[str]]:
        """An object's fields (name, type, description), the required ones typed as
        such, the others ``NotRequired``; with a ``$ref`` beside its properties, the
        referenced object's fields first."""
        uses: set[str] = set()
        out: list[tuple[str, str, str | None]] = []
        if "$ref" in node:
            base = self.defs[ref_name(node["$ref"])]
            inherited, used = self.fields(base)
            out.extend(inherited)
            uses |= used
        required = set(node.get("required", []))
        for name, prop in node.get("properties", {}).items():
            ty = self.type_of(prop, uses)
            if name not in required:
                ty = f"NotRequired[{ty}]"
            out = [f for f in out if f[0] != name]
            out.append((name, ty, doc(prop)))
        return out, uses

    def typed_dict(self, name: str, node: Schema, description: str | None) -> None:
        """One ``TypedDict``: class syntax, or the functional form when a field's name
        is a Python keyword (``with``)."""
        fields, uses = self.fields(node)
        lines: list[str] = []
        if any(keyword.iskeyword(f) or not f.isidentifier() for f, _, _ in fields):
            if description:
                lines += [f"# {line}".rstrip() for line in description.splitlines()]
            lines.append(f"{name} = TypedDict(")
            lines.append(f'    "{name}",')
            lines.append("    {")
            for field, ty, _ in fields:
                lines.append(f'        "{field}": {ty},')
            lines.append("    },")
            lines.append(")")
        else:
            lines.append(f"class {name}(TypedDict):")
            if description:
                lines.append(docstring(description, "    "))
            for field, ty, text in fields:
                lines.append(f"    {field}: {ty}")
                if text:
                    lines.append(docstring(text, "    "))
            if not fields:
                lines.append("    pass")
        self.items[name] = ("\n".join(lines), uses)

    def alias(self, name: str, source: str, uses: set[str], description: str | None) -> None:
        """``Name = source``, with its description as comments."""
        comment = "".join(f"# {line}".rstrip() + "\n" for line in (description or "").splitlines())
        self.items[name] = (f"{comment}{name} = {source}", uses)

    def definition(self, name: str, node: Schema) -> None:
        """One entry of ``$defs``."""
        description = doc(node)
        variants = node.get("oneOf")
        if variants and all("const" in v and v.get("type") == "string" for v in variants):
            literal = "Literal[" + ", ".join(json.dumps(v["const"]) for v in variants) + "]"
            self.alias(name, literal, set(), description)
        elif variants:
            members: list[str] = []
            for v in variants:
                tag = next(
                    (p["const"] for k, p in v.get("properties", {}).items() if k in ("type", "name", "kind") and "const" in p),
                    None,
                )
                if tag is None:
                    raise ValueError(f"{name}: a variant without a constant `type`, `name` or `kind`")
                member = f"{name}{camel(tag)}"
                self.typed_dict(member, v, doc(v))
                members.append(member)
            self.alias(name, " | ".join(members), set(members), description)
        elif node.get("type") == "object" and "properties" in node:
            self.typed_dict(name, node, description)
        else:
            uses: set[str] = set()
            self.alias(name, self.type_of(node, uses), uses, description)

    def source(self) -> str:
        """The whole module."""
        for name in sorted(self.defs):
            self.definition(name, self.defs[name])
        # Each definition after those it names, in name order otherwise.
        ordered: list[str] = []
        state: dict[str, str] = {}

        def visit(name: str) -> None:
            if state.get(name) == "done":
                return
            if state.get(name) == "visiting":
                raise ValueError(f"{name} refers to itself: not supported")
            state[name] = "visiting"
            for used in sorted(self.items[name][1]):
                visit(used)
            state[name] = "done"
            ordered.append(self.items[name][0])

        for name in sorted(self.items):
            visit(name)
        names = sorted(self.items)
        head = (
            '"""Typed models of every WebSocket message and HTTP body of the protocol.\n\n'
            "Generated by ``tools/gen_models.py`` from crates/protocol/schema/catan-protocol.schema.json\n"
            "(the schema the server serves at ``GET /api/schema.json``). Do not edit: run the\n"
            "generator. Objects are ``TypedDict``s, so a message from ``json.loads`` is used as it\n"
            "is, typed: ``msg: ServerMessage = json.loads(text)``; tagged unions are told apart by\n"
            "their ``type`` (or, for ``Phase``, ``name``).\n"
            '"""\n\n'
            "# ruff: noqa: E501\n"
            "from typing import Any, Literal, NotRequired, TypedDict\n\n"
            "__all__ = [\n" + "".join(f'    "{n}",\n' for n in names) + "]\n"
        )
        return head + "\n\n" + "\n\n\n".join(ordered) + "\n"


def docstring(text: str, indent: str) -> str:
    """A docstring at ``indent``."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = text.splitlines()
    if len(lines) == 1:
        return f'{indent}"""{lines[0]}"""'
    body = "\n".join(f"{indent}{line}".rstrip() for line in lines)
    return f'{indent}"""\n{body}\n{indent}"""'


def generate() -> str:
    """The module's source, from the committed schema."""
    return Generator(json.loads(SCHEMA.read_text(encoding="utf-8"))).source()


def main(argv: list[str]) -> int:
    text = generate()
    if argv == ["--check"]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is not what {SCHEMA.name} gives: run python tools/gen_models.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
