-- The whole schema, generated from the migrations (sql/NNNN_*.sql) and the views (sql/views/) by `make schema`:
-- an empty database migrated, then `pg_dump --schema-only` (PostgreSQL 15). Do not edit it: change a migration or
-- a view file and run `make schema`; a test fails while this file differs from what the migrations make.
-- Not shown: the weekly partitions of the history tables (<table>_pYYYYMMDD), made by history_partitions_ensure.

--
-- Name: forget_start_attempts(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.forget_start_attempts() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    DELETE FROM start_attempts s USING gone g WHERE s.channel_id = g.id;
    RETURN NULL;
END;
$$;

--
-- Name: history_partitions_drop(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.history_partitions_drop(older_than timestamp with time zone) RETURNS integer
    LANGUAGE plpgsql
    AS $_$
DECLARE
    p record;
    week timestamptz;
    t text;
    part text;
    dropped integer := 0;
BEGIN
    FOR p IN
        SELECT DISTINCT substring(c.relname FROM '_p([0-9]{8})$') AS day
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent IN ('pushes'::regclass, 'launches'::regclass) AND c.relname ~ '_p[0-9]{8}$'
        ORDER BY 1
    LOOP
        week := p.day::date::timestamp AT TIME ZONE 'UTC';
        EXIT WHEN week + interval '168 hours' > older_than;
        CONTINUE WHEN EXISTS (SELECT 1 FROM pushes WHERE created_at >= week AND created_at < week + interval '168 hours'
                                                     AND state IN ('queued', 'sending'));
        FOREACH t IN ARRAY ARRAY['start_attempts', 'push_failures', 'push_failure_counts', 'push_batches', 'pushes',
                                 'launches'] LOOP
            part := t || '_p' || p.day;
            CONTINUE WHEN to_regclass(part) IS NULL;
            EXECUTE format('ALTER TABLE %I DETACH PARTITION %I', t, part);
            EXECUTE format('DROP TABLE %I', part);
        END LOOP;
        dropped := dropped + 1;
    END LOOP;
    RETURN dropped;
END
$_$;

--
-- Name: history_partitions_ensure(timestamp with time zone, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.history_partitions_ensure(since timestamp with time zone, weeks_ahead integer) RETURNS integer
    LANGUAGE plpgsql
    AS $$
DECLARE
    week timestamptz;
    t text;
    part text;
    made integer := 0;
BEGIN
    FOR week IN
        SELECT generate_series(history_week(least(since, now())),
                               history_week(now()) + make_interval(hours => 168 * weeks_ahead),
                               interval '168 hours')
    LOOP
        FOREACH t IN ARRAY ARRAY['pushes', 'push_batches', 'push_failure_counts', 'push_failures', 'start_attempts',
                                 'launches'] LOOP
            part := t || '_p' || to_char(week AT TIME ZONE 'UTC', 'YYYYMMDD');
            CONTINUE WHEN to_regclass(part) IS NOT NULL;
            BEGIN
                EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)%s', part, t, week,
                               week + interval '168 hours',
                               CASE WHEN t IN ('pushes', 'push_batches') THEN ' WITH (fillfactor = 70)' ELSE '' END);
                made := made + 1;
            EXCEPTION WHEN check_violation THEN
                -- Rows of that week sit in the default partition (this job did not run in time): retention's
                -- batched delete empties it; the week is made on a later run.
                RAISE WARNING 'partition % not made: its rows are in %_default', part, t;
            END;
        END LOOP;
    END LOOP;
    RETURN made;
END
$$;

--
-- Name: history_week(timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.history_week(t timestamp with time zone) RETURNS timestamp with time zone
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT date_trunc('week', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' $$;

--
-- Name: jobs_notify_ready(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.jobs_notify_ready() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('jobs_ready', '');
    RETURN NULL;
END
$$;

--
-- Name: live_activities_push_token_check(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.live_activities_push_token_check() RETURNS trigger
    LANGUAGE plpgsql
    AS $_$
BEGIN
    IF NOT (length(NEW.push_token) BETWEEN 16 AND 400 AND length(NEW.push_token) % 2 = 0
            AND NEW.push_token ~ '^[0-9a-f]+$') THEN
        RAISE EXCEPTION 'new row for relation "live_activities" violates check constraint "live_activities_push_token_check"'
            USING ERRCODE = 'check_violation', TABLE = 'live_activities', CONSTRAINT = 'live_activities_push_token_check';
    END IF;
    RETURN NEW;
END
$_$;

--
-- Name: notify_app_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.notify_app_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('app_changed', OLD.app_key);
    RETURN NULL;
END;
$$;

--
-- Name: notify_contracts_changed(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.notify_contracts_changed() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('app_changed', a.app_key) FROM apps a WHERE a.id = coalesce(NEW.app_id, OLD.app_id);
    RETURN NULL;
END;
$$;

--
-- Name: activity_contracts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.activity_contracts (
    app_id bigint NOT NULL,
    attributes_type text NOT NULL,
    version integer NOT NULL,
    document jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT activity_contracts_version_check CHECK (((version >= 1) AND (version <= 1000000)))
);

--
-- Name: activity_policies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.activity_policies (
    app_id bigint NOT NULL,
    attributes_type text DEFAULT ''::text NOT NULL,
    idle_end_seconds integer,
    dismissal_seconds integer DEFAULT 0 NOT NULL,
    CONSTRAINT activity_policies_dismissal_seconds_check CHECK ((dismissal_seconds >= 0)),
    CONSTRAINT activity_policies_idle_end_seconds_check CHECK ((idle_end_seconds > 0))
);

--
-- Name: apps; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.apps (
    id bigint NOT NULL,
    app_key text NOT NULL,
    name text NOT NULL,
    bundle_id text NOT NULL,
    app_secret_hash bytea NOT NULL,
    master_secret_hash bytea NOT NULL,
    apns_team_id text NOT NULL,
    apns_key_id text NOT NULL,
    apns_environment text NOT NULL,
    apns_private_key_sealed bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    secrets_rotated_at timestamp with time zone DEFAULT now() NOT NULL,
    activity_max_age interval DEFAULT '08:00:00'::interval NOT NULL,
    registry_retention interval DEFAULT '30 days'::interval NOT NULL,
    broadcast_idle_after interval DEFAULT '24:00:00'::interval NOT NULL,
    broadcast_delete_unknown boolean DEFAULT false NOT NULL,
    start_confirm_window interval DEFAULT '00:10:00'::interval NOT NULL,
    starts_per_channel_per_hour integer DEFAULT 8 NOT NULL,
    suspect_after_starts integer DEFAULT 3 NOT NULL,
    skip_suspect_tokens boolean DEFAULT true NOT NULL,
    device_tag_groups text[] DEFAULT '{device}'::text[] NOT NULL,
    device_named_user boolean DEFAULT false NOT NULL,
    server_requests_per_second integer DEFAULT 500 NOT NULL,
    device_requests_per_second integer DEFAULT 10000 NOT NULL,
    max_pending_updates_per_activity integer DEFAULT 100 NOT NULL,
    max_pending_updates integer DEFAULT 100000 NOT NULL,
    max_schedules integer DEFAULT 10000 NOT NULL,
    max_tags_per_channel integer DEFAULT 1000 NOT NULL,
    contract_policy text DEFAULT 'enforce'::text NOT NULL,
    CONSTRAINT apps_activity_max_age_check CHECK ((activity_max_age > '00:00:00'::interval)),
    CONSTRAINT apps_apns_environment_check CHECK ((apns_environment = ANY (ARRAY['production'::text, 'development'::text]))),
    CONSTRAINT apps_app_key_check CHECK ((app_key ~ '^[A-Za-z0-9_-]{22}$'::text)),
    CONSTRAINT apps_broadcast_idle_after_check CHECK ((broadcast_idle_after > '00:00:00'::interval)),
    CONSTRAINT apps_contract_policy_check CHECK ((contract_policy = ANY (ARRAY['off'::text, 'dry_run'::text, 'enforce'::text, 'required'::text]))),
    CONSTRAINT apps_device_requests_per_second_check CHECK ((device_requests_per_second > 0)),
    CONSTRAINT apps_max_pending_updates_check CHECK ((max_pending_updates > 0)),
    CONSTRAINT apps_max_pending_updates_per_activity_check CHECK ((max_pending_updates_per_activity > 0)),
    CONSTRAINT apps_max_schedules_check CHECK ((max_schedules > 0)),
    CONSTRAINT apps_max_tags_per_channel_check CHECK ((max_tags_per_channel > 0)),
    CONSTRAINT apps_registry_retention_check CHECK ((registry_retention >= '00:00:00'::interval)),
    CONSTRAINT apps_server_requests_per_second_check CHECK ((server_requests_per_second > 0)),
    CONSTRAINT apps_start_confirm_window_check CHECK ((start_confirm_window > '00:00:00'::interval)),
    CONSTRAINT apps_starts_per_channel_per_hour_check CHECK ((starts_per_channel_per_hour > 0)),
    CONSTRAINT apps_suspect_after_starts_check CHECK ((suspect_after_starts > 0))
);

--
-- Name: apps_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.apps ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.apps_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: broadcast_channel_drift; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.broadcast_channel_drift (
    app_id bigint NOT NULL,
    environment text NOT NULL,
    channel_id text NOT NULL,
    side text NOT NULL,
    deleted_at_apple boolean DEFAULT false NOT NULL,
    seen_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT broadcast_channel_drift_side_check CHECK ((side = ANY (ARRAY['apple_only'::text, 'local_only'::text])))
);

--
-- Name: broadcast_channels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.broadcast_channels (
    app_id bigint NOT NULL,
    environment text NOT NULL,
    name text NOT NULL,
    channel_id text NOT NULL,
    storage text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_push_at timestamp with time zone,
    sending_seq bigint,
    sending_until timestamp with time zone,
    last_sent_seq bigint,
    CONSTRAINT broadcast_channels_environment_check CHECK ((environment = ANY (ARRAY['production'::text, 'development'::text]))),
    CONSTRAINT broadcast_channels_storage_check CHECK ((storage = ANY (ARRAY['none'::text, 'latest'::text])))
);

--
-- Name: live_activities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.live_activities (
    id bigint NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    name text NOT NULL,
    attributes_type text NOT NULL,
    system_activity_id text NOT NULL,
    push_token text,
    environment text NOT NULL,
    state text DEFAULT 'active'::text NOT NULL,
    ended_reason text,
    invalid_reason text,
    started_at timestamp with time zone DEFAULT now() NOT NULL,
    token_updated_at timestamp with time zone DEFAULT now() NOT NULL,
    invalidated_at timestamp with time zone,
    ended_at timestamp with time zone,
    last_update_at timestamp with time zone,
    last_apns_timestamp bigint,
    last_push_id uuid,
    end_push_id uuid,
    last_push_seq bigint,
    broadcast_channel_id text,
    p10_hour_start timestamp with time zone,
    p10_count integer DEFAULT 0 NOT NULL,
    attributes jsonb,
    renewal_id bigint,
    device_ended_at timestamp with time zone,
    dismissed_at timestamp with time zone,
    start_push_id uuid,
    contract_version integer DEFAULT 0 NOT NULL,
    CONSTRAINT live_activities_check CHECK (((state = ANY (ARRAY['ended'::text, 'expired'::text])) = (ended_at IS NOT NULL))),
    CONSTRAINT live_activities_contract_version_check CHECK (((contract_version >= 0) AND (contract_version <= 1000000))),
    CONSTRAINT live_activities_environment_check CHECK ((environment = ANY (ARRAY['production'::text, 'development'::text]))),
    CONSTRAINT live_activities_reachable CHECK (((push_token IS NOT NULL) OR (broadcast_channel_id IS NOT NULL))),
    CONSTRAINT live_activities_state_check CHECK ((state = ANY (ARRAY['active'::text, 'invalid'::text, 'ended'::text, 'expired'::text])))
)
WITH (fillfactor='70');

--
-- Name: broadcast_channel_report; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.broadcast_channel_report AS
 SELECT c.app_id,
    a.app_key,
    c.environment,
    c.name,
    c.channel_id,
    c.storage,
    c.created_at,
    c.last_push_at,
    ( SELECT count(*) AS count
           FROM public.live_activities l
          WHERE ((l.app_id = c.app_id) AND (l.broadcast_channel_id = c.channel_id) AND (l.state = 'active'::text))) AS tracked_instances
   FROM (public.broadcast_channels c
     JOIN public.apps a ON ((a.id = c.app_id)));

--
-- Name: channel_tags; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.channel_tags (
    channel_id uuid NOT NULL,
    app_id bigint NOT NULL,
    tag_group text NOT NULL,
    tag text NOT NULL
);

--
-- Name: channels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.channels (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    app_id bigint NOT NULL,
    install_id text NOT NULL,
    device_type text DEFAULT 'ios'::text NOT NULL,
    opt_in boolean DEFAULT false NOT NULL,
    live_activities_enabled boolean DEFAULT true NOT NULL,
    locale text,
    timezone text,
    named_user_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    last_registration timestamp with time zone DEFAULT now() NOT NULL,
    secret_hash bytea,
    CONSTRAINT channels_device_type_check CHECK ((device_type = 'ios'::text)),
    CONSTRAINT channels_secret_hash_check CHECK ((octet_length(secret_hash) = 32))
);

--
-- Name: push_to_start_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_to_start_tokens (
    channel_id uuid NOT NULL,
    app_id bigint NOT NULL,
    attributes_type text NOT NULL,
    token text NOT NULL,
    environment text NOT NULL,
    state text DEFAULT 'active'::text NOT NULL,
    invalid_reason text,
    invalidated_at timestamp with time zone,
    registered_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    registered_again_at timestamp with time zone DEFAULT now() NOT NULL,
    contract_version integer DEFAULT 0 NOT NULL,
    CONSTRAINT push_to_start_tokens_contract_version_check CHECK (((contract_version >= 0) AND (contract_version <= 1000000))),
    CONSTRAINT push_to_start_tokens_environment_check CHECK ((environment = ANY (ARRAY['production'::text, 'development'::text]))),
    CONSTRAINT push_to_start_tokens_state_check CHECK ((state = ANY (ARRAY['active'::text, 'invalid'::text]))),
    CONSTRAINT push_to_start_tokens_token_check CHECK ((((length(token) >= 16) AND (length(token) <= 400)) AND ((length(token) % 2) = 0) AND (token ~ '^[0-9a-f]+$'::text)))
);

--
-- Name: contract_versions; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.contract_versions AS
 WITH reported AS (
         SELECT live_activities.app_id,
            live_activities.attributes_type,
            live_activities.contract_version,
            count(*) AS live_activities,
            (0)::bigint AS push_to_start_tokens
           FROM public.live_activities
          WHERE (live_activities.state = 'active'::text)
          GROUP BY live_activities.app_id, live_activities.attributes_type, live_activities.contract_version
        UNION ALL
         SELECT push_to_start_tokens.app_id,
            push_to_start_tokens.attributes_type,
            push_to_start_tokens.contract_version,
            (0)::bigint AS int8,
            count(*) AS count
           FROM public.push_to_start_tokens
          WHERE (push_to_start_tokens.state = 'active'::text)
          GROUP BY push_to_start_tokens.app_id, push_to_start_tokens.attributes_type, push_to_start_tokens.contract_version
        UNION ALL
         SELECT activity_contracts.app_id,
            activity_contracts.attributes_type,
            activity_contracts.version,
            (0)::bigint AS int8,
            (0)::bigint AS int8
           FROM public.activity_contracts
        )
 SELECT r.app_id,
    a.app_key,
    r.attributes_type,
    r.contract_version,
    (sum(r.live_activities))::bigint AS active_live_activities,
    (sum(r.push_to_start_tokens))::bigint AS active_push_to_start_tokens,
    (EXISTS ( SELECT 1
           FROM public.activity_contracts c
          WHERE ((c.app_id = r.app_id) AND (c.attributes_type = r.attributes_type) AND (c.version = r.contract_version)))) AS stored
   FROM (reported r
     JOIN public.apps a ON ((a.id = r.app_id)))
  GROUP BY r.app_id, a.app_key, r.attributes_type, r.contract_version;

--
-- Name: delivery_stamp_pushes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.delivery_stamp_pushes (
    push_id uuid NOT NULL,
    app_id bigint NOT NULL,
    activity_name text NOT NULL,
    apns_timestamp bigint NOT NULL,
    push_seq bigint NOT NULL
);

--
-- Name: delivery_stamps; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.delivery_stamps (
    id bigint NOT NULL,
    push_id uuid NOT NULL,
    app_id bigint NOT NULL,
    activity_name text NOT NULL,
    apns_timestamp bigint NOT NULL,
    delivered_at timestamp with time zone DEFAULT now() NOT NULL,
    instance_ids bigint[] NOT NULL,
    push_seq bigint DEFAULT 0 NOT NULL,
    first_channel uuid NOT NULL,
    last_channel uuid NOT NULL
);

--
-- Name: delivery_stamps_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.delivery_stamps ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.delivery_stamps_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: device_operations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.device_operations (
    id bigint NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    route text NOT NULL,
    idempotency_key text NOT NULL,
    response jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT device_operations_route_check CHECK ((route = ANY (ARRAY['activity_update'::text, 'launch'::text])))
);

--
-- Name: device_operations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.device_operations ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.device_operations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: forgotten_channels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.forgotten_channels (
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    forgotten_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: launches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.launches (
    id bigint NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    system_activity_id text NOT NULL,
    push_id uuid,
    schedule_id uuid,
    launched_at timestamp with time zone DEFAULT now() NOT NULL
)
PARTITION BY RANGE (launched_at);

--
-- Name: history_launches_id; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.history_launches_id
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: history_launches_id; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.history_launches_id OWNED BY public.launches.id;

--
-- Name: push_failures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_failures (
    id bigint NOT NULL,
    push_id uuid NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    token text NOT NULL,
    status integer,
    reason text NOT NULL,
    failed_at timestamp with time zone DEFAULT now() NOT NULL,
    push_created_at timestamp with time zone NOT NULL
)
PARTITION BY RANGE (push_created_at);

--
-- Name: history_push_failures_id; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.history_push_failures_id
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: history_push_failures_id; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.history_push_failures_id OWNED BY public.push_failures.id;

--
-- Name: pushes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pushes (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    app_id bigint NOT NULL,
    operation_id uuid NOT NULL,
    event text NOT NULL,
    activity_name text,
    attributes_type text,
    audience jsonb NOT NULL,
    request jsonb NOT NULL,
    apns_payload bytea NOT NULL,
    apns_timestamp bigint NOT NULL,
    apns_priority smallint NOT NULL,
    campaign_categories text[] DEFAULT '{}'::text[] NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    failure_reason text,
    batches_total integer,
    batches_done integer DEFAULT 0 NOT NULL,
    targeted bigint DEFAULT 0 NOT NULL,
    canceled bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    schedule_id uuid,
    seq bigint NOT NULL,
    superseded_by uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    delivery text DEFAULT 'tokens'::text NOT NULL,
    broadcast_channel_id text,
    broadcast_status integer,
    broadcast_reason text,
    apns_unique_id text,
    broadcast_sent_at timestamp with time zone,
    apns_expiration bigint,
    starts_started bigint,
    starts_not_started bigint,
    starts_settled_at timestamp with time zone,
    CONSTRAINT pushes_apns_priority_check CHECK ((apns_priority = ANY (ARRAY[1, 5, 10]))),
    CONSTRAINT pushes_broadcast_has_channel CHECK (((delivery = 'tokens'::text) = (broadcast_channel_id IS NULL))),
    CONSTRAINT pushes_delivery_check CHECK ((delivery = ANY (ARRAY['tokens'::text, 'broadcast'::text, 'both'::text]))),
    CONSTRAINT pushes_event_check CHECK ((event = ANY (ARRAY['start'::text, 'update'::text, 'end'::text]))),
    CONSTRAINT pushes_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'sending'::text, 'done'::text, 'failed'::text, 'canceled'::text])))
)
PARTITION BY RANGE (created_at);

--
-- Name: history_pushes_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.history_pushes_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: history_pushes_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.history_pushes_seq OWNED BY public.pushes.seq;

--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id bigint NOT NULL,
    kind text NOT NULL,
    app_id bigint DEFAULT 0 NOT NULL,
    payload jsonb DEFAULT '{}'::jsonb NOT NULL,
    priority smallint DEFAULT 0 NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    run_at timestamp with time zone DEFAULT now() NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    max_attempts integer DEFAULT 8 NOT NULL,
    lease_owner text,
    last_error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    dedupe_key text,
    CONSTRAINT jobs_max_attempts_check CHECK ((max_attempts > 0)),
    CONSTRAINT jobs_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'running'::text, 'dead'::text])))
);

