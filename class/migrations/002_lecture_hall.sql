-- A lecture hall (issue 43): the projector's own read-only capability,
-- the lecturer key that lists the classes it opened, and each class's
-- instructor token sealed for that key, so that it can be shown again.
-- projector_hash is the hash of the projector's token ('' for a class
-- opened before: its dashboard sets it when next loaded); lecturer is
-- the hash of the lecturer key that opened the class ('' for none);
-- token_sealed is the instructor token sealed to the lecturer's public
-- key ('' for none).
ALTER TABLE classes ADD COLUMN projector_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE classes ADD COLUMN lecturer TEXT NOT NULL DEFAULT '';
ALTER TABLE classes ADD COLUMN token_sealed TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX classes_projector ON classes (projector_hash) WHERE projector_hash <> '';
CREATE INDEX classes_lecturer ON classes (lecturer);

-- A lecturer key is a capability, not an account: only its hash (id) and
-- the public key a class's token is sealed to are kept.
CREATE TABLE lecturers (
  id          TEXT PRIMARY KEY,
  pub         TEXT NOT NULL,
  created     BIGINT NOT NULL
);
