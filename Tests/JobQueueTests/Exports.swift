/// The support both tiers share (`Tests/TestSupport`), visible in every file of this target.
@_exported import TestSupport
