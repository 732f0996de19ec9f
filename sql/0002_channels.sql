-- Device channels (one per app install) and their tags.

CREATE TABLE channels (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    install_id text NOT NULL,
    device_type text NOT NULL DEFAULT 'ios' CHECK (device_type = 'ios'),
    opt_in boolean NOT NULL DEFAULT false,
    live_activities_enabled boolean NOT NULL DEFAULT true,
    locale text,
    timezone text,
    named_user_id text,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_registration timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, install_id)
);

CREATE INDEX channels_named_user ON channels (app_id, named_user_id) WHERE named_user_id IS NOT NULL;

CREATE TABLE channel_tags (
    channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    app_id bigint NOT NULL,
    tag_group text NOT NULL,
    tag text NOT NULL,
    PRIMARY KEY (channel_id, tag_group, tag)
);

CREATE INDEX channel_tags_audience ON channel_tags (app_id, tag_group, tag, channel_id);
