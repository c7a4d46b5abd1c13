"""The crm app: customers you can list, show, add, update and delete.

Agents get customers.view and customers.create; deleting needs the user's confirmation;
updating and resetting are for the app's own frontend only.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Annotated

from rata import App, Ctx, Field, Mcp, ValidationErrors, command

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass
class Customer:
    """A person or company you sell to."""

    id: int
    name: str
    email: str
    created_at: str


def _row(row: sqlite3.Row) -> Customer:
    return Customer(id=row["id"], name=row["name"], email=row["email"], created_at=row["created_at"])


def _find(ctx: Ctx, id: int) -> Customer:
    row = ctx.db.execute("SELECT * FROM customers WHERE id = ?", (id,)).fetchone()
    if row is None:
        raise ValidationErrors({"id": f"no customer has the id {id}"})
    return _row(row)


def _check(ctx: Ctx, name: str | None, email: str | None, own_id: int | None = None) -> None:
    errors = ValidationErrors()
    if name is not None and not name.strip():
        errors.add("name", "must not be blank")
    if email is not None:
        if not EMAIL.match(email):
            errors.add("email", "must be an email address like ada@example.com")
        else:
            taken = ctx.db.execute("SELECT id FROM customers WHERE lower(email) = lower(?)", (email,)).fetchone()
            if taken is not None and taken["id"] != own_id:
                errors.add("email", "has already been taken")
    errors.raise_if_any()


@command(can="customers.view", live=True)
def customers_index(
    ctx: Ctx,
    search: str = "",
    limit: Annotated[int, Field(ge=1, le=500)] = 50,
) -> list[Customer]:
    """List customers, newest first, filtered by name or email.

    Args:
        search: Text to look for in the name or email; empty lists everyone.
        limit: How many customers to return at most.
    """
    pattern = f"%{search}%"
    rows = ctx.db.execute(
        "SELECT * FROM customers WHERE name LIKE ? OR email LIKE ? ORDER BY id DESC LIMIT ?",
        (pattern, pattern, limit),
    ).fetchall()
    return [_row(row) for row in rows]


@command(can="customers.view", live=True)
def customers_show(ctx: Ctx, id: int) -> Customer:
    """Show one customer.

    Args:
        id: The customer's id.
    """
    return _find(ctx, id)


@command(can="customers.create")
def customers_store(ctx: Ctx, name: str, email: str) -> Customer:
    """Add a customer.

    Args:
        name: Full name.
        email: Email address; must be unique.
    """
    _check(ctx, name, email)
    cursor = ctx.db.execute("INSERT INTO customers (name, email) VALUES (?, ?)", (name.strip(), email))
    return _find(ctx, cursor.lastrowid)


@command(can="customers.update")
def customers_update(ctx: Ctx, id: int, name: str | None = None, email: str | None = None) -> Customer:
    """Change a customer's name or email.

    Args:
        id: The customer's id.
        name: The new name, if it changes.
        email: The new email address, if it changes.
    """
    _find(ctx, id)
    _check(ctx, name, email, own_id=id)
    if name is not None:
        ctx.db.execute("UPDATE customers SET name = ? WHERE id = ?", (name.strip(), id))
    if email is not None:
        ctx.db.execute("UPDATE customers SET email = ? WHERE id = ?", (email, id))
    return _find(ctx, id)


def _delete_question(ctx: Ctx, id: int) -> str:
    row = ctx.db.execute("SELECT name FROM customers WHERE id = ?", (id,)).fetchone()
    return f"Delete customer #{id}, {row['name']}?" if row else f"Delete customer #{id} (no such customer)?"


@command(can="customers.delete", confirm_message=_delete_question)
def customers_delete(ctx: Ctx, id: int) -> None:
    """Delete a customer.

    Args:
        id: The customer's id.
    """
    _find(ctx, id)
    ctx.db.execute("DELETE FROM customers WHERE id = ?", (id,))


@command
def app_reset(ctx: Ctx) -> None:
    """Delete every customer (for demos and tests)."""
    ctx.db.execute("DELETE FROM customers")


app = (
    App("crm", identifier="com.example.crm", version="1.0.0", description="A small customer list.")
    .commands(customers_index, customers_show, customers_store, customers_update, customers_delete, app_reset)
    .allow_abilities(["customers.*"])
    .mcp(Mcp().allow_abilities(["customers.view", "customers.create"]).confirm("customers.delete"))
)
