-- Which run of a batch's job may record its chunks (docs/design.md, "Push delivery").
-- A worker that lost its job's lease (PostgreSQL unreachable longer than the lease, its heartbeat failing) went on
-- sending the batch once its queries got through again, beside the worker that had taken the job over: both
-- recorded their chunks. `make chaos` (PostgreSQL stopped 30 s) counted 26,061 tokens sent twice where one chunk
-- per batch (19,000) is the bound. Each run of a batch job now claims the batch with a token of its own (`runner`,
-- set when it reads the cursor); a chunk's record, the next chunk's declaration and the batch's finish only count
-- for that token. A run whose token was replaced stops after the chunk it has in flight, whose record is refused:
-- the new run re-sends that chunk from the cursor and counts it once.
ALTER TABLE push_batches ADD COLUMN runner uuid;
