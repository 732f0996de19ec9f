-- The pushes of a push operation: the retention job finds operations whose pushes all finished, and deleting an
-- operation cascades to its pushes; both looked pushes up by `operation_id`, which no index served (a scan of
-- `pushes` per operation).
CREATE INDEX pushes_by_operation ON pushes (operation_id);
