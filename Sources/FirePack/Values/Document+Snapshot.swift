#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How pending server timestamps read from a `Document`, as the Firestore SDK's `ServerTimestampBehavior`.
public enum ServerTimestampBehavior: Sendable, Hashable {
    /// As null (default): nil for `@ServerTimestamp` properties and optionals, `Value.null` from `get`.
    case none
    /// As an estimate: the document's `updateTime` when known, else the current time.
    case estimate
    /// As the previous value; a FirePack document has no previous value, so this reads as `.none` — what the SDK
    /// does too when it has none.
    case previous
}

extension Document {
    /// The fields decoded as `T`, as the SDK's `DocumentSnapshot.data(as:with:decoder:)`: `@DocumentID` properties
    /// are filled from the reference, errors name it, and pending server timestamps read as `serverTimestampBehavior`
    /// says (`.none` leaves `decoder.serverTimestampEstimate` in force, nil by default).
    public func data<T: Decodable>(
        as type: T.Type, with serverTimestampBehavior: ServerTimestampBehavior = .none,
        decoder: FirePackDecoder = FirePackDecoder()
    ) throws -> T {
        var options = decoder.options(reference: reference)
        if serverTimestampBehavior == .estimate { options.serverTimestampEstimate = serverTimestampEstimate }
        return try Value.map(fields).withScratchFirePackBytes { try decoder.decode(type, from: $0, options: options) }
    }

    /// The field at `fieldPath` (dot-separated names; a name holding `.`, `` ` `` or other characters beyond letters,
    /// digits and `_` is quoted in backticks, as in Firestore), or nil when the document has no such field; pending
    /// server timestamps in it read as `serverTimestampBehavior` says.
    ///
    /// - Precondition: `fieldPath` is well formed (no empty name, backticks closed), as the SDK requires; build a
    ///   `FieldPath` from names when they come from outside the program.
    public func get(_ fieldPath: String, serverTimestampBehavior: ServerTimestampBehavior = .none) -> Value? {
        get(FieldPath(parsing: fieldPath), serverTimestampBehavior: serverTimestampBehavior)
    }

    /// The field at `fieldPath`, or nil when the document has no such field; pending server timestamps in it read as
    /// `serverTimestampBehavior` says.
    public func get(_ fieldPath: FieldPath, serverTimestampBehavior: ServerTimestampBehavior = .none) -> Value? {
        var current = Value.map(fields)
        for name in fieldPath.fieldNames {
            guard case .map(let map) = current, let next = map[name] else { return nil }
            current = next
        }
        return resolving(current, serverTimestampBehavior)
    }

    /// `value` (read from this document) with its pending server timestamps as `behavior` says.
    package func resolving(_ value: Value, _ behavior: ServerTimestampBehavior) -> Value {
        switch behavior {
        case .none, .previous: value.replacingServerTimestamps(with: .null)
        case .estimate: value.replacingServerTimestamps(with: .timestamp(serverTimestampEstimate))
        }
    }

    /// The field at `fieldPath`, as `get(_:)` with `.none`.
    public subscript(fieldPath: String) -> Value? { self.get(fieldPath) }

    /// The document with every server-timestamp sentinel in its fields replaced by `time`.
    public func resolvingServerTimestamps(at time: Timestamp) -> Document {
        var copy = self
        guard case .map(let resolved) = Value.map(fields).replacingServerTimestamps(with: .timestamp(time)) else {
            preconditionFailure("a map stays a map")
        }
        copy.fields = resolved
        return copy
    }

    /// `resolvingServerTimestamps(at: time)` when a time is given, else the document as it is: what a conversion
    /// that may be given a time for pending server timestamps writes.
    package func resolvingServerTimestamps(ifAt time: Timestamp?) -> Document {
        time.map { resolvingServerTimestamps(at: $0) } ?? self
    }

    /// What `.estimate` reads for a pending server timestamp: the update time when known, else now.
    var serverTimestampEstimate: Timestamp { updateTime ?? Timestamp() }
}

extension Value {
    /// The value with every server-timestamp sentinel, at any depth, replaced by `time`.
    public func resolvingServerTimestamps(at time: Timestamp) -> Value {
        replacingServerTimestamps(with: .timestamp(time))
    }

    /// The value with every server-timestamp sentinel, at any depth, replaced by `replacement`.
    func replacingServerTimestamps(with replacement: Value) -> Value {
        switch self {
        case .serverTimestamp: replacement
        case .array(let elements): .array(elements.map { $0.replacingServerTimestamps(with: replacement) })
        case .map(let map): .map(MapValue(map.map { ($0.key, $0.value.replacingServerTimestamps(with: replacement)) }))
        default: self
        }
    }
}
