/// wrk's Lua script for `bench registry`: tracking calls (PUT .../live-activities/match) for random channels, each
/// with its secret, paced per connection by `delay()`.
enum TrackScript {
    static func lua(channelsFile: String, auth: String, delayMS: Int, poisson: Bool) -> String {
        """
        local ids = {}
        for line in io.lines("\(channelsFile)") do ids[#ids + 1] = line end
        local n = 0
        math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
        wrk.method = "PUT"
        wrk.headers["Authorization"] = "Basic \(auth)"
        wrk.headers["Content-Type"] = "application/json"
        request = function()
            n = n + 1
            local i = math.random(#ids)
            local token = string.format("%064x", n * 7919 + i)
            local body = '{"attributes_type":"MatchAttributes","token":"' .. token .. '","system_activity_id":"act-' .. i .. '"}'
            local headers = { ["Authorization"] = "Basic \(auth)", ["Content-Type"] = "application/json",
                              ["X-Channel-Secret"] = "secret-" .. i }
            return wrk.format(nil, "/api/channels/" .. ids[i] .. "/live-activities/match", headers, body)
        end
        \(poisson
            ? "delay = function() return -math.log(1 - math.random()) * \(delayMS) end"
            : "delay = function() return \(delayMS) end")
        local statuses = {}
        response = function(status) statuses[status] = (statuses[status] or 0) + 1 end

        """
    }
}
