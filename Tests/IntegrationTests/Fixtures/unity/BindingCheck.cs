// The C# binding (Client/Unity/Runtime/LiveActivities.cs) against a live gateway, under mono:
//   mono BindingCheck.exe <base_url> <app_key> <app_secret> <store_dir>
// Prints one line per step ("ok <step> ..." or "FAIL <step> ..."); exits 0 only if every step did what it should.
// Each reply is waited for with a deadline (10 s).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Threading;
using LiveActivitiesGateway;

static class BindingCheck
{
    static int failures;

    static Reply Await(string step, Action<Action<Reply>> call)
    {
        Reply reply = null;
        int calls = 0;
        ManualResetEvent done = new ManualResetEvent(false);
        call(r => { reply = r; Interlocked.Increment(ref calls); done.Set(); });
        if (!done.WaitOne(10000))
        {
            Fail(step, "no reply within 10 s");
            return null;
        }
        Thread.Sleep(50); // a second reply would show here
        if (calls != 1) Fail(step, calls + " replies");
        return reply;
    }

    static void Fail(string step, string why)
    {
        Console.WriteLine("FAIL " + step + " " + why);
        failures++;
    }

    static void Expect(string step, Reply reply, bool ok, string why)
    {
        if (reply == null) return;
        if (ok) Console.WriteLine("ok " + step + " " + reply);
        else Fail(step, why + ": " + reply);
    }

    static int Main(string[] args)
    {
        if (args.Length != 4)
        {
            Console.Error.WriteLine("usage: BindingCheck <base_url> <app_key> <app_secret> <store_dir>");
            return 2;
        }
        // Numbers go out in the invariant culture whatever the player's.
        Thread.CurrentThread.CurrentCulture = new CultureInfo("de-DE");
        string json = Json.Serialize(new Dictionary<string, object> {
            { "a", 1.5 }, { "b", "q\"\\\n\u0001é" }, { "c", new List<object> { true, false, null, 3L } },
            { "d", new Dictionary<string, object> { { "e", -2 } } } });
        string expected = "{\"a\":1.5,\"b\":\"q\\\"\\\\\\n\\u0001é\",\"c\":[true,false,null,3],\"d\":{\"e\":-2}}";
        if (json == expected) Console.WriteLine("ok serialize " + json);
        else Fail("serialize", json);

        int configured = LiveActivity.Configure(args[0], args[1], args[2], args[3]);
        if (configured == 0) Console.WriteLine("ok configure");
        else Fail("configure", "status " + configured);

        Reply reply = Await("register", cb => LiveActivity.Register(cb));
        Expect("register", reply, reply != null && !reply.Error && reply.ChannelId != null, "no channel id");

        byte[] startToken = new byte[] { 0xca, 0xfe, 0xba, 0xbe, 1, 2, 3, 4, 5, 6, 7, 8 };
        reply = Await("push-to-start",
            cb => LiveActivity.RegisterPushToStartToken("ChestTimerAttributes", startToken, cb));
        Expect("push-to-start", reply, reply != null && !reply.Error, "refused");

        reply = Await("odd-hex", cb => LiveActivity.StartedLiveActivity("chest_timer_cs", "abc", "sys-cs-1",
            "ChestTimerAttributes", cb));
        Expect("odd-hex", reply, reply != null && reply.Error && reply.Status == -3 && reply.Path == "token_hex",
            "expected an invalid token");

        reply = Await("started", cb => LiveActivity.StartedLiveActivity("chest_timer_cs", "0a0b0c0d0e0f10111213",
            "sys-cs-1", "ChestTimerAttributes", cb));
        Expect("started", reply, reply != null && !reply.Error && reply.Result == "started", "not started");

        Dictionary<string, object> customData = new Dictionary<string, object> {
            { "remaining", 0 }, { "status", "ready" }, { "progress", 0.75 } };
        Dictionary<string, object> systemData = new Dictionary<string, object> {
            { "event", "update" },
            { "stale-date", DateTimeOffset.UtcNow.ToUnixTimeSeconds() + 7200 } };
        reply = Await("schedule", cb => LiveActivity.ScheduleLiveActivityUpdate("chest_timer_cs", 3600, customData,
            systemData, cb));
        Expect("schedule", reply, reply != null && !reply.Error && reply.ScheduleId != null && reply.SendAt.HasValue,
            "not scheduled");

        reply = Await("schedule-bad-system", cb => LiveActivity.ScheduleLiveActivityUpdate("chest_timer_cs", 60,
            customData, new Dictionary<string, object> { { "colour", "red" } }, cb));
        Expect("schedule-bad-system", reply, reply != null && reply.Error && reply.Path == "system_json.colour",
            "expected a refusal");

        reply = Await("cancel", cb => LiveActivity.CancelLiveActivityUpdates("chest_timer_cs", cb));
        Expect("cancel", reply, reply != null && !reply.Error && reply.CanceledCount == 1, "expected 1 canceled");

        reply = Await("launch", cb => LiveActivity.ReportLaunch("sys-cs-1", cb));
        Expect("launch", reply, reply != null && !reply.Error && reply.Data.ContainsKey("schedule_id"), "no launch");

        reply = Await("ended", cb => LiveActivity.EndedLiveActivity("chest_timer_cs", "sys-cs-1", EndReason.Ended, cb));
        Expect("ended", reply, reply != null && !reply.Error && reply.Data.ContainsKey("ended"), "not ended");

        reply = Await("disabled", cb => LiveActivity.SetLiveActivitiesEnabled(false, cb));
        Expect("disabled", reply, reply != null && !reply.Error, "refused");

        reply = Await("forget", cb => LiveActivity.Forget(cb));
        Expect("forget", reply, reply != null && !reply.Error && reply.Json.Contains("\"channels\":1"),
            "not forgotten");

        Console.WriteLine((failures == 0 ? "PASSED " : "FAILED ") + failures + " failure(s)");
        Console.Out.Flush();
        // Not `return`: Mono's shutdown deadlocks with a thread of the Swift runtime's pool (one a callback attached
        // to Mono) exiting at the same time (seen with mono 6.8: the exiting thread's TLS destructor and the main
        // thread's thread cleanup wait on each other). A player never shuts Mono down that way; this check just leaves.
        _exit(failures == 0 ? 0 : 1);
        return 1;
    }

    [DllImport("libc", EntryPoint = "_exit")]
    static extern void _exit(int status);
}
