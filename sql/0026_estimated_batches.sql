-- Batches planned from the first targets' spread, not from a count (docs/design.md, "Push delivery").
-- A push fanned out to channels whose ids are random is cut into equal ranges of the id space from how far its first
-- chunk of targets reached, with estimated sizes; the pass that counted every target per range before the first
-- send (0.8 s of PostgreSQL for a million) is gone. Such a batch counts its targets as it reads them: when it
-- finishes, `targets` becomes what it processed and the push's `targeted` moves by the difference, so once a push is
-- done `sent + superseded + skipped + canceled = targeted` holds as before. While it sends, `targeted` is the
-- estimate; a push stopped in the middle (canceled, or failed on its credentials) counts its unread ranges as
-- canceled by the estimate.
ALTER TABLE push_batches ADD COLUMN targets_estimated boolean NOT NULL DEFAULT false;
