// The Unity binding of the live-activities gateway: C# over the C exports of the Swift LiveActivitiesUnity library
// (Unity/include/live_activities.h). No Unity or Newtonsoft dependency: it compiles with any C# compiler (mcs).
//
// Every call answers once through its Action<Reply>. The native library calls back on one of its own threads: set
// LiveActivity.Dispatcher to post the Action to Unity's main thread (see Unity/README.md).
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using AOT;

#if !UNITY_5_3_OR_NEWER
namespace AOT
{
    // Unity declares this attribute (IL2CPP needs it on native callbacks); outside Unity it only has to exist.
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type) { }
    }
}
#endif

namespace LiveActivitiesGateway
{
    /// <summary>How an instance ended on the device (ActivityKit's ActivityState .ended / .dismissed).</summary>
    public enum EndReason
    {
        Ended,
        Dismissed
    }

    /// <summary>A call's answer: Status 0 and the answer's fields, or Error with the gateway's error.</summary>
    public sealed class Reply
    {
        /// <summary>0: success; &gt; 0: the HTTP status the gateway refused the call with; &lt; 0: LA_ERR_*.</summary>
        public int Status { get; private set; }
        public bool Error { get { return this.Status != 0; } }
        /// <summary>The error's sentence (null on success).</summary>
        public string Message { get; private set; }
        /// <summary>The gateway's error_code, when it gave one.</summary>
        public int? ErrorCode { get; private set; }
        /// <summary>What was refused: a JSON path ("content_state.status"), "query:reason", or an argument.</summary>
        public string Path { get; private set; }
        /// <summary>The HTTP status of a refused call (also the last one when every retry failed).</summary>
        public int? HttpStatus { get; private set; }
        /// <summary>The answer as the native library gave it.</summary>
        public string Json { get; private set; }
        /// <summary>The answer parsed (string, long, double, bool, null, List&lt;object&gt;, Dictionary).</summary>
        public Dictionary<string, object> Data { get; private set; }

        /// <summary>CancelLiveActivityUpdates: how many pending updates the gateway dropped.</summary>
        public int? CanceledCount { get { return this.Int("canceled"); } }
        public string ChannelId { get { return this.Text("channel_id"); } }
        public string ScheduleId { get { return this.Text("schedule_id"); } }
        public string ScheduleName { get { return this.Text("schedule_name"); } }
        public string PushId { get { return this.Text("push_id"); } }
        /// <summary>ScheduleLiveActivityUpdate: when the gateway will send it, epoch seconds.</summary>
        public long? SendAt { get { return this.Long("send_at"); } }
        /// <summary>StartedLiveActivity: started, unchanged, rotated, replaced or refused.</summary>
        public string Result { get { return this.Text("result"); } }

        public Reply(int status, string json)
        {
            this.Status = status;
            this.Json = json ?? "{}";
            try
            {
                this.Data = LiveActivitiesGateway.Json.Parse(this.Json) as Dictionary<string, object>;
            }
            catch (FormatException)
            {
                this.Data = null;
            }
            if (this.Data == null) this.Data = new Dictionary<string, object>();
            if (status != 0)
            {
                this.Message = this.Text("error") ?? "status " + status;
                this.ErrorCode = this.Int("error_code");
                this.Path = this.Text("path");
                this.HttpStatus = this.Int("status");
            }
        }

        string Text(string key)
        {
            object value;
            return this.Data.TryGetValue(key, out value) ? value as string : null;
        }

        long? Long(string key)
        {
            object value;
            if (this.Data.TryGetValue(key, out value) && value is long) return (long)value;
            return null;
        }

        int? Int(string key)
        {
            long? value = this.Long(key);
            if (value.HasValue && value.Value >= int.MinValue && value.Value <= int.MaxValue) return (int)value.Value;
            return null;
        }

        public override string ToString()
        {
            if (!this.Error) return "ok " + this.Json;
            return "error " + this.Status + (this.ErrorCode.HasValue ? " (" + this.ErrorCode.Value + ")" : "") + ": "
                + this.Message + (this.Path != null ? " [" + this.Path + "]" : "");
        }
    }

