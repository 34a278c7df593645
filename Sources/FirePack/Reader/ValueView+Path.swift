/// One step of a field path: a map key or an array index.
public enum PathComponent: Hashable, Sendable, CustomStringConvertible {
    /// A map key.
    case key(String)
    /// An array index.
    case index(Int)

    /// `.key` / `[3]` form.
    public var description: String {
        switch self {
        case .key(let key): key
        case .index(let index): "[\(index)]"
        }
    }

    /// Parses `books[3].cover.small`: keys separated by dots, indices in brackets; a key containing `.`, `[`, `]` or
    /// a backtick is written in backticks, with `\` escaping the next character (`` `a.b`.c ``).
    public static func parse(_ path: String) throws(FirePackError) -> [PathComponent] {
        var components: [PathComponent] = []
        var characters = Array(path)[...]
        func fail(_ why: String) -> FirePackError {
            FirePackError(.invalidValue, "bad field path \(path.debugDescription): \(why)")
        }
        var expectKey = true
        while let first = characters.first {
            if first == "[" {
                characters.removeFirst()
                guard let close = characters.firstIndex(of: "]") else { throw fail("'[' without ']'") }
                guard let index = Int(String(characters[..<close])), index >= 0 else {
                    throw fail("index is not a whole number")
                }
                components.append(.index(index))
                characters = characters[(close + 1)...]
                expectKey = false
                continue
            }
            if !expectKey {
                guard first == "." else { throw fail("expected '.' or '[' before \(first)") }
                characters.removeFirst()
            }
            var key = ""
            if characters.first == "`" {
                characters.removeFirst()
                var closed = false
                while let character = characters.popFirst() {
                    if character == "`" {
                        closed = true
                        break
                    }
                    if character == "\\" {
                        guard let escaped = characters.popFirst() else { throw fail("'\\' at the end") }
                        key.append(escaped)
                    } else {
                        key.append(character)
                    }
                }
                guard closed else { throw fail("unclosed backtick") }
            } else {
                while let character = characters.first, character != ".", character != "[" {
                    guard character != "`", character != "]" else {
                        throw fail("\(character) inside a key (quote it in backticks)")
                    }
                    key.append(character)
                    characters.removeFirst()
                }
                guard !key.isEmpty else { throw fail("empty key") }
            }
            components.append(.key(key))
            expectKey = false
        }
        guard !components.isEmpty else { throw fail("empty path") }
        return components
    }
}

extension ValueView {
    /// Follows a path like `books[3].cover.small`, decoding nothing off the path; nil when a step is missing or
    /// meets the wrong type. Throws for a malformed path or malformed bytes on the way.
    public func lookup(_ path: String) throws(FirePackError) -> ValueView? {
        try lookup(PathComponent.parse(path))
    }

    /// Follows a parsed path; nil when a step is missing or meets the wrong type.
    public func lookup(_ path: [PathComponent]) throws(FirePackError) -> ValueView? {
        var current = self
        for component in path {
            let next: ValueView?
            switch component {
            case .key(let key): next = try current[key]
            case .index(let index): next = try current[index]
            }
            guard let next else { return nil }
            current = next
        }
        return current
    }
}
