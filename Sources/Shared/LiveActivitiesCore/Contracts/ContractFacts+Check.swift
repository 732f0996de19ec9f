extension ContractFacts {
    /// Checks a start, update or end against every contract its target runs, converting `Date` fields, or throws the
    /// refusal naming the path, the rule and the contract (`... expected an integer (MatchAttributes v3)`).
    /// `path` is the notification's own (`notification.ios.live_activity`, `[2].notification...`, `push.notification...`).
    ///
    /// Which contracts: for each attributes type in the target, every version its devices reported; devices that
    /// reported none (or a version never uploaded), and a target with no devices yet, are held to the newest.
    public func check(_ notification: LiveActivityNotification, path: String) throws(ValidationError)
        -> (notification: LiveActivityNotification, report: ContractReport?)
    {
        guard self.policy != .off else { return (notification, nil) }
        var types = Set(self.live.map(\.attributesType))
        if notification.event == .start, let type = notification.attributesType { types = [type] }
        var chosen: [AttributesContract] = []
        for type in types.sorted() {
            let versions = self.contracts.filter { $0.attributesType == type }.sorted { $0.version < $1.version }
            guard let newest = versions.last else {
                guard self.policy == .required else { continue }
                let field = notification.event == .start ? "attributes_type" : "name"
                throw ValidationError(
                    path: path.isEmpty ? field : "\(path).\(field)",
                    rule: "targets \(type), which has no contract (contract_policy required)")
            }
            let reported = Set(self.live.filter { $0.attributesType == type }.map(\.version))
            var picked = versions.filter { reported.contains($0.version) }
            if reported.isEmpty || reported.contains(where: { v in !versions.contains { $0.version == v } }) {
                if !picked.contains(newest) { picked.append(newest) }
            }
            chosen += picked
        }
        guard !chosen.isEmpty else { return (notification, nil) }
        var converted = notification
        var conversions: [ContractDateConversion] = []
        var refusal: ValidationError?
        for contract in chosen where refusal == nil {
            do throws(ValidationError) {
                try Self.apply(contract, to: &converted, path: path, conversions: &conversions)
            } catch {
                refusal = ValidationError(path: error.path, rule: "\(error.rule) \(contract.label)")
            }
        }
        let report = ContractReport(
            policy: self.policy, checked: chosen.map { "\($0.attributesType) v\($0.version)" },
            converted: conversions, wouldRefuse: refusal.map { .init(path: $0.path, rule: $0.rule) })
        if self.policy == .dryRun { return (notification, report) }
        if let refusal { throw refusal }
        return (converted, report)
    }

    /// Converts and checks the content state (and a start's attributes) under one contract. A conversion already
    /// made under another version is not made twice: the value is then below the Unix threshold.
    private static func apply(
        _ contract: AttributesContract, to notification: inout LiveActivityNotification, path: String,
        conversions: inout [ContractDateConversion]
    ) throws(ValidationError) {
        if let state = notification.contentState {
            let at = path.isEmpty ? "content_state" : "\(path).content_state"
            let value = try contract.contentState.convertingDates(.object(state), path: at, into: &conversions)
            if let violation = contract.contentState.violation(in: value, path: at) { throw violation }
            if case .object(let fields) = value { notification.contentState = fields }
        }
        if notification.event == .start, let attributes = notification.attributes {
            let at = path.isEmpty ? "attributes" : "\(path).attributes"
            let value = try contract.attributes.convertingDates(.object(attributes), path: at, into: &conversions)
            if let violation = contract.attributes.violation(in: value, path: at) { throw violation }
            if case .object(let fields) = value { notification.attributes = fields }
        }
    }
}