--
-- Name: jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.jobs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: launches_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.launches_default (
    id bigint DEFAULT nextval('public.history_launches_id'::regclass) NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    system_activity_id text NOT NULL,
    push_id uuid,
    schedule_id uuid,
    launched_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: schedules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schedules (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    app_id bigint NOT NULL,
    name text,
    source text NOT NULL,
    channel_id uuid,
    activity_name text,
    instance_id bigint,
    push jsonb NOT NULL,
    send_at timestamp with time zone NOT NULL,
    state text DEFAULT 'pending'::text NOT NULL,
    skip_reason text,
    push_id uuid,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    fired_at timestamp with time zone,
    CONSTRAINT schedules_check CHECK (((source = 'activity'::text) = ((channel_id IS NOT NULL) AND (activity_name IS NOT NULL)))),
    CONSTRAINT schedules_source_check CHECK ((source = ANY (ARRAY['api'::text, 'activity'::text]))),
    CONSTRAINT schedules_state_check CHECK ((state = ANY (ARRAY['pending'::text, 'fired'::text, 'skipped'::text, 'canceled'::text])))
);

--
-- Name: launches_per_schedule; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.launches_per_schedule AS
 SELECT l.app_id,
    l.schedule_id,
    s.name AS schedule_name,
    count(*) AS launches,
    max(l.launched_at) AS last_launch
   FROM (public.launches l
     LEFT JOIN public.schedules s ON (((s.id = l.schedule_id) AND (s.app_id = l.app_id))))
  GROUP BY l.app_id, l.schedule_id, s.name;

--
-- Name: live_activities_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.live_activities ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.live_activities_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: push_batches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_batches (
    push_id uuid NOT NULL,
    seq integer NOT NULL,
    lower_channel uuid,
    upper_channel uuid,
    cursor_channel uuid,
    targets integer NOT NULL,
    processed integer DEFAULT 0 NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    sent_by_fanout boolean DEFAULT false NOT NULL,
    sent bigint DEFAULT 0 NOT NULL,
    accepted bigint DEFAULT 0 NOT NULL,
    failed bigint DEFAULT 0 NOT NULL,
    skipped bigint DEFAULT 0 NOT NULL,
    canceled bigint DEFAULT 0 NOT NULL,
    first_request_at timestamp with time zone,
    superseded bigint DEFAULT 0 NOT NULL,
    superseded_gen integer DEFAULT 0 NOT NULL,
    sending_gen integer DEFAULT 0 NOT NULL,
    sending_until timestamp with time zone,
    already_active bigint DEFAULT 0 NOT NULL,
    start_budget bigint DEFAULT 0 NOT NULL,
    suspect_token bigint DEFAULT 0 NOT NULL,
    downgraded bigint DEFAULT 0 NOT NULL,
    push_created_at timestamp with time zone NOT NULL,
    targets_estimated boolean DEFAULT false NOT NULL,
    runner uuid,
    app_id bigint NOT NULL,
    CONSTRAINT push_batches_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'done'::text, 'stopped'::text])))
)
PARTITION BY RANGE (push_created_at);

