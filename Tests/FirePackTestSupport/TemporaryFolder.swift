import Foundation

/// A new folder in the system's temporary folder (`firepack-NAME-UUID`), removed with everything in it when the last
/// reference to it goes. A suite that holds one as a stored property gets a folder per test (Swift Testing makes a
/// suite instance per test) and leaves nothing behind.
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Creates `firepack-NAME-UUID`.
    public init(_ name: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("firepack-\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` in the folder.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
