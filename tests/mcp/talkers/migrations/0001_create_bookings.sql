-- Bookings: what the talking commands write, to see what a rolled-back round leaves behind.
CREATE TABLE bookings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    city TEXT NOT NULL,
    seat TEXT NOT NULL
);
