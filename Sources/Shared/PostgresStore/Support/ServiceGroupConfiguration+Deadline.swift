import ServiceLifecycle

extension ServiceGroupConfiguration {
    /// A graceful shutdown that takes longer than `deadline` is cut short: the services are cancelled, and 5 s later
    /// the group ends whatever still waits (a database connection the network left half-open). The gateway and the
    /// worker both exit this way.
    public func shuttingDownWithin(_ deadline: Duration) -> Self {
        var configuration = self
        configuration.maximumGracefulShutdownDuration = deadline
        configuration.maximumCancellationDuration = .seconds(5)
        return configuration
    }
}
