import LiveActivitiesCore
import PostgresStore
import Testing

@Suite struct SQLStatementSplitterTests {
    @Test func splitsAtTopLevelSemicolonsOnly() {
        let sql = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'semi;colon', "odd;name" int);
            /* block; comment */ CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN PERFORM pg_notify('c', ''); RETURN NULL; END
            $$;
            CREATE FUNCTION g() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;
            SELECT 'it''s; fine', $1::text;
            -- trailing comment only
            """
        let statements = SQLStatementSplitter.split(sql)
        #expect(statements.count == 4)
        #expect(statements[0].hasSuffix(#"CREATE TABLE a (x text DEFAULT 'semi;colon', "odd;name" int)"#))
        #expect(statements[1].contains("RETURN NULL; END\n$$"))
        #expect(statements[2].contains("$body$ SELECT 1; $body$"))
        #expect(statements[3] == "SELECT 'it''s; fine', $1::text")
    }
}
