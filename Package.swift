// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "FirePack",
    products: [
        .executable(name: "firepack", targets: ["firepack"]),
        .library(name: "FirePack", targets: ["FirePack"]),
        .library(name: "FirePackInterop", targets: ["FirePackInterop"]),
        .library(name: "FirePackStreams", targets: ["FirePackStreams"]),
        // FirePack ↔ Apache Arrow (C Data and C Stream Interfaces), and its C ABI as a shared library for the Python
        // package and other languages (Docs/ARROW.md).
        .library(name: "FirePackArrow", targets: ["FirePackArrow"]),
        .library(name: "FirePackArrowC", type: .dynamic, targets: ["FirePackArrowC"]),
        // `@FirePackCodable`: generated coding. Only this product (and its tests) builds swift-syntax.
        .library(name: "FirePackMacros", targets: ["FirePackMacros"]),
        // swift-nio `ByteBuffer` reading and writing; built with the `FirePackNIO` trait.
        .library(name: "FirePackNIO", targets: ["FirePackNIO"]),
        // Hummingbird 2 request decoding, response encoding and content negotiation; the `FirePackHummingbird` trait.
        .library(name: "FirePackHummingbird", targets: ["FirePackHummingbird"]),
    ],
    // Server integrations are off by default: a package that depends on FirePack without naming these traits
    // neither fetches nor builds swift-nio or Hummingbird (SwiftPM prunes dependencies used only by disabled traits).
    traits: [
        .trait(name: "FirePackNIO", description: "The FirePackNIO module: FirePack in and out of swift-nio ByteBuffers."),
        .trait(name: "FirePackHummingbird", description: "The FirePackHummingbird module (and FirePackNIO): FirePack bodies in Hummingbird 2.",
               enabledTraits: ["FirePackNIO"]),
        .default(enabledTraits: []),
    ],
    dependencies: [
        // The command-line tool depends on swift-argument-parser and the macro plugin on swift-syntax; the FirePack,
        // FirePackInterop and FirePackStreams libraries depend on no package.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // Only with the FirePackNIO / FirePackHummingbird traits. Hummingbird's own default traits (swift-configuration
        // support, full Foundation) are not needed here.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // The C library's functions from the platform's headers (FoundationEssentials does not re-export them).
        .systemLibrary(name: "CFirePackSystem"),
        .target(name: "FirePack", dependencies: ["CFirePackSystem"]),
        .target(name: "FirePackInterop", dependencies: ["FirePack", "FirePackStreams", "CFirePackSystem"]),
        // The compiler plugin that expands `@FirePackCodable`, and the library that declares the macro.
        .macro(name: "FirePackMacrosPlugin", dependencies: [
            .product(name: "SwiftSyntax", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        ]),
        .target(name: "FirePackMacros", dependencies: ["FirePack", "FirePackMacrosPlugin"]),
        // Each module compiles to nothing unless its trait is enabled (`swift build --traits FirePackHummingbird`).
        .target(name: "FirePackNIO", dependencies: [
            "FirePack", "FirePackStreams", .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["FirePackNIO"])),
        ]),
        .target(name: "FirePackHummingbird", dependencies: [
            "FirePack", "FirePackNIO",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["FirePackHummingbird"])),
            .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio", condition: .when(traits: ["FirePackHummingbird"])),
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["FirePackHummingbird"])),
        ]),
        // zlib from the system (Debian zlib1g-dev): CRC-32 for stream records and gzip.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // CRC-32 with carry-less multiplication (x86-64), for stream records; zlib's table-driven crc32 elsewhere.
        .target(name: "CFirePackCRC32"),
        // zstd from the system (Debian libzstd-dev): the default codec of version-3 stream blocks.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .target(name: "FirePackStreams", dependencies: ["FirePack", "CFirePackSystem", "CZlib", "CZstd", "CFirePackCRC32"]),
        // The Arrow C Data Interface structs (a header of plain C structs; no Arrow library).
        .target(name: "CArrowABI"),
        .target(name: "FirePackArrow", dependencies: ["FirePack", "FirePackInterop", "FirePackStreams", "CArrowABI", "CFirePackSystem"]),
        .target(name: "FirePackArrowC", dependencies: ["FirePackArrow", "FirePackStreams", "CArrowABI", "CFirePackSystem"]),
        .executableTarget(name: "firepack", dependencies: [
            "FirePack", "FirePackInterop", "FirePackStreams", "FirePackArrow", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Shared by the test targets (a seeded random generator).
        .target(name: "FirePackTestSupport", dependencies: ["FirePack"], path: "Tests/FirePackTestSupport"),
        .testTarget(name: "FirePackTests", dependencies: ["FirePack", "FirePackTestSupport"]),
        .testTarget(name: "FirePackInteropTests", dependencies: ["FirePack", "FirePackInterop", "FirePackStreams", "FirePackTestSupport"]),
        // A file of Firestore-SDK-style code (the guide's models and calls) that must compile unchanged.
        .testTarget(name: "FirePackSDKStyleTests", dependencies: ["FirePack", "FirePackInterop"]),
        // Compiles and runs README.md's Swift blocks (ReadmeTour.swift is generated from them).
        .testTarget(name: "FirePackReadmeTests", dependencies: ["FirePack", "FirePackInterop", "FirePackMacros", "FirePackStreams"]),
        .testTarget(name: "FirePackStreamsTests", dependencies: ["FirePack", "FirePackStreams", "FirePackTestSupport", "CFirePackCRC32"]),
        .testTarget(name: "FirePackArrowTests", dependencies: ["FirePackArrow", "FirePack", "FirePackStreams", "CArrowABI", "FirePackTestSupport"]),
        // Runs the built firepack binary end to end.
        .testTarget(name: "FirePackToolTests", dependencies: ["firepack", "FirePack", "FirePackInterop", "FirePackStreams", "FirePackTestSupport"]),
        // The independent protobuf implementation the interop tests check against: protobuf-c (Debian
        // libprotobuf-c-dev) and C code generated by protoc-c from Tests/CFirestoreProto/proto.
        .target(name: "CFirestoreProto", path: "Tests/CFirestoreProto", exclude: ["proto"],
                linkerSettings: [.linkedLibrary("protobuf-c")]),
        // The fuzz targets of Fuzz/ (scripts/fuzz.sh), compiled here too so that the tests replay every kept crasher
        // and mutate every format through exactly the code the fuzzers run.
        .target(name: "FirePackFuzzTargets", dependencies: ["FirePack", "FirePackInterop", "FirePackStreams"],
                path: "Fuzz/Sources/FirePackFuzzTargets"),
        .testTarget(name: "FirePackFuzzRegressionTests", dependencies: ["FirePackFuzzTargets", "FirePackTestSupport"],
                    exclude: ["Crashers"]),
        // Expansion of every supported shape and every diagnostic, with swift-syntax's macro test support.
        .testTarget(name: "FirePackMacrosTests", dependencies: [
            "FirePackMacrosPlugin",
            .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
        ]),
        // The generated path against the Codable path: same bytes, same values, same errors.
        .testTarget(name: "FirePackGeneratedTests", dependencies: ["FirePack", "FirePackMacros", "FirePackStreams", "FirePackTestSupport"]),
        .testTarget(name: "FirePackNIOTests", dependencies: [
            "FirePackNIO", "FirePackMacros", "FirePackTestSupport", "FirePackStreams",
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["FirePackNIO"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["FirePackNIO"])),
        ]),
        .testTarget(name: "FirePackHummingbirdTests", dependencies: [
            "FirePackHummingbird", "FirePackMacros",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["FirePackHummingbird"])),
        ]),
        // The example service (Examples/BookService): a Hummingbird server with JSON and FirePack routes, its client,
        // and the integration tests that start it on a loopback port. Built with the FirePackHummingbird trait.
        .target(name: "BookService", dependencies: [
            "FirePackHummingbird", "FirePackMacros",
            .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["FirePackHummingbird"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["FirePackHummingbird"])),
            .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["FirePackHummingbird"])),
            .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio", condition: .when(traits: ["FirePackHummingbird"])),
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["FirePackHummingbird"])),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras", condition: .when(traits: ["FirePackHummingbird"])),
        ], path: "Examples/BookService/Sources/BookService"),
        .executableTarget(name: "book-service", dependencies: [
            "BookService", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Examples/BookService/Sources/book-service"),
        .executableTarget(name: "book-client", dependencies: [
            "BookService", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Examples/BookService/Sources/book-client"),
        .testTarget(name: "BookServiceTests", dependencies: ["BookService", "FirePackTestSupport"], path: "Examples/BookService/Tests/BookServiceTests"),
        .testTarget(name: "FirePackProtobufCTests", dependencies: ["FirePack", "FirePackInterop", "CFirestoreProto", "FirePackTestSupport"]),
    ]
)
