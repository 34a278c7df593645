#if FirePackHummingbird
public import Hummingbird

/// FirePack's HTTP media type, `application/vnd.firepack` (Docs/FORMAT.md §10): a body holding one bare FirePack value.
public enum FirePackMediaType {
    /// `application/vnd.firepack`.
    public static let name = "application/vnd.firepack"
}

extension MediaType {
    /// `application/vnd.firepack`: a body holding one bare FirePack value.
    public static var applicationFirePack: MediaType { MediaType(type: .application, subType: "vnd.firepack") }
}
#endif
