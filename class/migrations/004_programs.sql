-- What a class's students submit in a program lab (issue 49). Every
-- statement adds: nothing of 001 to 003 is changed.
--
-- Each student's last program per lab, as the engine judged it: its text
-- (at most MaxProgram bytes), the verdict ('pass', 'fail': a schedule
-- broke it, 'fault': the program failed by itself, 'slow': it took more
-- steps than a judgement allows, 'compile': it did not compile), the
-- deciding schedule of a failure in the engine's short form ('pause 6s
-- at 14s; cut 2s at 3s', '' for none), the line of the program that
-- acted (0 none), the deciding moment in the world's milliseconds, how
-- many different programs the student submitted, and when the last was.
CREATE TABLE programs (
  class_id    TEXT NOT NULL,
  lab         TEXT NOT NULL,
  student_id  TEXT NOT NULL,
  text        TEXT NOT NULL,
  verdict     TEXT NOT NULL,
  schedule    TEXT NOT NULL,
  line        INTEGER NOT NULL,
  moment      BIGINT NOT NULL,
  submits     INTEGER NOT NULL,
  at          BIGINT NOT NULL,
  PRIMARY KEY (class_id, lab, student_id),
  FOREIGN KEY (class_id, student_id) REFERENCES students (class_id, id) ON DELETE CASCADE
);

-- The one failing program the lecturer put on the projector: a copy,
-- without its student (the projector never names one), which stays put
-- while its student goes on; pick is its place among the lab's failing
-- programs when it was picked (for "next" and "previous").
CREATE TABLE shown_programs (
  class_id    TEXT PRIMARY KEY REFERENCES classes (id) ON DELETE CASCADE,
  lab         TEXT NOT NULL,
  text        TEXT NOT NULL,
  verdict     TEXT NOT NULL,
  schedule    TEXT NOT NULL,
  line        INTEGER NOT NULL,
  moment      BIGINT NOT NULL,
  pick        INTEGER NOT NULL,
  of_n        INTEGER NOT NULL
);
