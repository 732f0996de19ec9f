-- Scheduled pushes (Airship's /api/schedules and Teak-style updates of one tracked activity), attribution of taps,
-- and per-app lifecycle policies.

-- A schedule holds a validated push body and fires it once at send_at: a `schedule.fire` job (dedupe key
-- 'schedule:<id>') turns it into a push. An activity schedule is bound to the instance that was current when it was
-- made; if that instance has ended (or was replaced) by then, the schedule is skipped, not fired.
CREATE TABLE schedules (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    name text,
    source text NOT NULL CHECK (source IN ('api', 'activity')),
    channel_id uuid REFERENCES channels (id) ON DELETE CASCADE,
    activity_name text,
    instance_id bigint,
    push jsonb NOT NULL,
    send_at timestamptz NOT NULL,
    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'fired', 'skipped', 'canceled')),
    skip_reason text,
    push_id uuid,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    fired_at timestamptz,
    CHECK ((source = 'activity') = (channel_id IS NOT NULL AND activity_name IS NOT NULL))
);

CREATE INDEX schedules_pending_by_app ON schedules (app_id, send_at) WHERE state = 'pending';
CREATE INDEX schedules_pending_by_activity ON schedules (channel_id, activity_name) WHERE state = 'pending';

-- Which schedule drove a push, and which push last reached an instance (attribution).
ALTER TABLE pushes ADD COLUMN schedule_id uuid;
ALTER TABLE live_activities
    ADD COLUMN last_push_id uuid,
    ADD COLUMN end_push_id uuid;

-- A tap on an activity that opened the app, attributed to the schedule of the latest update that reached it.
CREATE TABLE launches (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    channel_id uuid NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    system_activity_id text NOT NULL,
    push_id uuid,
    schedule_id uuid,
    launched_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX launches_by_schedule ON launches (schedule_id) WHERE schedule_id IS NOT NULL;

-- Lifecycle policies: end an activity that had no update for idle_end_seconds (one end push, dismissed after
-- dismissal_seconds). attributes_type '' is the app's default; a row for a type overrides it.
CREATE TABLE activity_policies (
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    attributes_type text NOT NULL DEFAULT '',
    idle_end_seconds integer CHECK (idle_end_seconds > 0),
    dismissal_seconds integer NOT NULL DEFAULT 0 CHECK (dismissal_seconds >= 0),
    PRIMARY KEY (app_id, attributes_type)
);

-- Dashboard view: each schedule with what its push did.
CREATE VIEW schedule_report AS
SELECT s.id AS schedule_id,
       s.app_id,
       s.name,
       s.source,
       s.state,
       s.skip_reason,
       s.send_at,
       s.fired_at,
       extract(epoch FROM s.fired_at - s.send_at) AS fired_late_seconds,
       p.id AS push_id,
       p.state AS push_state,
       p.accepted,
       p.failed,
       (SELECT count(*) FROM launches l WHERE l.schedule_id = s.id) AS launches
FROM schedules s
LEFT JOIN pushes p ON p.id = s.push_id;

-- Dashboard view: launches per schedule (Teak's "which reminder brought players back").
CREATE VIEW launches_per_schedule AS
SELECT l.app_id, l.schedule_id, s.name AS schedule_name, count(*) AS launches, max(l.launched_at) AS last_launch
FROM launches l
LEFT JOIN schedules s ON s.id = l.schedule_id
GROUP BY l.app_id, l.schedule_id, s.name;