--
-- Name: push_batches_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_batches_default (
    push_id uuid NOT NULL,
    seq integer NOT NULL,
    lower_channel uuid,
    upper_channel uuid,
    cursor_channel uuid,
    targets integer NOT NULL,
    processed integer DEFAULT 0 NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    sent_by_fanout boolean DEFAULT false NOT NULL,
    sent bigint DEFAULT 0 NOT NULL,
    accepted bigint DEFAULT 0 NOT NULL,
    failed bigint DEFAULT 0 NOT NULL,
    skipped bigint DEFAULT 0 NOT NULL,
    canceled bigint DEFAULT 0 NOT NULL,
    first_request_at timestamp with time zone,
    superseded bigint DEFAULT 0 NOT NULL,
    superseded_gen integer DEFAULT 0 NOT NULL,
    sending_gen integer DEFAULT 0 NOT NULL,
    sending_until timestamp with time zone,
    already_active bigint DEFAULT 0 NOT NULL,
    start_budget bigint DEFAULT 0 NOT NULL,
    suspect_token bigint DEFAULT 0 NOT NULL,
    downgraded bigint DEFAULT 0 NOT NULL,
    push_created_at timestamp with time zone NOT NULL,
    targets_estimated boolean DEFAULT false NOT NULL,
    runner uuid,
    app_id bigint NOT NULL,
    CONSTRAINT push_batches_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'done'::text, 'stopped'::text])))
)
WITH (fillfactor='70');

