"""`rata mcp install`: register an app's MCP server (or `rata mcp dev`) with an MCP client.

Nothing here speaks MCP: it writes client config files. The modules, bottom up:

- `files`: edit one file safely (through its links, under a lock, replaced atomically) and the
  install errors;
- `formats`: the file formats (JSON, JSONC, TOML, YAML), one row each, with the YAML writer;
  `jsonc` and `tomledit` edit one entry of a JSONC or TOML text and keep every other byte;
- `clients`: the clients, one `Client` row each;
- `merge`: rata's entry merged into a file's text, and the diff shown when it differs;
- `plan`: the launch command, the plan for one client (snippet, files, add command, link,
  warnings) and `write_plan`, which `--write` runs.

To add a client, add one `Client` row to `clients.CLIENTS`: its key, title, `Format`, user
files and project file, the key its servers live under, its entry's `Shape` (the common
``command``/``args``/``env`` one unless it differs), and, if it has them, its add command and
install link. `--client` and its help, `--list`, the snippet, `--write`, the add command and the
link all follow from the row, with no edit anywhere else (`tests/cli/test_mcp_install.py::
test_a_new_client_row_reaches_every_part_of_rata_mcp_install` proves it).
"""
