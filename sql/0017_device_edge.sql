-- A safe device edge (docs/design.md, "The device edge"). The app secret ships in every copy of the app, so anyone
-- can call the device API with it.

-- What a device may write on its channel (Airship's device-side settings): the tag groups it may replace (default
-- only `device`, which `tags` sets) and whether it may set its named user (default no). The master secret writes
-- everything.
ALTER TABLE apps
    ADD COLUMN device_tag_groups text[] NOT NULL DEFAULT '{device}',
    ADD COLUMN device_named_user boolean NOT NULL DEFAULT false;

-- A per-channel secret, returned once when the channel is created (`channel_secret`): device calls on the channel
-- and a repeated registration of its `install_id` present it (`X-Channel-Secret`). Stored as its SHA-256 (the secret
-- is 32 random bytes: no salt is needed, and the track statement compares it in SQL). Channels created before this
-- migration have none: the first registration of their install_id claims one (trust on first use), and until then
-- device calls on them need no secret.
ALTER TABLE channels ADD COLUMN secret_hash bytea CHECK (octet_length(secret_hash) = 32);