--
-- Name: push_failure_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_failure_counts (
    push_id uuid NOT NULL,
    reason text NOT NULL,
    count bigint NOT NULL,
    push_created_at timestamp with time zone NOT NULL,
    app_id bigint NOT NULL
)
PARTITION BY RANGE (push_created_at);

--
-- Name: push_failure_counts_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_failure_counts_default (
    push_id uuid NOT NULL,
    reason text NOT NULL,
    count bigint NOT NULL,
    push_created_at timestamp with time zone NOT NULL,
    app_id bigint NOT NULL
);

--
-- Name: push_failures_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_failures_default (
    id bigint DEFAULT nextval('public.history_push_failures_id'::regclass) NOT NULL,
    push_id uuid NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    token text NOT NULL,
    status integer,
    reason text NOT NULL,
    failed_at timestamp with time zone DEFAULT now() NOT NULL,
    push_created_at timestamp with time zone NOT NULL
);

--
-- Name: push_operations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_operations (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    app_id bigint NOT NULL,
    idempotency_key text,
    response jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: start_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.start_attempts (
    push_id uuid NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    name text NOT NULL,
    attributes_type text NOT NULL,
    token text NOT NULL,
    accepted_at timestamp with time zone DEFAULT now() NOT NULL,
    window_until timestamp with time zone NOT NULL,
    outcome text DEFAULT 'pending'::text NOT NULL,
    started_at timestamp with time zone,
    push_created_at timestamp with time zone NOT NULL,
    CONSTRAINT start_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['pending'::text, 'started'::text]))),
    CONSTRAINT start_attempts_window_bound CHECK (((window_until - push_created_at) <= '48:00:00'::interval))
)
PARTITION BY RANGE (push_created_at);

--
-- Name: push_report; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.push_report AS
 SELECT p.id AS push_id,
    a.app_key,
    p.app_id,
    p.operation_id,
    p.event,
    p.activity_name,
    p.attributes_type,
    p.state,
    p.failure_reason,
    p.targeted,
    b.sent,
    b.accepted,
    b.failed,
    b.skipped,
    (p.canceled + b.canceled) AS canceled,
    COALESCE(r.failed_by_reason, '{}'::jsonb) AS failed_by_reason,
    p.created_at,
    p.started_at,
    p.finished_at,
    EXTRACT(epoch FROM (p.finished_at - p.created_at)) AS seconds_to_finish,
    b.first_request_at,
    EXTRACT(epoch FROM (b.first_request_at - p.created_at)) AS seconds_to_first_request,
    b.superseded,
    p.delivery,
    p.broadcast_channel_id,
    p.broadcast_status,
    p.broadcast_reason,
    p.apns_unique_id,
    p.broadcast_sent_at,
    EXTRACT(epoch FROM (p.broadcast_sent_at - p.created_at)) AS seconds_to_broadcast,
    b.already_active,
    b.start_budget,
    s.started,
    s.not_started,
    s.pending AS start_pending,
    b.suspect_token,
    b.downgraded,
    e.ended AS starts_ended,
    e.ended_on_device AS starts_ended_on_device,
    e.dismissed AS starts_dismissed,
    e.lifetime_median_seconds,
    e.lifetime_p90_seconds,
    e.lifetime_max_seconds
   FROM ((((((public.pushes p
     JOIN public.apps a ON ((a.id = p.app_id)))
     CROSS JOIN LATERAL ( SELECT (COALESCE(sum(x.sent), (0)::numeric))::bigint AS sent,
            (COALESCE(sum(x.accepted), (0)::numeric))::bigint AS accepted,
            (COALESCE(sum(x.failed), (0)::numeric))::bigint AS failed,
            (COALESCE(sum(x.skipped), (0)::numeric))::bigint AS skipped,
            (COALESCE(sum(x.canceled), (0)::numeric))::bigint AS canceled,
            min(x.first_request_at) AS first_request_at,
            (COALESCE(sum(x.superseded), (0)::numeric))::bigint AS superseded,
            (COALESCE(sum(x.already_active), (0)::numeric))::bigint AS already_active,
            (COALESCE(sum(x.start_budget), (0)::numeric))::bigint AS start_budget,
            (COALESCE(sum(x.suspect_token), (0)::numeric))::bigint AS suspect_token,
            (COALESCE(sum(x.downgraded), (0)::numeric))::bigint AS downgraded
           FROM public.push_batches x
          WHERE ((x.push_id = p.id) AND (x.app_id = p.app_id))) b)
     LEFT JOIN LATERAL ( SELECT jsonb_object_agg(f.reason, f.count) AS failed_by_reason
           FROM public.push_failure_counts f
          WHERE ((f.push_id = p.id) AND (f.app_id = p.app_id))) r ON (true))
     LEFT JOIN LATERAL ( SELECT
                CASE
                    WHEN (p.starts_settled_at IS NOT NULL) THEN p.starts_started
                    ELSE count(*)
                END AS started,
            ((p.finished_at IS NOT NULL) AND ((p.finished_at + a.start_confirm_window) <= now())) AS closed
           FROM public.start_attempts t
          WHERE ((t.push_id = p.id) AND (t.app_id = p.app_id) AND (t.outcome = 'started'::text) AND (p.starts_settled_at IS NULL))
         HAVING (p.event = 'start'::text)) c ON (true))
     CROSS JOIN LATERAL ( SELECT COALESCE(c.started, (0)::bigint) AS started,
                CASE
                    WHEN (p.starts_settled_at IS NOT NULL) THEN p.starts_not_started
                    WHEN c.closed THEN GREATEST((b.accepted - c.started), (0)::bigint)
                    ELSE (0)::bigint
                END AS not_started,
                CASE
                    WHEN (c.closed OR (c.started IS NULL)) THEN (0)::bigint
                    ELSE GREATEST((b.accepted - c.started), (0)::bigint)
                END AS pending) s)
     LEFT JOIN LATERAL ( SELECT count(*) AS ended,
            count(*) FILTER (WHERE (l.device_ended_at IS NOT NULL)) AS ended_on_device,
            count(*) FILTER (WHERE (l.dismissed_at IS NOT NULL)) AS dismissed,
            round((percentile_cont((0.5)::double precision) WITHIN GROUP (ORDER BY l.lifetime))::numeric, 3) AS lifetime_median_seconds,
            round((percentile_cont((0.9)::double precision) WITHIN GROUP (ORDER BY l.lifetime))::numeric, 3) AS lifetime_p90_seconds,
            round((max(l.lifetime))::numeric, 3) AS lifetime_max_seconds
           FROM ( SELECT x.device_ended_at,
                    x.dismissed_at,
                    (GREATEST(EXTRACT(epoch FROM (COALESCE(x.device_ended_at, x.ended_at) - x.started_at)), (0)::numeric))::double precision AS lifetime
                   FROM public.live_activities x
                  WHERE ((x.start_push_id = p.id) AND (x.app_id = p.app_id) AND (x.state = ANY (ARRAY['ended'::text, 'expired'::text])) AND (p.event = 'start'::text))) l) e ON (true));

