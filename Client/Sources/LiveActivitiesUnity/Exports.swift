import Foundation
import LiveActivitiesClient

// The C functions of `Unity/include/live_activities.h`. Every string argument is copied before the function returns;
// every function but `la_configure` answers through its callback, exactly once, from any thread (bad input at once,
// on the calling thread).

/// Makes the process-wide client (again: calls already running finish on the client they started on).
@_cdecl("la_configure")
public func laConfigure(
    _ baseURL: UnsafePointer<CChar>?, _ appKey: UnsafePointer<CChar>?, _ appSecret: UnsafePointer<CChar>?,
    _ storeDirectory: UnsafePointer<CChar>?
) -> Int32 {
    do {
        let base = try required(baseURL, "base_url")
        guard let url = URL(string: base), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()),
            url.host != nil
        else { throw BridgeError.invalidArgument("base_url is not an http(s) URL", path: "base_url") }
        let configuration = LiveActivitiesConfiguration(
            baseURL: url, appKey: try required(appKey, "app_key"), appSecret: try required(appSecret, "app_secret"))
        let store: (any InstallStore)? = try string(storeDirectory).map { directory throws(BridgeError) in
            guard !directory.isEmpty else { throw .invalidArgument("store_dir is empty", path: "store_dir") }
            return FileInstallStore(directory: URL(fileURLWithPath: directory, isDirectory: true))
        }
        ClientHolder.shared.replace(with: GatewayClient(configuration: configuration, store: store))
        return 0
    } catch {
        return BridgeError(error).status
    }
}

/// The contract version of `attributesType` this build decodes (1 to 1,000,000; 0 forgets it), sent from now on with
/// the type's push-to-start token and every instance of it tracked.
@_cdecl("la_set_contract_version")
public func laSetContractVersion(_ attributesType: UnsafePointer<CChar>?, _ version: Int32) -> Int32 {
    do {
        let type = try required(attributesType, "attributes_type")
        guard (0...1_000_000).contains(version) else {
            throw BridgeError.invalidArgument("version must be 0 to 1000000", path: "version")
        }
        ContractVersions.shared[type] = version == 0 ? nil : Int(version)
        return 0
    } catch {
        return BridgeError(error).status
    }
}

@_cdecl("la_register")
public func laRegister(_ context: UnsafeMutableRawPointer?, _ callback: LACallback?) {
    dispatch(Reply(context, callback)) { client in ["channel_id": try await client.register()] }
}

@_cdecl("la_set_push_to_start_token_hex")
public func laSetPushToStartTokenHex(
    _ attributesType: UnsafePointer<CChar>?, _ tokenHex: UnsafePointer<CChar>?, _ context: UnsafeMutableRawPointer?,
    _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let type = try required(attributesType, "attributes_type")
        let token = try token(hex: tokenHex, "token_hex")
        setPushToStartToken(reply, type, token)
    } catch {
        reply.fail(error)
    }
}

@_cdecl("la_set_push_to_start_token")
public func laSetPushToStartToken(
    _ attributesType: UnsafePointer<CChar>?, _ bytes: UnsafePointer<UInt8>?, _ count: Int32,
    _ context: UnsafeMutableRawPointer?, _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let type = try required(attributesType, "attributes_type")
        let token = try token(bytes: bytes, count: count, "token")
        setPushToStartToken(reply, type, token)
    } catch {
        reply.fail(error)
    }
}

private func setPushToStartToken(_ reply: Reply, _ attributesType: String, _ token: Data) {
    dispatch(reply) { client in
        try await client.setPushToStartToken(
            token, attributesType: attributesType, contractVersion: ContractVersions.shared[attributesType])
        return [:]
    }
}

@_cdecl("la_started_live_activity_hex")
public func laStartedLiveActivityHex(
    _ name: UnsafePointer<CChar>?, _ attributesType: UnsafePointer<CChar>?, _ tokenHex: UnsafePointer<CChar>?,
    _ systemActivityID: UnsafePointer<CChar>?, _ context: UnsafeMutableRawPointer?, _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let name = try required(name, "name")
        let type = try required(attributesType, "attributes_type")
        let token = try token(hex: tokenHex, "token_hex")
        let id = try required(systemActivityID, "system_activity_id")
        track(reply, name, type, token, id)
    } catch {
        reply.fail(error)
    }
}

