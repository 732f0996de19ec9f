-- A start attempt's window closes at the latest 48 hours after its push was created (issue 50; `StartAttemptBound`).
--
-- `start_attempts` is partitioned by the push's creation, a week a partition, and every probe of it asks for windows
-- that end after a time. With this bound the probes name the partitions that can hold such windows (pushes created
-- since that time less 48 hours) and the others are pruned as the executor starts, instead of read one by one. The
-- chunk's record writes no window past it (`least(now() + start_confirm_window, push created + 48 hours)`; the
-- API's window is at most a day); this constraint refuses one that would be, in a form PostgreSQL accepts (the
-- difference of two timestamps is immutable, a timestamp plus an interval is not).

UPDATE start_attempts SET window_until = push_created_at + interval '48 hours'
WHERE window_until - push_created_at > interval '48 hours';

-- NOT VALID: enforced for every row written from here on, without holding the table while its rows are read;
-- 0032 validates the rows already there under a lock that lets writes go on.
ALTER TABLE start_attempts ADD CONSTRAINT start_attempts_window_bound
    CHECK (window_until - push_created_at <= interval '48 hours') NOT VALID;
