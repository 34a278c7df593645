extension DecodingError {
    /// The same error with `prefix` in front of its coding path (errors of generated coding are raised relative to
    /// the value being decoded and get their path while they propagate, so a decode that succeeds builds no path).
    func prefixingPath(_ prefix: [any CodingKey]) -> DecodingError {
        switch self {
        case .typeMismatch(let type, let context): .typeMismatch(type, context.prefixingPath(prefix))
        case .valueNotFound(let type, let context): .valueNotFound(type, context.prefixingPath(prefix))
        case .keyNotFound(let key, let context): .keyNotFound(key, context.prefixingPath(prefix))
        case .dataCorrupted(let context): .dataCorrupted(context.prefixingPath(prefix))
        @unknown default: self
        }
    }
}

extension DecodingError.Context {
    func prefixingPath(_ prefix: [any CodingKey]) -> DecodingError.Context {
        .init(codingPath: prefix + codingPath, debugDescription: debugDescription, underlyingError: underlyingError)
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