--
-- Name: push_stats_hourly; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.push_stats_hourly AS
 SELECT r.app_id,
    r.app_key,
    date_trunc('hour'::text, r.created_at) AS hour,
    count(*) AS pushes,
    sum(r.targeted) AS targeted,
    sum(r.sent) AS sent,
    sum(r.accepted) AS accepted,
    sum(r.failed) AS failed,
    sum(r.skipped) AS skipped,
    sum(r.canceled) AS canceled,
    sum(r.superseded) AS superseded,
    count(*) FILTER (WHERE (r.delivery <> 'tokens'::text)) AS broadcasts,
    count(*) FILTER (WHERE (r.broadcast_status = 200)) AS broadcasts_accepted,
    count(*) FILTER (WHERE ((r.broadcast_status IS NOT NULL) AND (r.broadcast_status <> 200))) AS broadcasts_failed,
    sum(r.already_active) AS already_active,
    sum(r.start_budget) AS start_budget,
    sum(r.started) AS started,
    sum(r.not_started) AS not_started,
    sum(r.suspect_token) AS suspect_token,
    sum(r.downgraded) AS downgraded
   FROM public.push_report r
  GROUP BY r.app_id, r.app_key, (date_trunc('hour'::text, r.created_at));

--
-- Name: pushes_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pushes_default (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    app_id bigint NOT NULL,
    operation_id uuid NOT NULL,
    event text NOT NULL,
    activity_name text,
    attributes_type text,
    audience jsonb NOT NULL,
    request jsonb NOT NULL,
    apns_payload bytea NOT NULL,
    apns_timestamp bigint NOT NULL,
    apns_priority smallint NOT NULL,
    campaign_categories text[] DEFAULT '{}'::text[] NOT NULL,
    state text DEFAULT 'queued'::text NOT NULL,
    failure_reason text,
    batches_total integer,
    batches_done integer DEFAULT 0 NOT NULL,
    targeted bigint DEFAULT 0 NOT NULL,
    canceled bigint DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    finished_at timestamp with time zone,
    schedule_id uuid,
    seq bigint DEFAULT nextval('public.history_pushes_seq'::regclass) NOT NULL,
    superseded_by uuid[] DEFAULT '{}'::uuid[] NOT NULL,
    delivery text DEFAULT 'tokens'::text NOT NULL,
    broadcast_channel_id text,
    broadcast_status integer,
    broadcast_reason text,
    apns_unique_id text,
    broadcast_sent_at timestamp with time zone,
    apns_expiration bigint,
    starts_started bigint,
    starts_not_started bigint,
    starts_settled_at timestamp with time zone,
    CONSTRAINT pushes_apns_priority_check CHECK ((apns_priority = ANY (ARRAY[1, 5, 10]))),
    CONSTRAINT pushes_broadcast_has_channel CHECK (((delivery = 'tokens'::text) = (broadcast_channel_id IS NULL))),
    CONSTRAINT pushes_delivery_check CHECK ((delivery = ANY (ARRAY['tokens'::text, 'broadcast'::text, 'both'::text]))),
    CONSTRAINT pushes_event_check CHECK ((event = ANY (ARRAY['start'::text, 'update'::text, 'end'::text]))),
    CONSTRAINT pushes_state_check CHECK ((state = ANY (ARRAY['queued'::text, 'sending'::text, 'done'::text, 'failed'::text, 'canceled'::text])))
)
WITH (fillfactor='70');

--
-- Name: queue_depth; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.queue_depth AS
 SELECT jobs.kind,
    jobs.state,
    count(*) AS jobs,
    count(*) FILTER (WHERE ((jobs.state = 'queued'::text) AND (jobs.run_at <= now()))) AS due_now,
    min(jobs.run_at) FILTER (WHERE (jobs.state = 'queued'::text)) AS next_run_at
   FROM public.jobs
  GROUP BY jobs.kind, jobs.state;

--
-- Name: registry_by_app; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.registry_by_app AS
 SELECT a.id AS app_id,
    a.app_key,
    ( SELECT count(*) AS count
           FROM public.channels c
          WHERE (c.app_id = a.id)) AS channels,
    ( SELECT count(*) AS count
           FROM public.push_to_start_tokens p
          WHERE ((p.app_id = a.id) AND (p.state = 'active'::text))) AS active_push_to_start_tokens,
    ( SELECT count(*) AS count
           FROM public.live_activities l
          WHERE ((l.app_id = a.id) AND (l.state = 'active'::text))) AS active_live_activities,
    ( SELECT count(*) AS count
           FROM public.live_activities l
          WHERE ((l.app_id = a.id) AND (l.state = 'invalid'::text))) AS invalid_live_activities
   FROM public.apps a;

--
-- Name: renew_policies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.renew_policies (
    app_id bigint NOT NULL,
    attributes_type text NOT NULL,
    after_seconds integer NOT NULL,
    alert_title text NOT NULL,
    alert_body text NOT NULL,
    CONSTRAINT renew_policies_after_seconds_check CHECK ((after_seconds > 0))
);

--
-- Name: renewals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.renewals (
    id bigint NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    instance_id bigint NOT NULL,
    name text NOT NULL,
    end_push_id uuid NOT NULL,
    start_push_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: renewal_report; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.renewal_report AS
 SELECT r.id AS renewal_id,
    r.app_id,
    a.app_key,
    r.channel_id,
    r.name,
    r.instance_id,
    r.end_push_id,
    r.start_push_id,
    r.created_at,
        CASE
            WHEN (s.outcome = 'started'::text) THEN 'started'::text
            WHEN ((s.outcome = 'pending'::text) AND (s.window_until <= now())) THEN 'not_started'::text
            WHEN (s.outcome = 'pending'::text) THEN 'pending'::text
            ELSE COALESCE(( SELECT
                    CASE
                        WHEN (p.state = ANY (ARRAY['queued'::text, 'sending'::text])) THEN 'sending'::text
                        ELSE 'not_sent'::text
                    END AS "case"
               FROM public.pushes p
              WHERE ((p.id = r.start_push_id) AND (p.app_id = r.app_id))), 'not_sent'::text)
        END AS outcome
   FROM ((public.renewals r
     JOIN public.apps a ON ((a.id = r.app_id)))
     LEFT JOIN public.start_attempts s ON (((s.push_id = r.start_push_id) AND (s.channel_id = r.channel_id) AND (s.app_id = r.app_id))));

--
-- Name: renewals_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.renewals ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.renewals_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: schedule_report; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.schedule_report AS
 SELECT s.id AS schedule_id,
    s.app_id,
    s.name,
    s.source,
    s.state,
    s.skip_reason,
    s.send_at,
    s.fired_at,
    EXTRACT(epoch FROM (s.fired_at - s.send_at)) AS fired_late_seconds,
    r.push_id,
    r.state AS push_state,
    r.accepted,
    r.failed,
    ( SELECT count(*) AS count
           FROM public.launches l
          WHERE ((l.schedule_id = s.id) AND (l.app_id = s.app_id))) AS launches
   FROM (public.schedules s
     LEFT JOIN public.push_report r ON (((r.push_id = s.push_id) AND (r.app_id = s.app_id))));

--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: start_attempts_default; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.start_attempts_default (
    push_id uuid NOT NULL,
    app_id bigint NOT NULL,
    channel_id uuid NOT NULL,
    name text NOT NULL,
    attributes_type text NOT NULL,
    token text NOT NULL,
    accepted_at timestamp with time zone DEFAULT now() NOT NULL,
    window_until timestamp with time zone NOT NULL,
    outcome text DEFAULT 'pending'::text NOT NULL,
    started_at timestamp with time zone,
    push_created_at timestamp with time zone NOT NULL,
    CONSTRAINT start_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['pending'::text, 'started'::text]))),
    CONSTRAINT start_attempts_window_bound CHECK (((window_until - push_created_at) <= '48:00:00'::interval))
);

--
-- Name: start_report; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.start_report AS
 SELECT r.push_id,
    r.app_id,
    r.app_key,
    r.activity_name,
    r.attributes_type,
    r.created_at,
    r.accepted,
    r.started,
    r.not_started,
    r.start_pending,
    r.already_active,
    r.start_budget,
    r.suspect_token,
        CASE
            WHEN ((r.started + r.not_started) > 0) THEN round(((r.started)::numeric / ((r.started + r.not_started))::numeric), 4)
            ELSE NULL::numeric
        END AS start_rate,
    r.starts_ended AS ended,
    r.starts_ended_on_device AS ended_on_device,
    r.starts_dismissed AS dismissed,
    r.lifetime_median_seconds,
    r.lifetime_p90_seconds,
    r.lifetime_max_seconds
   FROM public.push_report r
  WHERE (r.event = 'start'::text);

