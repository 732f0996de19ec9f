import LiveActivitiesCore
import Metrics

/// The check at the door (docs/contracts.md): each start, update or end is checked against the contracts its target
/// runs before anything is written; a refusal is a 400 naming the path, the rule and the contract.
struct ContractDoor: Sendable {
    let contracts: any ContractStore
    var metrics: any MetricsFactory = NOOPMetricsHandler.instance

    /// Pushes checked, by `outcome`: `passed`, `refused`, or `would_refuse` (dry run).
    static let checksMetric = "gateway_contract_checks_total"
    /// `Date` fields converted to seconds since 2001, by `given` (`unix_seconds`, `iso8601`).
    static let conversionsMetric = "gateway_contract_date_conversions_total"

    /// `notification` as it will be sent (its dates converted), and what was checked; nil when no contract applied.
    func check(_ tenant: Tenant, _ notification: LiveActivityNotification, path: String) async throws
        -> (notification: LiveActivityNotification, report: ContractReport?)
    {
        guard tenant.contracts.needsCheck else { return (notification, nil) }
        let facts = try await self.contracts.facts(appID: tenant.appID, for: notification)
        do {
            let (checked, report) = try facts.check(notification, path: path)
            if let report {
                self.count(report.wouldRefuse == nil ? "passed" : "would_refuse")
                if facts.policy != .dryRun {
                    for conversion in report.converted {
                        Counter(
                            label: Self.conversionsMetric, dimensions: [("given", conversion.given.rawValue)],
                            factory: self.metrics
                        ).increment()
                    }
                }
            }
            return (checked, report)
        } catch {
            self.count("refused")
            throw APIError.validation(error)
        }
    }

    /// Every push of a submission, each at its path (`[2].notification.ios.live_activity` in a list).
    func check(_ tenant: Tenant, _ pushes: [PushRequest], prefix: (Int) -> String) async throws
        -> (pushes: [PushRequest], reports: [ContractReport?])
    {
        var checked = pushes
        var reports: [ContractReport?] = []
        for index in pushes.indices {
            let (notification, report) = try await self.check(
                tenant, pushes[index].liveActivity, path: "\(prefix(index))notification.ios.live_activity")
            checked[index].liveActivity = notification
            reports.append(report)
        }
        return (checked, reports)
    }

    private func count(_ outcome: String) {
        Counter(label: Self.checksMetric, dimensions: [("outcome", outcome)], factory: self.metrics).increment()
    }
}
