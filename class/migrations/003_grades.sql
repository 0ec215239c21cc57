-- Grades and what every clicker does (issue 44). Every statement adds:
-- nothing of 001 or 002 is changed, so this step runs the same whether
-- 002 ran before it or runs after it.
--
-- A class's choices: whether joining asks for the student number (NIM:
-- 'off', 'ask' or 'require'), the time zone of its exports ('' is the
-- language's default), whether the lecturer's screen hides nicknames,
-- whether a vote asks how sure the student is and why, and the one
-- "why?" the lecturer put on the projector ('' for none).
ALTER TABLE classes ADD COLUMN nim_mode TEXT NOT NULL DEFAULT 'off';
ALTER TABLE classes ADD COLUMN zone TEXT NOT NULL DEFAULT '';
ALTER TABLE classes ADD COLUMN hide_names INTEGER NOT NULL DEFAULT 0;
ALTER TABLE classes ADD COLUMN confidence INTEGER NOT NULL DEFAULT 0;
ALTER TABLE classes ADD COLUMN ask_why INTEGER NOT NULL DEFAULT 0;
ALTER TABLE classes ADD COLUMN shown_why TEXT NOT NULL DEFAULT '';

-- A student's number, '' if not given; one student of a class per number.
ALTER TABLE students ADD COLUMN nim TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX students_nim ON students (class_id, nim) WHERE nim <> '';

-- When a timed vote closes by itself (milliseconds), NULL for none.
ALTER TABLE rounds ADD COLUMN closes BIGINT;

-- How sure the student was: 1 sure, 0 not sure, NULL not asked.
ALTER TABLE votes ADD COLUMN sure INTEGER;

-- A question the lecturer typed on the spot: its text, its choices'
-- texts (JSON), and the choice the lecturer marked right ('' for none).
CREATE TABLE typed (
  class_id     TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
  id           TEXT NOT NULL,
  text         TEXT NOT NULL,
  choices      TEXT NOT NULL,
  right_choice TEXT NOT NULL,
  created      BIGINT NOT NULL,
  PRIMARY KEY (class_id, id)
);

-- A student's short "why?" for their vote in a round.
CREATE TABLE whys (
  class_id    TEXT NOT NULL,
  round_id    BIGINT NOT NULL,
  student_id  TEXT NOT NULL,
  text        TEXT NOT NULL,
  at          BIGINT NOT NULL,
  PRIMARY KEY (class_id, round_id, student_id),
  FOREIGN KEY (class_id, round_id) REFERENCES rounds (class_id, id) ON DELETE CASCADE,
  FOREIGN KEY (class_id, student_id) REFERENCES students (class_id, id) ON DELETE CASCADE
);

-- The lecturer's list of the students expected (NIM and, if given, a
-- name), with the row of the file each came from.
CREATE TABLE roster (
  class_id    TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
  nim         TEXT NOT NULL,
  name        TEXT NOT NULL,
  line        INTEGER NOT NULL,
  PRIMARY KEY (class_id, nim)
);

-- The program labs (a lab where the student writes the worker) each
-- student's program passed, as the engine judged it.
CREATE TABLE passed (
  class_id    TEXT NOT NULL,
  lab         TEXT NOT NULL,
  student_id  TEXT NOT NULL,
  at          BIGINT NOT NULL,
  PRIMARY KEY (class_id, lab, student_id),
  FOREIGN KEY (class_id, student_id) REFERENCES students (class_id, id) ON DELETE CASCADE
);
