extension DecodingError {
    /// The same error with `prefix` in front of its coding path (errors of generated coding are raised relative to
    /// the value being decoded and get their path while they propagate, so a decode that succeeds builds no path).
    func prefixingPath(_ prefix: [any CodingKey]) -> DecodingError { mappingPath { prefix + $0 } }

    /// The same error with its coding path set to `base` + `entry` (for errors raised before the entry was pushed).
    func appendingToPath(_ entry: PathEntry, under base: [any CodingKey]) -> DecodingError {
        mappingPath { _ in base + [entry.codingKey] }
    }

    /// The same error with its context's coding path replaced by `transform` of it.
    func mappingPath(_ transform: ([any CodingKey]) -> [any CodingKey]) -> DecodingError {
        func map(_ context: Context) -> Context {
            .init(
                codingPath: transform(context.codingPath), debugDescription: context.debugDescription,
                underlyingError: context.underlyingError)
        }
        return switch self {
        case .typeMismatch(let type, let context): .typeMismatch(type, map(context))
        case .valueNotFound(let type, let context): .valueNotFound(type, map(context))
        case .keyNotFound(let key, let context): .keyNotFound(key, map(context))
        case .dataCorrupted(let context): .dataCorrupted(map(context))
        @unknown default: self
        }
    }
}

extension EncodingError {
    /// The same error with `prefix` in front of its coding path (see `DecodingError.prefixingPath`).
    func prefixingPath(_ prefix: [any CodingKey]) -> EncodingError {
        switch self {
        case .invalidValue(let value, let context):
            .invalidValue(
                value,
                .init(
                    codingPath: prefix + context.codingPath, debugDescription: context.debugDescription,
                    underlyingError: context.underlyingError))
        @unknown default: self
        }
    }
}

/// `error` with the key `key` in front of its coding path when it is a `DecodingError` or an `EncodingError`; any
/// other error as it is. Generated coding calls it as an error propagates out of a property.
@usableFromInline
func codingError(_ error: any Error, under key: StaticString) -> any Error {
    codingError(error, prefixedWith: AnyCodingKey(stringValue: key.description))
}

/// `error` with the array index `index` in front of its coding path (see `codingError(_:under:)`).
@usableFromInline
func codingError(_ error: any Error, at index: Int) -> any Error {
    codingError(error, prefixedWith: AnyCodingKey(index: index))
}

private func codingError(_ error: any Error, prefixedWith key: AnyCodingKey) -> any Error {
    switch error {
    case let error as DecodingError: error.prefixingPath([key])
    case let error as EncodingError: error.prefixingPath([key])
    default: error
    }
}
