-- Every change to an app (secrets rotated, APNs key replaced, policies, deletion) is announced on the channel
-- `app_changed` with the app's key, so that every gateway drops its cached credentials for it at once instead of
-- when the cache entry expires. A trigger, so that a change made with SQL by hand is announced too.
CREATE FUNCTION notify_app_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('app_changed', OLD.app_key);
    RETURN NULL;
END;
$$;

CREATE TRIGGER apps_changed AFTER UPDATE OR DELETE ON apps FOR EACH ROW EXECUTE FUNCTION notify_app_changed();
