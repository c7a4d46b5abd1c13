"""An app with lint findings, to show what `rata mcp inspect` reports."""

from rata import App, JsonValue, Mcp, command


@command(can="reports.export")
def reports_export_all_customers_as_one_spreadsheet_file(year: int) -> str:
    """Export a year's customers as CSV text.

    Args:
        year: The year, e.g. 2026.
    """
    return "id,name\n"


@command(can="reports.view", read_only=True)
def reports_raw(query: JsonValue) -> JsonValue:
    return {}


app = (
    App("reports", identifier="com.example.reports")
    .commands(reports_export_all_customers_as_one_spreadsheet_file, reports_raw)
    .mcp(Mcp().allow_abilities(["reports.export", "reports.view", "reports.share"]))
)
