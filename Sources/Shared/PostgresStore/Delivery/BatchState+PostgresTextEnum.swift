import PostgresDatabase

extension BatchState: PostgresTextEnum {}