--
-- Name: start_report_hourly; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.start_report_hourly AS
 SELECT start_report.app_id,
    start_report.app_key,
    date_trunc('hour'::text, start_report.created_at) AS hour,
    count(*) AS pushes,
    sum(start_report.accepted) AS accepted,
    sum(start_report.started) AS started,
    sum(start_report.not_started) AS not_started,
    sum(start_report.already_active) AS already_active,
    sum(start_report.start_budget) AS start_budget,
    sum(start_report.suspect_token) AS suspect_token,
        CASE
            WHEN (sum((start_report.started + start_report.not_started)) > (0)::numeric) THEN round((sum(start_report.started) / sum((start_report.started + start_report.not_started))), 4)
            ELSE NULL::numeric
        END AS start_rate,
    sum(start_report.ended) AS ended,
    sum(start_report.ended_on_device) AS ended_on_device,
    sum(start_report.dismissed) AS dismissed
   FROM public.start_report
  GROUP BY start_report.app_id, start_report.app_key, (date_trunc('hour'::text, start_report.created_at));

--
-- Name: targetable_live_activities; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.targetable_live_activities AS
 SELECT la.id,
    la.app_id,
    la.channel_id,
    la.name,
    la.attributes_type,
    la.system_activity_id,
    la.push_token,
    la.environment,
    la.state,
    la.ended_reason,
    la.invalid_reason,
    la.started_at,
    la.token_updated_at,
    la.invalidated_at,
    la.ended_at,
    la.last_update_at,
    la.last_apns_timestamp
   FROM (public.live_activities la
     JOIN public.apps a ON ((a.id = la.app_id)))
  WHERE ((la.state = 'active'::text) AND (la.started_at > (now() - a.activity_max_age)) AND (la.environment = a.apns_environment));

--
-- Name: update_budgets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.update_budgets (
    app_id bigint NOT NULL,
    attributes_type text NOT NULL,
    priority_10_per_hour integer NOT NULL,
    CONSTRAINT update_budgets_priority_10_per_hour_check CHECK ((priority_10_per_hour > 0))
);

--
-- Name: launches_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.launches ATTACH PARTITION public.launches_default DEFAULT;

--
-- Name: push_batches_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_batches ATTACH PARTITION public.push_batches_default DEFAULT;

--
-- Name: push_failure_counts_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_failure_counts ATTACH PARTITION public.push_failure_counts_default DEFAULT;

--
-- Name: push_failures_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_failures ATTACH PARTITION public.push_failures_default DEFAULT;

--
-- Name: pushes_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pushes ATTACH PARTITION public.pushes_default DEFAULT;

--
-- Name: start_attempts_default; Type: TABLE ATTACH; Schema: public; Owner: -
--

ALTER TABLE ONLY public.start_attempts ATTACH PARTITION public.start_attempts_default DEFAULT;

--
-- Name: launches id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.launches ALTER COLUMN id SET DEFAULT nextval('public.history_launches_id'::regclass);

--
-- Name: push_failures id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_failures ALTER COLUMN id SET DEFAULT nextval('public.history_push_failures_id'::regclass);

--
-- Name: pushes seq; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pushes ALTER COLUMN seq SET DEFAULT nextval('public.history_pushes_seq'::regclass);

--
-- Name: activity_contracts activity_contracts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity_contracts
    ADD CONSTRAINT activity_contracts_pkey PRIMARY KEY (app_id, attributes_type, version);

--
-- Name: activity_policies activity_policies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity_policies
    ADD CONSTRAINT activity_policies_pkey PRIMARY KEY (app_id, attributes_type);

--
-- Name: apps apps_app_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT apps_app_key_key UNIQUE (app_key);

--
-- Name: apps apps_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.apps
    ADD CONSTRAINT apps_pkey PRIMARY KEY (id);

--
-- Name: broadcast_channel_drift broadcast_channel_drift_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.broadcast_channel_drift
    ADD CONSTRAINT broadcast_channel_drift_pkey PRIMARY KEY (app_id, environment, channel_id);

--
-- Name: broadcast_channels broadcast_channels_app_id_environment_channel_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.broadcast_channels
    ADD CONSTRAINT broadcast_channels_app_id_environment_channel_id_key UNIQUE (app_id, environment, channel_id);

--
-- Name: broadcast_channels broadcast_channels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.broadcast_channels
    ADD CONSTRAINT broadcast_channels_pkey PRIMARY KEY (app_id, environment, name);

--
-- Name: channel_tags channel_tags_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channel_tags
    ADD CONSTRAINT channel_tags_pkey PRIMARY KEY (channel_id, tag_group, tag, app_id);

--
-- Name: channels channels_app_id_install_id_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_app_id_install_id_key UNIQUE (app_id, install_id);

--
-- Name: channels channels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_pkey PRIMARY KEY (id, app_id);

--
-- Name: delivery_stamp_pushes delivery_stamp_pushes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delivery_stamp_pushes
    ADD CONSTRAINT delivery_stamp_pushes_pkey PRIMARY KEY (push_id, app_id);

--
-- Name: delivery_stamps delivery_stamps_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delivery_stamps
    ADD CONSTRAINT delivery_stamps_pkey PRIMARY KEY (id, app_id);

--
-- Name: device_operations device_operations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_operations
    ADD CONSTRAINT device_operations_pkey PRIMARY KEY (id, app_id);

--
-- Name: forgotten_channels forgotten_channels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forgotten_channels
    ADD CONSTRAINT forgotten_channels_pkey PRIMARY KEY (app_id, channel_id);

--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);

--
-- Name: launches launches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.launches
    ADD CONSTRAINT launches_pkey PRIMARY KEY (id, launched_at, app_id);

--
-- Name: launches_default launches_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.launches_default
    ADD CONSTRAINT launches_default_pkey PRIMARY KEY (id, launched_at, app_id);

--
-- Name: live_activities live_activities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.live_activities
    ADD CONSTRAINT live_activities_pkey PRIMARY KEY (id, app_id);

--
-- Name: push_batches push_batches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_batches
    ADD CONSTRAINT push_batches_pkey PRIMARY KEY (push_id, seq, push_created_at, app_id);

--
-- Name: push_batches_default push_batches_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_batches_default
    ADD CONSTRAINT push_batches_default_pkey PRIMARY KEY (push_id, seq, push_created_at, app_id);

--
-- Name: push_failure_counts push_failure_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_failure_counts
    ADD CONSTRAINT push_failure_counts_pkey PRIMARY KEY (push_id, reason, push_created_at, app_id);

--
-- Name: push_failure_counts_default push_failure_counts_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_failure_counts_default
    ADD CONSTRAINT push_failure_counts_default_pkey PRIMARY KEY (push_id, reason, push_created_at, app_id);

--
-- Name: push_failures push_failures_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_failures
    ADD CONSTRAINT push_failures_pkey PRIMARY KEY (id, push_created_at, app_id);

--
-- Name: push_failures_default push_failures_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_failures_default
    ADD CONSTRAINT push_failures_default_pkey PRIMARY KEY (id, push_created_at, app_id);

--
-- Name: push_operations push_operations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_operations
    ADD CONSTRAINT push_operations_pkey PRIMARY KEY (id, app_id);

--
-- Name: push_to_start_tokens push_to_start_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_to_start_tokens
    ADD CONSTRAINT push_to_start_tokens_pkey PRIMARY KEY (channel_id, attributes_type, app_id);

--
-- Name: pushes pushes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pushes
    ADD CONSTRAINT pushes_pkey PRIMARY KEY (id, created_at, app_id);

--
-- Name: pushes_default pushes_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pushes_default
    ADD CONSTRAINT pushes_default_pkey PRIMARY KEY (id, created_at, app_id);

--
-- Name: renew_policies renew_policies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.renew_policies
    ADD CONSTRAINT renew_policies_pkey PRIMARY KEY (app_id, attributes_type);

--
-- Name: renewals renewals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.renewals
    ADD CONSTRAINT renewals_pkey PRIMARY KEY (id, app_id);

--
-- Name: schedules schedules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_pkey PRIMARY KEY (id, app_id);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);

