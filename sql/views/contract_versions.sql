-- The contract versions in use, per app and attributes type (docs/contracts.md): how many active instances and
-- push-to-start tokens reported each version (0: devices that reported none), and whether its contract is stored.
-- A version stored with no device on it shows with zero counts.
CREATE OR REPLACE VIEW contract_versions AS
WITH reported AS (
    SELECT app_id, attributes_type, contract_version, count(*) AS live_activities, 0::bigint AS push_to_start_tokens
    FROM live_activities WHERE state = 'active'
    GROUP BY app_id, attributes_type, contract_version
    UNION ALL
    SELECT app_id, attributes_type, contract_version, 0::bigint, count(*)
    FROM push_to_start_tokens WHERE state = 'active'
    GROUP BY app_id, attributes_type, contract_version
    UNION ALL
    SELECT app_id, attributes_type, version, 0::bigint, 0::bigint FROM activity_contracts
)
SELECT r.app_id,
       a.app_key,
       r.attributes_type,
       r.contract_version,
       sum(r.live_activities)::bigint AS active_live_activities,
       sum(r.push_to_start_tokens)::bigint AS active_push_to_start_tokens,
       EXISTS (SELECT 1 FROM activity_contracts c
               WHERE c.app_id = r.app_id AND c.attributes_type = r.attributes_type AND c.version = r.contract_version)
           AS stored
FROM reported r
JOIN apps a ON a.id = r.app_id
GROUP BY r.app_id, a.app_key, r.attributes_type, r.contract_version;
