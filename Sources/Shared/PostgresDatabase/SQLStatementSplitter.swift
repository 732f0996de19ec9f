import LiveActivitiesCore

/// Splits a migration file into statements at top-level semicolons, respecting quotes, dollar-quoted
/// bodies (`$$ ... $$`, `$fn$ ... $fn$`) and comments. postgres-nio speaks only the extended query
/// protocol, which takes one statement at a time.
public enum SQLStatementSplitter {
    public static func split(_ sql: String) -> [String] {
        let chars = Array(sql.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var i = 0
        func flush() {
            let text = String(current).trimmingWhitespace()
            if !text.isEmpty && !Self.isOnlyComments(text) { statements.append(text) }
            current.removeAll()
        }
        while i < chars.count {
            let c = chars[i]
            let next: Unicode.Scalar? = i + 1 < chars.count ? chars[i + 1] : nil
            if c == "-" && next == "-" {  // line comment
                while i < chars.count && chars[i] != "\n" {
                    current.append(chars[i])
                    i += 1
                }
                continue
            }
            if c == "/" && next == "*" {  // block comment
                current.append(contentsOf: "/*".unicodeScalars)
                i += 2
                while i < chars.count && !(chars[i] == "*" && i + 1 < chars.count && chars[i + 1] == "/") {
                    current.append(chars[i])
                    i += 1
                }
                current.append(contentsOf: "*/".unicodeScalars)
                i += 2
                continue
            }
            if c == "'" || c == "\"" {  // quoted literal or identifier; doubled quotes stay inside
                current.append(c)
                i += 1
                while i < chars.count {
                    current.append(chars[i])
                    if chars[i] == c {
                        if i + 1 < chars.count && chars[i + 1] == c {
                            current.append(chars[i + 1])
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    i += 1
                }
                continue
            }
            if c == "$", let tagEnd = Self.dollarTagEnd(chars, from: i) {
                let tag = Array(chars[i...tagEnd])
                current.append(contentsOf: tag)
                i = tagEnd + 1
                while i < chars.count {
                    if chars[i] == "$", i + tag.count <= chars.count, Array(chars[i..<(i + tag.count)]) == tag {
                        current.append(contentsOf: tag)
                        i += tag.count
                        break
                    }
                    current.append(chars[i])
                    i += 1
                }
                continue
            }
            if c == ";" {
                flush()
                i += 1
                continue
            }
            current.append(c)
            i += 1
        }
        flush()
        return statements
    }

    /// `$tag$` starting at `start`: the index of its closing `$`, or nil when this `$` is not a tag (e.g. `$1`).
    static func dollarTagEnd(_ chars: [Unicode.Scalar], from start: Int) -> Int? {
        var j = start + 1
        while j < chars.count {
            let c = chars[j]
            if c == "$" { return j }
            let isTagChar =
                (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || (j > start + 1 && c >= "0" && c <= "9")
            if !isTagChar { return nil }
            j += 1
        }
        return nil
    }

    static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy {
            $0.trimmingWhitespace().isEmpty || $0.trimmingWhitespace().hasPrefix("--")
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        let scalars = self.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[first...last])
        return String(view)
    }
}
