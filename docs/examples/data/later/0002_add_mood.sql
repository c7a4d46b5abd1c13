-- The next version of the app: each entry gets a mood.
ALTER TABLE entries ADD COLUMN mood TEXT NOT NULL DEFAULT 'fine';
