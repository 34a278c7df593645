import FirePack

/// One parser under fuzzing: a name for the command line and a function that feeds it one input.
///
/// `run` never traps on any input (that is what fuzzing checks); it reports whether the parser accepted the input,
/// rejected it with an error, or broke one of the invariants the target checks (a round trip that changed the value,
/// an error that names an offset outside the input).
public struct FuzzTarget: Sendable {
    /// The name used by `firepack-fuzz TARGET` and `scripts/fuzz.sh TARGET`, and the folder of its crashers.
    public let name: String
    /// What the target feeds the input to.
    public let summary: String
    /// Feeds one input to the parser.
    public let run: @Sendable ([UInt8]) -> FuzzOutcome

    /// Creates a target.
    public init(name: String, summary: String, run: @escaping @Sendable ([UInt8]) -> FuzzOutcome) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Every target, in the order `scripts/fuzz.sh` runs them.
    public static let all: [FuzzTarget] = [
        .value, .reader, .decoder, .json, .jsonLines, .restJSON, .proto, .stream, .streamJSON, .gzip, .export,
    ]

    /// The target called `name`, if there is one.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// What one input did to a parser.
public enum FuzzOutcome: Sendable, CustomStringConvertible {
    /// The parser accepted the input and every invariant held.
    case accepted
    /// The parser rejected the input with an error (the expected answer to most inputs).
    case rejected(String)
    /// An invariant broke: a finding, as serious as a crash.
    case violated(String)

    /// Whether an invariant broke.
    public var isViolation: Bool { if case .violated = self { true } else { false } }

    /// A one-line account.
    public var description: String {
        switch self {
        case .accepted: "accepted"
        case .rejected(let error): "rejected: \(error)"
        case .violated(let why): "INVARIANT VIOLATED: \(why)"
        }
    }
}

/// Collects the outcome of several checks on one input: the first violation wins, then the first rejection.
struct FuzzCheck {
    let input: [UInt8]
    private(set) var outcome = FuzzOutcome.accepted

    init(_ input: [UInt8]) { self.input = input }

    /// Runs `body` and returns its result; a thrown error is a rejection (nil), and a `FirePackError` must name an
    /// offset inside the input.
    @discardableResult
    mutating func attempt<T>(_ what: String, _ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch let error as FirePackError {
            if let offset = error.offset, offset < 0 || offset > input.count {
                fail("\(what): error names byte \(offset) of a \(input.count)-byte input: \(error)")
            }
            reject("\(what): \(error)")
        } catch {
            reject("\(what): \(error)")
        }
        return nil
    }

    /// Records a broken invariant unless `condition` holds.
    mutating func expect(_ condition: Bool, _ why: @autoclosure () -> String) {
        if !condition { fail(why()) }
    }

    private mutating func reject(_ why: String) {
        if case .accepted = outcome { outcome = .rejected(why) }
    }

    private mutating func fail(_ why: String) {
        if !outcome.isViolation { outcome = .violated(why) }
    }
}
