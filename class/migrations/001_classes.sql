-- Classes, their students, vote rounds, votes, last steps and goals
-- reached. Portable between SQLite and PostgreSQL: times are milliseconds
-- since 1970 (UTC) in BIGINT, flags are INTEGER 0/1, ids are made by the
-- program (round ids count up within their class).
CREATE TABLE classes (
  id          TEXT PRIMARY KEY,
  code        TEXT NOT NULL,
  token_hash  TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  lang        TEXT NOT NULL,
  created     BIGINT NOT NULL,
  ended       BIGINT,
  lesson      TEXT NOT NULL DEFAULT '',
  lab         TEXT NOT NULL DEFAULT '',
  question    TEXT NOT NULL DEFAULT '',
  goal        TEXT NOT NULL DEFAULT '',
  pushed      TEXT NOT NULL DEFAULT ''
);
-- A join code names one running class; an ended class frees its code.
CREATE UNIQUE INDEX classes_running_code ON classes (code) WHERE ended IS NULL;
CREATE INDEX classes_ended ON classes (ended);

CREATE TABLE students (
  class_id    TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
  id          TEXT NOT NULL,
  nick        TEXT NOT NULL,
  restore_key TEXT NOT NULL,
  joined      BIGINT NOT NULL,
  PRIMARY KEY (class_id, id),
  UNIQUE (class_id, restore_key)
);

CREATE TABLE rounds (
  class_id    TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
  id          BIGINT NOT NULL,
  lab         TEXT NOT NULL,
  question    TEXT NOT NULL,
  choices     TEXT NOT NULL,
  n           INTEGER NOT NULL,
  state       TEXT NOT NULL,
  shown       INTEGER NOT NULL DEFAULT 0,
  opened      BIGINT NOT NULL,
  PRIMARY KEY (class_id, id)
);

CREATE TABLE votes (
  class_id    TEXT NOT NULL,
  round_id    BIGINT NOT NULL,
  student_id  TEXT NOT NULL,
  choice      TEXT NOT NULL,
  at          BIGINT NOT NULL,
  PRIMARY KEY (class_id, round_id, student_id),
  FOREIGN KEY (class_id, round_id) REFERENCES rounds (class_id, id) ON DELETE CASCADE,
  FOREIGN KEY (class_id, student_id) REFERENCES students (class_id, id) ON DELETE CASCADE
);

CREATE TABLE steps (
  class_id    TEXT NOT NULL,
  lab         TEXT NOT NULL,
  student_id  TEXT NOT NULL,
  command     TEXT NOT NULL,
  at          BIGINT NOT NULL,
  PRIMARY KEY (class_id, lab, student_id),
  FOREIGN KEY (class_id, student_id) REFERENCES students (class_id, id) ON DELETE CASCADE
);

CREATE TABLE reached (
  class_id    TEXT NOT NULL,
  lab         TEXT NOT NULL,
  goal        TEXT NOT NULL,
  student_id  TEXT NOT NULL,
  at          BIGINT NOT NULL,
  PRIMARY KEY (class_id, lab, goal, student_id),
  FOREIGN KEY (class_id, student_id) REFERENCES students (class_id, id) ON DELETE CASCADE
);
