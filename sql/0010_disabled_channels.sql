-- The channels whose live activities are disabled, in an index of their own. A push's targets are read without a
-- join on `channels`: the only thing most selectors needed from the channel row was this flag, and its primary-key
-- probe per target was most of a chunk's select (measured on a million instances, 1,000 targets per chunk: 6-9 ms
-- with the join, 2-4 ms with this anti-join). Few channels have the flag off, so the index stays small.
CREATE INDEX channels_live_activities_disabled ON channels (id) WHERE NOT live_activities_enabled;