    /// <summary>Teak's LiveActivity calls, against your own gateway.</summary>
    public static class LiveActivity
    {
#if UNITY_IOS && !UNITY_EDITOR
        const string Library = "__Internal";
#else
        const string Library = "LiveActivitiesUnity";
#endif

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        public delegate void NativeCallback(IntPtr context, int status, IntPtr json);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern int la_configure(byte[] baseUrl, byte[] appKey, byte[] appSecret, byte[] storeDir);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern int la_set_contract_version(byte[] attributesType, int version);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_register(IntPtr context, NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_set_push_to_start_token_hex(
            byte[] attributesType, byte[] tokenHex, IntPtr context, NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_set_push_to_start_token(
            byte[] attributesType, byte[] token, int tokenLength, IntPtr context, NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_started_live_activity_hex(
            byte[] name, byte[] attributesType, byte[] tokenHex, byte[] systemActivityId, IntPtr context,
            NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_started_live_activity(
            byte[] name, byte[] attributesType, byte[] token, int tokenLength, byte[] systemActivityId, IntPtr context,
            NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_ended_live_activity(
            byte[] name, byte[] systemActivityId, byte[] reason, IntPtr context, NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_schedule_update(
            byte[] name, long offsetSeconds, byte[] contentStateJson, byte[] systemJson, IntPtr context,
            NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_cancel_updates(byte[] name, IntPtr context, NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_report_launch(byte[] systemActivityId, IntPtr context, NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_set_live_activities_enabled(int enabled, IntPtr context, NativeCallback callback);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        static extern void la_forget(IntPtr context, NativeCallback callback);

        /// <summary>
        /// Runs each reply's Action; null (the default) runs it on the native thread that answered. In Unity, post it
        /// to the main thread, e.g. into a queue an Update() drains.
        /// </summary>
        public static Action<Action> Dispatcher;

        static readonly object PendingLock = new object();
        static readonly Dictionary<long, Action<Reply>> Pending = new Dictionary<long, Action<Reply>>();
        static long nextContext;
        // One static delegate for every call: it stays alive (the native side may call it at any time) and IL2CPP
        // can marshal it (a static method with MonoPInvokeCallback).
        static readonly NativeCallback Callback = OnNativeReply;

        /// <summary>
        /// Points the binding at your gateway (call it first). storeDirectory: where the install record is kept as a
        /// file (e.g. Application.persistentDataPath), or null for the platform's default (the Keychain on iOS).
        /// Returns 0, or -1 (LA_ERR_INVALID_ARGUMENT) for a missing argument or a base URL that is not http(s).
        /// </summary>
        public static int Configure(string baseUrl, string appKey, string appSecret, string storeDirectory)
        {
            return la_configure(Utf8(baseUrl), Utf8(appKey), Utf8(appSecret), Utf8(storeDirectory));
        }

        /// <summary>The version of the type's contract this build decodes (1 to 1000000; 0 forgets it), sent with its
        /// push-to-start token and every instance tracked. Returns 0 or a negative status.</summary>
        public static int SetContractVersion(string attributesType, int version)
        {
            return la_set_contract_version(Utf8(attributesType), version);
        }

        /// <summary>Registers the install; Reply.ChannelId. Other calls register first when needed.</summary>
        public static void Register(Action<Reply> callback)
        {
            Call(callback, context => la_register(context, Callback));
        }

        /// <summary>The push-to-start token of an ActivityAttributes type (iOS 17.2+), as bytes.</summary>
        public static void RegisterPushToStartToken(string attributesType, byte[] token, Action<Reply> callback)
        {
            Call(callback, context => la_set_push_to_start_token(
                Utf8(attributesType), token, token == null ? 0 : token.Length, context, Callback));
        }

        /// <summary>The push-to-start token of an ActivityAttributes type, as hex (even length).</summary>
        public static void RegisterPushToStartToken(string attributesType, string tokenHex, Action<Reply> callback)
        {
            Call(callback, context => la_set_push_to_start_token_hex(
                Utf8(attributesType), Utf8(tokenHex), context, Callback));
        }

        /// <summary>
        /// Reports an instance your app started (call it again with each new push token: tokens rotate). activityId:
        /// your stable name for it, unique per concurrent instance ("chest_timer_0"); systemActivityId: Activity.id;
        /// attributesType: the Swift ActivityAttributes type's name. Reply.Result.
        /// </summary>
        public static void StartedLiveActivity(
            string activityId, byte[] pushToken, string systemActivityId, string attributesType, Action<Reply> callback)
        {
            Call(callback, context => la_started_live_activity(
                Utf8(activityId), Utf8(attributesType), pushToken, pushToken == null ? 0 : pushToken.Length,
                Utf8(systemActivityId), context, Callback));
        }

        /// <summary>StartedLiveActivity with the token as lowercase hex (even length).</summary>
        public static void StartedLiveActivity(
            string activityId, string pushTokenHex, string systemActivityId, string attributesType,
            Action<Reply> callback)
        {
            Call(callback, context => la_started_live_activity_hex(
                Utf8(activityId), Utf8(attributesType), Utf8(pushTokenHex), Utf8(systemActivityId), context,
                Callback));
        }

        /// <summary>Reports the instance over on the device (ended, or dismissed from the Lock Screen).</summary>
        public static void EndedLiveActivity(
            string activityId, string systemActivityId, EndReason reason, Action<Reply> callback)
        {
            string text = reason == EndReason.Dismissed ? "dismissed" : "ended";
            Call(callback, context => la_ended_live_activity(
                Utf8(activityId), Utf8(systemActivityId), Utf8(text), context, Callback));
        }

        /// <summary>
        /// Schedules an update of the instance tracked as activityId, offset seconds from the gateway's now.
        /// customData: the content-state (required). systemData: null, or "event" ("update" / "end"), "stale-date"
        /// and "dismissal-date" in epoch seconds. Reply.ScheduleId, Reply.SendAt.
        /// </summary>
        public static void ScheduleLiveActivityUpdate(
            string activityId, long offset, Dictionary<string, object> customData,
            Dictionary<string, object> systemData, Action<Reply> callback)
        {
            string content = null, system = null;
            string argument = "customData";
            try
            {
                if (customData != null) content = Json.Serialize(customData);
                argument = "systemData";
                if (systemData != null) system = Json.Serialize(systemData);
            }
            catch (ArgumentException error)
            {
                Deliver(callback, new Reply(-1, "{\"error\":" + Json.Serialize(argument + ": " + error.Message)
                    + ",\"error_code\":null,\"path\":\"" + argument + "\",\"status\":null}"));
                return;
            }
            Call(callback, context => la_schedule_update(
                Utf8(activityId), offset, Utf8(content), Utf8(system), context, Callback));
        }

        /// <summary>Cancels the pending scheduled updates of activityId; Reply.CanceledCount.</summary>
        public static void CancelLiveActivityUpdates(string activityId, Action<Reply> callback)
        {
            Call(callback, context => la_cancel_updates(Utf8(activityId), context, Callback));
        }

        /// <summary>A tap on the instance opened the app; Reply.ScheduleId, ScheduleName, PushId (or nulls).</summary>
        public static void ReportLaunch(string systemActivityId, Action<Reply> callback)
        {
            Call(callback, context => la_report_launch(Utf8(systemActivityId), context, Callback));
        }

        /// <summary>Live Activities switched on or off in Settings (only a change is sent).</summary>
        public static void SetLiveActivitiesEnabled(bool enabled, Action<Reply> callback)
        {
            Call(callback, context => la_set_live_activities_enabled(enabled ? 1 : 0, context, Callback));
        }

        /// <summary>Forgets the install at the gateway (logout, GDPR) and on the device.</summary>
        public static void Forget(Action<Reply> callback)
        {
            Call(callback, context => la_forget(context, Callback));
        }

        static void Call(Action<Reply> callback, Action<IntPtr> native)
        {
            long id;
            lock (PendingLock)
            {
                id = ++nextContext;
                Pending[id] = callback;
            }
            try
            {
                native(new IntPtr(id));
            }
            catch
            {
                lock (PendingLock) Pending.Remove(id);
                throw;
            }
        }

        [MonoPInvokeCallback(typeof(NativeCallback))]
        static void OnNativeReply(IntPtr context, int status, IntPtr json)
        {
            Action<Reply> callback;
            long id = context.ToInt64();
            lock (PendingLock)
            {
                if (!Pending.TryGetValue(id, out callback)) return;
                Pending.Remove(id);
            }
            Deliver(callback, new Reply(status, FromUtf8(json)));
        }

        static void Deliver(Action<Reply> callback, Reply reply)
        {
            if (callback == null) return;
            Action<Action> dispatcher = Dispatcher;
            if (dispatcher != null) dispatcher(() => callback(reply));
            else callback(reply);
        }

        // NUL-terminated UTF-8 (null stays null: the native side reports the missing argument).
        static byte[] Utf8(string value)
        {
            if (value == null) return null;
            byte[] bytes = new byte[Encoding.UTF8.GetByteCount(value) + 1];
            Encoding.UTF8.GetBytes(value, 0, value.Length, bytes, 0);
            return bytes;
        }

        static string FromUtf8(IntPtr pointer)
        {
            if (pointer == IntPtr.Zero) return null;
            int length = 0;
            while (Marshal.ReadByte(pointer, length) != 0) length++;
            byte[] bytes = new byte[length];
            Marshal.Copy(pointer, bytes, 0, length);
            return Encoding.UTF8.GetString(bytes);
        }
    }

    /// <summary>
    /// The JSON the binding sends and reads: strings, numbers (invariant culture), bools, null, dictionaries with
    /// string keys, lists and arrays.
    /// </summary>
    public static class Json
    {
        public static string Serialize(object value)
        {
            StringBuilder builder = new StringBuilder();
            Write(builder, value, 0);
            return builder.ToString();
        }

        static void Write(StringBuilder builder, object value, int depth)
        {
            if (depth > 64) throw new ArgumentException("JSON nested deeper than 64 levels");
            if (value == null)
            {
                builder.Append("null");
            }
            else if (value is string || value is char || value is Enum)
            {
                WriteString(builder, value.ToString());
            }
            else if (value is bool)
            {
                builder.Append((bool)value ? "true" : "false");
            }
            else if (value is int || value is long || value is short || value is byte || value is sbyte
                || value is uint || value is ulong || value is ushort || value is decimal)
            {
                builder.Append(((IFormattable)value).ToString(null, CultureInfo.InvariantCulture));
            }
            else if (value is double || value is float)
            {
                double number = Convert.ToDouble(value, CultureInfo.InvariantCulture);
                if (double.IsNaN(number) || double.IsInfinity(number))
                    throw new ArgumentException("JSON has no NaN or Infinity");
                builder.Append(number.ToString("R", CultureInfo.InvariantCulture));
            }
            else if (value is IDictionary)
            {
                builder.Append('{');
                bool first = true;
                foreach (DictionaryEntry entry in (IDictionary)value)
                {
                    if (!(entry.Key is string)) throw new ArgumentException("JSON object keys are strings");
                    if (!first) builder.Append(',');
                    first = false;
                    WriteString(builder, (string)entry.Key);
                    builder.Append(':');
                    Write(builder, entry.Value, depth + 1);
                }
                builder.Append('}');
            }
            else if (value is IEnumerable)
            {
                builder.Append('[');
                bool first = true;
                foreach (object item in (IEnumerable)value)
                {
                    if (!first) builder.Append(',');
                    first = false;
                    Write(builder, item, depth + 1);
                }
                builder.Append(']');
            }
            else
            {
                throw new ArgumentException("not JSON-serializable: " + value.GetType().FullName);
            }
        }

        static void WriteString(StringBuilder builder, string text)
        {
            builder.Append('"');
            foreach (char c in text)
            {
                switch (c)
                {
                    case '"': builder.Append("\\\""); break;
                    case '\\': builder.Append("\\\\"); break;
                    case '\n': builder.Append("\\n"); break;
                    case '\r': builder.Append("\\r"); break;
                    case '\t': builder.Append("\\t"); break;
                    case '\b': builder.Append("\\b"); break;
                    case '\f': builder.Append("\\f"); break;
                    default:
                        if (c < 0x20)
                            builder.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else builder.Append(c);
                        break;
                }
            }
            builder.Append('"');
        }

        /// <summary>Parses JSON text: Dictionary&lt;string, object&gt;, List&lt;object&gt;, string, long, double, bool,
        /// null. Throws FormatException.</summary>
        public static object Parse(string text)
        {
            int index = 0;
            object value = ReadValue(text, ref index, 0);
            SkipSpace(text, ref index);
            if (index != text.Length) throw new FormatException("JSON: text after the value at " + index);
            return value;
        }

        static void SkipSpace(string text, ref int index)
        {
            while (index < text.Length && (text[index] == ' ' || text[index] == '\t' || text[index] == '\n'
                || text[index] == '\r')) index++;
        }

        static object ReadValue(string text, ref int index, int depth)
        {
            if (depth > 64) throw new FormatException("JSON: nested deeper than 64 levels");
            SkipSpace(text, ref index);
            if (index >= text.Length) throw new FormatException("JSON: unexpected end");
            char c = text[index];
            if (c == '{')
            {
                Dictionary<string, object> dictionary = new Dictionary<string, object>();
                index++;
                SkipSpace(text, ref index);
                if (index < text.Length && text[index] == '}') { index++; return dictionary; }
                while (true)
                {
                    SkipSpace(text, ref index);
                    if (index >= text.Length || text[index] != '"')
                        throw new FormatException("JSON: key expected at " + index);
                    string key = ReadString(text, ref index);
                    SkipSpace(text, ref index);
                    Expect(text, ref index, ':');
                    dictionary[key] = ReadValue(text, ref index, depth + 1);
                    SkipSpace(text, ref index);
                    if (index < text.Length && text[index] == ',') { index++; continue; }
                    Expect(text, ref index, '}');
                    return dictionary;
                }
            }
            if (c == '[')
            {
                List<object> list = new List<object>();
                index++;
                SkipSpace(text, ref index);
                if (index < text.Length && text[index] == ']') { index++; return list; }
                while (true)
                {
                    list.Add(ReadValue(text, ref index, depth + 1));
                    SkipSpace(text, ref index);
                    if (index < text.Length && text[index] == ',') { index++; continue; }
                    Expect(text, ref index, ']');
                    return list;
                }
            }
            if (c == '"') return ReadString(text, ref index);
            if (Word(text, ref index, "true")) return true;
            if (Word(text, ref index, "false")) return false;
            if (Word(text, ref index, "null")) return null;
            int start = index;
            while (index < text.Length && "+-0123456789.eE".IndexOf(text[index]) >= 0) index++;
            string number = text.Substring(start, index - start);
            long integer;
            if (long.TryParse(number, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out integer))
                return integer;
            double real;
            if (number.Length > 0
                && double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out real))
                return real;
            throw new FormatException("JSON: unexpected character at " + start);
        }

        static bool Word(string text, ref int index, string word)
        {
            if (string.CompareOrdinal(text, index, word, 0, word.Length) != 0) return false;
            index += word.Length;
            return true;
        }

        static void Expect(string text, ref int index, char c)
        {
            if (index >= text.Length || text[index] != c)
                throw new FormatException("JSON: '" + c + "' expected at " + index);
            index++;
        }

        static string ReadString(string text, ref int index)
        {
            StringBuilder builder = new StringBuilder();
            index++;
            while (index < text.Length)
            {
                char c = text[index++];
                if (c == '"') return builder.ToString();
                if (c != '\\') { builder.Append(c); continue; }
                if (index >= text.Length) break;
                char escaped = text[index++];
                switch (escaped)
                {
                    case 'n': builder.Append('\n'); break;
                    case 'r': builder.Append('\r'); break;
                    case 't': builder.Append('\t'); break;
                    case 'b': builder.Append('\b'); break;
                    case 'f': builder.Append('\f'); break;
                    case 'u':
                        if (index + 4 > text.Length) throw new FormatException("JSON: short \\u escape");
                        builder.Append((char)int.Parse(text.Substring(index, 4), NumberStyles.HexNumber,
                            CultureInfo.InvariantCulture));
                        index += 4;
                        break;
                    default: builder.Append(escaped); break;
                }
            }
            throw new FormatException("JSON: unterminated string");
        }
    }
}