@_cdecl("la_started_live_activity")
public func laStartedLiveActivity(
    _ name: UnsafePointer<CChar>?, _ attributesType: UnsafePointer<CChar>?, _ bytes: UnsafePointer<UInt8>?,
    _ count: Int32, _ systemActivityID: UnsafePointer<CChar>?, _ context: UnsafeMutableRawPointer?,
    _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let name = try required(name, "name")
        let type = try required(attributesType, "attributes_type")
        let token = try token(bytes: bytes, count: count, "token")
        let id = try required(systemActivityID, "system_activity_id")
        track(reply, name, type, token, id)
    } catch {
        reply.fail(error)
    }
}

private func track(_ reply: Reply, _ name: String, _ attributesType: String, _ token: Data, _ id: String) {
    dispatch(reply) { client in
        let result = try await client.track(
            name: name, attributesType: attributesType, systemActivityID: id, token: token,
            contractVersion: ContractVersions.shared[attributesType])
        return ["result": result.rawValue]
    }
}

@_cdecl("la_ended_live_activity")
public func laEndedLiveActivity(
    _ name: UnsafePointer<CChar>?, _ systemActivityID: UnsafePointer<CChar>?, _ reason: UnsafePointer<CChar>?,
    _ context: UnsafeMutableRawPointer?, _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let name = try required(name, "name")
        let id = try required(systemActivityID, "system_activity_id")
        let reasonText = string(reason) ?? ActivityEndReason.ended.rawValue
        guard let reason = ActivityEndReason(rawValue: reasonText) else {
            throw BridgeError.invalidArgument("reason is \"\(reasonText)\", not ended or dismissed", path: "reason")
        }
        dispatch(reply) { client in
            ["ended": try await client.end(name: name, systemActivityID: id, reason: reason)]
        }
    } catch {
        reply.fail(error)
    }
}

@_cdecl("la_schedule_update")
public func laScheduleUpdate(
    _ name: UnsafePointer<CChar>?, _ offsetSeconds: Int64, _ contentStateJSON: UnsafePointer<CChar>?,
    _ systemJSON: UnsafePointer<CChar>?, _ context: UnsafeMutableRawPointer?, _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let name = try required(name, "name")
        guard let offset = Int(exactly: offsetSeconds), offset >= 0 else {
            throw BridgeError.invalidArgument("offset_seconds is negative (\(offsetSeconds))", path: "offset_seconds")
        }
        let state = try JSONValue.parse(try required(contentStateJSON, "content_state_json"), "content_state_json")
        guard case .object = state else {
            throw BridgeError.invalidArgument("content_state_json is not a JSON object", path: "content_state_json")
        }
        let system = try SystemFields(json: string(systemJSON))
        dispatch(reply) { client in
            let scheduled = try await client.scheduleUpdate(
                name: name, time: .after(seconds: offset), contentState: state, event: system.event,
                staleDate: system.staleDate, dismissalDate: system.dismissalDate)
            return ["schedule_id": scheduled.scheduleID, "send_at": scheduled.sendAt]
        }
    } catch {
        reply.fail(error)
    }
}

@_cdecl("la_cancel_updates")
public func laCancelUpdates(
    _ name: UnsafePointer<CChar>?, _ context: UnsafeMutableRawPointer?, _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let name = try required(name, "name")
        dispatch(reply) { client in ["canceled": try await client.cancelUpdates(name: name)] }
    } catch {
        reply.fail(error)
    }
}

@_cdecl("la_report_launch")
public func laReportLaunch(
    _ systemActivityID: UnsafePointer<CChar>?, _ context: UnsafeMutableRawPointer?, _ callback: LACallback?
) {
    let reply = Reply(context, callback)
    do {
        let id = try required(systemActivityID, "system_activity_id")
        dispatch(reply) { client in
            let launch = try await client.reportLaunch(systemActivityID: id)
            return [
                "schedule_id": launch.scheduleID ?? NSNull(), "schedule_name": launch.scheduleName ?? NSNull(),
                "push_id": launch.pushID ?? NSNull(),
            ]
        }
    } catch {
        reply.fail(error)
    }
}

@_cdecl("la_set_live_activities_enabled")
public func laSetLiveActivitiesEnabled(
    _ enabled: Int32, _ context: UnsafeMutableRawPointer?, _ callback: LACallback?
) {
    dispatch(Reply(context, callback)) { client in
        try await client.setLiveActivitiesEnabled(enabled != 0)
        return ["live_activities_enabled": enabled != 0]
    }
}

@_cdecl("la_forget")
public func laForget(_ context: UnsafeMutableRawPointer?, _ callback: LACallback?) {
    dispatch(Reply(context, callback)) { client in
        guard let removed = try await client.forget() else { return ["removed": NSNull()] }
        return [
            "removed": [
                "channels": removed.channels, "tags": removed.tags, "push_to_start_tokens": removed.pushToStartTokens,
                "live_activities": removed.liveActivities,
            ]
        ]
    }
}
