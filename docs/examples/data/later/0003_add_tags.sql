-- A mistake: the column is `mood`, not `feeling`.
CREATE TABLE tags (entry_id INTEGER NOT NULL REFERENCES entries (id), tag TEXT NOT NULL);
INSERT INTO tags (entry_id, tag) SELECT id, feeling FROM entries;