--
-- Name: start_attempts start_attempts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.start_attempts
    ADD CONSTRAINT start_attempts_pkey PRIMARY KEY (push_id, channel_id, push_created_at, app_id);

--
-- Name: start_attempts_default start_attempts_default_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.start_attempts_default
    ADD CONSTRAINT start_attempts_default_pkey PRIMARY KEY (push_id, channel_id, push_created_at, app_id);

--
-- Name: update_budgets update_budgets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.update_budgets
    ADD CONSTRAINT update_budgets_pkey PRIMARY KEY (app_id, attributes_type);

--
-- Name: channel_tags_audience; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX channel_tags_audience ON public.channel_tags USING btree (app_id, tag_group, tag, channel_id);

--
-- Name: channels_live_activities_disabled; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX channels_live_activities_disabled ON public.channels USING btree (id) WHERE (NOT live_activities_enabled);

--
-- Name: channels_named_user; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX channels_named_user ON public.channels USING btree (app_id, named_user_id) WHERE (named_user_id IS NOT NULL);

--
-- Name: delivery_stamp_pushes_by_activity; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX delivery_stamp_pushes_by_activity ON public.delivery_stamp_pushes USING btree (app_id, activity_name);

--
-- Name: delivery_stamps_by_activity; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX delivery_stamps_by_activity ON public.delivery_stamps USING btree (app_id, activity_name, apns_timestamp);

--
-- Name: delivery_stamps_by_push; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX delivery_stamps_by_push ON public.delivery_stamps USING btree (push_id, last_channel, first_channel);

--
-- Name: device_operations_by_app_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX device_operations_by_app_time ON public.device_operations USING btree (app_id, created_at);

--
-- Name: device_operations_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX device_operations_key ON public.device_operations USING btree (app_id, channel_id, route, idempotency_key);

--
-- Name: jobs_claimable_by_app; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_claimable_by_app ON public.jobs USING btree (app_id, priority DESC, run_at) WHERE (state = ANY (ARRAY['queued'::text, 'running'::text]));

--
-- Name: jobs_claimable_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_claimable_by_time ON public.jobs USING btree (run_at) WHERE (state = ANY (ARRAY['queued'::text, 'running'::text]));

--
-- Name: jobs_dead; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_dead ON public.jobs USING btree (kind, updated_at) WHERE (state = 'dead'::text);

--
-- Name: jobs_dedupe_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX jobs_dedupe_key ON public.jobs USING btree (dedupe_key) WHERE ((dedupe_key IS NOT NULL) AND (state <> 'dead'::text));

--
-- Name: launches_by_app_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX launches_by_app_time ON ONLY public.launches USING btree (app_id, launched_at);

--
-- Name: launches_by_schedule; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX launches_by_schedule ON ONLY public.launches USING btree (schedule_id) WHERE (schedule_id IS NOT NULL);

--
-- Name: launches_default_app_id_launched_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX launches_default_app_id_launched_at_idx ON public.launches_default USING btree (app_id, launched_at);

--
-- Name: launches_default_schedule_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX launches_default_schedule_id_idx ON public.launches_default USING btree (schedule_id) WHERE (schedule_id IS NOT NULL);

--
-- Name: live_activities_by_broadcast_channel; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX live_activities_by_broadcast_channel ON public.live_activities USING btree (app_id, broadcast_channel_id) WHERE ((broadcast_channel_id IS NOT NULL) AND (state = 'active'::text));

--
-- Name: live_activities_contract_versions; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX live_activities_contract_versions ON public.live_activities USING btree (app_id, name, attributes_type, contract_version) WHERE (state = 'active'::text);

--
-- Name: live_activities_current; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX live_activities_current ON public.live_activities USING btree (channel_id, name, app_id) WHERE (state = ANY (ARRAY['active'::text, 'invalid'::text]));

--
-- Name: live_activities_ended_by_start; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX live_activities_ended_by_start ON public.live_activities USING btree (start_push_id) WHERE ((start_push_id IS NOT NULL) AND (state = ANY (ARRAY['ended'::text, 'expired'::text])));

--
-- Name: live_activities_purge; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX live_activities_purge ON public.live_activities USING btree (app_id, COALESCE(ended_at, invalidated_at)) WHERE (state <> 'active'::text);

--
-- Name: live_activities_renewal; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX live_activities_renewal ON public.live_activities USING btree (app_id, started_at) WHERE ((state = 'active'::text) AND (renewal_id IS NULL));

--
-- Name: live_activities_system_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX live_activities_system_id ON public.live_activities USING btree (channel_id, system_activity_id);

--
-- Name: live_activities_targets; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX live_activities_targets ON public.live_activities USING btree (app_id, name, channel_id) INCLUDE (id, push_token, environment, started_at, last_apns_timestamp, last_push_seq, broadcast_channel_id) WHERE (state = 'active'::text);

--
-- Name: push_failures_by_channel; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_failures_by_channel ON ONLY public.push_failures USING btree (channel_id);

--
-- Name: push_failures_by_push; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_failures_by_push ON ONLY public.push_failures USING btree (push_id);

--
-- Name: push_failures_default_channel_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_failures_default_channel_id_idx ON public.push_failures_default USING btree (channel_id);

--
-- Name: push_failures_default_push_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_failures_default_push_id_idx ON public.push_failures_default USING btree (push_id);

--
-- Name: push_operations_idempotency; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX push_operations_idempotency ON public.push_operations USING btree (app_id, idempotency_key) WHERE (idempotency_key IS NOT NULL);

--
-- Name: push_to_start_tokens_audience; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_to_start_tokens_audience ON public.push_to_start_tokens USING btree (app_id, attributes_type, channel_id) WHERE (state = 'active'::text);

--
-- Name: push_to_start_tokens_contract_versions; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX push_to_start_tokens_contract_versions ON public.push_to_start_tokens USING btree (app_id, attributes_type, contract_version) WHERE (state = 'active'::text);

--
-- Name: pushes_by_app_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_by_app_time ON ONLY public.pushes USING btree (app_id, created_at);

--
-- Name: pushes_by_operation; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_by_operation ON ONLY public.pushes USING btree (operation_id);

--
-- Name: pushes_unfinished_by_name; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_unfinished_by_name ON ONLY public.pushes USING btree (app_id, activity_name) WHERE ((state = ANY (ARRAY['queued'::text, 'sending'::text])) AND (event <> 'start'::text));

--
-- Name: pushes_default_app_id_activity_name_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_default_app_id_activity_name_idx ON public.pushes_default USING btree (app_id, activity_name) WHERE ((state = ANY (ARRAY['queued'::text, 'sending'::text])) AND (event <> 'start'::text));

--
-- Name: pushes_default_app_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_default_app_id_created_at_idx ON public.pushes_default USING btree (app_id, created_at);

--
-- Name: pushes_starts_unsettled; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_starts_unsettled ON ONLY public.pushes USING btree (finished_at) WHERE ((event = 'start'::text) AND (starts_settled_at IS NULL) AND (finished_at IS NOT NULL));

--
-- Name: pushes_default_finished_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_default_finished_at_idx ON public.pushes_default USING btree (finished_at) WHERE ((event = 'start'::text) AND (starts_settled_at IS NULL) AND (finished_at IS NOT NULL));

--
-- Name: pushes_default_operation_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pushes_default_operation_id_idx ON public.pushes_default USING btree (operation_id);

--
-- Name: renewals_by_app; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX renewals_by_app ON public.renewals USING btree (app_id, created_at);

--
-- Name: renewals_by_app_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX renewals_by_app_time ON public.renewals USING btree (app_id, created_at);

--
-- Name: schedules_done_by_app; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_done_by_app ON public.schedules USING btree (app_id, updated_at) WHERE (state <> 'pending'::text);

--
-- Name: schedules_pending_by_activity; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_pending_by_activity ON public.schedules USING btree (channel_id, activity_name) WHERE (state = 'pending'::text);

--
-- Name: schedules_pending_by_app; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX schedules_pending_by_app ON public.schedules USING btree (app_id, send_at) WHERE (state = 'pending'::text);

--
-- Name: start_attempts_by_channel; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX start_attempts_by_channel ON ONLY public.start_attempts USING btree (channel_id, window_until);

