/*
 * The Unity binding's C interface against a live gateway: client_check <base_url> <app_key> <app_secret> <store_dir>.
 * Prints one line per step ("ok <step> <json>" or "FAIL <step> ..."), exits 0 only if every step did what it should.
 * Each callback is waited for with a deadline (10 s).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live_activities.h"

struct answer {
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    int done;
    int calls;
    int32_t status;
    char json[4096];
};

static void on_answer(void *context, int32_t status, const char *json) {
    struct answer *answer = context;
    pthread_mutex_lock(&answer->lock);
    answer->calls += 1;
    answer->status = status;
    snprintf(answer->json, sizeof answer->json, "%s", json ? json : "(null)");
    answer->done = 1;
    pthread_cond_signal(&answer->done_cond);
    pthread_mutex_unlock(&answer->lock);
}

static void reset(struct answer *answer) {
    pthread_mutex_lock(&answer->lock);
    answer->done = 0;
    answer->calls = 0;
    answer->status = 99999;
    answer->json[0] = 0;
    pthread_mutex_unlock(&answer->lock);
}

/* Waits for the callback (10 s at most); 0 if it came. */
static int wait_answer(struct answer *answer) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    int result = 0;
    pthread_mutex_lock(&answer->lock);
    while (!answer->done && result != ETIMEDOUT) {
        result = pthread_cond_timedwait(&answer->done_cond, &answer->lock, &deadline);
    }
    int came = answer->done;
    pthread_mutex_unlock(&answer->lock);
    return came ? 0 : -1;
}

static int failures = 0;

/* Checks the answer of one step: the expected status class (0, or any non-zero) and a fragment of its JSON. */
static void check(struct answer *answer, const char *step, int expect_ok, const char *fragment) {
    if (wait_answer(answer) != 0) {
        printf("FAIL %s: no callback within 10 s\n", step);
        failures++;
        return;
    }
    usleep(50 * 1000); /* a second call of the callback would show here */
    pthread_mutex_lock(&answer->lock);
    int ok = expect_ok ? answer->status == 0 : answer->status != 0;
    if (ok && fragment && !strstr(answer->json, fragment)) ok = 0;
    if (answer->calls != 1) ok = 0;
    printf("%s %s status=%d calls=%d %s\n", ok ? "ok" : "FAIL", step, (int)answer->status, answer->calls,
           answer->json);
    pthread_mutex_unlock(&answer->lock);
    if (!ok) failures++;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s <base_url> <app_key> <app_secret> <store_dir>\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct answer answer;
    pthread_mutex_init(&answer.lock, NULL);
    pthread_cond_init(&answer.done_cond, NULL);

    /* Calls before la_configure, and a bad configuration. */
    reset(&answer);
    la_register(&answer, on_answer);
    check(&answer, "unconfigured", 0, "la_configure");
    if (la_configure("not a url", argv[2], argv[3], argv[4]) != LA_ERR_INVALID_ARGUMENT) {
        printf("FAIL configure-bad-url\n");
        failures++;
    } else {
        printf("ok configure-bad-url\n");
    }
    if (la_configure(argv[1], argv[2], argv[3], argv[4]) != LA_OK) {
        printf("FAIL configure\n");
        return 1;
    }
    printf("ok configure\n");

    reset(&answer);
    la_register(&answer, on_answer);
    check(&answer, "register", 1, "\"channel_id\":\"");

    /* The build's contract version, sent with the token and the instance below; a bad one refused at once. */
    if (la_set_contract_version("ChestTimerAttributes", 2) != LA_OK ||
        la_set_contract_version("ChestTimerAttributes", -1) != LA_ERR_INVALID_ARGUMENT ||
        la_set_contract_version(NULL, 2) != LA_ERR_INVALID_ARGUMENT) {
        printf("FAIL contract-version\n");
        failures++;
    } else {
        printf("ok contract-version\n");
    }

    reset(&answer);
    la_set_push_to_start_token_hex("ChestTimerAttributes", "00112233445566778899aabbccddeeff", &answer, on_answer);
    check(&answer, "push-to-start", 1, NULL);

    /* An odd-length hex token, a non-hex one, a null token: refused before any call, never a crash. */
    reset(&answer);
    la_set_push_to_start_token_hex("ChestTimerAttributes", "abc", &answer, on_answer);
    check(&answer, "odd-hex", 0, "\"path\":\"token_hex\"");
    reset(&answer);
    la_started_live_activity_hex("chest_timer", "ChestTimerAttributes", "zz11", "x", &answer, on_answer);
    check(&answer, "non-hex", 0, "not even-length hex");
    reset(&answer);
    la_started_live_activity("chest_timer", "ChestTimerAttributes", NULL, 16, "x", &answer, on_answer);
    check(&answer, "null-token", 0, "token is null");

    const uint8_t token[16] = {0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    reset(&answer);
    la_started_live_activity("chest_timer", "ChestTimerAttributes", token, (int32_t)sizeof token, "sys-activity-1",
                             &answer, on_answer);
    check(&answer, "started", 1, "\"result\":\"started\"");

    reset(&answer);
    la_schedule_update("chest_timer", 3600, "{\"remaining\":0,\"status\":\"ready\"}", "{\"event\":\"update\"}",
                       &answer, on_answer);
    check(&answer, "schedule", 1, "\"schedule_id\":\"");

    reset(&answer);
    la_schedule_update("chest_timer", 60, "[1,2]", NULL, &answer, on_answer);
    check(&answer, "schedule-not-object", 0, "content_state_json");

    reset(&answer);
    la_cancel_updates("chest_timer", &answer, on_answer);
    check(&answer, "cancel", 1, "{\"canceled\":1}");

    reset(&answer);
    la_report_launch("sys-activity-1", &answer, on_answer);
    check(&answer, "launch", 1, "\"schedule_id\"");

    reset(&answer);
    la_ended_live_activity("chest_timer", "sys-activity-1", "dismissed", &answer, on_answer);
    check(&answer, "dismissed", 1, "{\"ended\":1}");

    reset(&answer);
    la_ended_live_activity("chest_timer", "sys-activity-1", "gone", &answer, on_answer);
    check(&answer, "bad-reason", 0, "\"path\":\"reason\"");

    printf("%s %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
