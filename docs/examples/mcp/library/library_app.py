"""A small library: declared resources beside its commands. Serve it with `python library_app.py --mcp`."""

from rata import App, Ctx, Mcp, Resource, ValidationErrors, command, resource

LOGO = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")  # the start of a PNG, for show


@command(can="books.add")
def books_add(ctx: Ctx, title: str, author: str) -> int:
    """Add a book; returns its id."""
    return ctx.db.execute("INSERT INTO books (title, author) VALUES (?, ?)", (title, author)).lastrowid


@resource("library://books.csv", can="books.read", mime_type="text/csv", description="Every book, one a line.")
def books_csv(ctx: Ctx) -> str:
    rows = ctx.db.execute("SELECT id, title, author FROM books ORDER BY id").fetchall()
    return "id,title,author\n" + "".join(f"{r['id']},{r['title']},{r['author']}\n" for r in rows)


@resource("library://books/{id}/title", can="books.read", description="One book's title.")
def book_title(ctx: Ctx, id: int) -> str:  # noqa: A002 - the template's name for it
    row = ctx.db.execute("SELECT title FROM books WHERE id = ?", (id,)).fetchone()
    if row is None:
        raise ValidationErrors({"id": f"no book has the id {id}"})  # read as "Resource not found"
    return row["title"]


app = (
    App("library", identifier="com.example.library")
    .commands(books_add)
    .resources(
        Resource("library://about", text="A small library.", description="What this is.", can="books.read"),
        Resource("library://logo", data=LOGO, mime_type="image/png", description="The logo.", can="books.read"),
        Resource.file("library://guide", "docs/guide.md", description="How to use it.", can="books.read"),
        books_csv,
        book_title,
    )
    .mcp(Mcp().allow_abilities(["books.read", "books.add"]))
)

if __name__ == "__main__":
    from rata.cli.appmain import main_for

    main_for(app)
