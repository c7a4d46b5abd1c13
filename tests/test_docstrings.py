from rata.docstrings import parse_docstring


def test_the_summary_and_body_make_the_description_and_args_give_parameters():
    doc = parse_docstring(
        """Add a customer.

        Adds them to the list
        and returns them.

        Args:
            name: Full name.
            email (str): Email address;
                must be unique.

        Returns:
            The new customer.

        Raises:
            ValidationErrors: when the email is taken.
        """
    )
    assert doc.description == "Add a customer.\n\nAdds them to the list and returns them."
    assert doc.params == {"name": "Full name.", "email": "Email address; must be unique."}


def test_attributes_sections_describe_fields():
    assert parse_docstring("A thing.\n\nAttributes:\n    size: How big.\n").params == {"size": "How big."}


def test_no_docstring_gives_nothing():
    doc = parse_docstring(None)
    assert (doc.description, doc.params) == ("", {})
