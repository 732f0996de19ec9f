/// A view's one definition, `sql/views/<name>.sql`: a single `CREATE OR REPLACE VIEW <name> AS ...`, applied by the
/// migrator after the migrations on every `migrate`.
///
/// Dashboards read the views by name and column, so they are replaced in place (CREATE OR REPLACE), never dropped:
/// the view keeps its identity, its grants and the views built on it, and PostgreSQL refuses a replacement that
/// renames, retypes or removes a column (such a change needs a migration that drops the view; the file then makes it
/// again).
public struct ViewDefinition: Sendable, Equatable {
    public let name: String
    /// The statement, without its trailing semicolon.
    public let sql: String

    /// Throws unless `sql` is one `CREATE OR REPLACE VIEW name AS` statement.
    public init(name: String, sql: String) throws {
        let statements = SQLStatementSplitter.split(sql)
        let words = statements.count == 1 ? Self.words(statements[0]) : []
        guard words.prefix(6) == ["create", "or", "replace", "view", name, "as"] else {
            throw MigrationError(
                description: "sql/views/\(name).sql must be one statement, CREATE OR REPLACE VIEW \(name) AS ...")
        }
        self.name = name
        self.sql = statements[0]
    }

    /// The views among `names` that this one reads (words of its text outside comments and string literals).
    func reads(among names: Set<String>) -> Set<String> {
        Set(Self.words(self.sql)).intersection(names).subtracting([self.name])
    }

    /// `views` ordered so that each comes after the views it reads (ties by name), so that a view that is missing
    /// (dropped by a migration) is made before the views built on it.
    static func inDependencyOrder(_ views: [ViewDefinition]) throws -> [ViewDefinition] {
        let names = Set(views.map(\.name))
        var waiting = Dictionary(uniqueKeysWithValues: views.map { ($0.name, ($0, $0.reads(among: names))) })
        var ordered: [ViewDefinition] = []
        while !waiting.isEmpty {
            let ready = waiting.values.filter { $0.1.isEmpty }.map(\.0).sorted { $0.name < $1.name }
            guard let next = ready.first else {
                throw MigrationError(
                    description: "sql/views: these views read each other in a cycle: "
                        + waiting.keys.sorted().joined(separator: ", "))
            }
            ordered.append(next)
            waiting[next.name] = nil
            for (name, entry) in waiting { waiting[name] = (entry.0, entry.1.subtracting([next.name])) }
        }
        return ordered
    }

    /// The identifiers and keywords of `sql`, lowercased (quoted identifiers as written), skipping comments and
    /// string literals.
    static func words(_ sql: String) -> [String] {
        let chars = Array(sql.unicodeScalars)
        var words: [String] = []
        var i = 0
        func isWordChar(_ c: Unicode.Scalar) -> Bool {
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "_" || c == "$"
        }
        while i < chars.count {
            let c = chars[i]
            let next: Unicode.Scalar? = i + 1 < chars.count ? chars[i + 1] : nil
            if c == "-" && next == "-" {
                while i < chars.count && chars[i] != "\n" { i += 1 }
            } else if c == "/" && next == "*" {
                i += 2
                while i < chars.count && !(chars[i] == "*" && i + 1 < chars.count && chars[i + 1] == "/") { i += 1 }
                i += 2
            } else if c == "'" || c == "\"" {
                var quoted = String.UnicodeScalarView()
                i += 1
                while i < chars.count {
                    if chars[i] == c {
                        if i + 1 < chars.count && chars[i + 1] == c {
                            quoted.append(c)
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    quoted.append(chars[i])
                    i += 1
                }
                if c == "\"" { words.append(String(quoted)) }
            } else if isWordChar(c) {
                var word = String.UnicodeScalarView()
                while i < chars.count && isWordChar(chars[i]) {
                    word.append(chars[i])
                    i += 1
                }
                words.append(String(word).lowercased())
            } else {
                i += 1
            }
        }
        return words
    }
}
