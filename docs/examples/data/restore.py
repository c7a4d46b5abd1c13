"""Put a copy rata kept back in place of the app's database: python restore.py app-before-0002.db

Stop every copy of the app first. SQLite's backup API writes the copy into the database in one
go, so the database and its write-ahead log stay consistent.
"""

import os
import sqlite3
import sys

folder = os.environ["RATA_HOME"]  # or the app's folder under your home (see "Where the data lives")
copy = sqlite3.connect(os.path.join(folder, sys.argv[1]))
database = sqlite3.connect(os.path.join(folder, "app.db"))
copy.backup(database)
database.close()
copy.close()
print(f"app.db is now {sys.argv[1]}")
