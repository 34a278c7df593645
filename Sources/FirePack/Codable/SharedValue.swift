/// A value held in one shared, immutable object: a copy costs one retain however large the value, and a change makes
/// a new object (the coders' settings, read once per call and changed rarely).
struct SharedValue<Value: Sendable>: Sendable {
    private final class Storage: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    private var storage: Storage

    init(_ value: Value) { storage = Storage(value) }

    /// The value.
    var value: Value {
        @inline(__always) get { storage.value }
    }

    /// Changes the value; other copies keep the value they had.
    mutating func update(_ change: (inout Value) -> Void) {
        var value = storage.value
        change(&value)
        storage = Storage(value)
    }
}

/// Coder options whose settings live in one `SharedValue`: `options.dateStrategy` reads and writes
/// `settings.value.dateStrategy` (a key path known at compile time, read as the stored property itself).
protocol SharedSettings: Sendable {
    associatedtype Settings: Sendable
    var settings: SharedValue<Settings> { get set }
}

extension SharedSettings {
    /// A setting; writing one makes the snapshot's own copy of the settings.
    subscript<T>(dynamicMember keyPath: WritableKeyPath<Settings, T>) -> T {
        get { settings.value[keyPath: keyPath] }
        set { settings.update { $0[keyPath: keyPath] = newValue } }
    }
}