--
-- Name: start_attempts_default_channel_id_window_until_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX start_attempts_default_channel_id_window_until_idx ON public.start_attempts_default USING btree (channel_id, window_until);

--
-- Name: start_attempts_started; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX start_attempts_started ON ONLY public.start_attempts USING btree (push_id) WHERE (outcome = 'started'::text);

--
-- Name: start_attempts_default_push_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX start_attempts_default_push_id_idx ON public.start_attempts_default USING btree (push_id) WHERE (outcome = 'started'::text);

--
-- Name: launches_default_app_id_launched_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.launches_by_app_time ATTACH PARTITION public.launches_default_app_id_launched_at_idx;

--
-- Name: launches_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.launches_pkey ATTACH PARTITION public.launches_default_pkey;

--
-- Name: launches_default_schedule_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.launches_by_schedule ATTACH PARTITION public.launches_default_schedule_id_idx;

--
-- Name: push_batches_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.push_batches_pkey ATTACH PARTITION public.push_batches_default_pkey;

--
-- Name: push_failure_counts_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.push_failure_counts_pkey ATTACH PARTITION public.push_failure_counts_default_pkey;

--
-- Name: push_failures_default_channel_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.push_failures_by_channel ATTACH PARTITION public.push_failures_default_channel_id_idx;

--
-- Name: push_failures_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.push_failures_pkey ATTACH PARTITION public.push_failures_default_pkey;

--
-- Name: push_failures_default_push_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.push_failures_by_push ATTACH PARTITION public.push_failures_default_push_id_idx;

--
-- Name: pushes_default_app_id_activity_name_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.pushes_unfinished_by_name ATTACH PARTITION public.pushes_default_app_id_activity_name_idx;

--
-- Name: pushes_default_app_id_created_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.pushes_by_app_time ATTACH PARTITION public.pushes_default_app_id_created_at_idx;

--
-- Name: pushes_default_finished_at_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.pushes_starts_unsettled ATTACH PARTITION public.pushes_default_finished_at_idx;

--
-- Name: pushes_default_operation_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.pushes_by_operation ATTACH PARTITION public.pushes_default_operation_id_idx;

--
-- Name: pushes_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.pushes_pkey ATTACH PARTITION public.pushes_default_pkey;

--
-- Name: start_attempts_default_channel_id_window_until_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.start_attempts_by_channel ATTACH PARTITION public.start_attempts_default_channel_id_window_until_idx;

--
-- Name: start_attempts_default_pkey; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.start_attempts_pkey ATTACH PARTITION public.start_attempts_default_pkey;

--
-- Name: start_attempts_default_push_id_idx; Type: INDEX ATTACH; Schema: public; Owner: -
--

ALTER INDEX public.start_attempts_started ATTACH PARTITION public.start_attempts_default_push_id_idx;

--
-- Name: activity_contracts activity_contracts_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER activity_contracts_changed AFTER INSERT OR DELETE OR UPDATE ON public.activity_contracts FOR EACH ROW EXECUTE FUNCTION public.notify_contracts_changed();

--
-- Name: apps apps_changed; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER apps_changed AFTER DELETE OR UPDATE ON public.apps FOR EACH ROW EXECUTE FUNCTION public.notify_app_changed();

--
-- Name: channels channels_forget_start_attempts; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER channels_forget_start_attempts AFTER DELETE ON public.channels REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION public.forget_start_attempts();

--
-- Name: jobs jobs_notify_ready; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER jobs_notify_ready AFTER INSERT ON public.jobs FOR EACH STATEMENT EXECUTE FUNCTION public.jobs_notify_ready();

--
-- Name: live_activities live_activities_push_token_check; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER live_activities_push_token_check BEFORE INSERT OR UPDATE OF push_token ON public.live_activities FOR EACH ROW WHEN ((new.push_token IS NOT NULL)) EXECUTE FUNCTION public.live_activities_push_token_check();

--
-- Name: activity_contracts activity_contracts_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity_contracts
    ADD CONSTRAINT activity_contracts_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: activity_policies activity_policies_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activity_policies
    ADD CONSTRAINT activity_policies_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: broadcast_channel_drift broadcast_channel_drift_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.broadcast_channel_drift
    ADD CONSTRAINT broadcast_channel_drift_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: broadcast_channels broadcast_channels_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.broadcast_channels
    ADD CONSTRAINT broadcast_channels_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: channel_tags channel_tags_channel_id_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channel_tags
    ADD CONSTRAINT channel_tags_channel_id_app_id_fkey FOREIGN KEY (channel_id, app_id) REFERENCES public.channels(id, app_id) ON DELETE CASCADE;

--
-- Name: channels channels_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.channels
    ADD CONSTRAINT channels_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: delivery_stamp_pushes delivery_stamp_pushes_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delivery_stamp_pushes
    ADD CONSTRAINT delivery_stamp_pushes_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: delivery_stamps delivery_stamps_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.delivery_stamps
    ADD CONSTRAINT delivery_stamps_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: device_operations device_operations_channel_id_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.device_operations
    ADD CONSTRAINT device_operations_channel_id_app_id_fkey FOREIGN KEY (channel_id, app_id) REFERENCES public.channels(id, app_id) ON DELETE CASCADE;

--
-- Name: forgotten_channels forgotten_channels_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.forgotten_channels
    ADD CONSTRAINT forgotten_channels_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: launches launches_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.launches
    ADD CONSTRAINT launches_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: launches launches_channel_id_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.launches
    ADD CONSTRAINT launches_channel_id_app_id_fkey FOREIGN KEY (channel_id, app_id) REFERENCES public.channels(id, app_id) ON DELETE CASCADE;

--
-- Name: live_activities live_activities_channel_id_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.live_activities
    ADD CONSTRAINT live_activities_channel_id_app_id_fkey FOREIGN KEY (channel_id, app_id) REFERENCES public.channels(id, app_id) ON DELETE CASCADE;

--
-- Name: push_batches push_batches_push_id_push_created_at_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.push_batches
    ADD CONSTRAINT push_batches_push_id_push_created_at_app_id_fkey FOREIGN KEY (push_id, push_created_at, app_id) REFERENCES public.pushes(id, created_at, app_id) ON DELETE CASCADE;

--
-- Name: push_failure_counts push_failure_counts_push_id_push_created_at_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.push_failure_counts
    ADD CONSTRAINT push_failure_counts_push_id_push_created_at_app_id_fkey FOREIGN KEY (push_id, push_created_at, app_id) REFERENCES public.pushes(id, created_at, app_id) ON DELETE CASCADE;

--
-- Name: push_failures push_failures_push_id_push_created_at_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.push_failures
    ADD CONSTRAINT push_failures_push_id_push_created_at_app_id_fkey FOREIGN KEY (push_id, push_created_at, app_id) REFERENCES public.pushes(id, created_at, app_id) ON DELETE CASCADE;

--
-- Name: push_operations push_operations_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_operations
    ADD CONSTRAINT push_operations_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: push_to_start_tokens push_to_start_tokens_channel_id_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_to_start_tokens
    ADD CONSTRAINT push_to_start_tokens_channel_id_app_id_fkey FOREIGN KEY (channel_id, app_id) REFERENCES public.channels(id, app_id) ON DELETE CASCADE;

--
-- Name: pushes pushes_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.pushes
    ADD CONSTRAINT pushes_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: pushes pushes_operation_id_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.pushes
    ADD CONSTRAINT pushes_operation_id_app_id_fkey FOREIGN KEY (operation_id, app_id) REFERENCES public.push_operations(id, app_id) ON DELETE CASCADE;

--
-- Name: renew_policies renew_policies_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.renew_policies
    ADD CONSTRAINT renew_policies_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: renewals renewals_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.renewals
    ADD CONSTRAINT renewals_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: schedules schedules_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;

--
-- Name: schedules schedules_channel_id_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schedules
    ADD CONSTRAINT schedules_channel_id_app_id_fkey FOREIGN KEY (channel_id, app_id) REFERENCES public.channels(id, app_id) ON DELETE CASCADE;

--
-- Name: update_budgets update_budgets_app_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.update_budgets
    ADD CONSTRAINT update_budgets_app_id_fkey FOREIGN KEY (app_id) REFERENCES public.apps(id) ON DELETE CASCADE;
