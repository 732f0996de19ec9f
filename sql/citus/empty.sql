-- Empties a Citus coordinator's database of what the migrations made, for the Citus suite and `bench fanout` with
-- CITUS_URL (docs/scaling.md): every table in `public` (with its views, partitions and shards), every function and
-- sequence, but not what the `citus` extension keeps there (its views `citus_tables`, `citus_schemas`). Destructive:
-- never on a database that holds anything else.
DO $$
DECLARE r record;
BEGIN
    FOR r IN
        SELECT quote_ident(c.relname) AS t FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                          AND d.deptype = 'e')
    LOOP
        EXECUTE format('DROP TABLE IF EXISTS %s CASCADE', r.t);
    END LOOP;
    FOR r IN
        SELECT p.oid::regprocedure::text AS f FROM pg_proc p
        WHERE p.pronamespace = 'public'::regnamespace
          AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                          AND d.deptype = 'e')
    LOOP
        EXECUTE format('DROP FUNCTION IF EXISTS %s CASCADE', r.f);
    END LOOP;
    FOR r IN
        SELECT quote_ident(c.relname) AS s FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S'
    LOOP
        EXECUTE format('DROP SEQUENCE IF EXISTS %s CASCADE', r.s);
    END LOOP;
END
$$;
