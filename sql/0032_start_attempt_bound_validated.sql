-- The rows written before 0031 meet its bound (0031 clipped them); validated here, in a transaction of its own, under
-- SHARE UPDATE EXCLUSIVE: writes and reads go on while the rows are read (0031's ACCESS EXCLUSIVE was brief).

ALTER TABLE start_attempts VALIDATE CONSTRAINT start_attempts_window_bound;
