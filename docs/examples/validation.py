"""Refusing input with ValidationErrors."""

from rata import App, ValidationErrors, command

TAKEN = {"ada@example.com"}


@command(can="accounts.create")
def accounts_create(name: str, email: str) -> str:
    """Open an account.

    Args:
        name: Full name.
        email: Email address; must not be in use.
    """
    if email in TAKEN:
        raise ValidationErrors({"email": "has already been taken"})  # all at once
    errors = ValidationErrors()  # or one by one
    if not name.strip():
        errors.add("name", "must not be blank")
    if "@" not in email:
        errors.add("email", "must be an email address")
    errors.raise_if_any()
    return f"Welcome, {name}!"


app = App("accounts", identifier="com.example.accounts").commands(accounts_create)

if __name__ == "__main__":
    for args in (
        {"name": "Grace", "email": "grace@example.com"},
        {"name": "Ada", "email": "ada@example.com"},
        {"name": " ", "email": "ada"},
        {"name": "Grace"},
    ):
        try:
            print(app.call("accounts_create", **args))
        except ValidationErrors as errors:
            print(f"{errors.to_dict()}  str: {errors}")
