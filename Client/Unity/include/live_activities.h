/*
 * live_activities.h: the C interface of the LiveActivitiesUnity library (Sources/LiveActivitiesUnity), C-callable
 * exports over the Swift `GatewayClient` of LiveActivitiesClient, for Unity's C# (Unity/Runtime/LiveActivities.cs)
 * and any other C caller.
 *
 * One process-wide client: call la_configure first (again to replace it). Every other call is asynchronous and
 * answers through its callback exactly once, from any thread (bad input is answered at once, on the calling thread,
 * before the call returns). Every string argument is UTF-8, NUL-terminated and copied before the call returns; every
 * byte buffer too.
 *
 * The callback gets:
 *   status 0         success; json is the answer object described at each function.
 *   status > 0       the gateway refused the call with that HTTP status: a 4xx (not retried), or a 429/503 whose
 *                    Retry-After was longer than the client waits.
 *   status < 0       LA_ERR_* below.
 * On failure json is {"error": message, "error_code": gateway error code or null, "path": what was refused (e.g.
 * "token_hex", "content_state.status", "query:reason") or null, "status": HTTP status or null}.
 * json is valid only during the callback: copy it. Calls the gateway answers 429/5xx, and transport errors, are
 * retried by the client (up to 5 attempts, honouring Retry-After) before LA_ERR_EXHAUSTED.
 * The context pointer is handed back untouched.
 *
 * Tokens are the bytes iOS gives (Activity.pushToken, pushToStartToken) or their hex (even length, either case).
 */
#ifndef LIVE_ACTIVITIES_H
#define LIVE_ACTIVITIES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LA_OK 0
#define LA_ERR_INVALID_ARGUMENT (-1) /* a null or empty required argument, bad JSON, an unknown reason */
#define LA_ERR_NOT_CONFIGURED (-2)   /* la_configure was not called (or failed) */
#define LA_ERR_INVALID_TOKEN (-3)    /* a null/empty token, or hex of odd length or with non-hex characters */
#define LA_ERR_EXHAUSTED (-4)        /* every attempt failed (5xx, 429, transport); "status" is the last HTTP status */
#define LA_ERR_INVALID_ANSWER (-5)   /* the gateway's answer was unreadable */
#define LA_ERR_STORE (-6)            /* the install store (store_dir) could not be read or written */
#define LA_ERR_FAILED (-7)           /* anything else */

typedef void (*la_callback)(void *context, int32_t status, const char *json);

/*
 * Makes the client. base_url: the gateway, e.g. "https://push.example.com"; app_key, app_secret: the app's device
 * credentials (the app secret, never the master secret); store_dir: a directory where the install record (install
 * id, channel id and channel secret) is kept as a file, or NULL for the platform default (the Keychain on iOS, the
 * application-support directory elsewhere). Returns LA_OK, or LA_ERR_INVALID_ARGUMENT (null/empty argument, not an
 * http(s) URL). Calls already running finish on the previous client.
 */
int32_t la_configure(const char *base_url, const char *app_key, const char *app_secret, const char *store_dir);

/*
 * The version of attributes_type's contract (docs/contracts.md) this build decodes: 1 to 1000000, or 0 to forget it.
 * Sent from now on with the type's push-to-start token and every instance of it tracked, so that the gateway refuses
 * pushes this build could not decode. Returns LA_OK or LA_ERR_INVALID_ARGUMENT. Synchronous, like la_configure.
 */
int32_t la_set_contract_version(const char *attributes_type, int32_t version);

/* Registers the install (once; later calls answer the stored channel). -> {"channel_id": "..."} */
void la_register(void *context, la_callback callback);

/*
 * Sets or rotates the push-to-start token of an ActivityAttributes type (iOS 17.2+: one per type), e.g.
 * attributes_type "ChestTimerAttributes". Registers first if needed. -> {}
 */
void la_set_push_to_start_token_hex(const char *attributes_type, const char *token_hex, void *context,
                                    la_callback callback);
void la_set_push_to_start_token(const char *attributes_type, const uint8_t *token, int32_t token_length, void *context,
                                la_callback callback);

/*
 * Teak's StartedLiveActivity: tracks an instance under the game's name (e.g. "chest_timer_0", unique per concurrent
 * instance) with its push-to-update token and system activity id (Activity.id). Call it again with each new token
 * (tokens rotate). -> {"result": "started" | "unchanged" | "rotated" | "replaced" | "refused"}
 */
void la_started_live_activity_hex(const char *name, const char *attributes_type, const char *token_hex,
                                  const char *system_activity_id, void *context, la_callback callback);
void la_started_live_activity(const char *name, const char *attributes_type, const uint8_t *token,
                              int32_t token_length, const char *system_activity_id, void *context,
                              la_callback callback);

/*
 * Reports that instance over on the device: reason "ended" or "dismissed" (ActivityState .ended / .dismissed; NULL
 * is "ended"). Only that instance ends, never a newer one under the same name. -> {"ended": 0 | 1}
 */
void la_ended_live_activity(const char *name, const char *system_activity_id, const char *reason, void *context,
                            la_callback callback);

/*
 * Teak's ScheduleLiveActivityUpdate: an update of the instance tracked under name, sent offset_seconds (>= 0) after
 * the gateway receives the call. content_state_json: a JSON object, the APNs content-state (Teak's customData);
 * system_json: NULL or a JSON object with Apple's system fields (Teak's systemData): "event" ("update" | "end"),
 * "stale-date" and "dismissal-date" (or "stale_date", "dismissal_date") in epoch seconds; other keys are refused.
 * -> {"schedule_id": "...", "send_at": epoch seconds}
 */
void la_schedule_update(const char *name, int64_t offset_seconds, const char *content_state_json,
                        const char *system_json, void *context, la_callback callback);

/* Teak's CancelLiveActivityUpdates: cancels the pending scheduled updates of name. -> {"canceled": N} */
void la_cancel_updates(const char *name, void *context, la_callback callback);

/*
 * Reports that a tap on the instance opened the app (the widget URL carries its id: LiveActivityURL). -> what drove
 * it: {"schedule_id": ... | null, "schedule_name": ... | null, "push_id": ... | null}
 */
void la_report_launch(const char *system_activity_id, void *context, la_callback callback);

/*
 * Live Activities switched on (non-zero) or off in Settings (ActivityAuthorizationInfo.areActivitiesEnabled): while
 * off the gateway does not target this install. Only a change is sent. -> {"live_activities_enabled": true | false}
 */
void la_set_live_activities_enabled(int32_t enabled, void *context, la_callback callback);

/*
 * Forgets the install at the gateway (logout, GDPR: its channel, tags, tokens, instances) and in the store.
 * -> {"removed": {"channels", "tags", "push_to_start_tokens", "live_activities"} | null (never registered)}
 */
void la_forget(void *context, la_callback callback);

#ifdef __cplusplus
}
#endif

#endif /* LIVE_ACTIVITIES_H */
