import Foundation

/// The shared benchmark corpus (../shared/corpus beside the repository); tests skip with a message where it is absent.
enum CorpusFiles {
    static let names = ["twitter.json", "citm_catalog.json", "canada.json"]

    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/corpus")

    static var isAvailable: Bool { FileManager.default.fileExists(atPath: directory.appendingPathComponent("twitter.json").path) }

    static let skipMessage = "../shared/corpus is absent: corpus tests skipped (they need twitter.json, citm_catalog.json, canada.json)"

    static func load(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }
}
