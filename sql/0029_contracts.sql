-- Contracts per activity type (issue 48; docs/contracts.md).
--
-- One row per app, attributes type and version: the JSON Schema (subset) of the type's content state and attributes
-- as the app's build with that version decodes them. `PUT /api/attributes-types/{type}/contracts/{version}` writes
-- it; the door reads the versions of the push's target type(s).
CREATE TABLE activity_contracts (
    app_id bigint NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
    attributes_type text NOT NULL,
    version integer NOT NULL CHECK (version BETWEEN 1 AND 1000000),
    document jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, attributes_type, version)
);

-- A change to an app's contracts is a change to the app: every gateway drops its cached record (which says whether
-- the app has contracts, so that the door reads nothing for an app without), as for the triggers of 0018.
CREATE FUNCTION notify_contracts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('app_changed', a.app_key) FROM apps a WHERE a.id = coalesce(NEW.app_id, OLD.app_id);
    RETURN NULL;
END;
$$;

CREATE TRIGGER activity_contracts_changed AFTER INSERT OR UPDATE OR DELETE ON activity_contracts
    FOR EACH ROW EXECUTE FUNCTION notify_contracts_changed();

-- What the door does with them: off, dry_run, enforce (the default: types with a contract are checked) or required.
ALTER TABLE apps ADD COLUMN contract_policy text NOT NULL DEFAULT 'enforce'
    CHECK (contract_policy IN ('off', 'dry_run', 'enforce', 'required'));

-- The contract version the device's build carries, from the track call and the push-to-start registration
-- (`contract_version`); 0 when it reported none.
ALTER TABLE live_activities ADD COLUMN contract_version integer NOT NULL DEFAULT 0
    CHECK (contract_version BETWEEN 0 AND 1000000);
ALTER TABLE push_to_start_tokens ADD COLUMN contract_version integer NOT NULL DEFAULT 0
    CHECK (contract_version BETWEEN 0 AND 1000000);

-- The versions live under a name (an update or end) and for a type's push-to-start tokens (a start): read by a skip
-- scan, one probe per distinct (type, version), never a pass over the audience.
CREATE INDEX live_activities_contract_versions ON live_activities (app_id, name, attributes_type, contract_version)
    WHERE state = 'active';
CREATE INDEX push_to_start_tokens_contract_versions ON push_to_start_tokens (app_id, attributes_type, contract_version)
    WHERE state = 'active';
