// The stores' API takes and returns the database layer's and the queue's types (`Database`, `JobKind`,
// `JobHandler`...), so a module that imports the stores sees those two modules too.
@_exported import JobQueue
@_exported import PostgresDatabase
