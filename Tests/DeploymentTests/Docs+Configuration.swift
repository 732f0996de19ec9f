import Foundation
import PostgresStore
import TestSupport
import Testing

@testable import Gateway
@testable import Worker

/// The configuration table in `docs/operations.md` is checked against the settings the binaries declare: every
/// variable either reads is in the table, with the binaries that read it, every flag shown is that variable's flag,
/// and the table names nothing the binaries do not read. README's short table is held to the same names.
@Suite struct DocsConfigurationTests {
    struct Row {
        var variables: [String]
        var flags: [String]
        var usedBy: String
    }

    /// The rows of the first table after `heading` in the Markdown file at `path` (relative to the repository).
    static func rows(in path: String, after heading: String) throws -> [Row] {
        let text = try String(contentsOfFile: TestEnvironment.repoRoot + "/" + path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: heading) else {
            Issue.record("\(path) has no heading '\(heading)'")
            return []
        }
        var rows: [Row] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let names = Self.codeSpans(cells[1])
            rows.append(
                Row(
                    variables: names.filter { !$0.hasPrefix("--") },
                    flags: names.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2)) },
                    usedBy: cells[2]
                ))
        }
        return rows
    }

    static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap {
            $0.offset % 2 == 1 ? String($0.element) : nil
        }
    }

    static let gateway = Set(GatewayConfiguration.settings)
    static let worker = Set(WorkerConfiguration.settings)

    @Test func operationsTableMatchesTheSettings() throws {
        let rows = try Self.rows(in: "docs/operations.md", after: "## Configuration")
        let all = Self.gateway.union(Self.worker)
        let documented = Set(rows.flatMap(\.variables))
        let read = Set(all.map(\.environment))
        #expect(documented.subtracting(read).isEmpty, "documented, read by neither binary")
        #expect(read.subtracting(documented).isEmpty, "read by a binary, not in docs/operations.md")
        for row in rows {
            let settings = all.filter { row.variables.contains($0.environment) }
            for flag in row.flags {
                #expect(settings.contains { $0.flag == flag }, "--\(flag) is no flag of \(row.variables)")
            }
            let usedBy = row.usedBy.lowercased()
            for setting in settings {
                let byGateway = Self.gateway.contains(setting)
                let byWorker = Self.worker.contains(setting)
                if usedBy.hasPrefix("all") {
                    #expect(byGateway && byWorker, "\(setting.environment) is not read by all")
                } else {
                    if byGateway {
                        #expect(usedBy.contains("gateway"), "\(setting.environment) is read by the gateway")
                    }
                    if byWorker { #expect(usedBy.contains("worker"), "\(setting.environment) is read by the worker") }
                }
            }
        }
    }

    @Test func readmeTableNamesOnlyRealSettings() throws {
        let rows = try Self.rows(in: "README.md", after: "## Configuration")
        #expect(!rows.isEmpty)
        let read = Set(Self.gateway.union(Self.worker).map(\.environment))
        for variable in rows.flatMap(\.variables) {
            #expect(read.contains(variable), "README names \(variable), which no binary reads")
        }
    }
}
